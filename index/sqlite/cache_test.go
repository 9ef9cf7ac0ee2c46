package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
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
	db := mustOpen(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
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
