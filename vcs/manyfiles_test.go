package vcs

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tolk-project/tolk/internal/gitfixture"
)

// mustManyFilesRepo makes a bare repository whose one commit holds
// locales/de.json and n files in one folder (vendor/), outside what a
// filemask of locales/*.json reads, as a monorepo with vendored assets
// does; it returns its URL.
func mustManyFilesRepo(tb testing.TB, n int) string {
	tb.Helper()
	bare := filepath.Join(tb.TempDir(), "upstream.git")
	mustGit(tb, "/", "init", "--quiet", "--bare", "--initial-branch=main", bare)
	manyFilesCommit(tb, bare, "vendor", n, map[string]string{"locales/de.json": "{}\n"})
	return "file://" + bare
}

// manyFilesCommit commits on main of the bare repository at bare, on
// top of its head if it has one, n small distinct files in the one
// folder sub and files (gitfixture.Commit).
func manyFilesCommit(tb testing.TB, bare, sub string, n int, files map[string]string) {
	tb.Helper()
	if _, err := gitfixture.Commit(context.Background(), bare, gitfixture.Assets{Dir: sub, N: n}, files); err != nil {
		tb.Fatal(err)
	}
}

// TestManyFiles: the first commit on a checkout cloned without a work
// tree, and a pull that brings thousands of files, cost what they
// change, not the repository's file count squared. go-git's
// Worktree.Reset, which both used, took 8.3 s for the first commit with
// 4,000 files in one folder (31.5 s for 8,000); the bound is generous
// for a shared machine and still missed by a wide margin.
func TestManyFiles(t *testing.T) {
	t.Parallel()
	const n, bound = 4000, 2 * time.Second
	ctx := context.Background()
	setup := time.Now()
	url := mustManyFilesRepo(t, n)
	t.Logf("setup: %v", time.Since(setup))
	dir := filepath.Join(t.TempDir(), "checkout")
	r, err := Clone(ctx, CloneOptions{URL: url, Dir: dir, NoCheckout: true})
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	h := mustCommit(t, r, map[string]string{"locales/de.json": `{"a": "b"}` + "\n"})
	t.Logf("first commit: %v", time.Since(start))
	if took := time.Since(start); took > bound {
		t.Errorf("first commit with %d files took %v, want under %v", n, took, bound)
	}
	if got := mustGit(t, dir, "ls-tree", "-r", "--name-only", h); len(got) == 0 || countLines(got) != n+1 {
		t.Errorf("the first commit's tree has %d files, want %d", countLines(got), n+1)
	}
	if got := mustGit(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("git status after the first commit:\n%s", got)
	}

	if err := r.Push(ctx, ""); err != nil {
		t.Fatal(err)
	}
	manyFilesCommit(t, bareDir(url), "more", n, nil)
	start = time.Now()
	if changed, err := r.Pull(ctx); err != nil || !changed {
		t.Fatalf("Pull = %v, %v", changed, err)
	}
	t.Logf("pull: %v", time.Since(start))
	if took := time.Since(start); took > bound {
		t.Errorf("pull of %d new files took %v, want under %v", n, took, bound)
	}
	h = mustCommit(t, r, map[string]string{"locales/de.json": `{"a": "c"}` + "\n"})
	if got := mustGit(t, dir, "ls-tree", "-r", "--name-only", h); countLines(got) != 2*n+1 {
		t.Errorf("the commit after the pull has %d files, want %d", countLines(got), 2*n+1)
	}
	if got := mustGit(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("git status after the pull:\n%.500s", got)
	}
	st, err := r.Status()
	if err != nil || len(st.Modified) != 0 || len(st.Untracked) != 0 {
		t.Errorf("Status = %d modified, %d untracked, %v; want a clean checkout", len(st.Modified), len(st.Untracked), err)
	}
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	if s != "" {
		n++
	}
	return n
}

// BenchmarkManyFiles measures the first commit on a checkout cloned
// without a work tree, and a pull bringing as many new files, in a
// repository of 100,000 files outside the filemask (target: each under
// 2 s). Each round clones afresh, outside the timer.
func BenchmarkManyFiles(b *testing.B) {
	const n = 100000
	ctx := context.Background()
	url := mustManyFilesRepo(b, n)
	next := bareDir(url) + ".next"
	mustGit(b, "/", "clone", "--quiet", "--bare", bareDir(url), next)
	manyFilesCommit(b, next, "more", n, nil)
	clone := func(b *testing.B) *Repo {
		b.StopTimer()
		defer b.StartTimer()
		r, err := Clone(ctx, CloneOptions{URL: url, Dir: filepath.Join(b.TempDir(), "checkout"), NoCheckout: true})
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	b.Run("FirstCommit", func(b *testing.B) {
		for b.Loop() {
			r := clone(b)
			mustCommit(b, r, map[string]string{"locales/de.json": `{"a": "b"}` + "\n"})
		}
	})
	b.Run("Pull", func(b *testing.B) {
		for b.Loop() {
			// A checkout whose first commit checked it out, back on
			// upstream's head, then pointed at an upstream whose next
			// commit adds n files.
			r := clone(b)
			b.StopTimer()
			base := mustHead(b, r)
			mustCommit(b, r, map[string]string{"locales/de.json": `{"a": "b"}` + "\n"})
			if err := r.ResetTo(base); err != nil {
				b.Fatal(err)
			}
			mustGit(b, r.Dir(), "remote", "set-url", "origin", "file://"+next)
			r, err := Open(r.Dir())
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if changed, err := r.Pull(ctx); err != nil || !changed {
				b.Fatalf("Pull = %v, %v", changed, err)
			}
		}
	})
}
