package vcs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoCheckout follows a clone made without a working tree through
// everything a component's checkout goes through: reads from the object
// store, status, a pull, then the first commit, which must check HEAD out
// and commit on top of it without dropping the other files.
func TestNoCheckout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := mustBareRepo(t, sampleFiles)
	dir := filepath.Join(t.TempDir(), "checkout")
	r, err := Clone(ctx, CloneOptions{URL: url, Dir: dir, NoCheckout: true})
	if err != nil {
		t.Fatalf("Clone: %v", err)
	}
	mustBeEmpty := func(when string) {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != 1 || entries[0].Name() != ".git" {
			t.Errorf("%s: working tree holds %v (%v), want only .git", when, entries, err)
		}
	}
	mustBeEmpty("after clone")
	if got := mustReadFile(t, r, "locales/de.json"); got != sampleFiles["locales/de.json"] {
		t.Errorf("ReadFile = %q", got)
	}
	st, err := r.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Modified) != 0 || len(st.Untracked) != 0 || !strings.HasSuffix(st.String(), "nothing to commit, working tree clean\n") {
		t.Errorf("Status = %+v\n%s", st, st.String())
	}

	// Reopened, as the next import or an API read does.
	if r, err = Open(dir); err != nil {
		t.Fatalf("Open: %v", err)
	}
	up := upstreamCommit(t, url, "main", map[string]string{"locales/de.json": `{"hello": "Servus"}` + "\n"})
	if changed, err := r.Pull(ctx); !changed || err != nil {
		t.Fatalf("Pull = %v, %v; want true, nil", changed, err)
	}
	if got := mustHead(t, r); got != up {
		t.Errorf("HEAD after pull = %s, want %s", got, up)
	}
	if got := mustGit(t, dir, "rev-parse", "main", "origin/main"); got != up+"\n"+up {
		t.Errorf("git rev-parse main origin/main = %q, want %s twice", got, up)
	}
	mustBeEmpty("after pull")

	head := mustCommit(t, r, map[string]string{"locales/fr.json": `{"hello": "Bonjour"}` + "\n"})
	if got := mustGit(t, dir, "rev-parse", "HEAD^"); got != up {
		t.Errorf("parent of the commit = %s, want %s", got, up)
	}
	var want []string
	for p := range sampleFiles {
		want = append(want, p)
	}
	want = append(want, "locales/fr.json")
	if got := mustGit(t, dir, "ls-tree", "-r", "--name-only", head); len(strings.Split(got, "\n")) != len(want) {
		t.Errorf("tree of the commit:\n%s\nwant the %d files %v", got, len(want), want)
	}
	if got := mustGit(t, dir, "show", head+":locales/de.json"); got != `{"hello": "Servus"}` {
		t.Errorf("de.json in the commit = %q, want the pulled content", got)
	}
	// Checked out now, with only the file committed in the working
	// tree (checkout.go), and the git CLI agrees nothing is left over.
	if _, err := os.Stat(filepath.Join(dir, "README.md")); !os.IsNotExist(err) {
		t.Errorf("worktree README.md: %v, want it left out of the working tree", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "locales", "fr.json")); err != nil || string(b) != `{"hello": "Bonjour"}`+"\n" {
		t.Errorf("worktree fr.json = %q, %v; want the committed file", b, err)
	}
	if got := mustGit(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("git status after the first commit:\n%s", got)
	}
	if st, err := r.Status(); err != nil || st.Ahead != 1 || len(st.Modified)+len(st.Untracked) != 0 {
		t.Errorf("Status = %+v, %v; want ahead 1, clean", st, err)
	}
	if err := r.Push(ctx, ""); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if got := mustGit(t, bareDir(url), "rev-parse", "main"); got != head {
		t.Errorf("upstream main = %s, want %s", got, head)
	}
}
