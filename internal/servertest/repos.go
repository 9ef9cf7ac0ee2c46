package servertest

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk"

	tolksync "github.com/tolk-project/tolk/sync"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// RunGit runs the git CLI in dir with a fixed identity and no user
// configuration, and returns its trimmed output.
func RunGit(tb testing.TB, dir string, args ...string) string {
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

// Upstream is a bare repository with a work tree that pushes to it.
type Upstream struct{ URL, Work string }

// MustUpstream makes a bare repository on main from the demo files under
// testdata/demo/<name> (tolk.DemoFiles).
func MustUpstream(tb testing.TB, name string) Upstream {
	tb.Helper()
	root := tb.TempDir()
	bare, work := filepath.Join(root, name+".git"), filepath.Join(root, name)
	RunGit(tb, root, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	RunGit(tb, root, "clone", "--quiet", bare, work)
	RunGit(tb, work, "checkout", "--quiet", "-b", "main")
	src := path.Join("testdata/demo", name)
	err := fs.WalkDir(tolk.DemoFiles, src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, src+"/")
		data, err := fs.ReadFile(tolk.DemoFiles, p)
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
	u := Upstream{"file://" + bare, work}
	u.Commit(tb, nil, "Initial commit")
	return u
}

// MustServeHTTP serves the upstream's bare repository over git's smart
// HTTP (git http-backend), as a Git host does, until the test ends. It
// returns the repository's URL and the number of fetches (and clones)
// served so far: the info/refs requests of git-upload-pack. It skips the
// test when git http-backend is missing.
func (u Upstream) MustServeHTTP(tb testing.TB) (string, *atomic.Int64) {
	tb.Helper()
	bare := strings.TrimPrefix(u.URL, "file://")
	backend := filepath.Join(RunGit(tb, "/", "--exec-path"), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		tb.Skipf("git http-backend not available: %v", err)
	}
	cgiHandler := &cgi.Handler{Path: backend, Root: "/git",
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(bare), "GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}}
	var fetches atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/info/refs") && r.URL.Query().Get("service") == "git-upload-pack" {
			fetches.Add(1)
		}
		cgiHandler.ServeHTTP(w, r)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + "/git/" + filepath.Base(bare), &fetches
}

// Commit writes files in the work tree, commits and pushes.
func (u Upstream) Commit(tb testing.TB, files map[string]string, msg string) string {
	tb.Helper()
	for p, s := range files {
		if err := os.WriteFile(filepath.Join(u.Work, filepath.FromSlash(p)), []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	RunGit(tb, u.Work, "add", "-A")
	RunGit(tb, u.Work, "commit", "--quiet", "-m", msg)
	RunGit(tb, u.Work, "push", "--quiet", "origin", "main")
	return RunGit(tb, u.Work, "rev-parse", "HEAD")
}

// Blob returns a file's bytes as committed upstream.
func (u Upstream) Blob(tb testing.TB, path string) []byte {
	tb.Helper()
	cmd := exec.Command("git", "cat-file", "blob", "HEAD:"+path)
	cmd.Dir = u.Work
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git cat-file %s: %v", path, err)
	}
	return out
}

// RepoEnv is the demo project imported by a real sync.Service from real
// repositories, served by a real server.
type RepoEnv struct {
	Srv           *Running
	DB            *sqlstore.DB
	Svc           *tolksync.Service
	App, Glossary Upstream
}

// MustIndexAndService opens an index with every language in a
// temporary directory and a sync service over it, both closed when the
// test ends.
//
// Updates asked by notices (webhooks) follow each other without waiting
// (UpdateInterval 1ns) unless an option says otherwise; each option
// edits the service's options.
func MustIndexAndService(tb testing.TB, options ...func(*tolksync.Options)) (*sqlstore.DB, *tolksync.Service) {
	tb.Helper()
	ctx := context.Background()
	dir := tb.TempDir()
	db := indextest.Open(tb)
	langs := langdata.Default()
	if err := db.SeedLanguages(ctx, langs.All()); err != nil {
		tb.Fatal(err)
	}
	o := tolksync.Options{DataDir: filepath.Join(dir, "data"), UpdateInterval: time.Nanosecond}
	for _, f := range options {
		f(&o)
	}
	svc, err := tolksync.New(db, langs, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { svc.Close() })
	return db, svc
}

func MustRepoEnv(tb testing.TB) RepoEnv {
	tb.Helper()
	ctx := context.Background()
	env := New(tb, WithAllLanguages(), WithSync(), WithRealClock())
	db, svc := env.DB, env.Sync
	e := RepoEnv{Srv: env.Running, DB: db, Svc: svc, App: MustUpstream(tb, "app"), Glossary: MustUpstream(tb, "glossary")}
	app := index.DefaultComponent()
	app.Name, app.Slug, app.Repo, app.Branch = "App", "app", e.App.URL, "main"
	app.Filemask, app.Template = "locales/*.json", "locales/en.json"
	g := index.DefaultComponent()
	g.Name, g.Slug, g.Repo, g.Branch = "Glossary", "glossary", e.Glossary.URL, "main"
	g.Filemask, g.FileFormat, g.IsGlossary = "*.tbx", "tbx", true
	err := svc.Reconcile(ctx, []tolksync.ProjectSpec{{
		Project:    index.Project{Name: "Demo", Slug: "demo"},
		Components: []index.Component{app, g},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func (e RepoEnv) Component(tb testing.TB, slug string) index.Component {
	tb.Helper()
	c, err := e.DB.FindComponent(context.Background(), "demo", slug)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// UploadEnv is the demo project imported from real repositories, with a
// user for each role that matters to uploads.
type UploadEnv struct {
	RepoEnv
	Anna, Rita, Adam, Root, Nobody string // translator, reviewer, administrator, superuser, no role
}

func MustUploadEnv(tb testing.TB) UploadEnv {
	tb.Helper()
	e := UploadEnv{RepoEnv: MustRepoEnv(tb)}
	e.Anna = MustUser(tb, e.DB, "anna", false, [2]string{"Translate", "demo"})
	e.Rita = MustUser(tb, e.DB, "rita", false, [2]string{"Review strings", "demo"})
	e.Adam = MustUser(tb, e.DB, "adam", false, [2]string{"Administration", "demo"})
	e.Root = MustUser(tb, e.DB, "root", true)
	e.Nobody = MustUser(tb, e.DB, "nobody", false)
	return e
}

func (e UploadEnv) Translation(tb testing.TB, component, lang string) index.Translation {
	tb.Helper()
	t, err := e.DB.FindTranslation(context.Background(), "demo", component, lang)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// Changes returns a translation's Changes, oldest first.
func (e UploadEnv) Changes(tb testing.TB, component, lang string) []index.Change {
	tb.Helper()
	t := e.Translation(tb, component, lang)
	out, _, err := e.DB.FindChanges(context.Background(), index.ChangeFilter{TranslationID: t.ID,
		Page: index.Page{Number: 1, Size: 1000}})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// Units returns a translation's Units by context.
func (e UploadEnv) Units(tb testing.TB, component, lang string) map[string]index.Unit {
	tb.Helper()
	t := e.Translation(tb, component, lang)
	list, _, err := e.DB.FindUnits(context.Background(), index.UnitFilter{TranslationID: t.ID,
		Page: index.Page{Number: 1, Size: 1000}})
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]index.Unit{}
	for _, u := range list {
		out[u.Context] = u
	}
	return out
}

// DeUpload translates two of German's empty strings, leaves a translated
// one alone, repeats one unchanged, names a key the component lacks and
// carries an untranslated one.
const DeUpload = `{
	"greeting": "Hallo!",
	"farewell": "Auf Wiedersehen",
	"menu": {"view": "Ansicht", "help": ""},
	"unknown.key": "Unbekannt",
	"menu.file": "Datei"
}`

// ActionsBy returns the actions of a translation's changes made by the
// user, oldest first, and the last of those changes.
func (e UploadEnv) ActionsBy(tb testing.TB, component, lang, user string) ([]index.Action, index.Change) {
	tb.Helper()
	var actions []index.Action
	var last index.Change
	for _, ch := range e.Changes(tb, component, lang) {
		if ch.UserName == user {
			actions = append(actions, ch.Action)
			last = ch
		}
	}
	return actions, last
}
