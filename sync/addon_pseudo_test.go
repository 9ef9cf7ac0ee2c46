package sync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
)

// TestPseudolocaleAddon: the add-on with English as source and French
// as target fills French's untranslated strings with the English ones
// wrapped as configured (var_prefix and var_suffix int(0.5 × length)
// times), as "Automatically translated" by nobody; run on every string
// it also replaces the translated one; the commit writes them. A source
// string changed upstream is filled again by the update's run. The
// counters stay exact.
func TestPseudolocaleAddon(t *testing.T) {
	ctx := context.Background()
	e := mustCommitEnv(t)
	en, fr := mustTranslation(t, e.env, "app", "en"), mustTranslation(t, e.env, "app", "fr")
	a, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonPseudolocale, ProjectID: e.c.ProjectID,
		ComponentID: e.c.ID, Pseudo: index.Pseudolocale{Source: en.ID, Target: fr.ID, Prefix: "[", Suffix: "]",
			VarPrefix: "~", VarSuffix: "~", VarMultiplier: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.svc.Pseudolocale(ctx, a, e.c, false)
	if err != nil || n != 2 {
		t.Fatalf("untranslated run = %d, %v; want bye and menu.file", n, err)
	}
	for key, want := range map[string]string{"bye": "[~Bye~]", "menu.file": "[~~File~~]", "hello": "Bonjour"} {
		if u := e.unit(t, "fr", key); u.Target[0] != want {
			t.Errorf("fr %s = %q, want %q", key, u.Target[0], want)
		}
	}
	if n, err := e.svc.Pseudolocale(ctx, a, e.c, true); err != nil || n != 1 {
		t.Fatalf("full run = %d, %v; want hello only", n, err)
	}
	if u := e.unit(t, "fr", "hello"); u.Target[0] != "[~~Hello~~]" || u.State != index.StateTranslated {
		t.Errorf("fr hello = %+v", u)
	}
	changes, _, err := e.db.FindChanges(ctx, index.ChangeFilter{TranslationID: fr.ID,
		Actions: []index.Action{index.ActionAutoTranslated}, Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(changes) != 3 || changes[0].UserID != 0 {
		t.Errorf("changes = %+v, %v; want 3 by nobody", changes, err)
	}
	if n, err := e.svc.Pseudolocale(ctx, a, e.c, true); err != nil || n != 0 {
		t.Errorf("run again = %d, %v; want nothing to do", n, err)
	}
	if _, err := e.svc.Commit(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Push(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if got := git(t, e.bare, "show", "main:locales/fr.json"); !strings.Contains(got, `"[~~Hello~~]"`) ||
		!strings.Contains(got, `"[~~File~~]"`) {
		t.Errorf("upstream fr.json:\n%s", got)
	}
	// The source string changes upstream: the update's run follows it.
	git(t, e.work, "pull", "--quiet", "origin", "main")
	writeAndPush(t, e.work, map[string]string{"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Goodbye\",\n" +
		"  \"menu\": {\"file\": \"File\"}\n}\n"}, "source change")
	if _, err := e.svc.ImportComponent(ctx, e.c); err != nil {
		t.Fatal(err)
	}
	waitAddons(t, e.env)
	if u := e.unit(t, "fr", "bye"); u.Target[0] != "[~~~Goodbye~~~]" {
		t.Errorf("fr bye after the source change = %+v", u)
	}
	indextest.CheckCounts(t, e.db)
}
