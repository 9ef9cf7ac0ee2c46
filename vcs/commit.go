package vcs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commit writes c.Files into the working tree (checking HEAD out first
// into one left empty by CloneOptions.NoCheckout), deletes c.Remove,
// stages both, and commits
// them on the current branch with c.Message, c.Author and c.Committer. It
// returns the hex hash of the new HEAD.
//
// It returns ErrNothingToCommit (and makes no commit) when the files leave
// the tree unchanged, an error wrapping ErrInvalidPath for a path that is
// not clean and relative, names .git, or goes through a symbolic link in
// the working tree, and the errors of CommitOptions.Validate. ctx is only
// checked before starting: writing and committing are local and short.
//
// Other changes already staged in the index are committed too. Should
// Commit fail after writing files, the working tree is left dirty; the next
// Pull that moves HEAD resets it.
func (r *Repo) Commit(ctx context.Context, c CommitOptions) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if err := c.Validate(); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if len(c.Files) == 0 && len(c.Remove) == 0 {
		return "", ErrNothingToCommit
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.branch == "" {
		return "", fmt.Errorf("commit: %w", ErrDetachedHead)
	}
	// The index is what the commit's tree is built from: a clone made
	// with NoCheckout has none yet, and committing would drop every file.
	if err := r.ensureCheckout(); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	wt, err := r.repo.Worktree()
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := r.writeFile(p, c.Files[p]); err != nil {
			return "", fmt.Errorf("commit: write %s: %w", p, err)
		}
		// SkipStatus: without it go-git computes the status of the whole
		// working tree for every file added.
		if err := wt.AddWithOptions(&git.AddOptions{Path: p, SkipStatus: true}); err != nil {
			return "", fmt.Errorf("commit: stage %s: %w", p, err)
		}
	}
	for _, p := range c.Remove {
		if err := r.removeFile(wt, p); err != nil {
			return "", fmt.Errorf("commit: remove %s: %w", p, err)
		}
	}
	h, err := wt.Commit(c.Message, &git.CommitOptions{
		Author:    &object.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When},
		Committer: &object.Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: c.Committer.When},
	})
	if errors.Is(err, git.ErrEmptyCommit) {
		return "", ErrNothingToCommit
	}
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if err := r.noteHead(h); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	return h.String(), nil
}

// removeFile deletes the slash path p from the working tree and the
// index; a path neither holds is not an error. Like writeFile it refuses a
// path through a symbolic link.
func (r *Repo) removeFile(wt *git.Worktree, p string) error {
	elems := strings.Split(p, "/")
	cur := r.dir
	for i, e := range elems {
		cur = filepath.Join(cur, e)
		fi, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 && i < len(elems)-1 {
			return fmt.Errorf("%w: %s is a symbolic link", ErrInvalidPath, strings.Join(elems[:i+1], "/"))
		}
	}
	if err := os.Remove(cur); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// Stage the deletion; a path the index lacks was never committed.
	_, err := wt.Remove(p)
	if errors.Is(err, index.ErrEntryNotFound) {
		return nil
	}
	return err
}

// writeFile writes data to the slash path p of the working tree, creating
// parent directories. It refuses to follow a symbolic link at p or at any
// of its parents, since the checkout's content comes from the remote and a
// link could point outside the working tree.
func (r *Repo) writeFile(p string, data []byte) error {
	elems := strings.Split(p, "/")
	cur := r.dir
	for i, e := range elems {
		cur = filepath.Join(cur, e)
		fi, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) {
			if i == len(elems)-1 {
				break
			}
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s is a symbolic link", ErrInvalidPath, strings.Join(elems[:i+1], "/"))
		}
		if i < len(elems)-1 && !fi.IsDir() {
			return fmt.Errorf("%w: %s is not a directory", ErrInvalidPath, strings.Join(elems[:i+1], "/"))
		}
		if i == len(elems)-1 && fi.IsDir() {
			return fmt.Errorf("%w: %s is a directory", ErrInvalidPath, p)
		}
	}
	// os.WriteFile keeps the mode of an existing file, so an executable bit
	// recorded in the tree survives.
	return os.WriteFile(cur, data, 0o644)
}
