package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// crudEnv is the demo index served with the real sync service behind the
// component writes and uploads, file:// repositories allowed, and every
// language of the built-in table known.
type crudEnv struct {
	srv    *testServer
	db     *sqlstore.DB
	dbPath string
	sync   *tolksync.Service
	data   string // the sync service's data directory
	// close shuts the server, the service and the index before the
	// test ends (their cleanups then do nothing), for a test that
	// builds many environments in turn: on PostgreSQL each holds a pool
	// of connections until closed.
	close func()
}

func mustCrudEnv(tb testing.TB) *crudEnv {
	tb.Helper()
	ctx := context.Background()
	data := tb.TempDir()
	dbPath := indextest.Location(tb)
	var tick atomic.Int64
	db, err := indextest.ReopenWith(tb, dbPath, sqlstore.Options{Now: func() time.Time {
		return clockStart.Add(time.Duration(tick.Add(1)-1) * time.Second)
	}})
	if err != nil {
		tb.Fatal(err)
	}
	closeDB := sync.OnceFunc(func() { db.Close() })
	tb.Cleanup(closeDB)
	langs := langdata.Default()
	if err := db.SeedLanguages(ctx, langs.All()); err != nil {
		tb.Fatal(err)
	}
	seedDemo(tb, db)
	svc, err := tolksync.New(db, langs, tolksync.Options{DataDir: data})
	if err != nil {
		tb.Fatal(err)
	}
	closeSvc := sync.OnceFunc(func() { svc.Close() })
	tb.Cleanup(closeSvc)
	srv := mustServe(tb, db, api.Options{Components: svc, Repositories: svc, Files: svc, AllowLocalRepos: true})
	return &crudEnv{srv: srv, db: db, dbPath: dbPath, sync: svc, data: data,
		close: func() { srv.Close(); closeSvc(); closeDB() }}
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
func wantResponse(tb testing.TB, what string, r response, status int, body string) {
	tb.Helper()
	if r.status != status || (body != "" && string(r.body) != body) {
		tb.Errorf("%s = %d %s\nwant %d %s", what, r.status, r.body, status, body)
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
		task := getObject(tb, url)
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
	for _, ch := range results(tb, getObject(tb, url+"?page_size=1000")) {
		user := "nobody"
		if u, ok := ch["user"].(string); ok {
			user = u[strings.LastIndex(strings.TrimSuffix(u, "/"), "/")+1 : len(u)-1]
		}
		out = append(out, fmt.Sprintf("%s by %s", num(ch["action"]), user))
	}
	return out
}

// jsonNum is n as decode returns it.
func jsonNum(n int) json.Number { return json.Number(strconv.Itoa(n)) }
