package vcs

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The working tree holds only what Tolk writes. Tolk reads files from
// the object store, never from the working tree, so a checkout does not
// materialise HEAD's files: its git index lists every file of HEAD's
// tree marked skip-worktree (as a sparse checkout does), and a file
// enters the working tree when Commit writes it. go-git's Worktree.Reset
// materialised every file and took time quadratic in their number (8 s
// for 4,000 files in one folder, minutes for 30,000); the index built
// here costs one pass over the trees, and neither git nor go-git reports
// a skip-worktree file missing from the working tree as deleted.

// sparseIndexVersion is the index format that can mark entries
// skip-worktree (an extended flag, from version 3 on).
const sparseIndexVersion = 3

// treeIndex returns the index of the tree h: an entry per file, marked
// skip-worktree, in one pass over its trees; r.mu is held.
func (r *Repo) treeIndex(h plumbing.Hash) (*index.Index, error) {
	idx := &index.Index{Version: sparseIndexVersion}
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		t, err := object.GetTree(r.repo.Storer, h)
		if err != nil {
			return fmt.Errorf("read tree %s: %w", h, err)
		}
		for _, e := range t.Entries {
			if e.Mode == filemode.Dir {
				if err := walk(e.Hash, prefix+e.Name+"/"); err != nil {
					return err
				}
				continue
			}
			idx.Entries = append(idx.Entries, &index.Entry{Name: prefix + e.Name, Hash: e.Hash, Mode: e.Mode,
				SkipWorktree: true})
		}
		return nil
	}
	c, err := r.repo.CommitObject(h)
	if err != nil {
		return nil, err
	}
	if err := walk(c.TreeHash, ""); err != nil {
		return nil, err
	}
	return idx, nil
}

// checkoutIndex writes the index of commit h (treeIndex) for a working
// tree left empty by NoCheckout; r.mu is held.
func (r *Repo) checkoutIndex(h plumbing.Hash) error {
	idx, err := r.treeIndex(h)
	if err != nil {
		return fmt.Errorf("check out %s: %w", h, err)
	}
	if err := r.repo.Storer.SetIndex(idx); err != nil {
		return fmt.Errorf("check out %s: write index: %w", h, err)
	}
	return nil
}

// resetWorktree moves the index and the working tree to commit h, as
// `git reset --hard` does, for what the working tree holds: the index
// becomes h's (treeIndex), and each file the old index had in the
// working tree is kept when h has it unchanged and it is untouched on
// disk, written again from h when h has it otherwise or it was edited,
// and deleted when h has no such file. Every other file of h stays out
// of the working tree. r.mu is held.
func (r *Repo) resetWorktree(h plumbing.Hash) error {
	idx, err := r.treeIndex(h)
	if err != nil {
		return fmt.Errorf("reset to %s: %w", h, err)
	}
	old, err := r.repo.Storer.Index()
	if err != nil {
		// A cut-off index (repair drops it) holds nothing to keep.
		old = &index.Index{}
	}
	byName := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		byName[e.Name] = e
	}
	for _, oe := range old.Entries {
		if oe.SkipWorktree {
			continue
		}
		if err := r.resetFile(oe, byName[oe.Name]); err != nil {
			return fmt.Errorf("reset to %s: %s: %w", h, oe.Name, err)
		}
	}
	if err := r.repo.Storer.SetIndex(idx); err != nil {
		return fmt.Errorf("reset to %s: write index: %w", h, err)
	}
	return nil
}

// resetFile brings the working tree's file of the old index entry oe to
// ne, its entry in the new index (nil: none), which it fills in when the
// file stays in the working tree; r.mu is held.
func (r *Repo) resetFile(oe, ne *index.Entry) error {
	full := filepath.Join(r.dir, filepath.FromSlash(oe.Name))
	fi, statErr := os.Lstat(full)
	untouched := statErr == nil && fi.Size() == int64(oe.Size) && fi.ModTime().Equal(oe.ModifiedAt)
	switch {
	case ne != nil && ne.Hash == oe.Hash && ne.Mode == oe.Mode && untouched:
		*ne = *oe
		return nil
	case ne != nil && (ne.Mode == filemode.Regular || ne.Mode == filemode.Executable):
		data, err := r.blob(ne.Hash)
		if err != nil {
			return err
		}
		if statErr == nil && !fi.Mode().IsRegular() {
			if err := os.RemoveAll(full); err != nil {
				return err
			}
		}
		if err := r.writeFile(oe.Name, data); errors.Is(err, ErrInvalidPath) {
			return nil // stays out of the working tree
		} else if err != nil {
			return err
		}
		perm := os.FileMode(0o644)
		if ne.Mode == filemode.Executable {
			perm = 0o755
		}
		if err := os.Chmod(full, perm); err != nil {
			return err
		}
		if fi, err = os.Lstat(full); err != nil {
			return err
		}
		ne.SkipWorktree, ne.ModifiedAt, ne.Size = false, fi.ModTime(), uint32(fi.Size())
		fillStat(ne, fi)
		return nil
	default:
		// Gone from the tree, or not a file Tolk writes: out of the
		// working tree, with the directories it leaves empty.
		if err := r.removeFile(oe.Name); err != nil && !errors.Is(err, ErrInvalidPath) {
			return err
		}
		for dir := path.Dir(oe.Name); dir != "."; dir = path.Dir(dir) {
			if os.Remove(filepath.Join(r.dir, filepath.FromSlash(dir))) != nil {
				break // not empty, or gone already
			}
		}
		return nil
	}
}

// blob reads the content of the blob h; r.mu is held.
func (r *Repo) blob(h plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(r.repo.Storer, h)
	if err != nil {
		return nil, err
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return readAll(rd, make([]byte, 0, b.Size))
}

// stagedEntry finds the index entry of the slash path p, which Commit is
// about to write into the working tree, and refuses a path that HEAD's
// tree holds as a symbolic link, goes through a file or a symbolic
// link, or names a directory: what writeFile refuses when the working
// tree holds them, checked in the index, since a skip-worktree file is
// not there. It returns nil when the index lacks p. One pass over the
// index; r.mu is held.
func stagedEntry(idx *index.Index, p string) (*index.Entry, error) {
	var found *index.Entry
	for _, e := range idx.Entries {
		switch {
		case e.Name == p:
			found = e
		case strings.HasPrefix(p, e.Name+"/"):
			return nil, fmt.Errorf("%w: %s is not a directory", ErrInvalidPath, e.Name)
		case strings.HasPrefix(e.Name, p+"/"):
			return nil, fmt.Errorf("%w: %s is a directory", ErrInvalidPath, p)
		}
	}
	if found != nil && found.SkipWorktree && found.Mode == filemode.Symlink {
		return nil, fmt.Errorf("%w: %s is a symbolic link", ErrInvalidPath, p)
	}
	return found, nil
}
