package vcs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("unchanged", func(t *testing.T) {
		t.Parallel()
		r := mustClone(t, mustBareRepo(t, sampleFiles))
		before := mustHead(t, r)
		changed, err := r.Pull(ctx)
		if changed || err != nil {
			t.Fatalf("Pull = %v, %v; want false, nil", changed, err)
		}
		if got := mustHead(t, r); got != before {
			t.Errorf("HEAD moved from %s to %s", before, got)
		}
	})

	t.Run("upstream moved", func(t *testing.T) {
		t.Parallel()
		url := mustBareRepo(t, sampleFiles)
		r := mustClone(t, url)
		up := upstreamCommit(t, url, "main", map[string]string{
			"locales/de.json": `{"hello": "Servus"}`, "locales/fr.json": "{}",
		})
		changed, err := r.Pull(ctx)
		if !changed || err != nil {
			t.Fatalf("Pull = %v, %v; want true, nil", changed, err)
		}
		if got := mustHead(t, r); got != up {
			t.Errorf("HEAD = %s, want upstream %s", got, up)
		}
		if got := mustReadFile(t, r, "locales/de.json"); got != `{"hello": "Servus"}` {
			t.Errorf("ReadFile after pull = %q", got)
		}
		// The working tree's files (a full clone's) follow upstream; a
		// file new upstream stays out of it (checkout.go).
		b, err := os.ReadFile(filepath.Join(r.Dir(), "locales", "de.json"))
		if err != nil || string(b) != `{"hello": "Servus"}` {
			t.Errorf("worktree de.json = %q, %v", b, err)
		}
		if _, err := os.Stat(filepath.Join(r.Dir(), "locales", "fr.json")); !os.IsNotExist(err) {
			t.Errorf("worktree fr.json: %v, want it left out of the working tree", err)
		}
		if got := mustGit(t, r.Dir(), "status", "--porcelain"); got != "" {
			t.Errorf("git status after pull:\n%s", got)
		}
		if changed, err := r.Pull(ctx); changed || err != nil {
			t.Errorf("second Pull = %v, %v; want false, nil", changed, err)
		}
	})

	t.Run("local ahead", func(t *testing.T) {
		t.Parallel()
		r := mustClone(t, mustBareRepo(t, sampleFiles))
		local := mustCommit(t, r, map[string]string{"locales/de.json": "{}"})
		changed, err := r.Pull(ctx)
		if changed || err != nil {
			t.Fatalf("Pull = %v, %v; want false, nil", changed, err)
		}
		if got := mustHead(t, r); got != local {
			t.Errorf("HEAD = %s, want local commit %s", got, local)
		}
	})

	t.Run("diverged", func(t *testing.T) {
		t.Parallel()
		url := mustBareRepo(t, sampleFiles)
		r := mustClone(t, url)
		local := mustCommit(t, r, map[string]string{"locales/de.json": "{}"})
		upstreamCommit(t, url, "main", map[string]string{"locales/en.json": "{}"})
		changed, err := r.Pull(ctx)
		if changed || !errors.Is(err, ErrDiverged) {
			t.Fatalf("Pull = %v, %v; want false, ErrDiverged", changed, err)
		}
		if got := mustHead(t, r); got != local {
			t.Errorf("HEAD = %s, want untouched %s", got, local)
		}
	})

	t.Run("upstream force-pushed", func(t *testing.T) {
		t.Parallel()
		url := mustBareRepo(t, sampleFiles)
		r := mustClone(t, url)
		// Replace main upstream with an unrelated history.
		work := filepath.Join(t.TempDir(), "rewrite")
		mustGit(t, "/", "init", "--quiet", "--initial-branch=main", work)
		writeFiles(t, work, map[string]string{"rewritten.txt": "new history\n"})
		mustGit(t, work, "add", "-A")
		mustGit(t, work, "commit", "--quiet", "-m", "Rewrite")
		mustGit(t, work, "push", "--quiet", "--force", bareDir(url), "main")
		want := mustGit(t, work, "rev-parse", "HEAD")

		changed, err := r.Pull(ctx)
		if !changed || err != nil {
			t.Fatalf("Pull = %v, %v; want true, nil", changed, err)
		}
		if got := mustHead(t, r); got != want {
			t.Errorf("HEAD = %s, want %s", got, want)
		}
		if _, err := os.Stat(filepath.Join(r.Dir(), "README.md")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("file of the old history still in the worktree: %v", err)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		url := mustBareRepo(t, sampleFiles)
		r := mustClone(t, url)
		upstreamCommit(t, url, "main", map[string]string{"a": "b"})
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := r.Pull(cctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Pull = %v, want context.Canceled", err)
		}
	})

	t.Run("remote branch deleted", func(t *testing.T) {
		t.Parallel()
		url := mustBareRepo(t, sampleFiles)
		r := mustClone(t, url)
		mustGit(t, bareDir(url), "branch", "other", "main")
		mustGit(t, bareDir(url), "symbolic-ref", "HEAD", "refs/heads/other")
		mustGit(t, bareDir(url), "branch", "-D", "main")
		if _, err := r.Pull(ctx); !errors.Is(err, ErrBranchNotFound) {
			t.Errorf("Pull = %v, want ErrBranchNotFound", err)
		}
	})
}

func TestCommitAndPush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := mustBareRepo(t, sampleFiles)
	r := mustClone(t, url)

	if need, err := r.NeedsPush(); need || err != nil {
		t.Fatalf("NeedsPush after clone = %v, %v", need, err)
	}
	files := map[string]string{
		"locales/de.json":    `{"hello": "Moin"}`,
		"locales/nb_NO.json": `{"hello": "Hei"}`,
		"deep/new/dir/x.txt": "x",
	}
	h := mustCommit(t, r, files)
	if got := mustHead(t, r); got != h {
		t.Errorf("Head = %s, want the commit %s", got, h)
	}
	if got := mustReadFile(t, r, "locales/nb_NO.json"); got != files["locales/nb_NO.json"] {
		t.Errorf("ReadFile after commit = %q", got)
	}
	if got := mustGit(t, r.Dir(), "status", "--porcelain"); got != "" {
		t.Errorf("git status after commit:\n%s", got)
	}
	if got := mustGit(t, r.Dir(), "log", "-1", "--format=%an <%ae> %aI|%cn|%s"); got != "Tolk Test <test@example.invalid> 2024-05-01T12:00:00+00:00|Tolk Test|Translated using Tolk" {
		t.Errorf("git log = %q", got)
	}
	if need, err := r.NeedsPush(); !need || err != nil {
		t.Errorf("NeedsPush after commit = %v, %v; want true", need, err)
	}

	if err := r.Push(ctx, ""); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if got := mustGit(t, bareDir(url), "rev-parse", "main"); got != h {
		t.Errorf("upstream main = %s, want %s", got, h)
	}
	if need, err := r.NeedsPush(); need || err != nil {
		t.Errorf("NeedsPush after push = %v, %v; want false", need, err)
	}
	if err := r.Push(ctx, ""); err != nil {
		t.Errorf("Push again (up to date) = %v, want nil", err)
	}
	fresh := mustClone(t, url)
	for p, want := range files {
		if got := mustReadFile(t, fresh, p); got != want {
			t.Errorf("fresh clone %s = %q, want %q", p, got, want)
		}
	}

	// Pushing to another branch name creates it upstream.
	if err := r.Push(ctx, "tolk"); err != nil {
		t.Fatalf("Push(tolk): %v", err)
	}
	if got := mustGit(t, bareDir(url), "rev-parse", "tolk"); got != h {
		t.Errorf("upstream tolk = %s, want %s", got, h)
	}
}

func TestCommitErrors(t *testing.T) {
	t.Parallel()
	r := mustClone(t, mustBareRepo(t, sampleFiles))
	if err := os.Symlink(t.TempDir(), filepath.Join(r.Dir(), "link")); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		c       CommitOptions
		wantErr error
	}{
		{name: "unchanged content", c: CommitOptions{Files: map[string][]byte{"README.md": []byte(sampleFiles["README.md"])}}, wantErr: ErrNothingToCommit},
		{name: "no files", c: CommitOptions{}, wantErr: ErrNothingToCommit},
		{name: "no message", c: CommitOptions{Message: " "}, wantErr: ErrMissingMessage},
		{name: "no author", c: CommitOptions{Author: Signature{Name: "x"}}, wantErr: ErrMissingAuthor},
		{name: "absolute", c: CommitOptions{Files: map[string][]byte{"/etc/x": nil}}, wantErr: ErrInvalidPath},
		{name: "dot-dot", c: CommitOptions{Files: map[string][]byte{"a/../../x": nil}}, wantErr: ErrInvalidPath},
		{name: "unclean", c: CommitOptions{Files: map[string][]byte{"a//x": nil}}, wantErr: ErrInvalidPath},
		{name: "dot git", c: CommitOptions{Files: map[string][]byte{".git/config": nil}}, wantErr: ErrInvalidPath},
		{name: "through symlink", c: CommitOptions{Files: map[string][]byte{"link/x.json": []byte("x")}}, wantErr: ErrInvalidPath},
		{name: "onto directory", c: CommitOptions{Files: map[string][]byte{"locales": []byte("x")}}, wantErr: ErrInvalidPath},
		{name: "cancelled", ctx: cancelled, c: CommitOptions{Files: map[string][]byte{"a": []byte("x")}}, wantErr: context.Canceled},
	}
	before := mustHead(t, r)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			if c.Message == "" {
				c.Message = "msg"
			}
			if c.Author == (Signature{}) {
				c.Author = testAuthor
			}
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			h, err := r.Commit(ctx, c)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Commit(%v) = %q, %v; want %v", tc.c.Files, h, err, tc.wantErr)
			}
		})
	}
	if got := mustHead(t, r); got != before {
		t.Errorf("HEAD moved to %s", got)
	}
}

func TestPushNonFastForward(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := mustBareRepo(t, sampleFiles)
	r := mustClone(t, url)
	mustCommit(t, r, map[string]string{"locales/de.json": "{}"})
	up := upstreamCommit(t, url, "main", map[string]string{"locales/en.json": "{}"})

	err := r.Push(ctx, "")
	if !errors.Is(err, ErrNonFastForward) {
		t.Fatalf("Push = %v, want ErrNonFastForward", err)
	}
	t.Logf("error: %v", err)
	if got := mustGit(t, bareDir(url), "rev-parse", "main"); got != up {
		t.Errorf("upstream main = %s, want unchanged %s", got, up)
	}

	// Also when the remote moved by a commit the checkout has fetched.
	r2 := mustClone(t, url)
	mustCommit(t, r2, map[string]string{"a.txt": "a"})
	upstreamCommit(t, url, "main", map[string]string{"b.txt": "b"})
	if _, err := r2.Pull(ctx); !errors.Is(err, ErrDiverged) {
		t.Fatalf("Pull = %v, want ErrDiverged", err)
	}
	if err := r2.Push(ctx, ""); !errors.Is(err, ErrNonFastForward) {
		t.Errorf("Push after fetch = %v, want ErrNonFastForward", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := r2.Push(cctx, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Push(cancelled) = %v, want context.Canceled", err)
	}
}

// TestConcurrentUse runs reads, commits and pulls on one Repo at once; run
// it with -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := mustBareRepo(t, sampleFiles)
	r := mustClone(t, url)
	upstreamCommit(t, url, "main", map[string]string{"up.txt": "up"})
	done := make(chan error, 4)
	go func() {
		_, err := r.Pull(ctx)
		done <- err
	}()
	go func() {
		_, err := r.Commit(ctx, CommitOptions{Message: "m", Author: testAuthor, Files: map[string][]byte{"c.txt": []byte("c")}})
		done <- err
	}()
	for range 2 {
		go func() {
			for range 20 {
				if _, err := listFiles(r, nil); err != nil {
					done <- err
					return
				}
				if _, err := r.ReadFile("README.md"); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		// Pull may find the branches diverged if the commit came first.
		if err := <-done; err != nil && !errors.Is(err, ErrDiverged) {
			t.Error(err)
		}
	}
}

// TestCommitRemoveAndPushTo deletes a file in a commit (a path the tree
// lacks is ignored) and pushes it to a second bare repository by URL:
// only that one receives it, and origin's tracking branch stays.
func TestCommitRemoveAndPushTo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := mustBareRepo(t, sampleFiles)
	mirror := mustBareRepo(t, sampleFiles)
	r := mustClone(t, url)
	h, err := r.Commit(ctx, CommitOptions{Message: "Deleted translation", Author: testAuthor,
		Remove: []string{"locales/de.json", "locales/absent.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadFile("locales/de.json"); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFile of the removed file = %v, want ErrNotExist", err)
	}
	if got := mustGit(t, r.Dir(), "status", "--porcelain"); got != "" {
		t.Errorf("git status after commit:\n%s", got)
	}
	if _, err := r.Commit(ctx, CommitOptions{Message: "again", Author: testAuthor,
		Remove: []string{"locales/de.json"}}); !errors.Is(err, ErrNothingToCommit) {
		t.Errorf("removing it again = %v, want ErrNothingToCommit", err)
	}
	// The mirror has the same first commit's tree but not its history,
	// so push to a branch of its own.
	if err := r.PushTo(ctx, mirror, "tolk"); err != nil {
		t.Fatalf("PushTo: %v", err)
	}
	if got := mustGit(t, bareDir(mirror), "rev-parse", "tolk"); got != h {
		t.Errorf("mirror tolk = %s, want %s", got, h)
	}
	if need, err := r.NeedsPush(); !need || err != nil {
		t.Errorf("NeedsPush after pushing elsewhere = %v, %v; want true", need, err)
	}
}
