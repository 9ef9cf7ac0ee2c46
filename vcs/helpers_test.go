package vcs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/internal/gitfixture"
)

// gitEnv isolates the git CLI from the user's configuration and identity.
var gitEnv = gitfixture.Env

// mustGit runs the git CLI in dir and returns its trimmed output.
func mustGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeFiles writes files (slash path → content) under dir.
func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// mustBareRepo creates a bare repository under tb.TempDir() whose branch
// main (its HEAD) has one commit with files, and returns its file:// URL.
func mustBareRepo(tb testing.TB, files map[string]string) string {
	tb.Helper()
	root := tb.TempDir()
	bare := filepath.Join(root, "upstream.git")
	work := filepath.Join(root, "seed")
	mustGit(tb, root, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	mustGit(tb, root, "init", "--quiet", "--initial-branch=main", work)
	writeFiles(tb, work, files)
	mustGit(tb, work, "add", "-A")
	mustGit(tb, work, "commit", "--quiet", "--allow-empty", "-m", "Initial commit")
	mustGit(tb, work, "push", "--quiet", bare, "main")
	return "file://" + bare
}

// bareDir returns the path of a file:// URL.
func bareDir(url string) string { return strings.TrimPrefix(url, "file://") }

// upstreamCommit commits files to branch of the bare repository at url, as
// another user would, and returns the new commit's hash.
func upstreamCommit(tb testing.TB, url, branch string, files map[string]string) string {
	tb.Helper()
	work := filepath.Join(tb.TempDir(), "other")
	mustGit(tb, "/", "clone", "--quiet", "--branch", branch, url, work)
	writeFiles(tb, work, files)
	mustGit(tb, work, "add", "-A")
	mustGit(tb, work, "commit", "--quiet", "-m", "Upstream change")
	mustGit(tb, work, "push", "--quiet", "origin", branch)
	return mustGit(tb, work, "rev-parse", "HEAD")
}

// mustClone clones url's default branch into a new directory.
func mustClone(tb testing.TB, url string) *Repo {
	tb.Helper()
	r, err := Clone(context.Background(), CloneOptions{URL: url, Dir: filepath.Join(tb.TempDir(), "checkout")})
	if err != nil {
		tb.Fatalf("Clone(%s): %v", url, err)
	}
	return r
}

// testAuthor is a fixed commit author.
var testAuthor = Signature{
	Name: "Tolk Test", Email: "test@example.invalid",
	When: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
}

// mustCommit commits files and returns the new HEAD.
func mustCommit(tb testing.TB, r *Repo, files map[string]string) string {
	tb.Helper()
	c := CommitOptions{Message: "Translated using Tolk", Author: testAuthor, Files: map[string][]byte{}}
	for p, s := range files {
		c.Files[p] = []byte(s)
	}
	h, err := r.Commit(context.Background(), c)
	if err != nil {
		tb.Fatalf("Commit: %v", err)
	}
	return h
}

func mustHead(tb testing.TB, r *Repo) string {
	tb.Helper()
	h, err := r.Head()
	if err != nil {
		tb.Fatalf("Head: %v", err)
	}
	return h
}

func mustReadFile(tb testing.TB, r *Repo, path string) string {
	tb.Helper()
	b, err := r.ReadFile(path)
	if err != nil {
		tb.Fatalf("ReadFile(%s): %v", path, err)
	}
	return string(b)
}

// listFiles is Files over the whole tree with match.
func listFiles(r *Repo, match func(string) bool) ([]File, error) {
	l, err := r.Files(context.Background(), FilesOptions{Match: match})
	return l.Files, err
}
