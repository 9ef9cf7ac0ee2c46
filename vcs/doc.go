// Package vcs is Tolk's plumbing over git: it clones, opens and initializes
// one working tree per component, reads files from the HEAD tree, commits
// files into the working tree, and pulls and pushes one branch of the remote
// named "origin". A clone may leave its working tree empty
// (CloneOptions.NoCheckout) until the first Commit checks it out, and
// that checkout writes only the git index: the working tree holds only
// the files Commit wrote (checkout.go).
//
// It imports only the standard library and go-git (github.com/go-git/go-git/v5);
// it must never import another Tolk package, and it does not log. Progress of
// network operations goes to CloneOptions.Progress, errors go to the caller.
//
// Start reading at Repo (repo.go): Clone, Open, OpenOrClone and InitLocal
// return one. Reads that look at the HEAD tree are in tree.go, and Files
// (walk.go) lists the part of it a caller scopes, bounded in entries and
// following symbolic links that stay inside the repository. Commit is in
// commit.go: it writes the blobs, the trees along the changed paths and
// the commit as loose objects itself (objects.go) rather than through
// go-git's worktree, and Batch (batch.go) makes a run of commits whose
// index and branch are written once at its end. Pull, Push and NeedsPush
// are in remote.go. Fetch and
// Status (what `git status` tells: ahead, behind, edited files) are in
// status.go, and Export (export.go) serves a checkout read-only over Git's
// smart HTTP protocol; it is the one part of vcs that speaks HTTP, as a
// plain http.Handler. Clean (clean.go) removes untracked files and
// prunes stale remote-tracking references. CreateBare
// (bare.go) makes a bare repository with one commit, for demo and test
// upstreams. Errors that a caller is expected to act on are the sentinels in
// errors.go; test them with errors.Is, as they usually arrive wrapped with
// the operation and a redacted URL.
//
// Every clone, fetch, push and listing of the remote runs under a watch
// (watch.go) bounding it by Timeouts: a total time, and a stall time
// without progress (a progress message or a packet of the pack
// received); ErrStalled and ErrTimeout say which ended it.
// RemoveStaleClones removes the temporary clones a crash left, and
// CheckPacks (packs.go) the temporary and cut-off packs of a fetch a
// crash cut short; Open then refuses a checkout whose branch's history
// went with them (ErrObjectsLost), which Reclone clones again.
// share.go carries local commits between checkouts of one component
// without a remote: LocalObjects lists the objects they added,
// WriteObjects stores them elsewhere, and MoveTo moves that branch.
//
// Supported remotes are file:// URLs and plain paths (go-git runs the git
// binary's git-upload-pack and git-receive-pack for these, so git must be
// installed), http:// and https:// (go-git's own client), and ssh:// or
// scp-like user@host:path (go-git's own client; host keys are checked against
// known_hosts, see Auth).
//
// A Guard (guard.go) judges the address of every connection an operation
// opens, so that a caller can keep remotes off addresses it refuses; vcs
// installs its own http client into go-git for that, which also keeps
// the body of a failed answer out of errors.
package vcs
