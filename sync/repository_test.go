package sync_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
)

var repoFiles = map[string]string{
	"locales/en.json": "{\n  \"hello\": \"Hello\"\n}\n",
	"locales/de.json": "{\n  \"hello\": \"Hallo\"\n}\n",
}

func TestRepositoryStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustEnv(t)
	url, work := mustRepo(t, repoFiles)
	c := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))[0]
	head := git(t, work, "rev-parse", "HEAD")

	st, err := e.svc.RepositoryStatus(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if st.NeedsCommit || st.NeedsMerge || st.NeedsPush || st.MergeFailure != "" {
		t.Errorf("after import: %+v, want nothing needed", st)
	}
	if st.LocalCommit.Revision != head || st.RemoteCommit == nil || st.RemoteCommit.Revision != head {
		t.Errorf("commits = %+v / %+v, want both %s", st.LocalCommit, st.RemoteCommit, head)
	}
	if st.RemoteCommit.Summary() != "initial" || st.RemoteCommit.AuthorEmail != "test@example.invalid" {
		t.Errorf("remote commit = %+v", st.RemoteCommit)
	}
	if !strings.Contains(st.Status, "up to date with 'origin/main'") {
		t.Errorf("status text:\n%s", st.Status)
	}

	// A commit lands upstream; a fetch sees it without merging it.
	writeAndPush(t, work, map[string]string{"locales/de.json": "{\"hello\": \"Servus\"}\n"}, "upstream edit")
	up := git(t, work, "rev-parse", "HEAD")
	if changed, err := e.svc.Fetch(ctx, c); !changed || err != nil {
		t.Fatalf("Fetch = %v, %v; want true, nil", changed, err)
	}
	st, err = e.svc.RepositoryStatus(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !st.NeedsMerge || st.NeedsPush || st.NeedsCommit {
		t.Errorf("after fetch: needs commit/merge/push = %v/%v/%v, want false/true/false",
			st.NeedsCommit, st.NeedsMerge, st.NeedsPush)
	}
	if st.LocalCommit.Revision != head || st.RemoteCommit.Revision != up {
		t.Errorf("after fetch: local %s remote %s, want %s and %s",
			st.LocalCommit.Revision, st.RemoteCommit.Revision, head, up)
	}
	// The checkout still serves the old file until an import pulls.
	if b, err := e.svc.ReadFile(ctx, c, "locales/de.json"); err != nil || string(b) != repoFiles["locales/de.json"] {
		t.Errorf("ReadFile after fetch = %q, %v", b, err)
	}
	if _, err := e.svc.ImportComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	if st, err := e.svc.RepositoryStatus(ctx, c); err != nil || st.NeedsMerge || st.LocalCommit.Revision != up {
		t.Errorf("after import: %+v, %v; want merged at %s", st, err, up)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustEnv(t)
	url, _ := mustRepo(t, repoFiles)
	c := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))[0]
	for p, want := range repoFiles {
		b, err := e.svc.ReadFile(ctx, c, p)
		if err != nil || string(b) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", p, b, err, want)
		}
	}
	if _, err := e.svc.ReadFile(ctx, c, "locales/fr.json"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("ReadFile of a missing file = %v, want ErrNotFound", err)
	}
	never := c
	never.ID, never.Slug = c.ID+100, "never-imported"
	if _, err := e.svc.ReadFile(ctx, never, "locales/en.json"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("ReadFile without checkout = %v, want ErrNotFound", err)
	}
	if _, err := e.svc.RepositoryStatus(ctx, never); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("RepositoryStatus without checkout = %v, want ErrNotFound", err)
	}
	if _, err := e.svc.GitExport(ctx, never); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("GitExport without checkout = %v, want ErrNotFound", err)
	}
}

func TestGitExport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustEnv(t)
	url, work := mustRepo(t, repoFiles)
	c := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))[0]
	h, err := e.svc.GitExport(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	dst := filepath.Join(t.TempDir(), "clone")
	git(t, "/", "clone", "--quiet", srv.URL+"/git/test/app/", dst)
	if got, want := git(t, dst, "rev-parse", "HEAD"), git(t, work, "rev-parse", "HEAD"); got != want {
		t.Errorf("clone HEAD = %s, want %s", got, want)
	}
	b, err := os.ReadFile(filepath.Join(dst, "locales", "de.json"))
	if err != nil || string(b) != repoFiles["locales/de.json"] {
		t.Errorf("cloned de.json = %q, %v", b, err)
	}
	resp, err := http.Get(srv.URL + "/git/test/app/info/refs?service=git-receive-pack")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("receive-pack advertisement = %d, want 403", resp.StatusCode)
	}
}

// TestRepositoryStatusAfterCommitCutShort: a commit cut short between
// its git commit and the index update (a crash there) left the edit in
// a commit on the checkout's branch, not pushed. The status says so:
// nothing to commit, something to push, the edit no longer pending. An
// edit made since stays pending, and the next commit makes no second
// commit of the first.
func TestRepositoryStatusAfterCommitCutShort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.cutCommit(t)
	// On PostgreSQL the index records each head for the other
	// processes, and the unrecorded commit is not one: the checkout goes
	// back to the recorded head, and the edit is still to commit.
	committed := indextest.Engine() != "postgres"
	st, err := e.svc.RepositoryStatus(ctx, e.c)
	if err != nil {
		t.Fatal(err)
	}
	if st.NeedsCommit == committed || st.NeedsPush != committed || (st.Pending.Units == 0) != committed {
		t.Errorf("status after the cut-short commit = needs_commit %v, needs_push %v, pending %+v; want the edit committed: %v",
			st.NeedsCommit, st.NeedsPush, st.Pending, committed)
	}
	if pending := e.unit(t, "de", "bye").Pending; pending == committed {
		t.Errorf("de bye pending = %v, want %v", pending, !committed)
	}
	e.edit(t, "fr", "hello", "Salut", e.bob)
	if st, err = e.svc.RepositoryStatus(ctx, e.c); err != nil {
		t.Fatal(err)
	}
	if !st.NeedsCommit || st.Pending.Units != 2-b2i(committed) {
		t.Errorf("status after an edit since = needs_commit %v, pending %+v", st.NeedsCommit, st.Pending)
	}
	res, err := e.svc.Commit(ctx, e.c, &e.ann)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 - b2i(committed); len(res.Commits) != want {
		t.Errorf("commit after = %d commits, want %d", len(res.Commits), want)
	}
	if err := e.svc.Push(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if log := e.log(t); len(log) != 3 {
		t.Errorf("log:\n%s\nwant the initial commit, de and fr once each", strings.Join(log, "\n"))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
