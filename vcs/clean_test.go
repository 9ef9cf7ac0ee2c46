package vcs

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestClean leaves in a checked-out working tree what git clean -f -d
// removes and what it keeps, plus remote-tracking references of a branch
// origin has and of one it lost.
func TestClean(t *testing.T) {
	ctx := context.Background()
	url := mustBareRepo(t, map[string]string{"a.json": "{}\n", ".gitignore": "*.log\n", "locales/de.json": "{}\n"})
	mustGit(t, bareDir(url), "branch", "feature", "main")
	r := mustClone(t, url)
	if _, err := r.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.txt": "keep me\n", "dir/inner.txt": "keep me too\n"})
	writeFiles(t, r.Dir(), map[string]string{
		"stray.txt":            "untracked\n",
		"tmp/deep/b.txt":       "untracked\n",
		"locales/fr.json":      "{}\n",
		"keep.log":             "ignored\n",
		"locales/de.json":      "{\"edited\": \"tracked\"}\n",
		"vendor/sub/.git/HEAD": "ref: refs/heads/main\n",
		"vendor/sub/x.txt":     "nested repository\n",
	})
	for name, target := range map[string]string{"link": filepath.Join(outside, "secret.txt"),
		"linkdir": filepath.Join(outside, "dir")} {
		if err := os.Symlink(target, filepath.Join(r.Dir(), name)); err != nil {
			t.Fatal(err)
		}
	}
	head := mustHead(t, r)
	mustGit(t, r.Dir(), "update-ref", "refs/remotes/origin/feature", head)
	mustGit(t, r.Dir(), "update-ref", "refs/remotes/origin/gone", head)

	res, err := r.Clean(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantRemoved := []string{"link", "linkdir", "locales/fr.json", "stray.txt", "tmp/deep/b.txt", "tmp/deep/", "tmp/"}
	if !slices.Equal(res.Removed, wantRemoved) {
		t.Errorf("removed %q, want %q", res.Removed, wantRemoved)
	}
	if want := []string{"refs/remotes/origin/gone"}; !slices.Equal(res.Pruned, want) {
		t.Errorf("pruned %q, want %q", res.Pruned, want)
	}
	for _, p := range []string{"a.json", "keep.log", "vendor/sub/x.txt"} {
		if _, err := os.Stat(filepath.Join(r.Dir(), p)); err != nil {
			t.Errorf("%s: %v, want it kept", p, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(r.Dir(), "locales", "de.json")); err != nil || string(b) != "{\"edited\": \"tracked\"}\n" {
		t.Errorf("tracked de.json = %q, %v; want the edit kept", b, err)
	}
	for _, p := range []string{"secret.txt", "dir/inner.txt"} {
		if _, err := os.Stat(filepath.Join(outside, p)); err != nil {
			t.Errorf("%s outside the working tree: %v", p, err)
		}
	}
	refs := mustGit(t, r.Dir(), "for-each-ref", "--format=%(refname)", "refs/remotes/")
	if refs != "refs/remotes/origin/feature\nrefs/remotes/origin/main" {
		t.Errorf("remote-tracking refs after clean:\n%s", refs)
	}

	// Clean again: nothing left to do.
	if res, err := r.Clean(ctx); err != nil || len(res.Removed)+len(res.Pruned) != 0 {
		t.Errorf("second clean = %+v, %v; want nothing", res, err)
	}
}

// TestCleanNotCheckedOut leaves a working tree never checked out alone.
func TestCleanNotCheckedOut(t *testing.T) {
	ctx := context.Background()
	url := mustBareRepo(t, map[string]string{"a.json": "{}\n"})
	r, err := Clone(ctx, CloneOptions{URL: url, Dir: filepath.Join(t.TempDir(), "checkout"), NoCheckout: true})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, r.Dir(), map[string]string{"stray.txt": "x\n"})
	res, err := r.Clean(ctx)
	if err != nil || len(res.Removed) != 0 {
		t.Fatalf("clean = %+v, %v; want nothing removed", res, err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), "stray.txt")); err != nil {
		t.Errorf("stray.txt: %v", err)
	}
}
