// Package gitfixture builds bare git repositories of many files with
// git fast-import: 100,000 files in about a second, where writing them
// into a work tree and adding them would take longer than what vcs's
// tests and tolk-bench measure on them.
package gitfixture

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Env isolates the git CLI from the user's configuration and identity.
var Env = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent",
	"LC_ALL=C", "TZ=UTC",
	"GIT_AUTHOR_NAME=Upstream", "GIT_AUTHOR_EMAIL=upstream@example.invalid",
	"GIT_COMMITTER_NAME=Upstream", "GIT_COMMITTER_EMAIL=upstream@example.invalid",
}

// Git runs the git CLI in dir under Env and returns its trimmed output.
func Git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), Env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// InitBare makes an empty bare repository at dir whose branch is main.
func InitBare(ctx context.Context, dir string) error {
	_, err := Git(ctx, "/", "init", "--quiet", "--bare", "--initial-branch=main", dir)
	return err
}

// Assets are N small distinct files under Dir, PerDir to a folder
// (Dir/000/asset-000000.txt, ...), or all in Dir itself when PerDir is
// 0. git fast-import builds each folder in time quadratic in its
// entries: 100,000 files in one folder take it half a minute of CPU, in
// folders of 1,000 a second.
type Assets struct {
	Dir       string
	N, PerDir int
}

// Path is the path of the i-th file.
func (a Assets) Path(i int) string {
	if a.PerDir == 0 {
		return fmt.Sprintf("%s/asset-%06d.txt", a.Dir, i)
	}
	return fmt.Sprintf("%s/%03d/asset-%06d.txt", a.Dir, i/a.PerDir, i)
}

// Commit commits on main of the bare repository at bare, on top of its
// head if it has one, the files of a and files (slash path to content),
// and returns the new head.
func Commit(ctx context.Context, bare string, a Assets, files map[string]string) (string, error) {
	var in bytes.Buffer
	in.WriteString("commit refs/heads/main\ncommitter Upstream <upstream@example.invalid> 946684800 +0000\ndata 9\nupstream\n")
	if _, err := Git(ctx, bare, "rev-parse", "--verify", "--quiet", "refs/heads/main"); err == nil {
		in.WriteString("from refs/heads/main^0\n")
	}
	inline := func(p, content string) {
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(content), content)
	}
	for i := range a.N {
		inline(a.Path(i), fmt.Sprintf("%s %d\n", a.Dir, i))
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		inline(p, files[p])
	}
	cmd := exec.CommandContext(ctx, "git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin, cmd.Env = bare, &in, append(os.Environ(), Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("git fast-import: %w\n%s", err, out)
	}
	return Git(ctx, bare, "rev-parse", "refs/heads/main")
}
