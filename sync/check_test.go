package sync_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// mustSavedComponent saves c in project "test" (created if needed) and
// returns it with its ID and project.
func (e env) mustSavedComponent(tb testing.TB, c index.Component) index.Component {
	tb.Helper()
	ctx := context.Background()
	p, _, err := e.db.SaveProject(ctx, index.Project{Name: "Test", Slug: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	c.ProjectID = p.ID
	saved, _, err := e.db.SaveComponent(ctx, c)
	if err != nil {
		tb.Fatal(err)
	}
	return saved
}

// waitTask polls a task until it completes.
func waitTask(tb testing.TB, svc *tolksync.Service, id string) index.Task {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		t, ok := svc.Task(id)
		if !ok {
			tb.Fatalf("task %s vanished", id)
		}
		if t.Completed {
			return t
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("task %s did not complete", id)
	return index.Task{}
}

func TestCheckComponent(t *testing.T) {
	ctx := context.Background()
	url, _ := mustRepo(t, map[string]string{
		"locales/en.json":  `{"hello": "Hello"}`,
		"locales/de.json":  `{"hello": "Hallo"}`,
		"locales/bad.json": `{"hello": `,
	})
	e := mustEnv(t)
	t.Cleanup(func() { e.svc.Close() })
	good := jsonComponent("app", url, "locales/*.json", "locales/en.json", "en")
	good.Branch, good.Project = "", index.Project{Slug: "test"} // the clone is kept for test/app
	for _, tc := range []struct {
		name   string
		change func(*index.Component)
		field  string
		detail string
	}{
		{"unreachable repo", func(c *index.Component) { c.Repo = "file://" + filepath.Join(t.TempDir(), "none.git") },
			"repo", "Could not update repository: "},
		{"missing branch", func(c *index.Component) { c.Branch = "nope" },
			"branch", `Could not update repository: the branch "nope" does not exist.`},
		{"filemask matching nothing", func(c *index.Component) { c.Filemask, c.Template = "po/*.json", "po/en.json" },
			"filemask", "The file mask did not match any files."},
		{"template missing", func(c *index.Component) { c.Template = "locales/fr.json" },
			"template", "File does not exist."},
		{"template unparsable", func(c *index.Component) { c.Template = "locales/bad.json" },
			"template", "Could not parse translation base file: "},
		{"new_base missing", func(c *index.Component) { c.NewBase = "locales/base.json" },
			"new_base", "File does not exist."},
		{"bad language_regex", func(c *index.Component) { c.LanguageRegex = "(" },
			"language_regex", "invalid language_regex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.change(&c)
			_, err := e.svc.CheckComponent(ctx, c)
			var fe *index.FieldError
			if !errors.As(err, &fe) || len(fe.Fields) != 1 || !strings.Contains(fe.Fields[tc.field].Detail, tc.detail) {
				t.Fatalf("CheckComponent = %v, want %s: %q", err, tc.field, tc.detail)
			}
		})
	}
	entries, _ := os.ReadDir(filepath.Join(e.dir, "tmp"))
	if len(entries) != 0 {
		t.Errorf("failed checks left %d clones behind", len(entries))
	}

	// A template outside the mask is accepted, as the reference accepts
	// Android's values/strings.xml beside values-*/strings.xml.
	outside := good
	outside.Filemask = "locales/d*.json"
	if _, err := e.svc.CheckComponent(ctx, outside); err != nil {
		t.Errorf("template outside the mask: %v", err)
	}

	// A good check resolves the default branch and leaves its clone for
	// the import, which adopts it rather than cloning again.
	checked, err := e.svc.CheckComponent(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	if checked.Branch != "main" {
		t.Errorf("branch = %q, want the remote's default main", checked.Branch)
	}
	saved := e.mustSavedComponent(t, checked)
	task := e.svc.StartImport(saved)
	done := waitTask(t, e.svc, task.ID)
	if done.Err != "" || done.Progress != 100 || done.Result["files"] != 3 || done.Result["failed"] != 1 ||
		!strings.Contains(done.Log, "3 files match the file mask") {
		t.Errorf("task = %+v", done)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.dir, "tmp")); len(entries) != 0 {
		t.Errorf("the import left the checked clone unadopted: %d entries", len(entries))
	}
	if revs := mustRevisions(t, e, "app"); revs["de"] == "" {
		t.Errorf("revisions after the task = %v", revs)
	}
}

func TestImportTaskRemovesStaleAndCancels(t *testing.T) {
	url, work := mustRepo(t, map[string]string{
		"locales/en.json": `{"hello": "Hello"}`,
		"locales/de.json": `{"hello": "Hallo"}`,
		"locales/fr.json": `{"hello": "Bonjour"}`,
	})
	e := mustEnv(t)
	t.Cleanup(func() { e.svc.Close() })
	c := e.mustSavedComponent(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))
	if done := waitTask(t, e.svc, e.svc.StartImport(c).ID); done.Err != "" {
		t.Fatal(done.Err)
	}
	git(t, work, "rm", "--quiet", "locales/fr.json")
	writeAndPush(t, work, map[string]string{"locales/de.json": `{"hello": "Hallo!"}`}, "drop French")
	done := waitTask(t, e.svc, e.svc.StartImport(c).ID)
	if done.Result["translations_removed"] != 1 || !strings.Contains(done.Log, "their files gone: fr") {
		t.Errorf("second import = %+v", done)
	}
	if revs := mustRevisions(t, e, "app"); len(revs) != 2 || revs["fr"] != "" {
		t.Errorf("translations after French left = %v", revs)
	}
	if !e.svc.CancelTask(done.ID) || e.svc.CancelTask("no-such-task") {
		t.Error("CancelTask reports wrongly")
	}
	if again, _ := e.svc.Task(done.ID); again.Err != "" {
		t.Errorf("cancelling a completed task changed it: %+v", again)
	}
	if tasks := e.svc.Tasks(); len(tasks) != 2 || tasks[0].ID != done.ID {
		t.Errorf("Tasks() = %d tasks, newest %v", len(tasks), tasks)
	}

	// A cancelled task completes with the cancellation as its error.
	lock := e.svc.StartImport(c) // runs; cancel the next while it waits for the lock
	next := e.svc.StartImport(c)
	e.svc.CancelTask(next.ID)
	waitTask(t, e.svc, lock.ID)
	if got := waitTask(t, e.svc, next.ID); !strings.Contains(got.Err, "cancel") {
		t.Errorf("cancelled task = %+v", got)
	}
}

func TestCheckoutFiles(t *testing.T) {
	ctx := context.Background()
	url, _ := mustRepo(t, map[string]string{"po/en.json": `{"a": "A"}`})
	e := mustEnv(t)
	t.Cleanup(func() { e.svc.Close() })
	c := jsonComponent("app", url, "po/*.json", "po/en.json", "en")
	c.LanguageCode = "posix_long"
	c = e.mustSavedComponent(t, c)
	if name, ok := e.svc.TranslationFilename(c, "cs"); !ok || name != "po/cs_CZ.json" {
		t.Errorf("TranslationFilename(cs) = %q, %v", name, ok)
	}
	c.LanguageRegex = "^[a-z]{2}$"
	if _, ok := e.svc.TranslationFilename(c, "cs"); ok {
		t.Error("a file name language_regex refuses was given")
	}
	if done := waitTask(t, e.svc, e.svc.StartImport(c).ID); done.Err != "" {
		t.Fatal(done.Err)
	}
	dir := filepath.Join(e.dir, "repos", "test", "app")
	moved := c
	moved.Slug, moved.Project.Slug = "web", "shop"
	if err := e.svc.MoveCheckout(ctx, c, moved); err != nil {
		t.Fatal(err)
	}
	newDir := filepath.Join(e.dir, "repos", "shop", "web")
	if _, err := os.Stat(filepath.Join(newDir, ".git")); err != nil {
		t.Errorf("moved checkout: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old checkout still there: %v", err)
	}
	if err := e.svc.RemoveCheckout(ctx, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(newDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("project directory of the last checkout still there: %v", err)
	}
}
