package vcs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenRepairsCutOffWrites: a process killed while go-git rewrote the
// git index or the branch reference (both written in place) leaves an
// empty or cut-off file. Open repairs both, and committing works again.
func TestOpenRepairsCutOffWrites(t *testing.T) {
	url := mustBareRepo(t, map[string]string{"a.json": "{}\n", "b.json": "{}\n"})
	r := mustClone(t, url)
	synced := mustHead(t, r)
	mustCommit(t, r, map[string]string{"a.json": `{"x": "1"}` + "\n"})
	gitDir := filepath.Join(r.Dir(), ".git")
	// Each Open below stands for a new process after a crash: repair
	// runs once per directory and process.
	restart := func() (*Repo, error) {
		repaired.Delete(r.Dir())
		return Open(r.Dir())
	}

	index := filepath.Join(gitDir, "index")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = restart()
	if err != nil {
		t.Fatalf("Open with a cut-off index: %v", err)
	}
	h := mustCommit(t, r, map[string]string{"b.json": `{"y": "2"}` + "\n"})
	if got := mustReadFile(t, r, "a.json"); got != `{"x": "1"}`+"\n" {
		t.Errorf("a.json after the repair = %q: the commit before must stay", got)
	}

	// A remote-tracking reference cut to nothing goes; the next fetch
	// writes it again.
	tracking := filepath.Join(gitDir, "refs", "remotes", "origin", "main")
	if err := os.WriteFile(tracking, []byte("3f"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err = restart(); err != nil {
		t.Fatalf("Open with a cut-off remote-tracking reference: %v", err)
	}
	if _, err := os.Stat(tracking); !os.IsNotExist(err) {
		t.Errorf("the cut-off remote-tracking reference is still there: %v", err)
	}
	if _, err := r.Fetch(t.Context()); err != nil {
		t.Fatalf("Fetch after the repair: %v", err)
	}
	if got := mustGit(t, r.Dir(), "rev-parse", "origin/main"); got != synced {
		t.Errorf("origin/main after the fetch = %s, want %s", got, synced)
	}

	// The branch reference cut to nothing while a commit wrote it: it
	// goes back to the last head it reached whole, so the commits before
	// stay (their edits are forgotten by Tolk's index); only the commit
	// being written is lost to git, and its edits are still pending.
	branchRef := filepath.Join(gitDir, "refs", "heads", "main")
	if err := os.WriteFile(branchRef, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = restart()
	if err != nil {
		t.Fatalf("Open with an empty branch reference: %v", err)
	}
	if got := mustHead(t, r); got != h {
		t.Errorf("HEAD after the repair = %s, want the last whole head %s (not the synced %s)", got, h, synced)
	}
	mustCommit(t, r, map[string]string{"a.json": `{"x": "3"}` + "\n"})
	if got := mustReadFile(t, r, "b.json"); got != `{"y": "2"}`+"\n" {
		t.Errorf("b.json = %q, want the last head's", got)
	}
	st, err := r.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Modified) != 0 || st.Ahead != 3 {
		t.Errorf("status after the repair and a commit = %+v, want 3 local commits", st)
	}

	// Without Tolk's record of the head (a checkout from before it),
	// the synced commit is the fallback.
	if err := os.Remove(filepath.Join(gitDir, "refs", "tolk", "head")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(branchRef, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err = restart(); err != nil {
		t.Fatalf("Open with an empty branch reference and no head record: %v", err)
	}
	if got := mustHead(t, r); got != synced {
		t.Errorf("HEAD after the repair without a head record = %s, want the synced %s", got, synced)
	}
}
