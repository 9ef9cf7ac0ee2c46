package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	"github.com/tolk-project/tolk/internal/servertest"
	tolksync "github.com/tolk-project/tolk/sync"
)

// The service provides what the API declares.
var _ api.Repositories = (*tolksync.Service)(nil)

func TestRepositoryStatusEndpoints(t *testing.T) {
	e := servertest.MustRepoEnv(t)
	base := e.Srv.URL
	head := servertest.RunGit(t, e.App.Work, "rev-parse", "HEAD")
	ops := servertest.MustUser(t, e.DB, "ops", false, [2]string{"Manage repository", "demo"})
	for _, ep := range []struct{ path string }{
		{"/api/projects/demo/repository/"},
		{"/api/components/demo/app/repository/"},
		{"/api/translations/demo/app/de/repository/"},
	} {
		t.Run(ep.path, func(t *testing.T) {
			r := servertest.Do(t, "GET", base+ep.path, http.Header{"Accept": {"application/json"}, "Authorization": {ops}})
			if r.Status != http.StatusOK {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			if got := r.Header.Get("Allow"); got != "GET, POST, HEAD, OPTIONS" {
				t.Errorf("Allow = %q", got)
			}
			want := `{"needs_commit":false,"needs_merge":false,"needs_push":false,"url":"` + base + ep.path + `"`
			if !strings.HasPrefix(string(r.Body), want) {
				t.Errorf("body = %s, want it to start %s", r.Body, want)
			}
			if strings.HasPrefix(ep.path, "/api/projects/") {
				// Jobs run per component: a project lists none.
				// The reference's 2026.8 project body, and Tolk's jobs.
				full := want + `,"weblate_commit":null,"status":null,"merge_failure":null,"outgoing_commits":null,` +
					`"missing_commits":null,"remote_commit":null,"pending_units":{"total":0,"errors_skipped":0,` +
					`"commit_policy_skipped":0,"eligible_for_commit":0},"jobs":null}`
				if string(r.Body) != full {
					t.Errorf("project body = %s, want %s", r.Body, full)
				}
				return
			}
			obj := servertest.Decode(t, r.Body)
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
			if r := servertest.Do(t, "POST", base+ep.path, nil); r.Status != http.StatusUnauthorized {
				t.Errorf("POST = %d %s, want 401", r.Status, r.Body)
			}
		})
	}

	// A commit lands upstream and is fetched, not merged.
	up := e.App.Commit(t, map[string]string{"locales/de.json": "{}\n"}, "Upstream edit")
	if changed, err := e.Svc.Fetch(context.Background(), e.Component(t, "app")); !changed || err != nil {
		t.Fatalf("Fetch = %v, %v", changed, err)
	}
	for _, path := range []string{"/api/projects/demo/repository/", "/api/components/demo/app/repository/",
		"/api/translations/demo/app/de/repository/"} {
		obj := servertest.GetObjectAs(t, base+path, ops)
		if obj["needs_merge"] != true || obj["needs_push"] != false || obj["needs_commit"] != false {
			t.Errorf("%s after fetch = %v, want only needs_merge", path, obj)
		}
	}
	comp := servertest.GetObjectAs(t, base+"/api/components/demo/app/repository/", ops)
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
	if g := servertest.GetObjectAs(t, base+"/api/components/demo/glossary/repository/", ops); g["needs_merge"] != false {
		t.Errorf("glossary = %v", g)
	}
}

// TestRepositoryStatusJobs runs the scheduler once over a component whose
// edit is due (commit_pending_age 0) and reads the jobs field at every
// level: the commit with its result, the pull not run yet.
func TestRepositoryStatusJobs(t *testing.T) {
	ctx := context.Background()
	e := servertest.MustRepoEnv(t)
	ops := servertest.MustUser(t, e.DB, "ops", false, [2]string{"Manage repository", "demo"})
	app := e.Component(t, "app")
	app.CommitPendingAge = 0
	if _, _, err := e.DB.SaveComponent(ctx, app); err != nil {
		t.Fatal(err)
	}
	tr, err := e.DB.FindTranslation(ctx, "demo", "app", "de")
	if err != nil {
		t.Fatal(err)
	}
	units, _, err := e.DB.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 1}})
	if err != nil || len(units) == 0 {
		t.Fatalf("de units: %v, %v", units, err)
	}
	if _, err := e.DB.UpdateUnit(ctx, units[0].ID, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Geplant"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	done := make(chan index.Job, 4)
	start := time.Now()
	if err := e.Svc.StartScheduler(tolksync.SchedulerOptions{CommitInterval: time.Hour, PullInterval: time.Hour,
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
		obj := servertest.GetObjectAs(t, e.Srv.URL+path, ops)
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
	if obj := servertest.GetObjectAs(t, e.Srv.URL+"/api/projects/demo/repository/", ops); obj["jobs"] != nil {
		t.Errorf("project jobs = %v, want null", obj["jobs"])
	}
}

// TestRepositoryStatusPermission checks who may read the repository
// status: any of vcs.push, vcs.commit, vcs.reset or vcs.update on the
// project (reference §4.1). The reference raises its refusal from the
// view, so anonymous readers get the 403 too, not a 401.
func TestRepositoryStatusPermission(t *testing.T) {
	e := servertest.MustRepoEnv(t)
	other := servertest.MustProject(t, e.DB, index.Project{Name: "Other", Slug: "other"})
	denied := `{"type":"client_error","errors":[{"code":"permission_denied",` +
		`"detail":"You do not have permission to perform this action.","attr":null}]}`
	cases := []struct {
		name, auth string
		status     int
	}{
		{"anonymous", "", 403},
		{"no role", servertest.MustUser(t, e.DB, "nobody", false), 403},
		{"translator", servertest.MustUser(t, e.DB, "tr", false, [2]string{"Translate", "demo"}), 403},
		{"reviewer", servertest.MustUser(t, e.DB, "rev", false, [2]string{"Review strings", "demo"}), 403},
		{"repository manager elsewhere", servertest.MustUser(t, e.DB, "elsewhere", false, [2]string{"Manage repository", "other"}), 403},
		{"repository manager", servertest.MustUser(t, e.DB, "ops", false, [2]string{"Manage repository", "demo"}), 200},
		{"repository manager, read-only token", servertest.MustScopedUser(t, e.DB, "ops-ro", false,
			index.Token{Scope: index.ScopeRead}, [2]string{"Manage repository", "demo"}), 200},
		{"project admin", servertest.MustUser(t, e.DB, "padmin", false, [2]string{"Administration", "demo"}), 200},
		{"site-wide repository manager", servertest.MustUser(t, e.DB, "siteops", false, [2]string{"Manage repository", ""}), 200},
		{"superuser", servertest.MustUser(t, e.DB, "root", true), 200},
		{"superuser, token for another project", servertest.MustScopedUser(t, e.DB, "root-other", true,
			index.Token{Scope: index.ScopeAdmin, ProjectID: other.ID}), 403},
		{"expired token", servertest.MustScopedUser(t, e.DB, "old", true, index.Token{Scope: index.ScopeAdmin,
			Expires: time.Now().Add(-time.Hour)}), 401},
	}
	for _, tc := range cases {
		for _, path := range []string{"/api/projects/demo/repository/", "/api/components/demo/app/repository/",
			"/api/translations/demo/app/de/repository/"} {
			r := servertest.DoJSON(t, "GET", e.Srv.URL+path, tc.auth, nil)
			if r.Status != tc.status || (tc.status == 403 && string(r.Body) != denied) {
				t.Errorf("%s: GET %s = %d %s, want %d", tc.name, path, r.Status, r.Body, tc.status)
			}
		}
	}
}

// TestPrivateRepository: the repository status, the downloads and the
// Git export of a private project are a 404 to whoever may not see it;
// whoever may sees the files, and the status only with a repository
// permission (a 403 then, after the object was found).
func TestPrivateRepository(t *testing.T) {
	e := servertest.MustRepoEnv(t)
	if _, _, err := e.DB.SaveProject(context.Background(), index.Project{Name: "Demo", Slug: "demo",
		AccessControl: index.AccessPrivate}); err != nil {
		t.Fatal(err)
	}
	readers := map[string]string{
		"anonymous":  "",
		"stranger":   servertest.MustUser(t, e.DB, "stranger", false),
		"translator": servertest.MustUser(t, e.DB, "tr", false, [2]string{"Translate", "demo"}),
		"ops":        servertest.MustUser(t, e.DB, "ops", false, [2]string{"Manage repository", "demo"}),
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
			r := servertest.DoJSON(t, "GET", e.Srv.URL+path, auth, nil)
			status, ok := statuses[name]
			if !ok {
				status = 404
			}
			if r.Status != status || (status == 404 && string(r.Body) != notFound) {
				t.Errorf("%s: GET %s = %d %.200s, want %d", name, path, r.Status, r.Body, status)
			}
		}
	}
}

func TestTranslationFile(t *testing.T) {
	e := servertest.MustRepoEnv(t)
	tests := []struct {
		path, file, contentType, disposition string
		upstream                             servertest.Upstream
	}{
		{"/api/translations/demo/app/de/file/", "locales/de.json", "application/json; charset=utf-8",
			"attachment; filename=demo-app-de.json", e.App},
		{"/api/translations/demo/app/en/file/", "locales/en.json", "application/json; charset=utf-8",
			"attachment; filename=demo-app-en.json", e.App},
		{"/api/translations/demo/app/pt_BR/file/", "locales/pt_BR.json", "application/json; charset=utf-8",
			"attachment; filename=demo-app-pt_BR.json", e.App},
		{"/api/translations/demo/glossary/de/file/", "de.tbx", "application/x-tbx",
			"attachment; filename=demo-glossary-de.tbx", e.Glossary},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			// wlc sends Accept: application/json on downloads too.
			r := servertest.Do(t, "GET", e.Srv.URL+tc.path, http.Header{"Accept": {"application/json"}})
			if r.Status != http.StatusOK {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			if want := tc.upstream.Blob(t, tc.file); !bytes.Equal(r.Body, want) {
				t.Errorf("body = %q, want the committed blob %q", r.Body, want)
			}
			for h, want := range map[string]string{
				"Content-Type": tc.contentType, "Content-Disposition": tc.disposition,
				"Allow": "GET, POST, PUT, HEAD, OPTIONS",
			} {
				if got := r.Header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			if r.Header.Get("Last-Modified") == "" {
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
			r := servertest.Do(t, "GET", e.Srv.URL+tc.path, nil)
			if r.Status != http.StatusNotFound || string(r.Body) != tc.body {
				t.Errorf("GET %s = %d %s, want 404 %s", tc.path, r.Status, r.Body, tc.body)
			}
		})
	}
	plain := servertest.Do(t, "GET", e.Srv.URL+"/api/translations/demo/app/de/file/", nil)
	if r := servertest.Do(t, "GET", e.Srv.URL+"/api/translations/demo/app/de/file/?format=api", nil); r.Status != http.StatusOK ||
		!bytes.Equal(r.Body, plain.Body) {
		t.Errorf("format=api = %d %q, want the file %q", r.Status, r.Body, plain.Body)
	}
	r := servertest.Do(t, "GET", e.Srv.URL+"/api/translations/demo/app/de/file/?format=po", nil)
	if want := `{"type":"validation_error","errors":[{"code":"invalid","detail":"Conversion to po is not supported","attr":"format"}]}`; r.Status != http.StatusBadRequest || string(r.Body) != want {
		t.Errorf("format=po = %d %s, want 400 %s", r.Status, r.Body, want)
	}
	if r := servertest.Do(t, "PUT", e.Srv.URL+"/api/translations/demo/app/de/file/", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("anonymous PUT = %d %s, want 401", r.Status, r.Body)
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
	e := servertest.MustRepoEnv(t)
	appFiles := []string{"locales/de.json", "locales/en.json", "locales/fr.json", "locales/pt_BR.json"}
	glossaryFiles := []string{"de.tbx", "fr.tbx"}
	tests := []struct {
		path, disposition string
		want              map[string]servertest.Upstream // entry → where its bytes come from
	}{
		{"/api/components/demo/app/file/", `attachment; filename="demo-app.zip"`, nil},
		{"/api/components/demo/glossary/file/", `attachment; filename="demo-glossary.zip"`, nil},
		{"/api/projects/demo/file/", `attachment; filename="demo.zip"`, nil},
	}
	tests[0].want, tests[1].want, tests[2].want = map[string]servertest.Upstream{}, map[string]servertest.Upstream{}, map[string]servertest.Upstream{}
	for _, f := range appFiles {
		tests[0].want["demo/app/"+f] = e.App
		tests[2].want["demo/app/"+f] = e.App
	}
	for _, f := range glossaryFiles {
		tests[1].want["demo/glossary/"+f] = e.Glossary
		tests[2].want["demo/glossary/"+f] = e.Glossary
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := servertest.Do(t, "GET", e.Srv.URL+tc.path, http.Header{"Accept": {"application/json"}})
			if r.Status != http.StatusOK {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			for h, want := range map[string]string{
				"Content-Type": "application/zip", "Content-Disposition": tc.disposition, "Allow": "GET, HEAD, OPTIONS",
			} {
				if got := r.Header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			got := zipEntries(t, r.Body)
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
				if want := u.Blob(t, file); !bytes.Equal(got[n], want) {
					t.Errorf("%s = %q, want %q", n, got[n], want)
				}
			}
		})
	}
	if r := servertest.Do(t, "GET", e.Srv.URL+"/api/components/demo/app/file/?format=po", nil); r.Status != http.StatusNotFound {
		t.Errorf("format=po = %d %s, want 404", r.Status, r.Body)
	}
	// format=api may follow any URL (spec, "Common response behaviour").
	plain := servertest.Do(t, "GET", e.Srv.URL+"/api/components/demo/app/file/", nil)
	withAPI := servertest.Do(t, "GET", e.Srv.URL+"/api/components/demo/app/file/?format=api", nil)
	if withAPI.Status != http.StatusOK || !bytes.Equal(withAPI.Body, plain.Body) {
		t.Errorf("format=api = %d, body equal to the plain zip: %v", withAPI.Status, bytes.Equal(withAPI.Body, plain.Body))
	}
}

func TestGitExportEndpoint(t *testing.T) {
	e := servertest.MustRepoEnv(t)
	url := e.Srv.URL + "/git/demo/app/"
	head := servertest.RunGit(t, e.App.Work, "rev-parse", "HEAD")

	// A person opening git_export learns how to clone.
	r := servertest.Do(t, "GET", url, nil)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" ||
		!strings.Contains(string(r.Body), "git clone "+url+"\n") {
		t.Errorf("GET %s = %d %q %s", url, r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	// The component's git_export points here.
	if ge := servertest.GetObject(t, e.Srv.URL+"/api/translations/demo/app/de/")["component"].(map[string]any)["git_export"]; ge != url {
		t.Errorf("git_export = %v, want %s", ge, url)
	}

	dst := filepath.Join(t.TempDir(), "cli")
	servertest.RunGit(t, "/", "clone", "--quiet", url, dst)
	if got := servertest.RunGit(t, dst, "rev-parse", "HEAD"); got != head {
		t.Errorf("git clone HEAD = %s, want %s", got, head)
	}
	if got := servertest.RunGit(t, dst, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("git clone is on %s", got)
	}
	b, err := os.ReadFile(filepath.Join(dst, "locales", "de.json"))
	if want := e.App.Blob(t, "locales/de.json"); err != nil || !bytes.Equal(b, want) {
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
		!bytes.Equal(b, e.App.Blob(t, "locales/en.json")) {
		t.Errorf("go-git cloned en.json = %q, %v", b, err)
	}

	// Read-only: pushing is refused.
	for _, tc := range []struct{ method, path string }{
		{"GET", "info/refs?service=git-receive-pack"}, {"POST", "git-receive-pack"},
	} {
		if r := servertest.Do(t, tc.method, url+tc.path, nil); r.Status != http.StatusForbidden {
			t.Errorf("%s %s = %d, want 403", tc.method, tc.path, r.Status)
		}
	}
	servertest.RunGit(t, dst, "commit", "--quiet", "--allow-empty", "-m", "Sneaky")
	cmd := exec.Command("git", "push", "origin", "main")
	cmd.Dir = dst
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("git push succeeded:\n%s", out)
	}

	notFound := `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, p := range []string{"/git/demo/nope/", "/git/demo/nope/info/refs?service=git-upload-pack", "/git/nope/app/"} {
		if r := servertest.Do(t, "GET", e.Srv.URL+p, nil); r.Status != http.StatusNotFound || string(r.Body) != notFound {
			t.Errorf("GET %s = %d %s, want 404 JSON", p, r.Status, r.Body)
		}
	}
}

func TestRepositoriesUnset(t *testing.T) {
	// The demo index without Options.Repositories: every endpoint that
	// needs a checkout is absent.
	srv, _ := servertest.DemoServer(t)
	notFound := `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, p := range []string{
		"/api/projects/demo/repository/", "/api/components/demo/app/repository/",
		"/api/translations/demo/app/de/repository/", "/api/translations/demo/app/de/file/",
		"/api/components/demo/app/file/", "/api/projects/demo/file/",
		"/git/demo/app/", "/git/demo/app/info/refs?service=git-upload-pack",
	} {
		r := servertest.Do(t, "GET", srv.URL+p, nil)
		if r.Status != http.StatusNotFound || string(r.Body) != notFound {
			t.Errorf("GET %s = %d %s, want 404 JSON", p, r.Status, r.Body)
		}
	}
}
