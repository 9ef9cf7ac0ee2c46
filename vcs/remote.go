package vcs

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// Pull fetches the checked-out branch from origin into
// refs/remotes/origin/<branch> and, when HEAD has no local commits,
// fast-forwards to it: the branch is moved and the working tree hard-reset
// to the fetched commit (uncommitted changes to tracked files are lost) as
// far as it holds files: those it holds follow the commit, the others stay
// out of it (checkout.go); a working tree left empty by
// CloneOptions.NoCheckout stays empty.
// It reports whether HEAD moved.
//
// "No local commits" means HEAD is an ancestor of the fetched commit, or
// HEAD equals what origin/<branch> was before the fetch; the latter also
// follows a force-push upstream. When HEAD is ahead of the fetched commit
// (local commits not pushed yet, remote unchanged), Pull changes nothing and
// returns false, nil; see NeedsPush. When both sides have new commits, Pull
// changes nothing and returns ErrDiverged; rebasing local commits is not
// implemented yet.
//
// Errors wrap ErrNoRemote, ErrDetachedHead, ErrAuthRequired,
// ErrRemoteNotFound, ErrBranchNotFound, ErrDiverged, ErrStalled,
// ErrTimeout, or the context's error.
func (r *Repo) Pull(ctx context.Context) (changed bool, err error) {
	r.mu.Lock()
	err = r.remoteReady("pull")
	var before plumbing.Hash
	if err == nil {
		before, err = r.refHash(plumbing.NewRemoteReferenceName(remoteName, r.branch))
	}
	r.mu.Unlock()
	if err != nil {
		return false, fmt.Errorf("pull: %w", err)
	}
	if _, err := r.Fetch(ctx); err != nil {
		return false, err
	}
	// The fast-forward is a move to what Diverge reports, as sync's pull
	// moves after keeping its own commits.
	d, err := r.Diverge()
	if err != nil {
		return false, fmt.Errorf("pull: %w", err)
	}
	if d.Remote == "" {
		return false, fmt.Errorf("pull %s: %w", redactURL(r.url), ErrBranchNotFound)
	}
	if !d.Moved() {
		return false, nil
	}
	if d.Head != before.String() {
		r.mu.Lock()
		ff, err := r.isAncestor(plumbing.NewHash(d.Head), plumbing.NewHash(d.Remote))
		r.mu.Unlock()
		if err != nil {
			return false, fmt.Errorf("pull: %w", err)
		}
		if !ff {
			return false, fmt.Errorf("pull %s: %w", redactURL(r.url), ErrDiverged)
		}
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("pull: %w", err)
	}
	if err := r.ResetTo(d.Remote); err != nil {
		return false, fmt.Errorf("pull: %w", err)
	}
	return true, nil
}

// remoteReady checks that the checkout has a remote and a branch to
// track, as op (fetch, pull) needs.
func (r *Repo) remoteReady(op string) error {
	if r.url == "" {
		return fmt.Errorf("%s %s: %w", op, r.dir, ErrNoRemote)
	}
	if r.branch == "" {
		return fmt.Errorf("%s %s: %w", op, r.dir, ErrDetachedHead)
	}
	return nil
}

// fetchLocked updates the remote-tracking branch from the remote; r.mu is
// held. changed is false when the remote had nothing new.
func (r *Repo) fetchLocked(ctx context.Context, op string) (changed bool, err error) {
	ctx, auth, err := remoteSetup(ctx, r.auth, r.guard, r.url)
	if err != nil {
		return false, remoteError(ctx, op, r.url, r.auth, err)
	}
	w := watchRemote(ctx, r.timeouts, packDir(r.dir), nil)
	defer w.stop()
	err = r.repo.FetchContext(w.ctx, &git.FetchOptions{
		RemoteName: remoteName,
		RefSpecs:   []config.RefSpec{fetchRefSpec(r.branch)},
		Auth:       auth,
		Tags:       git.NoTags,
		Progress:   w,
	})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return false, nil
	}
	if err != nil {
		return false, remoteError(w.ctx, op, r.url, r.auth, err)
	}
	return true, nil
}

// Push pushes HEAD's branch to the branch of origin named branch ("" means
// the same name as the checked-out branch), without forcing. It returns nil
// when the remote already has that commit, and an error wrapping
// ErrNonFastForward when the remote branch has commits HEAD does not
// contain; Pull and try again. Other errors wrap ErrNoRemote,
// ErrDetachedHead, ErrAuthRequired, ErrRemoteNotFound, or the context's
// error.
func (r *Repo) Push(ctx context.Context, branch string) error {
	return r.PushTo(ctx, "", branch)
}

// PushTo is Push to the repository at url instead of origin ("" means
// origin), as for a component whose push URL differs from its pull URL.
// Only a push to origin updates refs/remotes/origin/<branch>.
func (r *Repo) PushTo(ctx context.Context, url, branch string) error {
	return r.push(ctx, url, branch, false)
}

// PushLease is PushTo for a branch that belongs to Tolk (a component's
// push_branch, from which upstream merges): it replaces the remote branch
// even when that is not a fast-forward, as `git push --force-with-lease`
// does, but only while the remote branch still is what Tolk last pushed
// there, so that commits someone else added are never overwritten (that
// is an error wrapping ErrNonFastForward). A branch Tolk never pushed is
// pushed without force.
func (r *Repo) PushLease(ctx context.Context, url, branch string) error {
	return r.push(ctx, url, branch, true)
}

// pushedRef records, per pushed branch, the commit Tolk last pushed
// there: the lease of PushLease.
func pushedRef(branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/tolk/pushed/" + branch)
}

func (r *Repo) push(ctx context.Context, url, branch string, lease bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.url == "" {
		return fmt.Errorf("push %s: %w", r.dir, ErrNoRemote)
	}
	if r.branch == "" {
		return fmt.Errorf("push %s: %w", r.dir, ErrDetachedHead)
	}
	if branch == "" {
		branch = r.branch
	}
	target := r.url
	if url != "" && !sameURL(url, r.url) {
		target = url
	}
	ctx, auth, err := remoteSetup(ctx, r.auth, r.guard, target)
	if err != nil {
		return remoteError(ctx, "push", target, r.auth, err)
	}
	local := plumbing.NewBranchReferenceName(r.branch)
	dst := plumbing.NewBranchReferenceName(branch)
	opts := &git.PushOptions{
		RemoteName: remoteName,
		RefSpecs:   []config.RefSpec{config.RefSpec(local.String() + ":" + dst.String())},
		Auth:       auth,
		RemoteURL:  target,
	}
	if lease {
		last, err := r.refHash(pushedRef(branch))
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		if !last.IsZero() {
			opts.ForceWithLease = &git.ForceWithLease{RefName: dst, Hash: last}
		}
	}
	// A push sends: nothing arrives while it progresses, so only the
	// total timeout bounds it.
	t := r.timeouts
	t.Stall = -1
	w := watchRemote(ctx, t, "", nil)
	defer w.stop()
	err = r.repo.PushContext(w.ctx, opts)
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return remoteError(w.ctx, "push", target, r.auth, err)
	}
	h, err := r.head()
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	refs := []plumbing.ReferenceName{pushedRef(branch)}
	if target == r.url {
		// Record what the remote now has, as a fetch would, so that
		// NeedsPush and Pull see it without another round trip.
		refs = append(refs, plumbing.NewRemoteReferenceName(remoteName, branch))
		if branch == r.branch {
			refs = append(refs, syncedRef)
		}
	}
	for _, name := range refs {
		if err := r.repo.Storer.SetReference(plumbing.NewHashReference(name, h)); err != nil {
			return fmt.Errorf("push: update %s: %w", name, err)
		}
	}
	return nil
}

// NeedsPush reports whether HEAD differs from refs/remotes/origin/<branch>,
// the remote branch as last fetched or pushed; it does not contact the
// remote. It is true when the remote branch was never fetched, and false
// for a repository without a remote.
func (r *Repo) NeedsPush() (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.url == "" {
		return false, nil
	}
	if r.branch == "" {
		return false, ErrDetachedHead
	}
	remote, err := r.refHash(plumbing.NewRemoteReferenceName(remoteName, r.branch))
	if err != nil {
		return false, err
	}
	head, err := r.head()
	if err != nil {
		return false, err
	}
	return head != remote, nil
}

// refHash returns the commit name points to, or the zero hash if name does
// not exist.
func (r *Repo) refHash(name plumbing.ReferenceName) (plumbing.Hash, error) {
	ref, err := r.repo.Reference(name, true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", name, err)
	}
	return ref.Hash(), nil
}

// isAncestor reports whether commit a is an ancestor of (or equal to)
// commit b.
func (r *Repo) isAncestor(a, b plumbing.Hash) (bool, error) {
	ca, err := r.repo.CommitObject(a)
	if err != nil {
		return false, fmt.Errorf("read commit %s: %w", a, err)
	}
	cb, err := r.repo.CommitObject(b)
	if err != nil {
		return false, fmt.Errorf("read commit %s: %w", b, err)
	}
	return ca.IsAncestor(cb)
}
