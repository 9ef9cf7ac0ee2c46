package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
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
	has := func(u index.Unit) bool { t.Helper(); return hasCheck(t, f.db, u, "inconsistent") }
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
	// An empty string created by an import fails against the
	// translated one, on both sides.
	want("web/de created empty", 0, true, true)
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

// TestSharingKeepsToFormatsAlike: a string is propagated and compared
// only between components whose formats store text alike: an XLIFF
// (whose strings are XML, "&amp;" for &) and a JSON component share
// nothing, two JSON ones do; a component whose format changes leaves
// the others' comparisons.
func TestSharingKeepsToFormatsAlike(t *testing.T) {
	clock := &testengine.Clock{}
	db, err := openFreshWith(t, Options{Now: clock.Now, FormatFlags: func(format string) string {
		if format == "xliff" {
			return "xml-text" // as formats.FlagsOf says
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := newWriteFixture(t, db)
	f.clock = clock
	ctx := context.Background()
	web := f.twin(t, "web", true)
	xl := f.twin(t, "xl", true)
	if _, _, err := db.UpdateComponent(ctx, xl.comp.ID, func(c *index.Component) error {
		c.FileFormat = "xliff"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	has := func(u index.Unit) bool { t.Helper(); return hasCheck(t, db, u, "inconsistent") }

	xl.translate(t, xl.unitOf(t, "de", 1), "Sichern &amp; Beenden")
	if u := f.unit(t, "de", 1); u.Target[0] != "" || has(u) {
		t.Errorf("app/de k1 = %q (inconsistent %v): an XLIFF string reached a JSON component", u.Target[0], has(u))
	}
	if u := xl.unitOf(t, "de", 1); has(u) {
		t.Error("xl/de k1 compared with JSON components")
	}
	f.translate(t, f.unit(t, "de", 3), "Sichern & Beenden")
	if u := web.unitOf(t, "de", 3); u.Target[0] != "Sichern & Beenden" {
		t.Errorf("web/de k3 = %q, want the JSON edit propagated to JSON", u.Target[0])
	}
	if u := xl.unitOf(t, "de", 3); u.Target[0] != "" {
		t.Errorf("xl/de k3 = %q: a JSON string reached an XLIFF component", u.Target[0])
	}

	// web becomes an XLIFF too: app's k7, empty against web's Sieben
	// (saved while app was locked, so not propagated), is compared with
	// nothing any more.
	if _, err := db.SetComponentLock(ctx, f.comp.ID, true, f.user); err != nil {
		t.Fatal(err)
	}
	web.translate(t, web.unitOf(t, "de", 7), "Sieben")
	if _, err := db.SetComponentLock(ctx, f.comp.ID, false, f.user); err != nil {
		t.Fatal(err)
	}
	if !has(f.unit(t, "de", 7)) || !has(web.unitOf(t, "de", 7)) {
		t.Fatal("k7, empty in app and Sieben in web: not inconsistent on both")
	}
	if _, _, err := db.UpdateComponent(ctx, web.comp.ID, func(c *index.Component) error {
		c.FileFormat = "xliff"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// app's k7 is compared with nothing; web's now with xl's, empty.
	if has(f.unit(t, "de", 7)) || !has(web.unitOf(t, "de", 7)) {
		t.Errorf("after web became an XLIFF: k7 inconsistent in app %v (want false), web %v (want true, against xl)",
			has(f.unit(t, "de", 7)), has(web.unitOf(t, "de", 7)))
	}
	checkAllCounts(t, db)
}

// hasCheck reports whether u holds a row of the check name.
func hasCheck(t *testing.T, db *DB, u index.Unit, name string) bool {
	t.Helper()
	cs, err := db.UnitChecks(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Name == name {
			return true
		}
	}
	return false
}
