package vcs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// goGitCommit makes c in g the way go-git's porcelain does, as Commit did
// before it built trees itself: the files written and staged one by one,
// the removals staged, one Worktree.Commit of the whole index.
func goGitCommit(tb testing.TB, g *git.Repository, c CommitOptions) (string, error) {
	tb.Helper()
	wt, err := g.Worktree()
	if err != nil {
		tb.Fatal(err)
	}
	root := wt.Filesystem.Root()
	var paths []string
	for p := range c.Files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, c.Files[p], 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := wt.AddWithOptions(&git.AddOptions{Path: p, SkipStatus: true}); err != nil {
			tb.Fatal(err)
		}
	}
	for _, p := range c.Remove {
		if _, err := wt.Remove(p); err != nil && !errors.Is(err, index.ErrEntryNotFound) {
			tb.Fatal(err)
		}
	}
	committer := c.Author
	if c.Committer != nil {
		committer = *c.Committer
	}
	h, err := wt.Commit(c.Message, &git.CommitOptions{
		Author:    &object.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When},
		Committer: &object.Signature{Name: committer.Name, Email: committer.Email, When: committer.When},
	})
	if errors.Is(err, git.ErrEmptyCommit) {
		return "", ErrNothingToCommit
	}
	return h.String(), err
}

// TestCommitMatchesGoGit makes the same commits with Commit and with
// go-git's porcelain in two clones of one repository: each must come out
// byte for byte the same (same hash), a commit that changes nothing must
// be refused by both, and git must find Commit's checkout clean and its
// objects sound.
func TestCommitMatchesGoGit(t *testing.T) {
	t.Parallel()
	url := mustBareRepo(t, map[string]string{
		"a/x.json":      `{"x": "1"}` + "\n",
		"a/y.json":      `{"y": "1"}` + "\n",
		"b/z.json":      `{"z": "1"}` + "\n",
		"b/sub/q.json":  `{"q": "1"}` + "\n",
		"run.sh":        "#!/bin/sh\necho hi\n",
		"README.md":     "readme\n",
		"a-b/same.json": "{}\n", // sorts between a and a/ as git orders trees
	})
	// An executable file: its mode must survive the commit that edits it.
	seed := filepath.Join(t.TempDir(), "seed")
	mustGit(t, "/", "clone", "--quiet", url, seed)
	mustGit(t, seed, "update-index", "--chmod=+x", "run.sh")
	mustGit(t, seed, "commit", "--quiet", "-m", "executable")
	mustGit(t, seed, "push", "--quiet", "origin", "main")

	r := mustClone(t, url)
	g, err := git.PlainClone(filepath.Join(t.TempDir(), "porcelain"), false, &git.CloneOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	at := func(i int) Signature {
		return Signature{Name: "Ann <Example>", Email: "ann@example.invalid",
			When: time.Date(2026, 11, 24, 0, i, 0, 0, time.FixedZone("", 3600))}
	}
	bot := Signature{Name: "Tolk", Email: "bot@tolk.invalid", When: time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC)}
	steps := []struct {
		name    string
		files   map[string]string
		remove  []string
		wantErr error
	}{
		{name: "one file", files: map[string]string{"a/x.json": `{"x": "2"}` + "\n"}},
		{name: "new directories", files: map[string]string{"c/d/new.json": "{}\n", "a/sub/n.json": "{}\n"}},
		{name: "executable and two directories", files: map[string]string{"run.sh": "#!/bin/sh\necho bye\n",
			"b/sub/q.json": `{"q": "2"}` + "\n"}},
		{name: "remove", remove: []string{"b/z.json"}},
		{name: "remove a directory's last files", remove: []string{"b/sub/q.json"}},
		{name: "remove and add", files: map[string]string{"a/w.json": "{}\n"}, remove: []string{"a/y.json"}},
		{name: "remove what is absent", files: map[string]string{"a/x.json": "{}\n"}, remove: []string{"nowhere/x"}},
		{name: "unchanged", files: map[string]string{"a/x.json": "{}\n"}, wantErr: ErrNothingToCommit},
	}
	for i, s := range steps {
		c := CommitOptions{Message: "Translated using Tolk (" + s.name + ")\n", Author: at(i), Committer: &bot,
			Files: map[string][]byte{}, Remove: s.remove}
		for p, v := range s.files {
			c.Files[p] = []byte(v)
		}
		cc := c
		cc.Committer = &bot
		got, err := r.Commit(context.Background(), cc)
		if !errors.Is(err, s.wantErr) {
			t.Fatalf("%s: Commit = %v, want %v", s.name, err, s.wantErr)
		}
		want, werr := goGitCommit(t, g, c)
		if !errors.Is(werr, s.wantErr) {
			t.Fatalf("%s: go-git = %v, want %v", s.name, werr, s.wantErr)
		}
		if got != want {
			t.Errorf("%s: Commit made %s, go-git %s", s.name, got, want)
			t.Log(mustGit(t, r.Dir(), "cat-file", "-p", got))
		}
		if st := mustGit(t, r.Dir(), "status", "--porcelain"); st != "" {
			t.Errorf("%s: git status:\n%s", s.name, st)
		}
	}
	if mode := mustGit(t, r.Dir(), "ls-tree", "HEAD", "run.sh"); mode[:6] != "100755" {
		t.Errorf("run.sh after the commits: %s", mode)
	}
	mustGit(t, r.Dir(), "fsck", "--strict", "--no-dangling")
	st, err := r.Status()
	if err != nil || len(st.Modified) != 0 || len(st.Untracked) != 0 {
		t.Errorf("Status = %+v, %v; want a clean checkout", st, err)
	}
}

// TestBatch makes two commits in one Batch whose function then fails:
// reads inside see the batch's last commit while the branch on disk
// stays put until the end, and both commits are kept, chained, with a
// clean checkout.
func TestBatch(t *testing.T) {
	t.Parallel()
	r := mustClone(t, mustBareRepo(t, sampleFiles))
	before := mustHead(t, r)
	stop := errors.New("stop")
	var first, second string
	err := r.Batch(func(b *Batch) error {
		var err error
		if first, err = b.Commit(context.Background(), CommitOptions{Message: "one", Author: testAuthor,
			Files: map[string][]byte{"locales/de.json": []byte(`{"hello": "Moin"}` + "\n")}}); err != nil {
			return err
		}
		if got, err := b.ReadFile("locales/de.json"); err != nil || string(got) != `{"hello": "Moin"}`+"\n" {
			t.Errorf("ReadFile in the batch = %q, %v; want the batch's commit", got, err)
		}
		if got := mustGit(t, r.Dir(), "rev-parse", "main"); got != before {
			t.Errorf("main moved to %s during the batch", got)
		}
		if second, err = b.Commit(context.Background(), CommitOptions{Message: "two", Author: testAuthor,
			Remove: []string{"locales/de.json"}}); err != nil {
			return err
		}
		if _, err := b.BlobHash("locales/de.json"); !errors.Is(err, ErrNotExist) {
			t.Errorf("BlobHash of the removed file = %v, want ErrNotExist", err)
		}
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Batch = %v, want the function's error", err)
	}
	if got := mustGit(t, r.Dir(), "rev-parse", "main", "main^", "main^^"); got != second+"\n"+first+"\n"+before {
		t.Errorf("main, main^, main^^ = %q; want the two commits on the old head", got)
	}
	if st := mustGit(t, r.Dir(), "status", "--porcelain"); st != "" {
		t.Errorf("git status after the batch:\n%s", st)
	}
}
