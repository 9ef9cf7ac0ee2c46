package api_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/internal/servertest"
	tolksync "github.com/tolk-project/tolk/sync"
)

// The service runs the operations the API declares.
var _ api.RepositoryOperations = (*tolksync.Service)(nil)

// TestRepositoryCommitAndPush edits through the API and runs commit and
// push at translation, component and project level, reading the
// upstream repository with git after each; a push upstream has moved
// past answers result false with the remote's message.
func TestRepositoryCommitAndPush(t *testing.T) {
	t.Parallel()
	e := servertest.MustRepoEnv(t)
	srv := servertest.Serve(t, e.DB, servertest.Options{Repositories: e.Svc, Files: e.Svc, Operations: e.Svc})
	w := &writeEnv{srv: srv, db: e.DB}
	anna := servertest.MustUser(t, e.DB, "anna", false, [2]string{"Translate", "demo"})
	rob := servertest.MustUser(t, e.DB, "rob", false, [2]string{"Manage repository", "demo"})
	op := func(path, operation string) string {
		t.Helper()
		r := servertest.DoJSON(t, "POST", srv.URL+path, rob, map[string]any{"operation": operation})
		if r.Status != http.StatusOK {
			t.Fatalf("%s %s = %d %s", operation, path, r.Status, r.Body)
		}
		return string(r.Body)
	}
	const de = "/api/translations/demo/app/de/repository/"
	const app = "/api/components/demo/app/repository/"

	// Nothing pending in German: the reference's false, nothing done.
	if got := op(de, "commit"); !strings.HasPrefix(got, `{"result":false,"detail":"There are no pending changes`) {
		t.Errorf("translation commit with nothing pending = %s", got)
	}
	w.editDE(t, anna, "greeting", "Servus, {name}!")
	if st := servertest.GetObjectAs(t, srv.URL+app, rob); st["needs_commit"] != true {
		t.Errorf("needs_commit before commit = %v", st["needs_commit"])
	}
	if got := op(de, "commit"); got != `{"result":true}` {
		t.Errorf("translation commit = %s", got)
	}
	st := servertest.GetObjectAs(t, srv.URL+app, rob)
	if st["needs_commit"] != false || st["needs_push"] != true {
		t.Errorf("after commit: needs_commit %v, needs_push %v; want false, true", st["needs_commit"], st["needs_push"])
	}
	if got := op(app, "push"); got != `{"result":true}` {
		t.Errorf("component push = %s", got)
	}
	servertest.RunGit(t, e.App.Work, "pull", "--quiet", "origin", "main")
	if got := servertest.RunGit(t, e.App.Work, "log", "-1", "--format=%an <%ae> | %cn <%ce> | %s"); got !=
		"anna Example <anna@example.com> | Tolk <noreply@tolk.invalid> | Translated using Tolk (German)" {
		t.Errorf("upstream head = %s", got)
	}
	if got := string(e.App.Blob(t, "locales/de.json")); !strings.Contains(got, `"greeting": "Servus, {name}!",`) ||
		!strings.Contains(got, `"file": "Datei",`) {
		t.Errorf("upstream de.json =\n%s", got)
	}
	// Project level runs every component; nothing left to do is true.
	if got := op("/api/projects/demo/repository/", "commit"); got != `{"result":true}` {
		t.Errorf("project commit = %s", got)
	}
	// Nothing upstream: a pull is true and records nothing.
	if got := op(app, "pull"); got != `{"result":true}` {
		t.Errorf("pull = %s", got)
	}

	// Upstream moves on: the push is refused, pulls, re-applies the edit
	// on top and pushes again.
	e.App.Commit(t, map[string]string{"README": "moved\n"}, "Upstream moves")
	w.editDE(t, anna, "app.title", "Tolk-Vorführung")
	if got := op("/api/projects/demo/repository/", "push"); got != `{"result":true}` {
		t.Errorf("push after upstream moved = %s", got)
	}
	servertest.RunGit(t, e.App.Work, "pull", "--quiet", "origin", "main")
	if got := servertest.RunGit(t, e.App.Work, "log", "-2", "--format=%s"); got != "Translated using Tolk (German)\nUpstream moves" {
		t.Errorf("upstream log after the retried push:\n%s", got)
	}
	actions := "," + strings.Join(changeActions(t, srv.URL+"/api/components/demo/app/changes/"), ",") + ","
	for _, want := range []string{",17 by rob,", ",18 by rob,", ",21 by rob,"} {
		if !strings.Contains(actions, want) {
			t.Errorf("changes %s lack %s", actions, strings.Trim(want, ","))
		}
	}

	// A reset discards a pending edit and says so in 19.
	w.editDE(t, anna, "app.title", "Verworfen")
	if got := op(de, "reset"); got != `{"result":true}` {
		t.Errorf("reset = %s", got)
	}
	if st := servertest.GetObjectAs(t, srv.URL+app, rob); st["needs_commit"] != false || st["needs_push"] != false {
		t.Errorf("after reset: %v", st)
	}
	if unit := servertest.GetObjectAs(t, w.unitURL(t, "app", "de", "app.title"), anna); unit["target"].([]any)[0] != "Tolk-Vorführung" {
		t.Errorf("app.title after reset = %v, want upstream's text", unit["target"])
	}
	if actions := "," + strings.Join(changeActions(t, srv.URL+"/api/components/demo/app/changes/"), ",") + ","; !strings.Contains(actions, ",19 by rob,") {
		t.Errorf("changes %s lack 19 by rob", actions)
	}

	// reset-keep goes back to upstream and writes the index's texts on
	// top: a pending edit survives it, committed.
	w.editDE(t, anna, "app.title", "Behalten")
	if got := op(app, "reset-keep"); got != `{"result":true}` {
		t.Errorf("reset-keep = %s", got)
	}
	if st := servertest.GetObjectAs(t, srv.URL+app, rob); st["needs_commit"] != false || st["needs_push"] != true {
		t.Errorf("after reset-keep: %v", st)
	}
	if unit := servertest.GetObjectAs(t, w.unitURL(t, "app", "de", "app.title"), anna); unit["target"].([]any)[0] != "Behalten" {
		t.Errorf("app.title after reset-keep = %v, want the kept edit", unit["target"])
	}
}

// TestRepositoryFileOperations runs cleanup, file-sync and file-scan at
// translation, component and project level as a repository manager,
// checking each answer field by field and the change each records; a
// translator is refused each, and a component whose remote is gone
// answers the reference's failure while the other still runs.
func TestRepositoryFileOperations(t *testing.T) {
	t.Parallel()
	e := servertest.MustRepoEnv(t)
	srv := servertest.Serve(t, e.DB, servertest.Options{Repositories: e.Svc, Files: e.Svc, Operations: e.Svc})
	w := &writeEnv{srv: srv, db: e.DB}
	anna := servertest.MustUser(t, e.DB, "anna", false, [2]string{"Translate", "demo"})
	rob := servertest.MustUser(t, e.DB, "rob", false, [2]string{"Manage repository", "demo"})
	const (
		de      = "/api/translations/demo/app/de/repository/"
		app     = "/api/components/demo/app/repository/"
		glossy  = "/api/components/demo/glossary/repository/"
		project = "/api/projects/demo/repository/"
	)
	// op runs operation as rob and returns the answer's fields.
	op := func(path, operation string) map[string]any {
		t.Helper()
		r := servertest.DoJSON(t, "POST", srv.URL+path, rob, map[string]any{"operation": operation})
		if r.Status != http.StatusOK {
			t.Fatalf("%s %s = %d %s", operation, path, r.Status, r.Body)
		}
		return servertest.Decode(t, r.Body)
	}
	succeeded := func(name string, got map[string]any) {
		t.Helper()
		if got["result"] != true || len(got) != 1 {
			t.Errorf("%s = %v, want only result true", name, got)
		}
	}
	// recorded checks that each component's changes hold want.
	recorded := func(want string, components ...string) {
		t.Helper()
		for _, c := range components {
			actions := "," + strings.Join(changeActions(t, srv.URL+"/api/components/demo/"+c+"/changes/"), ",") + ","
			if !strings.Contains(actions, ","+want+",") {
				t.Errorf("%s changes %s lack %s", c, actions, want)
			}
		}
	}

	for _, operation := range []string{"cleanup", "file-sync", "file-scan"} {
		r := servertest.DoJSON(t, "POST", srv.URL+app, anna, map[string]any{"operation": operation})
		if r.Status != http.StatusForbidden || string(r.Body) != denied(deniedDefault) {
			t.Errorf("%s as a translator = %d %s, want 403 %s", operation, r.Status, r.Body, denied(deniedDefault))
		}
	}

	// file-sync commits at once: a pending edit is written with the rest.
	w.editDE(t, anna, "greeting", "Servus, {name}!")
	succeeded("translation file-sync", op(de, "file-sync"))
	if st := servertest.GetObjectAs(t, srv.URL+app, rob); st["needs_commit"] != false || st["needs_push"] != true {
		t.Errorf("app after file-sync: needs_commit %v, needs_push %v; want false, true", st["needs_commit"], st["needs_push"])
	}
	recorded("83 by rob", "app")
	// The glossary's files already say what the index says: no commit.
	succeeded("project file-sync", op(project, "file-sync"))
	if st := servertest.GetObjectAs(t, srv.URL+glossy, rob); st["needs_commit"] != false || st["needs_push"] != false {
		t.Errorf("glossary after file-sync: needs_commit %v, needs_push %v; want false, false", st["needs_commit"], st["needs_push"])
	}
	recorded("83 by rob", "glossary")

	succeeded("component cleanup", op(app, "cleanup"))
	recorded("88 by rob", "app")
	succeeded("project file-scan", op(project, "file-scan"))
	recorded("84 by rob", "app", "glossary")

	// The glossary's remote is gone: its cleanup fails, the app's runs.
	bare := strings.TrimPrefix(e.Glossary.URL, "file://")
	if err := os.Rename(bare, bare+".moved"); err != nil {
		t.Fatal(err)
	}
	got := op(project, "cleanup")
	if got["result"] != false || got["detail"] != "Could not clean the repository on demo/glossary." || len(got) != 2 {
		t.Errorf("project cleanup without the glossary's remote = %v", got)
	}
	if n := strings.Count(strings.Join(changeActions(t, srv.URL+"/api/components/demo/app/changes/"), ","), "88 by rob"); n != 2 {
		t.Errorf("app has %d changes 88, want 2", n)
	}
}

// editDE translates the German string key of the app as the user whose
// Authorization header auth is.
func (w *writeEnv) editDE(t *testing.T, auth, key, text string) {
	t.Helper()
	if r := servertest.DoJSON(t, "PATCH", w.unitURL(t, "app", "de", key), auth,
		map[string]any{"target": []string{text}, "state": 20}); r.Status != http.StatusOK {
		t.Fatalf("edit %s = %d %s", key, r.Status, r.Body)
	}
}
