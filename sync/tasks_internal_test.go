package sync

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/vcs"
)

// TestStartUpdateCoalesces: while a component is busy, repeated update
// notices share the one task still waiting for it; a cancelled task is
// not shared; once the task holds the component, a new notice queues a
// new task, since the running one may have fetched already.
func TestStartUpdateCoalesces(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := indextest.Open(t)
	langs := langdata.Default()
	if err := db.SeedLanguages(ctx, langs.All()); err != nil {
		t.Fatal(err)
	}
	s, err := New(db, langs, Options{DataDir: filepath.Join(dir, "data"), UpdateInterval: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bare := filepath.Join(dir, "app.git")
	if err := vcs.CreateBare(ctx, bare, "main", map[string][]byte{"locales/en.json": []byte(`{"a": "A"}`)},
		"initial"); err != nil {
		t.Fatal(err)
	}
	c := index.DefaultComponent()
	c.Name, c.Slug, c.Repo, c.Branch = "App", "app", "file://"+bare, "main"
	c.Filemask, c.Template = "locales/*.json", "locales/en.json"
	if err := s.Reconcile(ctx, []ProjectSpec{{Project: index.Project{Name: "P", Slug: "p"},
		Components: []index.Component{c}}}); err != nil {
		t.Fatal(err)
	}
	if c, err = db.FindComponent(ctx, "p", "app"); err != nil {
		t.Fatal(err)
	}

	lock := s.componentLock(c.ID)
	lock.Lock() // the component is busy
	first := s.StartUpdate(c)
	if again := s.StartUpdate(c); again.ID != first.ID {
		t.Errorf("second notice started %s, want the waiting %s", again.ID, first.ID)
	}
	s.CancelTask(first.ID)
	second := s.StartUpdate(c)
	if second.ID == first.ID {
		t.Errorf("a notice joined the cancelled task %s", first.ID)
	}
	lock.Unlock()
	for _, id := range []string{first.ID, second.ID} {
		waitDone(t, s, id)
	}
	if got, _ := s.Task(second.ID); got.Err != "" || got.Result == nil {
		t.Errorf("update task = %+v, want a result", got)
	}
	if third := s.StartUpdate(c); third.ID == second.ID {
		t.Errorf("a notice after the update joined the finished task")
	}
}

// waitDone waits for a task to complete.
func waitDone(tb testing.TB, s *Service, id string) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if got, ok := s.Task(id); ok && got.Completed {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("task %s did not complete", id)
}
