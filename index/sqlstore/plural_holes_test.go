package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestPluralHoleIsNotTranslated: a Czech plural whose "few" form is
// empty is stored as needs editing, on import and on every save, so the
// translation is not 100% and is:untranslated finds the hole; filling
// the form makes it translated; the counts equal a recount throughout.
func TestPluralHoleIsNotTranslated(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	template := func(rev string) index.TranslationImport {
		imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "en", Filename: "en.json",
			Revision: rev, Monolingual: true, IsSource: true, IsTemplate: true}
		for i := range 10 {
			src := []string{fmt.Sprintf("Word number %d", i)}
			imp.Units = append(imp.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: src, Target: src,
				State: index.StateReadOnly})
		}
		files := []string{"%d file", "%d files"}
		imp.Units = append(imp.Units, index.ImportUnit{Context: "files", Source: files, Target: files,
			State: index.StateReadOnly})
		return imp
	}
	if _, err := f.db.ImportTranslation(ctx, template("r2")); err != nil {
		t.Fatal(err)
	}
	hole := []string{"%d soubor", "", "%d souborů"}
	cs := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "cs", Filename: "cs.json",
		Revision: "r2", Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i := range 10 {
		cs.Units = append(cs.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", i),
			Source: []string{fmt.Sprintf("Word number %d", i)}, Target: []string{fmt.Sprintf("Slovo %d", i)},
			State: index.StateTranslated})
	}
	full := []string{"%d soubor", "%d soubory", "%d souborů"}
	cs.Units = append(cs.Units, index.ImportUnit{Context: "files", Source: []string{"%d file", "%d files"},
		Target: hole, State: index.StateTranslated})
	res, err := f.db.ImportTranslation(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	f.tr["cs"] = res.TranslationID
	id, err := f.db.FindUnitIDByHash(ctx, f.tr["cs"], index.IDHash(true, nil, "files"))
	if err != nil {
		t.Fatal(err)
	}
	expect := func(step string, state index.State, translated int, untranslated []string) {
		t.Helper()
		u, err := f.db.FindUnitByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if u.State != state {
			t.Errorf("%s: state %d, want %d (target %q)", step, u.State, state, u.Target)
		}
		st, err := f.db.TranslationStats(ctx, f.tr["cs"])
		if err != nil {
			t.Fatal(err)
		}
		if st.Translated != translated || st.Total != 11 {
			t.Errorf("%s: translated %d of %d, want %d of 11", step, st.Translated, st.Total, translated)
		}
		if got := f.search(t, "cs", "is:untranslated"); !slices.Equal(got, untranslated) {
			t.Errorf("%s: is:untranslated finds %q, want %q", step, got, untranslated)
		}
		if got := f.search(t, "cs", "is:translated"); slices.Contains(got, "files") != (len(untranslated) == 0) {
			t.Errorf("%s: is:translated finds %q", step, got)
		}
		checkStoredStats(t, f.db)
	}
	expect("import", index.StateFuzzy, 10, []string{"files"})
	cks, err := f.db.UnitChecks(ctx, id)
	if err != nil || len(cks) != 1 || cks[0].Name != "plurals" {
		t.Errorf("checks of the hole: %+v, %v; want plurals", cks, err)
	}
	save := func(target []string, state index.State) {
		t.Helper()
		if _, err := f.db.UpdateUnit(ctx, id, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: target, State: state}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	save(full, index.StateTranslated)
	expect("filled", index.StateTranslated, 11, nil)
	save(hole, index.StateApproved)
	expect("saved with a hole", index.StateFuzzy, 10, []string{"files"})
	save([]string{"", "", ""}, index.StateEmpty)
	expect("emptied", index.StateEmpty, 10, []string{"files"})

	// An import that updates a unit (not pending: the file wins) to a
	// hole makes it need editing, and one that fills it translates it.
	for i, step := range []struct {
		target []string
		state  index.State
		n      int
		untr   []string
	}{{full, index.StateTranslated, 11, nil}, {hole, index.StateFuzzy, 10, []string{"files"}},
		{full, index.StateTranslated, 11, nil}} {
		u, err := f.db.FindUnitByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.db.MarkCommitted(ctx, index.Committed{ComponentID: f.comp.ID,
			Translations: []index.CommittedTranslation{{TranslationID: f.tr["cs"], Units: []index.Unit{u}}}}); err != nil {
			t.Fatal(err)
		}
		cs.Revision = fmt.Sprintf("r%d", 3+i)
		cs.Units[len(cs.Units)-1].Target = step.target
		if _, err := f.db.ImportTranslation(ctx, cs); err != nil {
			t.Fatal(err)
		}
		expect(fmt.Sprintf("import %d", i), step.state, step.n, step.untr)
	}
}
