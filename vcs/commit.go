package vcs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commit writes c.Files into the working tree (writing the git index of
// HEAD first into one left empty by CloneOptions.NoCheckout: HEAD's other
// files stay out of the working tree, see checkout.go), deletes c.Remove,
// stages both, and commits them on the current branch with c.Message,
// c.Author and c.Committer. It returns the hex hash of the new HEAD.
//
// The commit's tree is HEAD's with only those paths changed: the trees
// along them are written again and every other subtree is kept by hash,
// so a commit costs what it changes, not the size of the repository. It
// is byte for byte the commit go-git's Worktree.Commit makes of the same
// files over a clean index: names and e-mails cleaned of '<', '>' and
// newlines as go-git cleans them, trees in git's order. Objects are
// written loose, as git writes them (looseCompression).
//
// It returns ErrNothingToCommit (and makes no commit) when the files leave
// the tree unchanged, an error wrapping ErrInvalidPath for a path that is
// not clean and relative, names .git, or goes through a symbolic link in
// the working tree, and the errors of CommitOptions.Validate. ctx is only
// checked before starting: writing and committing are local and short.
//
// The git index is written before the branch moves, as `git add` then
// `git commit` would: a crash in between leaves the files staged and the
// branch where it was, and the next commit of those paths (Tolk's
// pending edits, which it forgets only after the commit) commits them.
// Should Commit fail after writing files, the working tree is left dirty;
// the next Pull that moves HEAD resets it. Commit is a Batch of one
// commit.
func (r *Repo) Commit(ctx context.Context, c CommitOptions) (string, error) {
	var h string
	err := r.Batch(func(b *Batch) error {
		var err error
		h, err = b.Commit(ctx, c)
		return err
	})
	return h, err
}

// stage writes c's files into the working tree and their blobs into the
// object store, deletes c.Remove, and records both in idx (not written);
// it returns the tree edits: each path's new entry, nil for a removal.
// r.mu is held.
func (r *Repo) stage(idx *index.Index, c CommitOptions) (map[string]*object.TreeEntry, error) {
	edits := make(map[string]*object.TreeEntry, len(c.Files)+len(c.Remove))
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		data := c.Files[p]
		e, err := stagedEntry(idx, p)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", p, err)
		}
		if err := r.writeFile(p, data); err != nil {
			return nil, fmt.Errorf("write %s: %w", p, err)
		}
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if e != nil && e.SkipWorktree && e.Mode == filemode.Executable {
			// Not in the working tree until now: the tree's mode.
			if err := os.Chmod(full, 0o755); err != nil {
				return nil, fmt.Errorf("stage %s: %w", p, err)
			}
		}
		// The mode is the file's, as go-git and git stage it: an
		// executable bit the checkout holds survives.
		fi, err := os.Lstat(full)
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", p, err)
		}
		mode, err := filemode.NewFromOSFileMode(fi.Mode())
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", p, err)
		}
		h, err := r.writeObject(plumbing.BlobObject, data)
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", p, err)
		}
		if e == nil {
			e = idx.Add(p)
		}
		e.Hash, e.Mode, e.ModifiedAt, e.Size = h, mode, fi.ModTime(), uint32(fi.Size())
		e.SkipWorktree = false
		fillStat(e, fi)
		edits[p] = &object.TreeEntry{Name: path.Base(p), Mode: mode, Hash: h}
	}
	for _, p := range c.Remove {
		if err := r.removeFile(p); err != nil {
			return nil, fmt.Errorf("remove %s: %w", p, err)
		}
		// A path the index lacks was never committed.
		if _, err := idx.Remove(p); err != nil && !errors.Is(err, index.ErrEntryNotFound) {
			return nil, fmt.Errorf("remove %s: %w", p, err)
		}
		edits[p] = nil
	}
	return edits, nil
}

// editTree writes the tree that is the tree base (zero: an empty one)
// with edits applied, their paths relative to it, and returns its hash
// and how many entries it has; an edited subtree left empty is dropped,
// as git keeps no empty directory. Only the trees along the edited paths
// are written; the others are kept by hash. r.mu is held.
func (r *Repo) editTree(base plumbing.Hash, edits map[string]*object.TreeEntry) (plumbing.Hash, int, error) {
	var entries []object.TreeEntry
	if !base.IsZero() {
		t, err := r.tree(base)
		if err != nil {
			return plumbing.ZeroHash, 0, fmt.Errorf("read tree %s: %w", base, err)
		}
		entries = slices.Clone(t.Entries)
	}
	find := func(name string) int {
		return slices.IndexFunc(entries, func(e object.TreeEntry) bool { return e.Name == name })
	}
	subs := map[string]map[string]*object.TreeEntry{}
	for p, e := range edits {
		dir, rest, nested := strings.Cut(p, "/")
		if nested {
			if subs[dir] == nil {
				subs[dir] = map[string]*object.TreeEntry{}
			}
			subs[dir][rest] = e
			continue
		}
		switch i := find(p); {
		case e == nil && i >= 0:
			entries = slices.Delete(entries, i, i+1)
		case e == nil:
		case i >= 0:
			entries[i] = *e
		default:
			entries = append(entries, *e)
		}
	}
	for dir, sub := range subs {
		i := find(dir)
		cur := plumbing.ZeroHash
		if i >= 0 {
			if entries[i].Mode != filemode.Dir {
				// writeFile refuses a path through a file; a removal
				// under one has nothing to remove.
				continue
			}
			cur = entries[i].Hash
		}
		h, n, err := r.editTree(cur, sub)
		switch {
		case err != nil:
			return plumbing.ZeroHash, 0, err
		case n == 0 && i >= 0:
			entries = slices.Delete(entries, i, i+1)
		case n == 0:
		case i >= 0:
			entries[i].Hash = h
		default:
			entries = append(entries, object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: h})
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, 0, nil
	}
	// git's order: by name, a directory's name as if it ended in '/'.
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	var obj plumbing.MemoryObject
	if err := (&object.Tree{Entries: entries}).Encode(&obj); err != nil {
		return plumbing.ZeroHash, 0, err
	}
	h, err := r.writeEncoded(&obj)
	if err != nil {
		return plumbing.ZeroHash, 0, err
	}
	// The next commit starts from this tree.
	t, err := object.DecodeTree(r.repo.Storer, &obj)
	if err != nil {
		return plumbing.ZeroHash, 0, err
	}
	r.keepTree(t)
	return h, len(entries), nil
}

// writeCommit stores c and returns its hash; r.mu is held.
func (r *Repo) writeCommit(c *object.Commit) (plumbing.Hash, error) {
	var obj plumbing.MemoryObject
	if err := c.Encode(&obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.writeEncoded(&obj)
}

// writeEncoded stores an object encoded into memory; r.mu is held.
func (r *Repo) writeEncoded(obj *plumbing.MemoryObject) (plumbing.Hash, error) {
	rd, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	data, err := readAll(rd, make([]byte, 0, obj.Size()))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return r.writeObject(obj.Type(), data)
}

// signatureCleaner drops what go-git's Worktree.Commit drops from names
// and e-mails: characters that would break the signature line.
var signatureCleaner = strings.NewReplacer("<", "", ">", "", "\n", "")

// object is s as a commit's signature line holds it.
func (s Signature) object() object.Signature {
	return object.Signature{Name: signatureCleaner.Replace(s.Name), Email: signatureCleaner.Replace(s.Email), When: s.When}
}

// removeFile deletes the slash path p from the working tree; a path it
// lacks is not an error. Like writeFile it refuses a path through a
// symbolic link.
func (r *Repo) removeFile(p string) error {
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
	return nil
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
