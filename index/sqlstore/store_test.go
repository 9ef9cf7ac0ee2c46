package sqlstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// mustOpen opens a fresh index on the engine under test.
func mustOpen(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	return indextest.Open(tb)
}

func mustComponent(tb testing.TB, db *sqlstore.DB) index.Component {
	tb.Helper()
	ctx := context.Background()
	p, _, err := db.SaveProject(ctx, index.Project{Name: "Demo", Slug: "demo"})
	if err != nil {
		tb.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template = p.ID, "App", "app", "locales/en.json"
	c, _, err = db.SaveComponent(ctx, c)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func units(pairs ...string) []index.ImportUnit {
	var out []index.ImportUnit
	for i := 0; i+2 < len(pairs)+1; i += 3 {
		state := index.StateTranslated
		if pairs[i+2] == "" {
			state = index.StateEmpty
		}
		out = append(out, index.ImportUnit{Context: pairs[i], Source: []string{pairs[i+1]},
			Target: []string{pairs[i+2]}, State: state})
	}
	return out
}

func TestImportIsIdempotentAndKeepsIDs(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	src := index.TranslationImport{ComponentID: c.ID, LanguageCode: "en", Filename: "locales/en.json",
		Revision: "a,a", IsSource: true, IsTemplate: true, Monolingual: true,
		Units: units("hello", "Hello", "Hello", "bye", "Good bye", "Good bye")}
	for i := range src.Units {
		src.Units[i].State = index.StateReadOnly
	}
	res, err := db.ImportTranslation(ctx, src)
	if err != nil || !res.Created || res.Added != 2 {
		t.Fatalf("source import = %+v, %v", res, err)
	}
	de := index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "locales/de.json",
		Revision: "b,a", Monolingual: true, SourceTranslationID: res.TranslationID,
		Units: units("hello", "Hello", "Hallo", "bye", "Good bye", "")}
	res2, err := db.ImportTranslation(ctx, de)
	if err != nil || res2.Added != 2 {
		t.Fatalf("de import = %+v, %v", res2, err)
	}
	before, total, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res2.TranslationID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil || total != 2 {
		t.Fatalf("FindUnits = %d, %v", total, err)
	}
	if before[0].SourceUnitID == 0 || before[0].SourceUnitID == before[0].ID {
		t.Errorf("translation unit not linked to its source unit: %+v", before[0])
	}
	_, nChanges, _ := db.FindChanges(ctx, index.ChangeFilter{ComponentID: c.ID, Page: index.Page{Number: 1, Size: 50}})

	again, err := db.ImportTranslation(ctx, de)
	if err != nil || again.Changed {
		t.Fatalf("re-import changed something: %+v, %v", again, err)
	}
	_, nAfter, _ := db.FindChanges(ctx, index.ChangeFilter{ComponentID: c.ID, Page: index.Page{Number: 1, Size: 50}})
	if nAfter != nChanges {
		t.Errorf("re-import recorded %d changes", nAfter-nChanges)
	}

	// Translate "bye" upstream: same unit id, a 59 change, stats follow.
	de.Units = units("hello", "Hello", "Hallo", "bye", "Good bye", "Tschüss")
	de.Revision = "c,a"
	upd, err := db.ImportTranslation(ctx, de)
	if err != nil || upd.Updated != 1 || upd.Added != 0 {
		t.Fatalf("update import = %+v, %v", upd, err)
	}
	after, _, _ := db.FindUnits(ctx, index.UnitFilter{TranslationID: res2.TranslationID, Page: index.Page{Number: 1, Size: 50}})
	if after[1].ID != before[1].ID || after[1].Target[0] != "Tschüss" {
		t.Errorf("unit changed id or target: before %+v after %+v", before[1], after[1])
	}
	changes, _, _ := db.FindChanges(ctx, index.ChangeFilter{TranslationID: res2.TranslationID,
		Actions: []index.Action{index.ActionStringRepoUpdate}, Page: index.Page{Number: 1, Size: 50}})
	if len(changes) != 1 || changes[0].UnitID != after[1].ID || changes[0].Target != "Tschüss" || changes[0].UserID != 0 {
		t.Errorf("changes = %+v", changes)
	}
	st, err := db.TranslationStats(ctx, res2.TranslationID)
	if err != nil || st.Total != 2 || st.Translated != 2 || st.TotalWords != 3 {
		t.Errorf("stats = %+v, %v", st, err)
	}
	ls, _ := db.LanguageStats(ctx, "de")
	if ls.Total != 2 || ls.Translated != 2 {
		t.Errorf("language stats = %+v", ls)
	}
	cs, _ := db.ComponentStats(ctx, c.ID)
	if cs.Total != 4 || cs.Translated != 4 || cs.Readonly != 2 {
		t.Errorf("component stats = %+v", cs)
	}
}

func TestImportLoadErrorKeepsUnits(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: "fr", Revision: "1", Monolingual: true,
		Units: units("a", "A", "Ah")}
	res, err := db.ImportTranslation(ctx, imp)
	if err != nil {
		t.Fatal(err)
	}
	bad := imp
	bad.Units, bad.LoadError, bad.Revision = nil, "line 1, column 3: unexpected end", "2"
	if _, err := db.ImportTranslation(ctx, bad); err != nil {
		t.Fatal(err)
	}
	tr, err := db.FindTranslationByID(ctx, res.TranslationID)
	if err != nil || tr.LoadError == "" || tr.Stats.Total != 1 || tr.Revision != "1" {
		t.Errorf("after failed parse: %+v, %v", tr, err)
	}
	ch, _, _ := db.FindChanges(ctx, index.ChangeFilter{TranslationID: res.TranslationID,
		Actions: []index.Action{index.ActionParseError}, Page: index.Page{Number: 1, Size: 10}})
	if len(ch) != 1 {
		t.Errorf("parse failure changes = %d, want 1", len(ch))
	}
}

func TestFindNotFound(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	if _, err := db.FindProject(ctx, "nope"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("FindProject err = %v", err)
	}
	if _, err := db.FindTranslation(ctx, "a", "b", "c"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("FindTranslation err = %v", err)
	}
	if _, err := db.FindUnitByID(ctx, 42); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("FindUnitByID err = %v", err)
	}
}

func TestFindUnitsQuery(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
		Revision: "1", Monolingual: true, Units: units(
			"menu.file", "File", "Datei",
			"menu.edit", "Edit", "",
			"title", "100% done_now", "Fertig",
		)})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q    string
		want []string // contexts
	}{
		{"", []string{"menu.file", "menu.edit", "title"}},
		{"state:translated", []string{"menu.file", "title"}},
		{"state:<translated", []string{"menu.edit"}},
		{"key:menu", []string{"menu.file", "menu.edit"}},
		{"source:EDIT", []string{"menu.edit"}},
		{"target:datei", []string{"menu.file"}},
		{"datei", []string{"menu.file"}},
		{"100%", []string{"title"}},
		{"F_l", nil}, // '_' is literal, not a LIKE wildcard
		{"key:menu state:empty", []string{"menu.edit"}},
	}
	for _, tc := range cases {
		got, total, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID, Query: tc.q,
			Page: index.Page{Number: 1, Size: 50}})
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		var ctxs []string
		for _, u := range got {
			ctxs = append(ctxs, u.Context)
		}
		if total != len(tc.want) || strings.Join(ctxs, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: got %v (total %d), want %v", tc.q, ctxs, total, tc.want)
		}
	}
	if _, _, err := db.FindUnits(ctx, index.UnitFilter{Query: "colour:red", Page: index.Page{Number: 1, Size: 50}}); !errors.Is(err, index.ErrInvalid) {
		t.Errorf("bad query err = %v, want ErrInvalid", err)
	}
}

func TestProjectLanguageStats(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	if err := db.SeedLanguages(ctx, []index.Language{{Code: "de", Name: "German"}, {Code: "fr", Name: "French"}}); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"de", "fr"} {
		if _, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang,
			Revision: "1", Monolingual: true, Units: units("a", "A", "x", "b", "B", "")}); err != nil {
			t.Fatal(err)
		}
	}
	langs, stats, err := db.ProjectLanguageStats(ctx, c.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	if len(langs) != 2 || langs[0].Code != "de" || langs[1].Code != "fr" || stats[0].Total != 2 || stats[1].Translated != 1 {
		t.Errorf("langs %+v stats %+v", langs, stats)
	}
}

// TestRefusesNewerSchema checks that an index a newer Tolk migrated
// (a migration numbered past this binary's last) is not opened, with an
// error that says so, and that this binary's own index reopens.
func TestRefusesNewerSchema(t *testing.T) {
	loc := indextest.Location(t)
	db, err := indextest.Reopen(t, loc)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = indextest.Reopen(t, loc); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	db.Close()
	raw := indextest.OpenRaw(t, loc)
	raw.Exec(t, `INSERT INTO migrations (name, applied) VALUES (?, ?)`,
		"migrations/9999_from_the_future.sql", "2030-01-01T00:00:00Z")
	// On PostgreSQL the schema goes back to a pool that later tests
	// reuse (indextest): leave it as this binary made it.
	t.Cleanup(func() { raw.Exec(t, `DELETE FROM migrations WHERE name = ?`, "migrations/9999_from_the_future.sql") })
	db, err = indextest.Reopen(t, loc)
	if err == nil {
		db.Close()
		t.Fatal("an index migrated by a newer Tolk opened")
	}
	if !strings.Contains(err.Error(), "newer Tolk") || !strings.Contains(err.Error(), "9999_from_the_future") {
		t.Errorf("error %q does not say a newer Tolk migrated the index", err)
	}
}
