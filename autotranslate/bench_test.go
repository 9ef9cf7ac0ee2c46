package autotranslate

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/machinery"
)

// corpusStrings reads a flat JSON file of the corpus (key → text).
func corpusStrings(tb testing.TB, path string) map[string]string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("corpus: %v", err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// seedJellyfin imports jellyfin-web's English and German as component
// "jellyfin" of project p (German translated) and returns a function
// adding a copy with the German empty, whose translation it returns.
func seedJellyfin(tb testing.TB, db *sqlstore.DB) (add func(slug string) index.Translation, n int) {
	tb.Helper()
	const dir = "../../shared/corpus/jellyfin-web/src/strings/"
	en, de := corpusStrings(tb, dir+"en-us.json"), corpusStrings(tb, dir+"de.json")
	keys := slices.Sorted(maps.Keys(en))
	p := servertest.MustProject(tb, db, index.Project{Name: "P", Slug: "p"})
	add = func(slug string) index.Translation {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Template = p.ID, slug, slug, slug+"/en.json"
		c.Repo, c.Branch, c.Filemask = "file:///srv/"+slug+".git", "main", slug+"/*.json"
		c = servertest.MustComponent(tb, db, c)
		var src, tr []index.ImportUnit
		for _, k := range keys {
			src = append(src, servertest.Unit(k, en[k], en[k], index.StateReadOnly))
			target, state := "", index.StateEmpty
			if slug == "jellyfin" && de[k] != "" {
				target, state = de[k], index.StateTranslated
			}
			tr = append(tr, servertest.Unit(k, en[k], target, state))
		}
		id := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
			Filename: slug + "/en.json", Revision: "1", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
		servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
			Filename: slug + "/de.json", Revision: "1", Monolingual: true, SourceTranslationID: id, Units: tr})
		t, err := db.FindTranslation(context.Background(), "p", slug, "de")
		if err != nil {
			tb.Fatal(err)
		}
		return t
	}
	add("jellyfin")
	return add, len(keys)
}

// BenchmarkAutoTranslateJellyfin times a whole automatic translation of
// jellyfin-web's 1,946 German strings, empty in a copy of the component,
// from the original: "others" (the same source text in another
// component, through units_source_prefix) and "mt" with the translation
// memory as the engine (fuzzy lookups, threshold 80). Each iteration
// translates a fresh copy; the import is not timed.
func BenchmarkAutoTranslateJellyfin(b *testing.B) {
	ctx := context.Background()
	db := indextest.Open(b)
	seedLanguages(b, db)
	add, n := seedJellyfin(b, db)
	broker, err := machinery.New(machinery.Options{Memory: db, SameSource: db,
		Site: map[string]machinery.Config{"weblate-translation-memory": {}}})
	if err != nil {
		b.Fatal(err)
	}
	r := New(db, Options{Machinery: broker})
	defer r.Close()
	// Copies are numbered across every run of the sub-benchmarks: with
	// -count above 1 each runs again over the same index, and a slug
	// numbered per run would name a copy translated already.
	copies := 0
	for _, c := range []struct {
		name string
		p    index.AutoTranslateParams
	}{
		{"others", index.AutoTranslateParams{Source: index.AutoSourceOthers}},
		{"memory", index.AutoTranslateParams{Source: index.AutoSourceMT, Engines: []string{"weblate-translation-memory"}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := c.p
			p.Mode, p.Query, p.Threshold = index.AutoTranslate, index.AutoDefaultQuery, 80
			for b.Loop() {
				b.StopTimer()
				copies++
				t := add(fmt.Sprintf("%s%d", c.name, copies))
				b.StartTimer()
				j, done, err := r.Start(ctx, t, 0, p)
				if err != nil {
					b.Fatal(err)
				}
				<-done
				b.StopTimer()
				if j, err = db.FindAutoTranslateJob(ctx, j.ID); err != nil || j.Err != "" || j.Updated < n*9/10 {
					b.Fatalf("job = %+v, %v: want most of %d strings updated", j, err, n)
				}
				b.StartTimer()
			}
		})
	}
}
