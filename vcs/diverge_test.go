package vcs

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestDivergeAndResetTo(t *testing.T) {
	ctx := context.Background()
	url := mustBareRepo(t, map[string]string{"a.json": "{}\n", "b.json": "{}\n", "c.json": "{}\n"})
	r := mustClone(t, url)
	base := mustHead(t, r)

	d, err := r.Diverge()
	if err != nil {
		t.Fatal(err)
	}
	if d.Moved() || d.Base != base || len(d.Local)+len(d.Upstream) != 0 {
		t.Fatalf("fresh clone: %+v", d)
	}

	local := mustCommit(t, r, map[string]string{"a.json": `{"x": "local"}` + "\n"})
	remote := upstreamCommit(t, url, "main", map[string]string{"b.json": `{"y": "upstream"}` + "\n", "d.json": "{}\n"})
	if _, err := r.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	d, err = r.Diverge()
	if err != nil {
		t.Fatal(err)
	}
	if d.Head != local || d.Remote != remote || d.Base != base || !d.Moved() {
		t.Fatalf("diverged: %+v, want head %s remote %s base %s", d, local, remote, base)
	}
	if !slices.Equal(d.Local, []string{"a.json"}) || !slices.Equal(d.Upstream, []string{"b.json", "d.json"}) {
		t.Fatalf("changed paths: local %v upstream %v", d.Local, d.Upstream)
	}

	old, err := r.ReadFileAt(base, "a.json")
	if err != nil || string(old) != "{}\n" {
		t.Fatalf("ReadFileAt(base, a.json) = %q, %v", old, err)
	}
	if _, err := r.ReadFileAt(base, "d.json"); !errors.Is(err, ErrNotExist) {
		t.Fatalf("ReadFileAt(base, d.json): %v, want ErrNotExist", err)
	}
	if _, err := r.ReadFileAt("not-a-hash", "a.json"); !errors.Is(err, ErrUnknownRevision) {
		t.Fatalf("ReadFileAt(bad rev): %v", err)
	}

	if err := r.ResetTo(remote); err != nil {
		t.Fatal(err)
	}
	if h := mustHead(t, r); h != remote {
		t.Fatalf("HEAD after ResetTo = %s, want %s", h, remote)
	}
	if got := mustReadFile(t, r, "a.json"); got != "{}\n" {
		t.Fatalf("a.json after reset = %q: the local commit should be gone", got)
	}
	st, err := r.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Modified) != 0 || st.Ahead != 0 || st.Behind != 0 {
		t.Fatalf("status after reset: %+v", st)
	}
	if err := r.ResetTo("0123"); !errors.Is(err, ErrUnknownRevision) {
		t.Fatalf("ResetTo(bad rev): %v", err)
	}
}

func TestPushLease(t *testing.T) {
	ctx := context.Background()
	url := mustBareRepo(t, map[string]string{"a.json": "{}\n"})
	r := mustClone(t, url)
	first := mustCommit(t, r, map[string]string{"a.json": `{"x": "1"}` + "\n"})
	if err := r.PushLease(ctx, "", "tolk"); err != nil {
		t.Fatalf("first push of a new branch: %v", err)
	}
	if got := mustGit(t, bareDir(url), "rev-parse", "tolk"); got != first {
		t.Fatalf("tolk = %s, want %s", got, first)
	}
	// Upstream squash-merges the branch; Tolk rebuilds its branch on top
	// of main: not a fast-forward of what it pushed, and pushed anyway.
	merged := upstreamCommit(t, url, "main", map[string]string{"a.json": `{"x": "1"}` + "\n"})
	if _, err := r.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.ResetTo(merged); err != nil {
		t.Fatal(err)
	}
	rebuilt := mustCommit(t, r, map[string]string{"a.json": `{"x": "2"}` + "\n"})
	if err := r.PushTo(ctx, "", "tolk"); !errors.Is(err, ErrNonFastForward) {
		t.Fatalf("plain push of the rebuilt branch: %v, want ErrNonFastForward", err)
	}
	if err := r.PushLease(ctx, "", "tolk"); err != nil {
		t.Fatalf("lease push of the rebuilt branch: %v", err)
	}
	if got := mustGit(t, bareDir(url), "rev-parse", "tolk"); got != rebuilt {
		t.Fatalf("tolk = %s, want %s", got, rebuilt)
	}
	// Someone else commits to Tolk's branch: the lease protects them.
	foreign := upstreamCommit(t, url, "tolk", map[string]string{"z.txt": "mine\n"})
	mustCommit(t, r, map[string]string{"a.json": `{"x": "3"}` + "\n"})
	if err := r.PushLease(ctx, "", "tolk"); !errors.Is(err, ErrNonFastForward) {
		t.Fatalf("lease push over a foreign commit: %v, want ErrNonFastForward", err)
	}
	if got := mustGit(t, bareDir(url), "rev-parse", "tolk"); got != foreign {
		t.Fatalf("tolk = %s, want the foreign commit %s kept", got, foreign)
	}
}

// TestDivergeAfterRewrite: upstream rewrites its history (a force-push of
// an unrelated root); the base stays the commit Tolk last synced with, so
// the local changes are still just Tolk's own.
func TestDivergeAfterRewrite(t *testing.T) {
	ctx := context.Background()
	url := mustBareRepo(t, map[string]string{"a.json": "{}\n", "b.json": "{}\n"})
	r := mustClone(t, url)
	synced := mustHead(t, r)
	mustCommit(t, r, map[string]string{"a.json": `{"x": "local"}` + "\n"})

	work := t.TempDir()
	mustGit(t, work, "init", "--quiet", "--initial-branch=main")
	writeFiles(t, work, map[string]string{"a.json": "{}\n", "b.json": `{"y": "rewritten"}` + "\n"})
	mustGit(t, work, "add", "-A")
	mustGit(t, work, "commit", "--quiet", "-m", "Rewritten history")
	mustGit(t, work, "push", "--quiet", "--force", url, "main")

	if _, err := r.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := r.Diverge()
	if err != nil {
		t.Fatal(err)
	}
	if d.Base != synced || !d.Moved() || !slices.Equal(d.Local, []string{"a.json"}) {
		t.Fatalf("after a rewrite: %+v, want base %s and local [a.json]", d, synced)
	}
}
