package vcs

import (
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Divergence is how HEAD and the remote branch, as last fetched, relate.
// Tolk never asks git to merge: the caller decides from a Divergence what
// to carry over (sync re-applies its own edits from the index) and moves
// the branch with ResetTo.
type Divergence struct {
	Head   string // HEAD's commit
	Remote string // refs/remotes/origin/<branch>; "" when never fetched or no remote
	// Base is where HEAD last met upstream: the commit the last
	// ResetTo (or clone, or push of the branch) synced with when HEAD
	// still descends from it, else the newest common ancestor; "" when
	// they share no history, or there is no Remote. Base == Head means
	// HEAD has nothing of its own: moving to Remote is a fast-forward.
	Base string
	// Contained is true when HEAD already holds Remote.
	Contained bool
	// Local are the paths whose content differs between Base and Head:
	// what the local commits changed. Upstream are those differing between
	// Base and Remote. Both sorted; without a Base, every file of the
	// side's tree.
	Local, Upstream []string
}

// Moved reports whether the remote branch has commits HEAD lacks.
func (d Divergence) Moved() bool { return d.Remote != "" && !d.Contained }

// syncedRef records the upstream commit the branch last synced with, so
// that a pull tells Tolk's own commits from upstream's even after
// upstream rewrote its history (no merge base then).
const syncedRef = plumbing.ReferenceName("refs/tolk/synced")

// markSynced records h as the commit the branch last synced with; r.mu
// is held.
func (r *Repo) markSynced(h plumbing.Hash) error {
	if err := r.repo.Storer.SetReference(plumbing.NewHashReference(syncedRef, h)); err != nil {
		return fmt.Errorf("update %s: %w", syncedRef, err)
	}
	return r.noteHead(h)
}

// headRef follows the branch: it is written after every move of it
// (commit, reset, fast-forward, clone), so it names the last commit the
// branch reached whole. go-git rewrites references in place; should a
// crash cut the branch's reference off, repair restores it from here,
// and only the commit being made then is lost to git, whose edits Tolk's
// index still holds.
const headRef = plumbing.ReferenceName("refs/tolk/head")

// noteHead records h as the branch's last head; r.mu is held.
func (r *Repo) noteHead(h plumbing.Hash) error {
	if err := r.setRef(headRef, h); err != nil {
		return fmt.Errorf("update %s: %w", headRef, err)
	}
	return nil
}

// Diverge compares HEAD with the remote branch as last fetched (see
// Fetch); it does not contact the remote.
func (r *Repo) Diverge() (Divergence, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var d Divergence
	head, err := r.head()
	if err != nil {
		return d, fmt.Errorf("diverge: %w", err)
	}
	d.Head = head.String()
	if r.url == "" || r.branch == "" {
		return d, nil
	}
	remote, err := r.refHash(plumbing.NewRemoteReferenceName(remoteName, r.branch))
	if err != nil || remote.IsZero() {
		return d, err
	}
	d.Remote = remote.String()
	if head == remote {
		d.Base, d.Contained = d.Head, true
		return d, nil
	}
	hc, err := r.repo.CommitObject(head)
	if err != nil {
		return d, fmt.Errorf("diverge: read HEAD %s: %w", head, err)
	}
	rc, err := r.repo.CommitObject(remote)
	if err != nil {
		return d, fmt.Errorf("diverge: read %s: %w", remote, err)
	}
	if d.Contained, err = rc.IsAncestor(hc); err != nil {
		return d, fmt.Errorf("diverge: %w", err)
	}
	base, err := r.syncBase(hc, rc)
	if err != nil {
		return d, fmt.Errorf("diverge: %w", err)
	}
	if base != nil {
		d.Base = base.Hash.String()
	}
	if d.Local, err = changedPaths(base, hc); err != nil {
		return d, fmt.Errorf("diverge: %w", err)
	}
	if d.Upstream, err = changedPaths(base, rc); err != nil {
		return d, fmt.Errorf("diverge: %w", err)
	}
	return d, nil
}

// syncBase is Divergence.Base: the synced commit when head descends from
// it, else the newest merge base of head and remote (nil when none).
func (r *Repo) syncBase(head, remote *object.Commit) (*object.Commit, error) {
	synced, err := r.refHash(syncedRef)
	if err != nil {
		return nil, err
	}
	if !synced.IsZero() {
		if c, err := r.repo.CommitObject(synced); err == nil {
			if ok, err := c.IsAncestor(head); err == nil && ok {
				return c, nil
			}
		}
	}
	bases, err := head.MergeBase(remote)
	if err != nil {
		return nil, fmt.Errorf("merge base of %s and %s: %w", head.Hash, remote.Hash, err)
	}
	if len(bases) == 0 {
		return nil, nil
	}
	// Several bases happen only with criss-cross merges, which Tolk
	// never makes; any of them gives the changes of both sides.
	return bases[0], nil
}

// changedPaths lists the paths whose content differs between two
// commits; a nil from lists every file of to.
func changedPaths(from, to *object.Commit) ([]string, error) {
	if from != nil && from.Hash == to.Hash {
		return nil, nil
	}
	toTree, err := to.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", to.Hash, err)
	}
	var fromTree *object.Tree
	if from != nil {
		if fromTree, err = from.Tree(); err != nil {
			return nil, fmt.Errorf("read tree of %s: %w", from.Hash, err)
		}
	}
	changes, err := object.DiffTree(fromTree, toTree)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", to.Hash, err)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range changes {
		for _, p := range []string{c.From.Name, c.To.Name} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// ReadFileAt returns the content of the file at the slash-separated path
// in the tree of commit rev (a full hex hash). It returns an error wrapping
// ErrNotExist when that tree has no file there.
func (r *Repo) ReadFileAt(rev, path string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := parseRev(rev)
	if err != nil {
		return nil, err
	}
	tree, err := r.commitTree(h)
	if err != nil {
		return nil, err
	}
	return r.readTreeFile(tree, path)
}

// fileEntry is the entry of the regular file at path of tree, following
// a symbolic link to the file it names inside the tree; a link that
// leaves the tree, dangles or names no regular file is ErrNotExist, with
// why. op names the operation in errors.
func (r *Repo) fileEntry(tree *object.Tree, path, op string) (object.TreeEntry, error) {
	e, err := r.lookup(tree, path)
	if err != nil {
		return e, fmt.Errorf("%s: %w", op, err)
	}
	if e.Mode == filemode.Symlink {
		_, target, reason, err := r.resolveLink(tree, path, e.Hash)
		if err != nil {
			return e, err
		}
		if reason != "" {
			return e, fmt.Errorf("%s %q: %s: %w", op, path, reason, ErrNotExist)
		}
		e = target
	}
	if !e.Mode.IsFile() || e.Mode == filemode.Symlink {
		return e, fmt.Errorf("%s %q: %w", op, path, ErrNotExist)
	}
	return e, nil
}

// readTreeFile reads the file at path of tree, following a symbolic
// link to the regular file it names inside the tree; a link that leaves
// the tree, dangles or names no regular file is ErrNotExist, with why.
func (r *Repo) readTreeFile(tree *object.Tree, path string) ([]byte, error) {
	e, err := r.fileEntry(tree, path, "read")
	if err != nil {
		return nil, err
	}
	b, err := r.repo.BlobObject(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	defer rd.Close()
	data, err := readAll(rd, make([]byte, 0, b.Size))
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	return data, nil
}

// ErrUnknownRevision is returned for a revision that is not a full hex
// hash of a commit the repository holds.
var ErrUnknownRevision = errors.New("vcs: unknown revision")

func parseRev(rev string) (plumbing.Hash, error) {
	h := plumbing.NewHash(rev)
	if !plumbing.IsHash(rev) || h.IsZero() {
		return plumbing.ZeroHash, fmt.Errorf("%w: %q", ErrUnknownRevision, rev)
	}
	return h, nil
}

// ResetTo moves the checked-out branch to commit rev and makes the index
// and working tree match it, as `git reset --hard` does: local commits
// not reachable from rev leave the branch, uncommitted changes to tracked
// files are lost (Tolk keeps its edits in its index, not in the working
// tree). A working tree never checked out stays empty. rev becomes the
// commit the branch last synced with (Divergence.Base).
func (r *Repo) ResetTo(rev string) error {
	h, err := parseRev(rev)
	if err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resetLocked(h, h)
}

// SetMark records commit rev under a name of the caller's (a reference
// refs/tolk/marks/<name> in the checkout), so that a fact about a commit
// — "the index holds this commit's files" — survives a restart and
// moves atomically with it.
func (r *Repo) SetMark(name, rev string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := parseRev(rev)
	if err != nil {
		return fmt.Errorf("mark %s: %w", name, err)
	}
	ref := plumbing.NewHashReference(markRef(name), h)
	if err := r.repo.Storer.SetReference(ref); err != nil {
		return fmt.Errorf("mark %s: %w", name, err)
	}
	return nil
}

// Mark returns the commit SetMark recorded under name, or "" when none.
func (r *Repo) Mark(name string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.refHash(markRef(name))
	if err != nil || h.IsZero() {
		return "", err
	}
	return h.String(), nil
}

// ClearMark forgets the commit SetMark recorded under name; a name with
// no mark is not an error.
func (r *Repo) ClearMark(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.repo.Storer.RemoveReference(markRef(name)); err != nil {
		return fmt.Errorf("clear mark %s: %w", name, err)
	}
	return nil
}

func markRef(name string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/tolk/marks/" + name)
}
