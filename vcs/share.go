package vcs

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Sharing a branch between checkouts. Several Tolk processes may each
// keep a checkout of one component; their commits are carried from one
// to another as objects (Object), not through a remote: LocalObjects
// lists what a checkout's local commits added, WriteObjects stores them
// in another checkout, and MoveTo moves that checkout's branch onto
// them.

// Object is one git object: its type ("commit", "tree", "blob", "tag")
// and content as git hashes it (without the header); Hash names it.
type Object struct {
	Hash string
	Type string
	Data []byte
}

// LocalCommits is what LocalObjects found.
type LocalCommits struct {
	// Head is HEAD's commit.
	Head string
	// Base is the upstream commit the walk stopped at (the remote
	// branch as last fetched, or the commit the branch last synced
	// with): a checkout holding it needs only Objects to reach Head. ""
	// when the walk stopped at a known commit only, or reached the first
	// commit (a repository without a remote).
	Base string
	// Known is the commit of the known ones the walk stopped at, "" when
	// none.
	Known string
	// Objects are the commits between Head and where the walk stopped,
	// with the trees and blobs each added to its first parent's.
	Objects []Object
}

// LocalObjects walks HEAD's history back to upstream (the remote branch
// as last fetched, or the commit the branch last synced with) or to one
// of the known commits, and returns the objects of the commits on the
// way: what a checkout holding upstream and the known commits lacks to
// reach HEAD.
func (r *Repo) LocalObjects(known ...string) (LocalCommits, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var lc LocalCommits
	head, err := r.head()
	if err != nil {
		return lc, fmt.Errorf("local objects: %w", err)
	}
	lc.Head = head.String()
	upstream := map[plumbing.Hash]bool{}
	if r.url != "" && r.branch != "" {
		for _, name := range []plumbing.ReferenceName{plumbing.NewRemoteReferenceName(remoteName, r.branch), syncedRef} {
			h, err := r.refHash(name)
			if err != nil {
				return lc, fmt.Errorf("local objects: %w", err)
			}
			if !h.IsZero() {
				upstream[h] = true
			}
		}
	}
	stop := map[plumbing.Hash]bool{}
	for _, k := range known {
		if h, err := parseRev(k); err == nil {
			stop[h] = true
		}
	}
	w := objectLister{r: r, seen: map[plumbing.Hash]bool{}}
	queue := []plumbing.Hash{head}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		switch {
		case w.seen[h]:
			continue
		case upstream[h]:
			if lc.Base == "" {
				lc.Base = h.String()
			}
			continue
		case stop[h]:
			if lc.Known == "" {
				lc.Known = h.String()
			}
			continue
		}
		c, err := r.repo.CommitObject(h)
		if err != nil {
			return lc, fmt.Errorf("local objects: read commit %s: %w", h, err)
		}
		if err := w.commit(c); err != nil {
			return lc, fmt.Errorf("local objects: %w", err)
		}
		queue = append(queue, c.ParentHashes...)
	}
	lc.Objects = w.out
	return lc, nil
}

// objectLister collects objects once each.
type objectLister struct {
	r    *Repo
	seen map[plumbing.Hash]bool
	out  []Object
}

// commit adds c, and the trees and blobs of its tree its first parent's
// lacks.
func (w *objectLister) commit(c *object.Commit) error {
	if err := w.add(c.Hash); err != nil {
		return err
	}
	var old plumbing.Hash
	if len(c.ParentHashes) > 0 {
		if p, err := w.r.repo.CommitObject(c.ParentHashes[0]); err == nil {
			old = p.TreeHash
		}
	}
	return w.tree(c.TreeHash, old)
}

// tree adds tree h and what it holds that tree old (zero: none) lacks.
func (w *objectLister) tree(h, old plumbing.Hash) error {
	if h == old || w.seen[h] {
		return nil
	}
	t, err := w.r.repo.TreeObject(h)
	if err != nil {
		return fmt.Errorf("read tree %s: %w", h, err)
	}
	before := map[string]object.TreeEntry{}
	if !old.IsZero() {
		if ot, err := w.r.repo.TreeObject(old); err == nil {
			for _, e := range ot.Entries {
				before[e.Name] = e
			}
		}
	}
	if err := w.add(h); err != nil {
		return err
	}
	for _, e := range t.Entries {
		o, had := before[e.Name]
		if had && o.Hash == e.Hash {
			continue
		}
		switch e.Mode {
		case filemode.Dir:
			var sub plumbing.Hash
			if had && o.Mode == filemode.Dir {
				sub = o.Hash
			}
			if err := w.tree(e.Hash, sub); err != nil {
				return err
			}
		case filemode.Submodule:
			// A commit of another repository: not ours to carry.
		default:
			if err := w.add(e.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}

// add adds object h once.
func (w *objectLister) add(h plumbing.Hash) error {
	if w.seen[h] {
		return nil
	}
	w.seen[h] = true
	obj, err := w.r.repo.Storer.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return fmt.Errorf("read object %s: %w", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return fmt.Errorf("read object %s: %w", h, err)
	}
	defer rd.Close()
	data, err := readAll(rd, make([]byte, 0, obj.Size()))
	if err != nil {
		return fmt.Errorf("read object %s: %w", h, err)
	}
	w.out = append(w.out, Object{Hash: h.String(), Type: obj.Type().String(), Data: data})
	return nil
}

// Descends reports whether commit rev descends from (or is) commit
// from; false when the repository lacks from.
func (r *Repo) Descends(rev, from string) (bool, error) {
	if ok, err := r.HasCommit(from); err != nil || !ok {
		return false, err
	}
	a, err := parseRev(from)
	if err != nil {
		return false, err
	}
	b, err := parseRev(rev)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.isAncestor(a, b)
}

// HasCommit reports whether the repository holds commit rev.
func (r *Repo) HasCommit(rev string) (bool, error) {
	h, err := parseRev(rev)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	err = r.repo.Storer.HasEncodedObject(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return false, nil
	}
	return err == nil, err
}

// WriteObjects stores objs in the repository (as loose objects; those it
// holds already are skipped). An object whose content does not hash to
// its name is an error, and nothing after it is written.
func (r *Repo) WriteObjects(objs []Object) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range objs {
		t, err := plumbing.ParseObjectType(o.Type)
		if err != nil {
			return fmt.Errorf("write object %s: %w", o.Hash, err)
		}
		if h := plumbing.ComputeHash(t, o.Data); h.String() != o.Hash {
			return fmt.Errorf("write object %s: content hashes to %s", o.Hash, h)
		}
		if _, err := r.writeObject(t, o.Data); err != nil {
			return err
		}
	}
	return nil
}

// MoveTo moves the checked-out branch to commit rev, as ResetTo does,
// and records synced (an upstream commit rev descends from) as the
// commit the branch last synced with (Divergence.Base), so that the
// commits between them stay local: a pull re-applies them. With synced
// "" the record is left as it was.
func (r *Repo) MoveTo(rev, synced string) error {
	h, err := parseRev(rev)
	if err != nil {
		return fmt.Errorf("move: %w", err)
	}
	s := plumbing.ZeroHash
	if synced != "" {
		if s, err = parseRev(synced); err != nil {
			return fmt.Errorf("move: %w", err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resetLocked(h, s)
}

// resetLocked moves the branch and work tree to h and records synced as
// the commit the branch last synced with (zero: leaves it); r.mu is
// held.
func (r *Repo) resetLocked(h, synced plumbing.Hash) error {
	if r.branch == "" {
		return fmt.Errorf("reset: %w", ErrDetachedHead)
	}
	if _, err := r.repo.CommitObject(h); err != nil {
		return fmt.Errorf("reset: %w: %s", ErrUnknownRevision, h)
	}
	ok, err := r.checkedOut()
	if err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(r.branch), h)
	if err := r.repo.Storer.SetReference(ref); err != nil {
		return fmt.Errorf("reset: update %s: %w", ref.Name(), err)
	}
	if ok {
		if err := r.resetWorktree(h); err != nil {
			return err
		}
	}
	if !synced.IsZero() {
		if err := r.repo.Storer.SetReference(plumbing.NewHashReference(syncedRef, synced)); err != nil {
			return fmt.Errorf("reset: update %s: %w", syncedRef, err)
		}
	}
	return r.noteHead(h)
}
