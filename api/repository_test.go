package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
	tolksync "github.com/tolk-project/tolk/sync"
)

// The service provides what the API declares.
var _ api.Repositories = (*tolksync.Service)(nil)

// runGit runs the git CLI in dir with a fixed identity and no user
// configuration, and returns its trimmed output.
func runGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent",
		"GIT_AUTHOR_NAME=Upstream", "GIT_AUTHOR_EMAIL=upstream@example.invalid",
		"GIT_COMMITTER_NAME=Upstream", "GIT_COMMITTER_EMAIL=upstream@example.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// upstream is a bare repository with a work tree that pushes to it.
type upstream struct{ url, work string }

// mustUpstream makes a bare repository on main from the demo files under
// ../testdata/demo/<name>.
func mustUpstream(tb testing.TB, name string) upstream {
	tb.Helper()
	root := tb.TempDir()
	bare, work := filepath.Join(root, name+".git"), filepath.Join(root, name)
	runGit(tb, root, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	runGit(tb, root, "clone", "--quiet", bare, work)
	runGit(tb, work, "checkout", "--quiet", "-b", "main")
	src := filepath.Join("..", "testdata", "demo", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(work, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
	u := upstream{"file://" + bare, work}
	u.commit(tb, nil, "Initial commit")
	return u
}

// commit writes files in the work tree, commits and pushes.
func (u upstream) commit(tb testing.TB, files map[string]string, msg string) string {
	tb.Helper()
	for p, s := range files {
		if err := os.WriteFile(filepath.Join(u.work, filepath.FromSlash(p)), []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	runGit(tb, u.work, "add", "-A")
	runGit(tb, u.work, "commit", "--quiet", "-m", msg)
	runGit(tb, u.work, "push", "--quiet", "origin", "main")
	return runGit(tb, u.work, "rev-parse", "HEAD")
}

// blob returns a file's bytes as committed upstream.
func (u upstream) blob(tb testing.TB, path string) []byte {
	tb.Helper()
	cmd := exec.Command("git", "cat-file", "blob", "HEAD:"+path)
	cmd.Dir = u.work
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git cat-file %s: %v", path, err)
	}
	return out
}

// repoEnv is the demo project imported by a real sync.Service from real
// repositories, served by a real server.
type repoEnv struct {
	srv           *testServer
	db            *sqlstore.DB
	svc           *tolksync.Service
	app, glossary upstream
}

// mustIndexAndService opens an index with every language in a
// temporary directory and a sync service over it, both closed when the
// test ends.
func mustIndexAndService(tb testing.TB) (*sqlstore.DB, *tolksync.Service) {
	tb.Helper()
	ctx := context.Background()
	dir := tb.TempDir()
	db := indextest.Open(tb)
	langs := langdata.Default()
	if err := db.SeedLanguages(ctx, langs.All()); err != nil {
		tb.Fatal(err)
	}
	svc, err := tolksync.New(db, langs, tolksync.Options{DataDir: filepath.Join(dir, "data")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { svc.Close() })
	return db, svc
}

func mustRepoEnv(tb testing.TB) repoEnv {
	tb.Helper()
	ctx := context.Background()
	db, svc := mustIndexAndService(tb)
	e := repoEnv{db: db, svc: svc, app: mustUpstream(tb, "app"), glossary: mustUpstream(tb, "glossary")}
	app := index.DefaultComponent()
	app.Name, app.Slug, app.Repo, app.Branch = "App", "app", e.app.url, "main"
	app.Filemask, app.Template = "locales/*.json", "locales/en.json"
	g := index.DefaultComponent()
	g.Name, g.Slug, g.Repo, g.Branch = "Glossary", "glossary", e.glossary.url, "main"
	g.Filemask, g.FileFormat, g.IsGlossary = "*.tbx", "tbx", true
	err := svc.Reconcile(ctx, []tolksync.ProjectSpec{{
		Project:    index.Project{Name: "Demo", Slug: "demo"},
		Components: []index.Component{app, g},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	e.srv = mustServe(tb, db, servertest.Options{Repositories: svc, Files: svc})
	return e
}

func (e repoEnv) component(tb testing.TB, slug string) index.Component {
	tb.Helper()
	c, err := e.db.FindComponent(context.Background(), "demo", slug)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestRepositoryStatusEndpoints(t *testing.T) {
	e := mustRepoEnv(t)
	base := e.srv.URL
	head := runGit(t, e.app.work, "rev-parse", "HEAD")
	ops := mustUser(t, e.db, "ops", false, [2]string{"Manage repository", "demo"})
	for _, ep := range []struct{ path string }{
		{"/api/projects/demo/repository/"},
		{"/api/components/demo/app/repository/"},
		{"/api/translations/demo/app/de/repository/"},
	} {
		t.Run(ep.path, func(t *testing.T) {
			r := do(t, "GET", base+ep.path, http.Header{"Accept": {"application/json"}, "Authorization": {ops}})
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if got := r.header.Get("Allow"); got != "GET, POST, HEAD, OPTIONS" {
				t.Errorf("Allow = %q", got)
			}
			want := `{"needs_commit":false,"needs_merge":false,"needs_push":false,"url":"` + base + ep.path + `"`
			if !strings.HasPrefix(string(r.body), want) {
				t.Errorf("body = %s, want it to start %s", r.body, want)
			}
			if strings.HasPrefix(ep.path, "/api/projects/") {
				// Jobs run per component: a project lists none.
				// The reference's 2026.8 project body, and Tolk's jobs.
				full := want + `,"weblate_commit":null,"status":null,"merge_failure":null,"outgoing_commits":null,` +
					`"missing_commits":null,"remote_commit":null,"pending_units":{"total":0,"errors_skipped":0,` +
					`"commit_policy_skipped":0,"eligible_for_commit":0},"jobs":null}`
				if string(r.body) != full {
					t.Errorf("project body = %s, want %s", r.body, full)
				}
				return
			}
			obj := decode(t, r.body)
			// No scheduler runs in this server: a component has no jobs.
			if jobs, ok := obj["jobs"].([]any); !ok || len(jobs) != 0 {
				t.Errorf("jobs = %#v, want []", obj["jobs"])
			}
			if obj["merge_failure"] != nil {
				t.Errorf("merge_failure = %v, want null", obj["merge_failure"])
			}
			if fmt.Sprintf("%v %v", obj["outgoing_commits"], obj["missing_commits"]) != "0 0" {
				t.Errorf("outgoing_commits %v, missing_commits %v; want 0, 0", obj["outgoing_commits"], obj["missing_commits"])
			}
			if pu, _ := json.Marshal(obj["pending_units"]); string(pu) !=
				`{"commit_policy_skipped":0,"eligible_for_commit":0,"errors_skipped":0,"total":0}` {
				t.Errorf("pending_units = %s", pu)
			}
			if s, _ := obj["status"].(string); !strings.HasPrefix(s, "On branch main\nYour branch is up to date with 'origin/main'.\n") {
				t.Errorf("status = %q", s)
			}
			for _, key := range []string{"remote_commit", "weblate_commit"} {
				c, _ := obj[key].(map[string]any)
				if c["revision"] != head || c["shortrevision"] != head[:7] || c["summary"] != "Initial commit" ||
					c["author"] != "Upstream <upstream@example.invalid>" {
					t.Errorf("%s = %v, want revision %s", key, obj[key], head)
				}
			}
			// Anonymous writes are refused before any lookup.
			if r := do(t, "POST", base+ep.path, nil); r.status != http.StatusUnauthorized {
				t.Errorf("POST = %d %s, want 401", r.status, r.body)
			}
		})
	}

	// A commit lands upstream and is fetched, not merged.
	up := e.app.commit(t, map[string]string{"locales/de.json": "{}\n"}, "Upstream edit")
	if changed, err := e.svc.Fetch(context.Background(), e.component(t, "app")); !changed || err != nil {
		t.Fatalf("Fetch = %v, %v", changed, err)
	}
	for _, path := range []string{"/api/projects/demo/repository/", "/api/components/demo/app/repository/",
		"/api/translations/demo/app/de/repository/"} {
		obj := getObjectAs(t, base+path, ops)
		if obj["needs_merge"] != true || obj["needs_push"] != false || obj["needs_commit"] != false {
			t.Errorf("%s after fetch = %v, want only needs_merge", path, obj)
		}
	}
	comp := getObjectAs(t, base+"/api/components/demo/app/repository/", ops)
	if rc, _ := comp["remote_commit"].(map[string]any); rc["revision"] != up {
		t.Errorf("remote_commit = %v, want revision %s", comp["remote_commit"], up)
	}
	if wc, _ := comp["weblate_commit"].(map[string]any); wc["revision"] != head {
		t.Errorf("weblate_commit = %v, want revision %s", comp["weblate_commit"], head)
	}
	if s, _ := comp["status"].(string); !strings.Contains(s, "behind 'origin/main' by 1 commit") {
		t.Errorf("status = %q", s)
	}
	// The glossary is untouched.
	if g := getObjectAs(t, base+"/api/components/demo/glossary/repository/", ops); g["needs_merge"] != false {
		t.Errorf("glossary = %v", g)
	}
}

// TestRepositoryStatusJobs runs the scheduler once over a component whose
// edit is due (commit_pending_age 0) and reads the jobs field at every
// level: the commit with its result, the pull not run yet.
func TestRepositoryStatusJobs(t *testing.T) {
	ctx := context.Background()
	e := mustRepoEnv(t)
	ops := mustUser(t, e.db, "ops", false, [2]string{"Manage repository", "demo"})
	app := e.component(t, "app")
	app.CommitPendingAge = 0
	if _, _, err := e.db.SaveComponent(ctx, app); err != nil {
		t.Fatal(err)
	}
	tr, err := e.db.FindTranslation(ctx, "demo", "app", "de")
	if err != nil {
		t.Fatal(err)
	}
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 1}})
	if err != nil || len(units) == 0 {
		t.Fatalf("de units: %v, %v", units, err)
	}
	if _, err := e.db.UpdateUnit(ctx, units[0].ID, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Geplant"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	done := make(chan index.Job, 4)
	start := time.Now()
	if err := e.svc.StartScheduler(tolksync.SchedulerOptions{CommitInterval: time.Hour, PullInterval: time.Hour,
		OnJobDone: func(c index.Component, j index.Job) {
			if c.ID == app.ID {
				done <- j
			}
		}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the scheduled commit never finished")
	}
	for _, path := range []string{"/api/components/demo/app/repository/", "/api/translations/demo/app/de/repository/"} {
		obj := getObjectAs(t, e.srv.URL+path, ops)
		if obj["needs_commit"] != false || obj["needs_push"] != true {
			t.Errorf("%s after the scheduled commit = %v", path, obj)
		}
		jobs, _ := obj["jobs"].([]any)
		if len(jobs) != 2 {
			t.Fatalf("%s jobs = %#v, want commit and pull", path, obj["jobs"])
		}
		commit, _ := jobs[0].(map[string]any)
		if commit["name"] != "commit" || commit["running"] != false || commit["last_result"] != "ok" {
			t.Errorf("%s commit job = %v", path, commit)
		}
		for _, key := range []string{"last_start", "last_end", "next_run"} {
			v, _ := commit[key].(string)
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil || at.Before(start.Add(-time.Second)) {
				t.Errorf("%s commit %s = %v, want a time since the start", path, key, commit[key])
			}
		}
		pull, _ := jobs[1].(map[string]any)
		if pull["name"] != "pull" || pull["last_start"] != nil || pull["last_result"] != nil || pull["next_run"] == nil {
			t.Errorf("%s pull job = %v, want not run yet, scheduled", path, pull)
		}
	}
	if obj := getObjectAs(t, e.srv.URL+"/api/projects/demo/repository/", ops); obj["jobs"] != nil {
		t.Errorf("project jobs = %v, want null", obj["jobs"])
	}
}

// TestRepositoryStatusPermission checks who may read the repository
// status: any of vcs.push, vcs.commit, vcs.reset or vcs.update on the
// project (reference §4.1). The reference raises its refusal from the
// view, so anonymous readers get the 403 too, not a 401.
func TestRepositoryStatusPermission(t *testing.T) {
	e := mustRepoEnv(t)
	other := mustProject(t, e.db, index.Project{Name: "Other", Slug: "other"})
	denied := `{"type":"client_error","errors":[{"code":"permission_denied",` +
		`"detail":"You do not have permission to perform this action.","attr":null}]}`
	cases := []struct {
		name, auth string
		status     int
	}{
		{"anonymous", "", 403},
		{"no role", mustUser(t, e.db, "nobody", false), 403},
		{"translator", mustUser(t, e.db, "tr", false, [2]string{"Translate", "demo"}), 403},
		{"reviewer", mustUser(t, e.db, "rev", false, [2]string{"Review strings", "demo"}), 403},
		{"repository manager elsewhere", mustUser(t, e.db, "elsewhere", false, [2]string{"Manage repository", "other"}), 403},
		{"repository manager", mustUser(t, e.db, "ops", false, [2]string{"Manage repository", "demo"}), 200},
		{"repository manager, read-only token", mustScopedUser(t, e.db, "ops-ro", false,
			index.Token{Scope: index.ScopeRead}, [2]string{"Manage repository", "demo"}), 200},
		{"project admin", mustUser(t, e.db, "padmin", false, [2]string{"Administration", "demo"}), 200},
		{"site-wide repository manager", mustUser(t, e.db, "siteops", false, [2]string{"Manage repository", ""}), 200},
		{"superuser", mustUser(t, e.db, "root", true), 200},
		{"superuser, token for another project", mustScopedUser(t, e.db, "root-other", true,
			index.Token{Scope: index.ScopeAdmin, ProjectID: other.ID}), 403},
		{"expired token", mustScopedUser(t, e.db, "old", true, index.Token{Scope: index.ScopeAdmin,
			Expires: time.Now().Add(-time.Hour)}), 401},
	}
	for _, tc := range cases {
		for _, path := range []string{"/api/projects/demo/repository/", "/api/components/demo/app/repository/",
			"/api/translations/demo/app/de/repository/"} {
			r := doJSON(t, "GET", e.srv.URL+path, tc.auth, nil)
			if r.status != tc.status || (tc.status == 403 && string(r.body) != denied) {
				t.Errorf("%s: GET %s = %d %s, want %d", tc.name, path, r.status, r.body, tc.status)
			}
		}
	}
}

// TestPrivateRepository: the repository status, the downloads and the
// Git export of a private project are a 404 to whoever may not see it;
// whoever may sees the files, and the status only with a repository
// permission (a 403 then, after the object was found).
func TestPrivateRepository(t *testing.T) {
	e := mustRepoEnv(t)
	if _, _, err := e.db.SaveProject(context.Background(), index.Project{Name: "Demo", Slug: "demo",
		AccessControl: index.AccessPrivate}); err != nil {
		t.Fatal(err)
	}
	readers := map[string]string{
		"anonymous":  "",
		"stranger":   mustUser(t, e.db, "stranger", false),
		"translator": mustUser(t, e.db, "tr", false, [2]string{"Translate", "demo"}),
		"ops":        mustUser(t, e.db, "ops", false, [2]string{"Manage repository", "demo"}),
	}
	want := map[string]map[string]int{
		"/api/projects/demo/repository/":                  {"translator": 403, "ops": 200},
		"/api/components/demo/app/repository/":            {"translator": 403, "ops": 200},
		"/api/translations/demo/app/de/repository/":       {"translator": 403, "ops": 200},
		"/api/translations/demo/app/de/file/":             {"translator": 200, "ops": 200},
		"/api/components/demo/app/file/":                  {"translator": 200, "ops": 200},
		"/api/projects/demo/file/":                        {"translator": 200, "ops": 200},
		"/git/demo/app/":                                  {"translator": 200, "ops": 200},
		"/git/demo/app/info/refs?service=git-upload-pack": {"translator": 200, "ops": 200},
	}
	notFound := `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for path, statuses := range want {
		for name, auth := range readers {
			r := doJSON(t, "GET", e.srv.URL+path, auth, nil)
			status, ok := statuses[name]
			if !ok {
				status = 404
			}
			if r.status != status || (status == 404 && string(r.body) != notFound) {
				t.Errorf("%s: GET %s = %d %.200s, want %d", name, path, r.status, r.body, status)
			}
		}
	}
}

func TestTranslationFile(t *testing.T) {
	e := mustRepoEnv(t)
	tests := []struct {
		path, file, contentType, disposition string
		upstream                             upstream
	}{
		{"/api/translations/demo/app/de/file/", "locales/de.json", "application/json; charset=utf-8",
			"attachment; filename=demo-app-de.json", e.app},
		{"/api/translations/demo/app/en/file/", "locales/en.json", "application/json; charset=utf-8",
			"attachment; filename=demo-app-en.json", e.app},
		{"/api/translations/demo/app/pt_BR/file/", "locales/pt_BR.json", "application/json; charset=utf-8",
			"attachment; filename=demo-app-pt_BR.json", e.app},
		{"/api/translations/demo/glossary/de/file/", "de.tbx", "application/x-tbx",
			"attachment; filename=demo-glossary-de.tbx", e.glossary},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			// wlc sends Accept: application/json on downloads too.
			r := do(t, "GET", e.srv.URL+tc.path, http.Header{"Accept": {"application/json"}})
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if want := tc.upstream.blob(t, tc.file); !bytes.Equal(r.body, want) {
				t.Errorf("body = %q, want the committed blob %q", r.body, want)
			}
			for h, want := range map[string]string{
				"Content-Type": tc.contentType, "Content-Disposition": tc.disposition,
				"Allow": "GET, POST, PUT, HEAD, OPTIONS",
			} {
				if got := r.header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			if r.header.Get("Last-Modified") == "" {
				t.Error("no Last-Modified")
			}
		})
	}

	notFound := `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, tc := range []struct{ name, path, body string }{
		{"glossary source has no file", "/api/translations/demo/glossary/en/file/",
			`{"type":"client_error","errors":[{"code":"not_found","detail":"No translation file!","attr":null}]}`},
		{"unknown language", "/api/translations/demo/app/xx/file/", notFound},
		{"unknown component", "/api/components/demo/nope/file/", notFound},
		{"unknown project", "/api/projects/nope/file/", notFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, "GET", e.srv.URL+tc.path, nil)
			if r.status != http.StatusNotFound || string(r.body) != tc.body {
				t.Errorf("GET %s = %d %s, want 404 %s", tc.path, r.status, r.body, tc.body)
			}
		})
	}
	plain := do(t, "GET", e.srv.URL+"/api/translations/demo/app/de/file/", nil)
	if r := do(t, "GET", e.srv.URL+"/api/translations/demo/app/de/file/?format=api", nil); r.status != http.StatusOK ||
		!bytes.Equal(r.body, plain.body) {
		t.Errorf("format=api = %d %q, want the file %q", r.status, r.body, plain.body)
	}
	r := do(t, "GET", e.srv.URL+"/api/translations/demo/app/de/file/?format=po", nil)
	if want := `{"type":"validation_error","errors":[{"code":"invalid","detail":"Conversion to po is not supported","attr":"format"}]}`; r.status != http.StatusBadRequest || string(r.body) != want {
		t.Errorf("format=po = %d %s, want 400 %s", r.status, r.body, want)
	}
	if r := do(t, "PUT", e.srv.URL+"/api/translations/demo/app/de/file/", nil); r.status != http.StatusUnauthorized {
		t.Errorf("anonymous PUT = %d %s, want 401", r.status, r.body)
	}
}

// zipEntries reads a zip body into name → content.
func zipEntries(tb testing.TB, body []byte) map[string][]byte {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		tb.Fatalf("not a zip: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
		out[f.Name] = b
	}
	return out
}

func TestZipDownloads(t *testing.T) {
	e := mustRepoEnv(t)
	appFiles := []string{"locales/de.json", "locales/en.json", "locales/fr.json", "locales/pt_BR.json"}
	glossaryFiles := []string{"de.tbx", "fr.tbx"}
	tests := []struct {
		path, disposition string
		want              map[string]upstream // entry → where its bytes come from
	}{
		{"/api/components/demo/app/file/", `attachment; filename="demo-app.zip"`, nil},
		{"/api/components/demo/glossary/file/", `attachment; filename="demo-glossary.zip"`, nil},
		{"/api/projects/demo/file/", `attachment; filename="demo.zip"`, nil},
	}
	tests[0].want, tests[1].want, tests[2].want = map[string]upstream{}, map[string]upstream{}, map[string]upstream{}
	for _, f := range appFiles {
		tests[0].want["demo/app/"+f] = e.app
		tests[2].want["demo/app/"+f] = e.app
	}
	for _, f := range glossaryFiles {
		tests[1].want["demo/glossary/"+f] = e.glossary
		tests[2].want["demo/glossary/"+f] = e.glossary
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := do(t, "GET", e.srv.URL+tc.path, http.Header{"Accept": {"application/json"}})
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			for h, want := range map[string]string{
				"Content-Type": "application/zip", "Content-Disposition": tc.disposition, "Allow": "GET, HEAD, OPTIONS",
			} {
				if got := r.header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			got := zipEntries(t, r.body)
			var names, wantNames []string
			for n := range got {
				names = append(names, n)
			}
			for n := range tc.want {
				wantNames = append(wantNames, n)
			}
			sort.Strings(names)
			sort.Strings(wantNames)
			if !reflect.DeepEqual(names, wantNames) {
				t.Fatalf("entries = %q, want %q", names, wantNames)
			}
			for n, u := range tc.want {
				file := strings.SplitN(n, "/", 3)[2]
				if want := u.blob(t, file); !bytes.Equal(got[n], want) {
					t.Errorf("%s = %q, want %q", n, got[n], want)
				}
			}
		})
	}
	if r := do(t, "GET", e.srv.URL+"/api/components/demo/app/file/?format=po", nil); r.status != http.StatusNotFound {
		t.Errorf("format=po = %d %s, want 404", r.status, r.body)
	}
	// format=api may follow any URL (spec, "Common response behaviour").
	plain := do(t, "GET", e.srv.URL+"/api/components/demo/app/file/", nil)
	withAPI := do(t, "GET", e.srv.URL+"/api/components/demo/app/file/?format=api", nil)
	if withAPI.status != http.StatusOK || !bytes.Equal(withAPI.body, plain.body) {
		t.Errorf("format=api = %d, body equal to the plain zip: %v", withAPI.status, bytes.Equal(withAPI.body, plain.body))
	}
}

func TestGitExportEndpoint(t *testing.T) {
	e := mustRepoEnv(t)
	url := e.srv.URL + "/git/demo/app/"
	head := runGit(t, e.app.work, "rev-parse", "HEAD")

	// A person opening git_export learns how to clone.
	r := do(t, "GET", url, nil)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/plain; charset=utf-8" ||
		!strings.Contains(string(r.body), "git clone "+url+"\n") {
		t.Errorf("GET %s = %d %q %s", url, r.status, r.header.Get("Content-Type"), r.body)
	}
	// The component's git_export points here.
	if ge := getObject(t, e.srv.URL+"/api/translations/demo/app/de/")["component"].(map[string]any)["git_export"]; ge != url {
		t.Errorf("git_export = %v, want %s", ge, url)
	}

	dst := filepath.Join(t.TempDir(), "cli")
	runGit(t, "/", "clone", "--quiet", url, dst)
	if got := runGit(t, dst, "rev-parse", "HEAD"); got != head {
		t.Errorf("git clone HEAD = %s, want %s", got, head)
	}
	if got := runGit(t, dst, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("git clone is on %s", got)
	}
	b, err := os.ReadFile(filepath.Join(dst, "locales", "de.json"))
	if want := e.app.blob(t, "locales/de.json"); err != nil || !bytes.Equal(b, want) {
		t.Errorf("cloned de.json = %q, %v; want %q", b, err, want)
	}

	gg := filepath.Join(t.TempDir(), "gogit")
	repo, err := git.PlainCloneContext(context.Background(), gg, false, &git.CloneOptions{URL: url})
	if err != nil {
		t.Fatalf("go-git clone: %v", err)
	}
	ref, err := repo.Head()
	if err != nil || ref.Name() != plumbing.NewBranchReferenceName("main") || ref.Hash().String() != head {
		t.Errorf("go-git clone HEAD = %v, %v; want main at %s", ref, err, head)
	}
	if b, err := os.ReadFile(filepath.Join(gg, "locales", "en.json")); err != nil ||
		!bytes.Equal(b, e.app.blob(t, "locales/en.json")) {
		t.Errorf("go-git cloned en.json = %q, %v", b, err)
	}

	// Read-only: pushing is refused.
	for _, tc := range []struct{ method, path string }{
		{"GET", "info/refs?service=git-receive-pack"}, {"POST", "git-receive-pack"},
	} {
		if r := do(t, tc.method, url+tc.path, nil); r.status != http.StatusForbidden {
			t.Errorf("%s %s = %d, want 403", tc.method, tc.path, r.status)
		}
	}
	runGit(t, dst, "commit", "--quiet", "--allow-empty", "-m", "Sneaky")
	cmd := exec.Command("git", "push", "origin", "main")
	cmd.Dir = dst
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("git push succeeded:\n%s", out)
	}

	notFound := `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, p := range []string{"/git/demo/nope/", "/git/demo/nope/info/refs?service=git-upload-pack", "/git/nope/app/"} {
		if r := do(t, "GET", e.srv.URL+p, nil); r.status != http.StatusNotFound || string(r.body) != notFound {
			t.Errorf("GET %s = %d %s, want 404 JSON", p, r.status, r.body)
		}
	}
}

func TestRepositoriesUnset(t *testing.T) {
	// The demo index without Options.Repositories: every endpoint that
	// needs a checkout is absent.
	srv, _ := demoServer(t)
	notFound := `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, p := range []string{
		"/api/projects/demo/repository/", "/api/components/demo/app/repository/",
		"/api/translations/demo/app/de/repository/", "/api/translations/demo/app/de/file/",
		"/api/components/demo/app/file/", "/api/projects/demo/file/",
		"/git/demo/app/", "/git/demo/app/info/refs?service=git-upload-pack",
	} {
		r := do(t, "GET", srv.URL+p, nil)
		if r.status != http.StatusNotFound || string(r.body) != notFound {
			t.Errorf("GET %s = %d %s, want 404 JSON", p, r.status, r.body)
		}
	}
}
