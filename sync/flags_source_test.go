package sync_test

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestSourceEditAddon: with weblate.flags.source_edit on a component
// whose template strings can be edited, a source string upstream adds
// comes in as needing editing (10) in the template; the strings that
// were there stay read-only (100), translations' new strings keep their
// state, and a component that does not edit its template is not
// touched by the project's add-on.
func TestSourceEditAddon(t *testing.T) {
	ctx := context.Background()
	e := mustCommitEnv(t)
	_, after, err := e.db.UpdateComponent(ctx, e.c.ID, func(c *index.Component) error {
		c.EditTemplate = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.c = after
	if msg := index.FlagAddonMisfit(index.AddonFlagsSourceEdit, &e.c); msg != "" {
		t.Fatalf("misfit on a monolingual component editing its template: %s", msg)
	}
	if _, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonFlagsSourceEdit, ProjectID: e.c.ProjectID}); err != nil {
		t.Fatal(err)
	}
	state := func(lang, key string) index.State { t.Helper(); return e.unit(t, lang, key).State }
	e.upstream(t, map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"menu\": {\"file\": \"File\"},\n  \"ok\": \"OK\"\n}\n",
		"locales/de.json": "{\n  \"hello\": \"Hallo\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"},\n  \"ok\": \"Gut\"\n}\n",
	}, "one string")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if s := state("en", "ok"); s != index.StateFuzzy {
		t.Errorf("en ok, a new source string = state %d, want needs editing", s)
	}
	if s := state("en", "hello"); s != index.StateReadOnly {
		t.Errorf("en hello, there before = state %d, want read-only", s)
	}
	if s := state("de", "ok"); s != index.StateTranslated {
		t.Errorf("de ok = state %d, want translated (source_edit marks sources only)", s)
	}

	// Without edit_template the add-on does not apply, and cannot be
	// installed on the component.
	if _, after, err = e.db.UpdateComponent(ctx, e.c.ID, func(c *index.Component) error {
		c.EditTemplate = false
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.c = after
	if msg := index.FlagAddonMisfit(index.AddonFlagsSourceEdit, &e.c); msg == "" {
		t.Error("source_edit fits a component that does not edit its template")
	}
	e.upstream(t, map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"menu\": {\"file\": \"File\"},\n  \"ok\": \"OK\",\n  \"no\": \"No\"\n}\n",
	}, "another string")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if s := state("en", "no"); s != index.StateReadOnly {
		t.Errorf("en no without edit_template = state %d, want read-only", s)
	}
}
