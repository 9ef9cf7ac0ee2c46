package sync_test

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestJSONCustomizeAddon: with weblate.json.customize (tabs, one per
// level, sorted keys), the first commit writing German lays the whole
// file out so; the next commit's diff is the edited line alone; French,
// which no commit writes, keeps its bytes.
func TestJSONCustomizeAddon(t *testing.T) {
	ctx := context.Background()
	e := mustCommitEnv(t)
	if _, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonJSONCustomize, ProjectID: e.c.ProjectID,
		JSON: index.JSONCustomize{SortKeys: true, Indent: 1, Style: index.JSONTabs}}); err != nil {
		t.Fatal(err)
	}
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	if _, err := e.svc.Commit(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Push(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	want := "{\n\t\"bye\": \"Tschüss\",\n\t\"hello\": \"Hallo\",\n\t\"menu\": {\n\t\t\"file\": \"Datei\"\n\t}\n}"
	if de := git(t, e.bare, "show", "main:locales/de.json"); de != want {
		t.Errorf("upstream de.json:\n%s\nwant:\n%s", de, want)
	}
	e.edit(t, "de", "hello", "Servus", e.bob)
	if _, err := e.svc.Commit(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Push(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if stat := git(t, e.bare, "diff", "--numstat", "main~1", "main"); stat != "1\t1\tlocales/de.json" {
		t.Errorf("second commit's diff: %q, want the one edited line", stat)
	}
	if fr := git(t, e.bare, "show", "main:locales/fr.json"); fr+"\n" != commitFiles["locales/fr.json"] {
		t.Errorf("fr.json, which no commit wrote, changed:\n%s", fr)
	}
}
