package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/api"
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
	e := mustRepoEnv(t)
	srv := mustServe(t, e.db, api.Options{Repositories: e.svc, Files: e.svc, Operations: e.svc})
	w := &writeEnv{srv: srv, db: e.db}
	anna := mustUser(t, e.db, "anna", false, [2]string{"Translate", "demo"})
	rob := mustUser(t, e.db, "rob", false, [2]string{"Manage repository", "demo"})
	op := func(path, operation string) string {
		t.Helper()
		r := doJSON(t, "POST", srv.URL+path, rob, map[string]any{"operation": operation})
		if r.status != http.StatusOK {
			t.Fatalf("%s %s = %d %s", operation, path, r.status, r.body)
		}
		return string(r.body)
	}
	const de = "/api/translations/demo/app/de/repository/"
	const app = "/api/components/demo/app/repository/"

	// Nothing pending in German: the reference's false, nothing done.
	if got := op(de, "commit"); !strings.HasPrefix(got, `{"result":false,"detail":"There are no pending changes`) {
		t.Errorf("translation commit with nothing pending = %s", got)
	}
	if r := doJSON(t, "PATCH", w.unitURL(t, "app", "de", "greeting"), anna,
		map[string]any{"target": []string{"Servus, {name}!"}, "state": 20}); r.status != http.StatusOK {
		t.Fatalf("edit = %d %s", r.status, r.body)
	}
	if st := getObjectAs(t, srv.URL+app, rob); st["needs_commit"] != true {
		t.Errorf("needs_commit before commit = %v", st["needs_commit"])
	}
	if got := op(de, "commit"); got != `{"result":true}` {
		t.Errorf("translation commit = %s", got)
	}
	st := getObjectAs(t, srv.URL+app, rob)
	if st["needs_commit"] != false || st["needs_push"] != true {
		t.Errorf("after commit: needs_commit %v, needs_push %v; want false, true", st["needs_commit"], st["needs_push"])
	}
	if got := op(app, "push"); got != `{"result":true}` {
		t.Errorf("component push = %s", got)
	}
	runGit(t, e.app.work, "pull", "--quiet", "origin", "main")
	if got := runGit(t, e.app.work, "log", "-1", "--format=%an <%ae> | %cn <%ce> | %s"); got !=
		"anna Example <anna@example.com> | Tolk <noreply@tolk.invalid> | Translated using Tolk (German)" {
		t.Errorf("upstream head = %s", got)
	}
	if got := string(e.app.blob(t, "locales/de.json")); !strings.Contains(got, `"greeting": "Servus, {name}!",`) ||
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
	e.app.commit(t, map[string]string{"README": "moved\n"}, "Upstream moves")
	if r := doJSON(t, "PATCH", w.unitURL(t, "app", "de", "app.title"), anna,
		map[string]any{"target": []string{"Tolk-Vorführung"}, "state": 20}); r.status != http.StatusOK {
		t.Fatalf("edit = %d %s", r.status, r.body)
	}
	if got := op("/api/projects/demo/repository/", "push"); got != `{"result":true}` {
		t.Errorf("push after upstream moved = %s", got)
	}
	runGit(t, e.app.work, "pull", "--quiet", "origin", "main")
	if got := runGit(t, e.app.work, "log", "-2", "--format=%s"); got != "Translated using Tolk (German)\nUpstream moves" {
		t.Errorf("upstream log after the retried push:\n%s", got)
	}
	actions := "," + strings.Join(changeActions(t, srv.URL+"/api/components/demo/app/changes/"), ",") + ","
	for _, want := range []string{",17 by rob,", ",18 by rob,", ",21 by rob,"} {
		if !strings.Contains(actions, want) {
			t.Errorf("changes %s lack %s", actions, strings.Trim(want, ","))
		}
	}

	// A reset discards a pending edit and says so in 19.
	if r := doJSON(t, "PATCH", w.unitURL(t, "app", "de", "app.title"), anna,
		map[string]any{"target": []string{"Verworfen"}, "state": 20}); r.status != http.StatusOK {
		t.Fatalf("edit = %d %s", r.status, r.body)
	}
	if got := op(de, "reset"); got != `{"result":true}` {
		t.Errorf("reset = %s", got)
	}
	if st := getObjectAs(t, srv.URL+app, rob); st["needs_commit"] != false || st["needs_push"] != false {
		t.Errorf("after reset: %v", st)
	}
	if unit := getObjectAs(t, w.unitURL(t, "app", "de", "app.title"), anna); unit["target"].([]any)[0] != "Tolk-Vorführung" {
		t.Errorf("app.title after reset = %v, want upstream's text", unit["target"])
	}
}
