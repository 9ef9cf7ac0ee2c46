package sqlstore

import (
	"context"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// mustSameSourceCorpus imports jellyfin-web's strings (the corpus) as
// three components of one project, "web", "app" and "tv", each with its
// English source and German and French translations, and returns the
// index, the project's id and every English text once, with one text
// that is in none.
func mustSameSourceCorpus(tb testing.TB) (*DB, int64, []string) {
	tb.Helper()
	const dir = "../../../shared/corpus/jellyfin-web/src/strings/"
	read := func(name string) map[string]string {
		b, err := os.ReadFile(dir + name)
		if err != nil {
			tb.Skipf("corpus: %v", err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			tb.Fatal(err)
		}
		return m
	}
	en, de, fr := read("en-us.json"), read("de.json"), read("fr.json")
	keys := slices.Sorted(maps.Keys(en))

	ctx := context.Background()
	db, err := openFresh(tb)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	p, _, err := db.SaveProject(ctx, index.Project{Name: "P", Slug: "p"})
	if err != nil {
		tb.Fatal(err)
	}
	// "web" holds every German string, "app" every other one and a key
	// of its own per string, "tv" the French: the same texts under
	// several components, languages and states.
	for ci, slug := range []string{"web", "app", "tv"} {
		c := mustTestComponent(tb, db, p.ID, slug)
		var src []index.ImportUnit
		for i, k := range keys {
			if slug == "app" {
				k = "app." + k
			}
			if slug == "tv" && i%3 == 0 {
				continue
			}
			src = append(src, index.ImportUnit{Context: k, Source: []string{en[strings.TrimPrefix(k, "app.")]},
				Target: []string{en[strings.TrimPrefix(k, "app.")]}, State: index.StateReadOnly})
		}
		res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
			Filename: "en.json", Revision: "1", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
		if err != nil {
			tb.Fatal(err)
		}
		for _, lang := range []string{"de", "fr"} {
			targets := map[string]map[string]string{"de": de, "fr": fr}[lang]
			var tr []index.ImportUnit
			for i, su := range src {
				target, state := "", index.StateEmpty
				if tt := targets[strings.TrimPrefix(su.Context, "app.")]; tt != "" && (ci != 1 || i%2 == 0) {
					target, state = tt, index.StateTranslated
					if i%5 == 0 {
						state = index.StateApproved
					}
				}
				tr = append(tr, index.ImportUnit{Context: su.Context, Source: su.Source, Target: []string{target},
					State: state})
			}
			if _, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang,
				Filename: lang + ".json", Revision: "1", Monolingual: true, SourceTranslationID: res.TranslationID,
				Units: tr}); err != nil {
				tb.Fatal(err)
			}
		}
	}

	texts := slices.Compact(slices.Sorted(maps.Values(en)))
	return db, p.ID, append(texts, "Not a string of the corpus")
}

var analyzeSameSource = flag.Bool("analyze-same-source", true,
	"BenchmarkFindSameSource: ANALYZE a PostgreSQL index before timing")

// BenchmarkFindSameSource times the "others" lookup of automatic
// translation on jellyfin-web as three components (mustSameSourceCorpus:
// 5,189 source units, 15,567 units): every English text at once, from
// "web"'s point of view (the other two components' German strings), as
// autotranslate asks for a whole translation.
//
//	go test ./index/sqlstore -run '^$' -bench FindSameSource -benchtime 20x -count 3
func BenchmarkFindSameSource(b *testing.B) {
	db, projectID, texts := mustSameSourceCorpus(b)
	ctx := context.Background()
	web, err := db.FindComponent(ctx, "p", "web")
	if err != nil {
		b.Fatal(err)
	}
	f := index.SameSourceFilter{ProjectID: projectID, ExcludeComponentID: web.ID, SourceLanguage: "en",
		Language: "de", Sources: texts}
	// PostgreSQL plans by its statistics, which autovacuum gathers soon
	// after an import this size; the benchmark measures them gathered.
	// Without them its plan may start from the translations' units
	// instead (BENCHMARKS.md, "Session 6: import").
	if *analyzeSameSource && db.dialect.name != "sqlite" {
		if _, err := db.r.ExecContext(ctx, `ANALYZE`); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := db.FindSameSource(ctx, f)
		if err != nil || len(got) < 1000 {
			b.Fatalf("FindSameSource: %d matches, %v", len(got), err)
		}
	}
}
