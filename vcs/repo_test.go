package vcs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var sampleFiles = map[string]string{
	"README.md":          "# sample\n",
	"locales/en.json":    `{"hello": "Hello"}` + "\n",
	"locales/de.json":    `{"hello": "Hallo"}` + "\n",
	"locales/extra/x.js": "x\n",
	"src/main.go":        "package main\n",
}

func TestCloneOptionsValidate(t *testing.T) {
	t.Parallel()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		o       CloneOptions
		wantErr error
		wantURL string // after Validate, if no error
	}{
		{name: "missing URL", o: CloneOptions{Dir: "/tmp/x"}, wantErr: ErrMissingURL},
		{name: "missing dir", o: CloneOptions{URL: "file:///srv/x.git"}, wantErr: ErrMissingDir},
		{name: "file URL", o: CloneOptions{URL: "file:///srv/x.git", Dir: "d"}, wantURL: "file:///srv/x.git"},
		{name: "absolute path", o: CloneOptions{URL: "/srv/x.git", Dir: "d"}, wantURL: "/srv/x.git"},
		{name: "relative path", o: CloneOptions{URL: "up/x.git", Dir: "d"}, wantURL: filepath.Join(cwd, "up/x.git")},
		{name: "https", o: CloneOptions{URL: "https://example.com/org/repo.git", Dir: "d"}, wantURL: "https://example.com/org/repo.git"},
		{name: "ssh", o: CloneOptions{URL: "ssh://git@example.com:2222/org/repo.git", Dir: "d"}, wantURL: "ssh://git@example.com:2222/org/repo.git"},
		{name: "scp-like", o: CloneOptions{URL: "git@example.com:org/repo.git", Dir: "d"}, wantURL: "git@example.com:org/repo.git"},
		{name: "unsupported scheme", o: CloneOptions{URL: "ftp://example.com/repo.git", Dir: "d"}, wantErr: ErrInvalidURL},
		{name: "unparsable", o: CloneOptions{URL: "https://[::1/repo", Dir: "d"}, wantErr: ErrInvalidURL},
		{name: "branch with space", o: CloneOptions{URL: "/srv/x.git", Branch: "a b", Dir: "d"}, wantErr: ErrInvalidBranch},
		{name: "branch as ref", o: CloneOptions{URL: "/srv/x.git", Branch: "refs/heads/main", Dir: "d"}, wantErr: ErrInvalidBranch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			err := o.Validate()
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Validate(%+v) = %v, want %v", tc.o, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if o.URL != tc.wantURL {
				t.Errorf("URL = %q, want %q", o.URL, tc.wantURL)
			}
			if !filepath.IsAbs(o.Dir) {
				t.Errorf("Dir = %q, want absolute", o.Dir)
			}
		})
	}
}

func TestValidateRedactsPassword(t *testing.T) {
	t.Parallel()
	o := CloneOptions{URL: "ftp://alice:s3cret@example.com/repo.git", Dir: "d"}
	err := o.Validate()
	if !errors.Is(err, ErrInvalidURL) {
		t.Fatalf("Validate = %v, want ErrInvalidURL", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error shows the password: %v", err)
	}
}

func TestClone(t *testing.T) {
	t.Parallel()
	url := mustBareRepo(t, sampleFiles)
	upstreamHead := mustGit(t, bareDir(url), "rev-parse", "main")
	mustGit(t, bareDir(url), "branch", "stable", "main")
	devHead := upstreamCommit(t, url, "stable", map[string]string{"locales/fr.json": `{"hello": "Bonjour"}`})

	tests := []struct {
		name, branch       string
		wantBranch, wantHd string
		wantFR             bool
	}{
		{name: "default branch", branch: "", wantBranch: "main", wantHd: upstreamHead},
		{name: "named branch", branch: "stable", wantBranch: "stable", wantHd: devHead, wantFR: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "a", "checkout")
			r, err := Clone(context.Background(), CloneOptions{URL: url, Branch: tc.branch, Dir: dir})
			if err != nil {
				t.Fatalf("Clone: %v", err)
			}
			if got := r.Branch(); got != tc.wantBranch {
				t.Errorf("Branch() = %q, want %q", got, tc.wantBranch)
			}
			if got := mustHead(t, r); got != tc.wantHd {
				t.Errorf("Head() = %s, want %s", got, tc.wantHd)
			}
			if r.Dir() != dir || r.URL() != url {
				t.Errorf("Dir, URL = %q, %q; want %q, %q", r.Dir(), r.URL(), dir, url)
			}
			// The working tree is checked out, and the git CLI agrees.
			b, err := os.ReadFile(filepath.Join(dir, "locales", "de.json"))
			if err != nil || string(b) != sampleFiles["locales/de.json"] {
				t.Errorf("worktree de.json = %q, %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "locales", "fr.json")); (err == nil) != tc.wantFR {
				t.Errorf("fr.json present = %v, want %v", err == nil, tc.wantFR)
			}
			if got := mustGit(t, dir, "status", "--porcelain"); got != "" {
				t.Errorf("git status after clone:\n%s", got)
			}
			// No temporary clone directory is left next to the checkout.
			entries, _ := os.ReadDir(filepath.Dir(dir))
			if len(entries) != 1 {
				t.Errorf("parent holds %d entries, want only the checkout", len(entries))
			}
		})
	}
}

func TestCloneErrors(t *testing.T) {
	t.Parallel()
	url := mustBareRepo(t, sampleFiles)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	nonEmpty := t.TempDir()
	writeFiles(t, nonEmpty, map[string]string{"keep.txt": "mine"})

	tests := []struct {
		name    string
		ctx     context.Context
		o       CloneOptions
		wantErr error
	}{
		{name: "missing URL", o: CloneOptions{Dir: "x"}, wantErr: ErrMissingURL},
		{name: "missing dir", o: CloneOptions{URL: url}, wantErr: ErrMissingDir},
		{name: "cancelled", ctx: cancelled, o: CloneOptions{URL: url}, wantErr: context.Canceled},
		{name: "no such repository", o: CloneOptions{URL: "file:///nonexistent/repo.git"}, wantErr: ErrRemoteNotFound},
		{name: "no such plain path", o: CloneOptions{URL: filepath.Join(t.TempDir(), "nope")}, wantErr: ErrRemoteNotFound},
		{name: "no such branch", o: CloneOptions{URL: url, Branch: "nope"}, wantErr: ErrBranchNotFound},
		{name: "bad scheme", o: CloneOptions{URL: "gopher://example.com/x"}, wantErr: ErrInvalidURL},
		{name: "dir not empty", o: CloneOptions{URL: url, Dir: nonEmpty}, wantErr: ErrDirNotEmpty},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			o := tc.o
			parent := t.TempDir()
			if o.Dir == "" && tc.wantErr != ErrMissingDir {
				o.Dir = filepath.Join(parent, "checkout")
			}
			r, err := Clone(ctx, o)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Clone(%+v) = %v, want %v", o, err, tc.wantErr)
			}
			if r != nil {
				t.Errorf("Clone returned a Repo with error %v", err)
			}
			t.Logf("error: %v", err)
			if o.Dir == filepath.Join(parent, "checkout") {
				if entries, _ := os.ReadDir(parent); len(entries) != 0 {
					t.Errorf("failed clone left %d entries in %s", len(entries), parent)
				}
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(nonEmpty, "keep.txt")); err != nil || string(b) != "mine" {
		t.Errorf("non-empty dir was touched: %q, %v", b, err)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	url := mustBareRepo(t, sampleFiles)
	r := mustClone(t, url)
	o, err := Open(r.Dir())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if o.Branch() != "main" || o.URL() != url || mustHead(t, o) != mustHead(t, r) {
		t.Errorf("Open = branch %q url %q, want main %q, same HEAD", o.Branch(), o.URL(), url)
	}
	for name, dir := range map[string]string{
		"absent": filepath.Join(t.TempDir(), "nope"),
		"plain":  t.TempDir(),
		"bare":   bareDir(url),
	} {
		if _, err := Open(dir); !errors.Is(err, ErrNotCheckout) {
			t.Errorf("Open(%s dir) = %v, want ErrNotCheckout", name, err)
		}
	}
}

func TestOpenOrClone(t *testing.T) {
	t.Parallel()
	url := mustBareRepo(t, sampleFiles)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "checkout")

	first, err := OpenOrClone(ctx, CloneOptions{URL: url, Dir: dir})
	if err != nil {
		t.Fatalf("OpenOrClone (clone): %v", err)
	}
	// A local commit and an untracked file show that the directory is
	// reused rather than cloned again.
	local := mustCommit(t, first, map[string]string{"locales/de.json": `{"hello": "Guten Tag"}`})
	writeFiles(t, dir, map[string]string{"untracked.txt": "x"})

	for _, u := range []string{url, bareDir(url), url + "/"} {
		again, err := OpenOrClone(ctx, CloneOptions{URL: u, Branch: "main", Dir: dir})
		if err != nil {
			t.Fatalf("OpenOrClone(%s) (reuse): %v", u, err)
		}
		if got := mustHead(t, again); got != local {
			t.Errorf("OpenOrClone(%s) HEAD = %s, want the local commit %s", u, got, local)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "untracked.txt")); err != nil {
		t.Errorf("untracked file gone after reuse: %v", err)
	}

	// Another URL replaces the checkout.
	other := mustBareRepo(t, map[string]string{"other.txt": "other\n"})
	replaced, err := OpenOrClone(ctx, CloneOptions{URL: other, Dir: dir})
	if err != nil {
		t.Fatalf("OpenOrClone (other URL): %v", err)
	}
	if replaced.URL() != other || mustReadFile(t, replaced, "other.txt") != "other\n" {
		t.Errorf("checkout not replaced: URL %s", replaced.URL())
	}
	if _, err := os.Stat(filepath.Join(dir, "untracked.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old checkout's file still there: %v", err)
	}

	// A directory that is not a checkout is never deleted.
	plain := t.TempDir()
	writeFiles(t, plain, map[string]string{"mine.txt": "x"})
	if _, err := OpenOrClone(ctx, CloneOptions{URL: url, Dir: plain}); !errors.Is(err, ErrDirNotEmpty) {
		t.Errorf("OpenOrClone(non-empty plain dir) = %v, want ErrDirNotEmpty", err)
	}
}

func TestInitLocal(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "local", "component")
	r, err := InitLocal(dir)
	if err != nil {
		t.Fatalf("InitLocal: %v", err)
	}
	h0 := mustHead(t, r)
	if r.Branch() != "main" || r.URL() != "" {
		t.Errorf("Branch, URL = %q, %q; want main, none", r.Branch(), r.URL())
	}
	if files, err := listFiles(r, nil); err != nil || len(files) != 0 {
		t.Errorf("Files of a new local repo = %v, %v; want none", files, err)
	}
	h1 := mustCommit(t, r, map[string]string{"po/de.po": "msgid \"\"\n"})
	if got := mustGit(t, dir, "log", "--format=%s", "-n", "2"); got != "Translated using Tolk\nInitialize repository" {
		t.Errorf("git log:\n%s", got)
	}

	again, err := InitLocal(dir)
	if err != nil {
		t.Fatalf("InitLocal again: %v", err)
	}
	if got := mustHead(t, again); got != h1 || got == h0 {
		t.Errorf("InitLocal again: HEAD = %s, want %s", got, h1)
	}
	if _, err := again.Pull(context.Background()); !errors.Is(err, ErrNoRemote) {
		t.Errorf("Pull = %v, want ErrNoRemote", err)
	}
	if err := again.Push(context.Background(), ""); !errors.Is(err, ErrNoRemote) {
		t.Errorf("Push = %v, want ErrNoRemote", err)
	}
	if need, err := again.NeedsPush(); need || err != nil {
		t.Errorf("NeedsPush = %v, %v; want false, nil", need, err)
	}
}
