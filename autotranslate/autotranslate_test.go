package autotranslate

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

func TestMain(m *testing.M) { indextest.Main(m) }

// seedLanguages gives the index English and German.
func seedLanguages(tb testing.TB, db *sqlstore.DB) {
	tb.Helper()
	var langs []index.Language
	for _, code := range []string{"en", "de"} {
		l, _ := langdata.Default().Get(code)
		langs = append(langs, l)
	}
	if err := db.SeedLanguages(context.Background(), langs); err != nil {
		tb.Fatal(err)
	}
}

// seedPair adds project p with components "old" (n strings, German
// translated) and "new" (the same sources, German empty), and returns
// new's German translation.
func seedPair(tb testing.TB, db *sqlstore.DB, n int) index.Translation {
	tb.Helper()
	ctx := context.Background()
	p := servertest.MustProject(tb, db, index.Project{Name: "P", Slug: "p"})
	for _, slug := range []string{"old", "new"} {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Template = p.ID, slug, slug, slug+"/en.json"
		c.Repo, c.Branch, c.Filemask = "file:///srv/"+slug+".git", "main", slug+"/*.json"
		c = servertest.MustComponent(tb, db, c)
		var src, de []index.ImportUnit
		for i := range n {
			key, text := fmt.Sprintf("k%d", i), fmt.Sprintf("String number %d", i)
			src = append(src, servertest.Unit(key, text, text, index.StateReadOnly))
			target, state := "", index.StateEmpty
			if slug == "old" {
				target, state = fmt.Sprintf("Zeichenkette %d", i), index.StateTranslated
			}
			de = append(de, servertest.Unit(key, text, target, state))
		}
		id := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
			Filename: slug + "/en.json", Revision: "1", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
		servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
			Filename: slug + "/de.json", Revision: "1", Monolingual: true, SourceTranslationID: id, Units: de})
	}
	t, err := db.FindTranslation(ctx, "p", "new", "de")
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// pairRunner is a runner over a fresh index with seedPair's n strings.
func pairRunner(t *testing.T, n int) (*sqlstore.DB, index.Translation, *Runner) {
	t.Helper()
	db := indextest.Open(t)
	seedLanguages(t, db)
	tr := seedPair(t, db, n)
	r := New(db, Options{})
	t.Cleanup(r.Close)
	return db, tr, r
}

// crashingStore is the real index whose third batch write never
// happens: the process "dies" first, its runner stopped as a kill stops
// it, between two transactions.
type crashingStore struct {
	*sqlstore.DB
	runner  *Runner
	batches int
}

func (s *crashingStore) ApplyAutoTranslateBatch(ctx context.Context, id string, b index.AutoBatch) (int, error) {
	if s.batches++; s.batches == 3 {
		s.runner.stop()
		return 0, errors.New("killed")
	}
	return s.DB.ApplyAutoTranslateBatch(ctx, id, b)
}

// TestResumeAfterKill: a job stopped midway stays open with its cursor;
// the next process's Resume finishes it, and every string is translated
// exactly once (one change 6 each) with the counts exact.
func TestResumeAfterKill(t *testing.T) {
	ctx := context.Background()
	db := indextest.Open(t)
	seedLanguages(t, db)
	tr := seedPair(t, db, 25)
	crash := &crashingStore{DB: db}
	r1 := New(crash, Options{BatchSize: 4})
	crash.runner = r1
	j, done, err := r1.Start(ctx, tr, 0, index.AutoTranslateParams{Mode: index.AutoTranslate,
		Query: index.AutoDefaultQuery, Source: index.AutoSourceOthers, Threshold: 80})
	if err != nil {
		t.Fatal(err)
	}
	<-done
	r1.Close()
	j, err = db.FindAutoTranslateJob(ctx, j.ID)
	if err != nil || j.Completed || j.Done != 8 || j.Updated != 8 || j.Total != 25 {
		t.Fatalf("job after the kill = %+v, %v; want open after 2 batches of 4", j, err)
	}

	r2 := New(db, Options{BatchSize: 4})
	defer r2.Close()
	if n, err := r2.Resume(ctx); err != nil || n != 1 {
		t.Fatalf("resume = %d, %v", n, err)
	}
	for deadline := time.Now().Add(20 * time.Second); !j.Completed; time.Sleep(10 * time.Millisecond) {
		if j, err = db.FindAutoTranslateJob(ctx, j.ID); err != nil || time.Now().After(deadline) {
			t.Fatalf("job not done: %+v, %v", j, err)
		}
	}
	if j.Err != "" || j.Done != 25 || j.Updated != 25 || j.Progress() != 100 {
		t.Errorf("resumed job = %+v", j)
	}
	changes, _, err := db.FindChanges(ctx, index.ChangeFilter{TranslationID: tr.ID, Actions: []index.Action{index.ActionAutoTranslated},
		Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		t.Fatal(err)
	}
	per := map[int64]int{}
	for _, c := range changes {
		per[c.UnitID]++
	}
	if len(changes) != 25 || len(per) != 25 {
		t.Errorf("%d changes 6 on %d units, want one on each of 25", len(changes), len(per))
	}
	stats, err := db.TranslationStats(ctx, tr.ID)
	if err != nil || stats.Translated != 25 {
		t.Errorf("translated = %d, %v", stats.Translated, err)
	}
	indextest.CheckCounts(t, db)
	// Nothing left to resume.
	if n, err := New(db, Options{}).Resume(ctx); err != nil || n != 0 {
		t.Errorf("second resume = %d, %v", n, err)
	}
}

// TestCancel: a cancelled job completes with the reference's error and
// writes nothing more.
func TestCancel(t *testing.T) {
	ctx := context.Background()
	db, tr, r := pairRunner(t, 3)
	j, err := db.CreateAutoTranslateJob(ctx, index.AutoTranslateJob{ID: "c", ProjectID: tr.Component.ProjectID,
		ComponentID: tr.ComponentID, TranslationID: tr.ID, Params: index.AutoTranslateParams{Mode: index.AutoSuggest,
			Query: index.AutoDefaultQuery, Source: index.AutoSourceOthers, Threshold: 80}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CancelJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if j, _ = db.FindAutoTranslateJob(ctx, j.ID); !j.Completed || j.Err != errCancelled.Error() {
		t.Errorf("cancelled job = %+v", j)
	}
	if n, _ := r.Resume(ctx); n != 0 {
		t.Errorf("a cancelled job resumed")
	}
}

// TestAddon: the add-on's configuration as the reference stores it, and
// its run over a component's translations, restricted to a component
// named as the configuration names it.
func TestAddon(t *testing.T) {
	for _, c := range []struct {
		cfg  map[string]any
		want string // the params, or the field refused
	}{
		{map[string]any{}, "suggest state:<translated others 80 []"},
		{map[string]any{"mode": "translate", "filter_type": "nottranslated", "threshold": "90"}, "translate state:empty others 90 []"},
		{map[string]any{"mode": "fuzzy", "q": "has:check", "auto_source": "mt", "engines": []any{"weblate"}, "threshold": 75.0},
			"fuzzy has:check mt 75 [weblate]"},
		{map[string]any{"mode": "everything"}, "configuration.mode"},
		{map[string]any{"q": "state:<<"}, "configuration.q"},
		{map[string]any{"filter_type": "bogus"}, "configuration.filter_type"},
		{map[string]any{"threshold": 0}, "configuration.threshold"},
		{map[string]any{"auto_source": "mt"}, "configuration.engines"},
		{map[string]any{"engines": "weblate"}, "configuration.engines"},
		{map[string]any{"mode": []any{"x"}}, "configuration.mode"},
	} {
		a, err := index.ParseAutoTranslateAddon(c.cfg)
		p := a.Params
		got := fmt.Sprintf("%s %s %s %d %v", p.Mode, p.Query, p.Source, p.Threshold, p.Engines)
		var fe *index.FieldError
		if errors.As(err, &fe) {
			for k := range fe.Fields {
				got = k
			}
		} else if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("ParseAutoTranslateAddon(%v) = %s, want %s", c.cfg, got, c.want)
		}
	}

	ctx := context.Background()
	db, tr, r := pairRunner(t, 5)
	a, err := index.ParseAutoTranslateAddon(map[string]any{"mode": "translate", "component": "p/old"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunComponent(ctx, tr.Component, a.Params, "p/missing"); err == nil {
		t.Error("a missing component ran")
	}
	n, err := r.RunAddon(ctx, index.Addon{Name: index.AddonAutoTranslate, AutoTranslate: a}, tr.Component)
	if err != nil || n != 5 {
		t.Errorf("add-on run = %d, %v; want the 5 German strings", n, err)
	}
	indextest.CheckCounts(t, db)
}
