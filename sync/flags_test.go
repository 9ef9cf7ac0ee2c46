package sync_test

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
)

// TestFlagAddons: with weblate.flags.same_edit on the project, a string
// upstream adds whose German target is its source unchanged comes in as
// needing editing, another translated; with weblate.flags.target_edit
// on the component every new translated string does; strings that were
// there stay as they were, and the source's new strings are untouched.
func TestFlagAddons(t *testing.T) {
	ctx := context.Background()
	e := mustCommitEnv(t)
	install := func(name string, component int64) {
		t.Helper()
		if _, err := e.db.CreateAddon(ctx, index.Addon{Name: name, ProjectID: e.c.ProjectID, ComponentID: component}); err != nil {
			t.Fatal(err)
		}
	}
	state := func(lang, key string) index.State { t.Helper(); return e.unit(t, lang, key).State }

	install(index.AddonFlagsSameEdit, 0)
	e.upstream(t, map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"menu\": {\"file\": \"File\"},\n  \"ok\": \"OK\",\n  \"yes\": \"Yes\"\n}\n",
		"locales/de.json": "{\n  \"hello\": \"Hallo\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"},\n  \"ok\": \"OK\",\n  \"yes\": \"Ja\"\n}\n",
	}, "two strings")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if s := state("de", "ok"); s != index.StateFuzzy {
		t.Errorf("de ok (same as its source) = state %d, want needs editing", s)
	}
	if s := state("de", "yes"); s != index.StateTranslated {
		t.Errorf("de yes = state %d, want translated", s)
	}
	if s := state("de", "hello"); s != index.StateTranslated {
		t.Errorf("de hello, there before = state %d, want translated", s)
	}

	install(index.AddonFlagsTargetEdit, e.c.ID)
	e.upstream(t, map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"menu\": {\"file\": \"File\"},\n  \"ok\": \"OK\",\n  \"yes\": \"Yes\",\n  \"no\": \"No\"\n}\n",
		"locales/de.json": "{\n  \"hello\": \"Hallo\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"},\n  \"ok\": \"OK\",\n  \"yes\": \"Ja\",\n  \"no\": \"Nein\"\n}\n",
	}, "one more")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if s := state("de", "no"); s != index.StateFuzzy {
		t.Errorf("de no under target_edit = state %d, want needs editing", s)
	}
	if s := state("de", "yes"); s != index.StateTranslated {
		t.Errorf("de yes, there before = state %d, want translated", s)
	}
	if s := state("en", "no"); s != index.StateReadOnly {
		t.Errorf("en no (the source) = state %d, want read-only", s)
	}

	// source_edit on the project: the template's new strings need
	// editing where the template is editable; before, and on strings
	// flagged read-only, they stay as they come.
	install(index.AddonFlagsSourceEdit, 0)
	more := func(keys ...string) {
		t.Helper()
		en, de := "{\n  \"hello\": \"Hello\",\n  \"no\": \"No\"", "{\n  \"hello\": \"Hallo\",\n  \"no\": \"Nein\""
		for _, k := range keys {
			en += ",\n  \"" + k + "\": \"" + k + "\""
			de += ",\n  \"" + k + "\": \"" + k + "-de\""
		}
		e.upstream(t, map[string]string{"locales/en.json": en + "\n}\n", "locales/de.json": de + "\n}\n"}, "more")
		if err := e.svc.Pull(ctx, e.c, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := func(lang, key string, s index.State, why string) {
		t.Helper()
		if got := state(lang, key); got != s {
			t.Errorf("%s %s (%s) = state %d, want %d", lang, key, why, got, s)
		}
	}
	more("later")
	want("en", "later", index.StateReadOnly, "template not editable")
	e.c.EditTemplate = true
	var err error
	if e.c, _, err = e.db.SaveComponent(ctx, e.c); err != nil {
		t.Fatal(err)
	}
	more("later", "new")
	want("en", "new", index.StateFuzzy, "under source_edit")
	want("en", "later", index.StateReadOnly, "there before")
	want("de", "new", index.StateFuzzy, "under target_edit")
	indextest.CheckCounts(t, e.db)
}
