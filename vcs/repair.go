package vcs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// repaired are the directories repair looked at in this process: what it
// mends is left by a crash, so once per process start is enough, and the
// checks (decoding the git index) are not repeated at every Open.
var repaired sync.Map

// repairOnce runs repair the first time dir is opened in this process;
// should it fail, the next Open tries again.
func (r *Repo) repairOnce() error {
	if _, done := repaired.Load(r.dir); done {
		return nil
	}
	if err := r.repair(); err != nil {
		return err
	}
	repaired.Store(r.dir, true)
	return nil
}

// repair undoes what a crash in the middle of a write leaves behind. go-git
// writes the git index and references in place (truncate, then write), so
// a process killed at that moment leaves an empty or cut-off file, and
// every later commit would fail on it. Tolk keeps nothing in the index or
// the working tree that its own index does not hold, so both can be
// rebuilt from HEAD; a branch reference that no longer names a commit is
// set back to the last head it reached whole (headRef, written after the
// branch; else the synced commit, else the remote branch): only the
// commit being made when the crash came is lost to git, and its edits
// are still pending in Tolk's index (it forgets them only after git
// wrote), so the next commit makes them again. r.mu need
// not be held: nothing else has r yet.
func (r *Repo) repair() error {
	if r.branch != "" {
		branch := plumbing.NewBranchReferenceName(r.branch)
		if !r.names(branch) {
			good := plumbing.ZeroHash
			for _, name := range []plumbing.ReferenceName{headRef, syncedRef, plumbing.NewRemoteReferenceName(remoteName, r.branch)} {
				if r.names(name) {
					h, _ := r.refHash(name)
					good = h
					break
				}
			}
			if good.IsZero() {
				return fmt.Errorf("repair: %w: %s names no commit and nothing to restore it from", ErrObjectsLost, branch)
			}
			if err := r.repo.Storer.SetReference(plumbing.NewHashReference(branch, good)); err != nil {
				return fmt.Errorf("repair %s: %w", branch, err)
			}
			// The index and working tree were HEAD's old commit's.
			return r.dropIndex()
		}
	}
	if err := r.dropBrokenRefs(); err != nil {
		return err
	}
	if ok, err := r.checkedOut(); err != nil || !ok {
		return err
	}
	if _, err := r.repo.Storer.Index(); err != nil {
		// The next commit checks HEAD out again (ensureCheckout).
		return r.dropIndex()
	}
	return nil
}

// dropBrokenRefs removes the remote-tracking and Tolk's own references
// that a cut-off write left naming no commit: a fetch writes the former
// again, and Tolk's (the synced commit, the last push, its marks) only
// save work when present.
func (r *Repo) dropBrokenRefs() error {
	for _, root := range []string{"refs/remotes", "refs/tolk"} {
		base := filepath.Join(r.dir, git.GitDirName)
		err := filepath.WalkDir(filepath.Join(base, filepath.FromSlash(root)), func(p string, d os.DirEntry, err error) error {
			if errors.Is(err, os.ErrNotExist) {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(base, p)
			if err != nil {
				return err
			}
			name := plumbing.ReferenceName(filepath.ToSlash(rel))
			if r.names(name) {
				return nil
			}
			if ref, err := r.repo.Storer.Reference(name); err == nil && ref.Type() == plumbing.SymbolicReference {
				return nil // origin/HEAD and the like
			}
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("repair: remove %s: %w", name, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// names reports whether the reference exists and names a commit the
// repository holds.
func (r *Repo) names(name plumbing.ReferenceName) bool {
	ref, err := r.repo.Reference(name, true)
	if err != nil {
		return false
	}
	_, err = r.repo.CommitObject(ref.Hash())
	return err == nil
}

// dropIndex removes the git index, so that the next commit checks HEAD
// out into the working tree afresh.
func (r *Repo) dropIndex() error {
	err := os.Remove(filepath.Join(r.dir, git.GitDirName, "index"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("repair: %w", err)
	}
	return nil
}
