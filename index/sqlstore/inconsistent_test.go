package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestInconsistentSettlesProjectWide: whatever write changes a string in
// one component (an import creating or updating a translation, an import
// removing a string, turning propagation off, removing the component),
// the inconsistent check of the same string in the project's other
// components is settled in that write, on both sides, counters exact
// after each step.
func TestInconsistentSettlesProjectWide(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	has := func(u index.Unit) bool {
		t.Helper()
		cs, err := f.db.UnitChecks(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Name == "inconsistent" {
				return true
			}
		}
		return false
	}
	// app/de holds k0, k2, … translated ("Wort Nummer i"), the odd ones
	// empty; web/de is created empty by twin's import.
	web := f.twin(t, "web", true)
	want := func(step string, i int, app, other bool) {
		t.Helper()
		if a, w := has(f.unit(t, "de", i)), has(web.unitOf(t, "de", i)); a != app || w != other {
			t.Errorf("%s: k%d inconsistent in app %v, web %v; want %v, %v", step, i, a, w, app, other)
		}
		checkAllCounts(t, f.db)
	}
	// An empty string created by an import is not compared yet (see
	// inconsistent.go).
	want("web/de created empty", 0, false, false)
	want("web/de created empty", 1, false, false)

	// An import of web/de: k0 as app has it, k2 otherwise, k4 left out.
	rev := 0
	importWeb := func(targets map[int]string, omit int) {
		t.Helper()
		rev++
		imp := index.TranslationImport{ComponentID: web.comp.ID, LanguageCode: "de", Filename: "de.po",
			Revision: fmt.Sprintf("r%d", rev), SourceTranslationID: web.tr["en"]}
		for i := range 10 {
			if i == omit {
				continue
			}
			iu := index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{fmt.Sprintf("Word number %d", i)},
				Target: []string{""}}
			if s, ok := targets[i]; ok {
				iu.Target, iu.State = []string{s}, index.StateTranslated
			}
			imp.Units = append(imp.Units, iu)
		}
		if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
			t.Fatal(err)
		}
	}
	importWeb(map[int]string{0: "Wort Nummer 0", 2: "Anders", 6: "Wort Nummer 6"}, 4)
	want("import agrees", 0, false, false)
	want("import disagrees", 2, true, true)
	want("import agrees", 6, false, false)
	// k4 left out of web/de: app's k4 no longer differs from anything.
	if has(f.unit(t, "de", 4)) {
		t.Error("app/de k4 inconsistent after web/de lost k4")
	}
	checkAllCounts(t, f.db)

	// Turning propagation off in web takes its strings out of the
	// comparison: app's k2 is consistent, and web's own rows go too.
	if _, _, err := f.db.UpdateComponent(ctx, web.comp.ID, func(c *index.Component) error {
		c.AllowTranslationPropagation = false
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want("propagation off in web", 2, false, false)
	if _, _, err := f.db.UpdateComponent(ctx, web.comp.ID, func(c *index.Component) error {
		c.AllowTranslationPropagation = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want("propagation on again", 2, true, true)
	want("propagation on again", 0, false, false)

	// Removing web settles app's k2.
	if _, err := f.db.DeleteComponent(ctx, web.comp.ID, f.user); err != nil {
		t.Fatal(err)
	}
	if has(f.unit(t, "de", 2)) {
		t.Error("app/de k2 inconsistent after web was removed")
	}
	checkAllCounts(t, f.db)
}
