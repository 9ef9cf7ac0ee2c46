package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// crudEnv is the demo index served with the real sync service behind the
// component writes and uploads, file:// repositories allowed, and every
// language of the built-in table known.
type crudEnv struct {
	srv    *servertest.Running
	db     *sqlstore.DB
	dbPath string
	sync   *tolksync.Service
	data   string // the sync service's data directory
	// close shuts the server, the service and the index before the
	// test ends (their cleanups then do nothing), for a test that
	// builds many environments in turn: on PostgreSQL each holds a pool
	// of connections until closed.
	close func()
	// release is close, then gives the index back for the next
	// environment to reuse (servertest.Env.Release).
	release func(testing.TB)
}

func mustCrudEnv(tb testing.TB, opts ...servertest.Option) *crudEnv {
	tb.Helper()
	e := servertest.New(tb, append([]servertest.Option{servertest.WithAllLanguages(), servertest.WithDemo(), servertest.WithComponents(),
		withAutoTranslate(tb, 0)}, opts...)...)
	return &crudEnv{srv: e.Running, db: e.DB, dbPath: e.Location, sync: e.Sync, data: e.Data, close: e.Close, release: e.Release}
}

// setLocked locks or unlocks a component by SQL: this branch has no
// store write of the lock. A store write follows, so that the index's
// caches see the change.
func (e *crudEnv) setLocked(tb testing.TB, projectSlug, slug string, locked bool) {
	tb.Helper()
	ctx := context.Background()
	indextest.Exec(tb, e.dbPath, `UPDATE components SET locked = ? WHERE slug = ?
		AND project_id = (SELECT id FROM projects WHERE slug = ?)`, locked, slug, projectSlug)
	if err := e.db.SeedLanguages(ctx, nil); err != nil {
		tb.Fatal(err)
	}
}

// mustBareRepo makes a bare repository with files on branch main and
// returns its file:// URL.
func mustBareRepo(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "remote.git")
	content := map[string][]byte{}
	for k, v := range files {
		content[k] = []byte(v)
	}
	if err := vcs.CreateBare(context.Background(), dir, "main", content, "initial"); err != nil {
		tb.Fatal(err)
	}
	return "file://" + dir
}

// wantResponse fails unless r has the status and, when body is not "",
// exactly that body.
func wantResponse(tb testing.TB, what string, r servertest.Response, status int, body string) {
	tb.Helper()
	if r.Status != status || (body != "" && string(r.Body) != body) {
		tb.Errorf("%s = %d %s\nwant %d %s", what, r.Status, r.Body, status, body)
	}
}

// notSignedIn is the reference's 401 body for an anonymous write.
const notSignedIn = `{"type":"client_error","errors":[{"code":"not_authenticated","detail":"Authentication credentials were not provided.","attr":null}]}`

// invalid is the reference's 400 body for field problems, each given as
// attr, code and detail; attrs must come sorted.
func invalid(problems ...[3]string) string {
	parts := make([]string, len(problems))
	for i, p := range problems {
		detail, _ := json.Marshal(p[2])
		parts[i] = fmt.Sprintf(`{"code":%q,"detail":%s,"attr":%q}`, p[1], detail, p[0])
	}
	return `{"type":"validation_error","errors":[` + strings.Join(parts, ",") + `]}`
}

// required is the problem of a missing field.
func required(attr string) [3]string { return [3]string{attr, "required", "This field is required."} }

// waitTask polls a task URL until the task completes and returns it.
func waitTask(tb testing.TB, url string) map[string]any {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		task := servertest.GetObject(tb, url)
		if task["completed"] == true {
			return task
		}
		time.Sleep(20 * time.Millisecond)
	}
	tb.Fatalf("task %s did not complete", url)
	return nil
}

// changeActions lists "action by user" for each change of a list URL.
func changeActions(tb testing.TB, url string) []string {
	tb.Helper()
	var out []string
	for _, ch := range servertest.Results(tb, servertest.GetObject(tb, url+"?page_size=1000")) {
		user := "nobody"
		if u, ok := ch["user"].(string); ok {
			user = u[strings.LastIndex(strings.TrimSuffix(u, "/"), "/")+1 : len(u)-1]
		}
		out = append(out, fmt.Sprintf("%s by %s", servertest.Num(ch["action"]), user))
	}
	return out
}

// jsonNum is n as decode returns it.
func jsonNum(n int) json.Number { return json.Number(strconv.Itoa(n)) }
