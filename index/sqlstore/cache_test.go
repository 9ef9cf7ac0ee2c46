package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// TestLookupsFollowWrites reads each cached lookup, writes, and reads
// again: the second read must see the write.
func TestLookupsFollowWrites(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "de.json", Revision: "a",
		Monolingual: true, Units: units("hello", "Hello", "", "bye", "Bye", "")}
	if _, err := db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := db.SeedLanguages(ctx, []index.Language{{Code: "de", Name: "German", Direction: "ltr"}}); err != nil {
		t.Fatal(err)
	}

	tr, err := db.FindTranslation(ctx, "demo", "app", "de")
	if err != nil || tr.Stats.Translated != 0 {
		t.Fatalf("before: %+v, %v", tr.Stats, err)
	}
	if byID, err := db.FindTranslationByID(ctx, tr.ID); err != nil || byID.Stats.Translated != 0 {
		t.Fatalf("by id before: %+v, %v", byID.Stats, err)
	}
	p, _ := db.FindProject(ctx, "demo")
	comp, _ := db.FindComponent(ctx, "demo", "app")
	lang, _ := db.FindLanguage(ctx, "de")
	if p.Name != "Demo" || comp.Name != "App" || lang.Name != "German" {
		t.Fatalf("before: %q %q %q", p.Name, comp.Name, lang.Name)
	}

	imp.Revision, imp.Units = "b", units("hello", "Hello", "Hallo", "bye", "Bye", "")
	if _, err := db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	p.Name = "Demo renamed"
	if _, _, err := db.SaveProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	comp.Name = "App renamed"
	if _, _, err := db.SaveComponent(ctx, comp); err != nil {
		t.Fatal(err)
	}
	if err := db.SeedLanguages(ctx, []index.Language{{Code: "de", Name: "Deutsch", Direction: "ltr"}}); err != nil {
		t.Fatal(err)
	}

	if tr, _ := db.FindTranslation(ctx, "demo", "app", "de"); tr.Stats.Translated != 1 ||
		tr.Component.Name != "App renamed" || tr.Component.Project.Name != "Demo renamed" {
		t.Errorf("after: translated %d, component %q, project %q", tr.Stats.Translated, tr.Component.Name,
			tr.Component.Project.Name)
	}
	if tr, _ := db.FindTranslationByID(ctx, tr.ID); tr.Stats.Translated != 1 || tr.Component.Name != "App renamed" {
		t.Errorf("by id after: translated %d, component %q", tr.Stats.Translated, tr.Component.Name)
	}
	if p, _ := db.FindProject(ctx, "demo"); p.Name != "Demo renamed" {
		t.Errorf("project after rename: %q", p.Name)
	}
	if c, _ := db.FindComponent(ctx, "demo", "app"); c.Name != "App renamed" {
		t.Errorf("component after rename: %q", c.Name)
	}
	if l, _ := db.FindLanguage(ctx, "de"); l.Name != "Deutsch" {
		t.Errorf("language after reseed: %q", l.Name)
	}
	if _, err := db.FindProject(ctx, "nope"); err == nil {
		t.Error("an unknown project was found")
	}
}

// TestStatsFollowWritesAndTime checks the statistics cache: a write shows
// at once, and recent_changes follows the clock within a second.
func TestStatsFollowWritesAndTime(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	db := indextest.OpenWith(t, sqlstore.Options{Now: func() time.Time { return now }})
	c := mustComponent(t, db)
	imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "de.json", Revision: "a",
		Monolingual: true, Units: units("hello", "Hello", "")}
	res, err := db.ImportTranslation(ctx, imp)
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.TranslationStats(ctx, res.TranslationID)
	if err != nil || st.Translated != 0 || st.RecentChanges == 0 {
		t.Fatalf("before: %+v, %v", st, err)
	}
	recent := st.RecentChanges

	imp.Revision, imp.Units = "b", units("hello", "Hello", "Hallo")
	if _, err := db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.TranslationStats(ctx, res.TranslationID); st.Translated != 1 || st.RecentChanges <= recent {
		t.Errorf("after a write: translated %d, recent %d (was %d)", st.Translated, st.RecentChanges, recent)
	}
	// A day later, with no write in between, the changes have aged out.
	now = now.Add(25 * time.Hour)
	if st, _ := db.TranslationStats(ctx, res.TranslationID); st.RecentChanges != 0 || st.Translated != 1 {
		t.Errorf("a day later: recent %d, translated %d", st.RecentChanges, st.Translated)
	}
}

// TestPagesFollowWrites reads unit and change pages, reads them again
// (answered from the page cache: the very same rows), writes, and reads
// once more: the last read must see the write.
func TestPagesFollowWrites(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "de.json", Revision: "a",
		Monolingual: true, Units: units("hello", "Hello", "", "bye", "Bye", "")}
	res, err := db.ImportTranslation(ctx, imp)
	if err != nil {
		t.Fatal(err)
	}
	page := index.Page{Number: 1, Size: 50}
	uf := index.UnitFilter{TranslationID: res.TranslationID, Page: page}
	cf := index.ChangeFilter{TranslationID: res.TranslationID, Page: page}
	before, n, err := db.FindUnits(ctx, uf)
	if err != nil || n != 2 || before[0].Target[0] != "" {
		t.Fatalf("units before: %d %+v %v", n, before, err)
	}
	changesBefore, nChanges, err := db.FindChanges(ctx, cf)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := db.FindUnits(ctx, uf)
	changesAgain, _, _ := db.FindChanges(ctx, cf)
	if &again[0] != &before[0] || len(changesAgain) > 0 && &changesAgain[0] != &changesBefore[0] {
		t.Error("a second read with no write in between was not answered from the page cache")
	}

	imp.Revision, imp.Units = "b", units("hello", "Hello", "Hallo", "bye", "Bye", "", "new", "New", "")
	if _, err := db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	after, n, err := db.FindUnits(ctx, uf)
	if err != nil || n != 3 || len(after) != 3 || after[0].Target[0] != "Hallo" {
		t.Errorf("units after the write: %d %+v %v", n, after, err)
	}
	if _, m, err := db.FindChanges(ctx, cf); err != nil || m <= nChanges {
		t.Errorf("changes after the write: %d (were %d), %v", m, nChanges, err)
	}
	// Distinct filters are distinct pages.
	if q, m, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID, Query: "Hallo",
		Page: page}); err != nil || m != 1 || len(q) != 1 {
		t.Errorf("search after the write: %d %+v %v", m, q, err)
	}
	if p2, m, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID,
		Page: index.Page{Number: 2, Size: 2}}); err != nil || m != 3 || len(p2) != 1 || p2[0].ID != after[2].ID {
		t.Errorf("page 2 of 2: %d %+v %v", m, p2, err)
	}
}

// TestPagesUnderConcurrentWrites reads a page from several goroutines
// while imports change it: whatever a reader saw before, a read that
// starts after an import has returned must show that import.
func TestPagesUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "de.json", Revision: "r0",
		Monolingual: true, Units: units("hello", "Hello", "v0")}
	res, err := db.ImportTranslation(ctx, imp)
	if err != nil {
		t.Fatal(err)
	}
	f := index.UnitFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: 50}}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := db.FindUnits(ctx, f); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 1; i <= 30; i++ {
		want := fmt.Sprintf("v%d", i)
		imp.Revision, imp.Units = want, units("hello", "Hello", want)
		if _, err := db.ImportTranslation(ctx, imp); err != nil {
			t.Fatal(err)
		}
		if got, _, err := db.FindUnits(ctx, f); err != nil || len(got) != 1 || got[0].Target[0] != want {
			t.Fatalf("after import %d: %+v, %v", i, got, err)
		}
	}
	close(stop)
	readers.Wait()
}

// TestPageGenerations checks the generations the index notes for a
// request's list page (index.PageReceipt), which the API keys its
// rendered bodies on: a page read again before any write touched it
// keeps its generation, a page read anew gets a new one, a full page of
// changes that only grew keeps its rows' generation with the new total,
// and an index without a page cache promises nothing.
func TestPageGenerations(t *testing.T) {
	ctx := context.Background()
	receipt := func(t *testing.T, find func(context.Context) error) index.PageReceipt {
		t.Helper()
		req := index.WithRequestStart(ctx, time.Now())
		if err := find(req); err != nil {
			t.Fatal(err)
		}
		r, ok := index.LastPage(req)
		if !ok {
			t.Fatal("the index noted no page for the request")
		}
		return r
	}
	open := func(t *testing.T, o sqlstore.Options) (*sqlstore.DB, func(context.Context) error, func() index.ChangeFilter, func()) {
		db := indextest.OpenWith(t, o)
		c := mustComponent(t, db)
		res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
			Filename: "de.json", Revision: "a", Monolingual: true, Units: units("hello", "Hello", "", "bye", "Bye", "")})
		if err != nil {
			t.Fatal(err)
		}
		units := func(ctx context.Context) error {
			_, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: 50}})
			return err
		}
		// A page of the translation's changes as long as the list, so full.
		fullChanges := func() index.ChangeFilter {
			_, n, err := db.FindChanges(ctx, index.ChangeFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: 1}})
			if err != nil {
				t.Fatal(err)
			}
			return index.ChangeFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: n}}
		}
		n := 0
		edit := func() {
			page, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: 1}})
			if err != nil {
				t.Fatal(err)
			}
			n++
			if _, err := db.UpdateUnit(ctx, page[0].ID, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
				return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{fmt.Sprint("Hallo ", n)}, State: index.StateTranslated}}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		return db, units, fullChanges, edit
	}

	t.Run("cached", func(t *testing.T) {
		db, units, fullChanges, edit := open(t, sqlstore.Options{})
		first, again := receipt(t, units), receipt(t, units)
		if first.Generation == 0 || again != first || first.Rows != 2 || first.Total != 2 {
			t.Errorf("the same page read twice: %+v, then %+v; want one non-zero generation, 2 rows of 2", first, again)
		}
		edit()
		if after := receipt(t, units); after.Generation == 0 || after.Generation == first.Generation {
			t.Errorf("the page read after an edit: %+v, want a new generation (was %d)", after, first.Generation)
		}
		cf := fullChanges()
		changes := func(ctx context.Context) error { _, _, err := db.FindChanges(ctx, cf); return err }
		before := receipt(t, changes)
		edit()
		grown := receipt(t, changes)
		if before.Generation == 0 || grown.Generation != before.Generation || grown.Total <= before.Total ||
			grown.Rows != before.Rows {
			t.Errorf("a full page of changes before and after an edit appended one: %+v, then %+v; "+
				"want the same rows and generation, a larger total", before, grown)
		}
	})
	t.Run("no page cache", func(t *testing.T) {
		_, units, _, _ := open(t, sqlstore.Options{PageCacheBytes: sqlstore.NoPageCache})
		if r := receipt(t, units); r.Generation != 0 || r.Rows != 2 {
			t.Errorf("a page of an index without a page cache: %+v, want generation 0 and its 2 rows", r)
		}
	})
}
