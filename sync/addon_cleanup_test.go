package sync_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// cleanupFiles: German has a key the template dropped (old) and a blank
// one (bye); French a dropped key (gone).
var cleanupFiles = map[string]string{
	"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"menu\": {\"file\": \"File\"}\n}\n",
	"locales/de.json": "{\n  \"hello\": \"Hallo\",\n  \"old\": \"Alt\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"}\n}\n",
	"locales/fr.json": "{\n  \"hello\": \"Bonjour\",\n  \"gone\": \"Parti\"\n}\n",
}

// keysOf are the flattened keys of a JSON file (one level of nesting).
func keysOf(tb testing.TB, data string) map[string]string {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		tb.Fatalf("%v:\n%s", err, data)
	}
	out := map[string]string{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			for k2, v2 := range sub {
				out[k+"."+k2] = v2.(string)
			}
			continue
		}
		out[k] = v.(string)
	}
	return out
}

// TestCleanupAddons: with weblate.cleanup.generic and weblate.cleanup.blank
// on a component, a commit of an edit is followed by one commit of each
// add-on (the component's add-on message, by the committer) that take
// the template's dropped keys and the blank strings out of the files,
// every other byte kept; upstream receives them with the push. After an
// update brings a new stale key, the update's run takes it out and
// pushes. A file that no longer parses is an alert change, not a failed
// update. The index is not touched: counts and statistics stay.
func TestCleanupAddons(t *testing.T) {
	ctx := context.Background()
	e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
	url, work := mustRepo(t, cleanupFiles)
	bare := strings.TrimPrefix(url, "file://")
	c := jsonComponent("app", url, "locales/*.json", "locales/en.json", "en")
	c.LanguageCode, c.PushOnCommit = "posix", true
	c = e.reconcile(t, c)[0]
	for _, name := range []string{index.AddonCleanup, index.AddonCleanupBlank} {
		if _, err := e.db.CreateAddon(ctx, index.Addon{Name: name, ProjectID: c.ProjectID, ComponentID: c.ID}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := e.db.ComponentStats(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	ann := mustUser(t, e.db, "ann", "Ann Example")
	ce := commitEnv{env: e, c: c}
	ce.edit(t, "de", "hello", "Servus", ann)
	res, err := e.svc.Commit(ctx, c, nil)
	if err != nil || len(res.Commits) != 3 {
		t.Fatalf("Commit = %+v, %v; want the edit's commit and one per add-on", res, err)
	}
	if err := e.svc.Push(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	de := git(t, bare, "show", "main:locales/de.json")
	if got := keysOf(t, de); len(got) != 2 || got["hello"] != "Servus" || got["menu.file"] != "Datei" {
		t.Errorf("upstream de.json keys = %v, want hello and menu.file:\n%s", got, de)
	}
	if !strings.Contains(de, "  \"menu\": {\"file\": \"Datei\"}\n") {
		t.Errorf("de.json's untouched line changed:\n%s", de)
	}
	if got := keysOf(t, git(t, bare, "show", "main:locales/fr.json")); len(got) != 1 || got["hello"] != "Bonjour" {
		t.Errorf("upstream fr.json keys = %v, want hello only", got)
	}
	if en := git(t, bare, "show", "main:locales/en.json"); en != strings.TrimSpace(cleanupFiles["locales/en.json"]) {
		t.Errorf("the template changed:\n%s", en)
	}
	subjects := git(t, bare, "log", "-3", "--format=%an | %s | %b", "main")
	for _, want := range []string{`Tolk Bot | Update translation files | Updated by "Cleanup translation files" add-on in Tolk.`,
		`Tolk Bot | Update translation files | Updated by "Remove blank strings" add-on in Tolk.`} {
		if !strings.Contains(subjects, want) {
			t.Errorf("upstream log lacks %q:\n%s", want, subjects)
		}
	}
	// Each add-on commit is in the change log too, by nobody.
	commits, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ComponentID: c.ID,
		Actions: []index.Action{index.ActionCommit}, Page: index.Page{Number: 1, Size: 10}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{index.AddonCleanup, index.AddonCleanupBlank} {
		if !slices.ContainsFunc(commits, func(ch index.Change) bool {
			return ch.UserID == 0 && strings.Contains(ch.Target, "("+name+"): ")
		}) {
			t.Errorf("no commit change of %s in %+v", name, commits)
		}
	}
	// An update bringing a stale key: the update's run takes it out.
	git(t, work, "pull", "--quiet", "origin", "main")
	writeAndPush(t, work, map[string]string{"locales/fr.json": "{\n  \"hello\": \"Bonjour\",\n  \"extra\": \"En trop\"\n}\n"}, "stale key")
	if _, err := e.svc.ImportComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(t, git(t, bare, "show", "main:locales/fr.json")); len(got) != 1 {
		t.Errorf("upstream fr.json after the update = %v, want hello only", got)
	}
	after, err := e.db.ComponentStats(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Total != before.Total || after.Translated != before.Translated {
		t.Errorf("stats %+v, before %+v: the add-ons changed the index", after, before)
	}
	indextest.CheckCounts(t, e.db)
	// A file that does not parse: an alert, the update goes on.
	git(t, work, "pull", "--quiet", "origin", "main")
	writeAndPush(t, work, map[string]string{"locales/fr.json": "{ broken"}, "broken")
	if _, err := e.svc.ImportComponent(ctx, c); err != nil {
		t.Fatalf("update with a broken file: %v", err)
	}
	alerts, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ComponentID: c.ID,
		Actions: []index.Action{index.ActionAlertTriggered}, Page: index.Page{Number: 1, Size: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(alerts) == 0 || !strings.Contains(alerts[0].Target, "locales/fr.json") {
		t.Errorf("alerts = %+v, want one naming locales/fr.json", alerts)
	}
}
