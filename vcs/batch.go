package vcs

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Batch is a run of commits on the checked-out branch made under one
// hold of the repository (Repo.Batch). Each commit is made as Commit
// makes one, but the git index and the branch are written once, when
// the run ends, rather than after every commit: a hundred commits in a
// row cost a hundred trees and commit objects, not a hundred index and
// reference rewrites. Reads through a Batch see its last commit. A Batch
// is valid only inside the function given to Repo.Batch, and is not
// safe for concurrent use.
type Batch struct {
	r    *Repo
	idx  *index.Index  // read at the first commit; nil before it
	head plumbing.Hash // the run's last commit; zero before the first
}

// Batch runs fn with the repository held, so that the commits fn makes
// through b follow each other with nothing in between; fn must not call
// r's own methods (they wait for the hold fn has). When fn returns, the
// commits it made are kept even if it failed: the index is written,
// then the branch moves to the last commit, as Commit does for one. Its
// error is fn's, or that of those writes.
//
// A crash before the end leaves the branch and the index where they
// were: the run's commits are lost to the branch (their objects stay,
// unreferenced) and the working tree holds their files, which the next
// commit of those paths or the next pull that moves HEAD sets right.
// Tolk forgets pending edits only once the run ended, so the next
// commit makes them again.
func (r *Repo) Batch(fn func(b *Batch) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := &Batch{r: r}
	err := fn(b)
	if ferr := b.finish(); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

// finish writes the index and moves the branch to the run's last commit.
func (b *Batch) finish() error {
	if b.idx != nil {
		if err := b.r.repo.Storer.SetIndex(b.idx); err != nil {
			return fmt.Errorf("commit: write index: %w", err)
		}
	}
	if b.head.IsZero() {
		return nil
	}
	branch := plumbing.NewBranchReferenceName(b.r.branch)
	if err := b.r.setRef(branch, b.head); err != nil {
		return fmt.Errorf("commit: update %s: %w", branch, err)
	}
	if err := b.r.noteHead(b.head); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// headTree is the tree of the run's last commit, else HEAD's.
func (b *Batch) headTree() (*object.Tree, error) {
	if b.head.IsZero() {
		return b.r.headTree()
	}
	return b.r.commitTree(b.head)
}

// ReadFile is Repo.ReadFile as of the run's last commit.
func (b *Batch) ReadFile(path string) ([]byte, error) {
	tree, err := b.headTree()
	if err != nil {
		return nil, err
	}
	return b.r.readTreeFile(tree, path)
}

// Resolve is Repo.Resolve as of the run's last commit.
func (b *Batch) Resolve(path string) (string, error) {
	tree, err := b.headTree()
	if err != nil {
		return "", err
	}
	return b.r.resolveIn(tree, path)
}

// BlobHash is Repo.BlobHash as of the run's last commit.
func (b *Batch) BlobHash(path string) (string, error) {
	tree, err := b.headTree()
	if err != nil {
		return "", err
	}
	return b.r.blobHashIn(tree, path)
}

// Commit makes one commit of the run, on top of its last one (HEAD for
// the first); see Repo.Commit for what it writes and its errors.
func (b *Batch) Commit(ctx context.Context, c CommitOptions) (string, error) {
	r := b.r
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if err := c.Validate(); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if len(c.Files) == 0 && len(c.Remove) == 0 {
		return "", ErrNothingToCommit
	}
	if r.branch == "" {
		return "", fmt.Errorf("commit: %w", ErrDetachedHead)
	}
	if b.idx == nil {
		// The working tree and the index are kept level with HEAD: a
		// clone made with NoCheckout has neither yet.
		if err := r.ensureCheckout(); err != nil {
			return "", fmt.Errorf("commit: %w", err)
		}
		idx, err := r.repo.Storer.Index()
		if err != nil {
			return "", fmt.Errorf("commit: read index: %w", err)
		}
		b.idx = idx
	}
	head := b.head
	if head.IsZero() {
		var err error
		if head, err = r.head(); err != nil {
			return "", fmt.Errorf("commit: %w", err)
		}
	}
	parent, err := r.repo.CommitObject(head)
	if err != nil {
		return "", fmt.Errorf("commit: read HEAD %s: %w", head, err)
	}
	edits, err := r.stage(b.idx, c)
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	tree, _, err := r.editTree(parent.TreeHash, edits)
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if tree == parent.TreeHash {
		return "", ErrNothingToCommit
	}
	h, err := r.writeCommit(&object.Commit{Author: c.Author.object(), Committer: c.Committer.object(),
		Message: c.Message, TreeHash: tree, ParentHashes: []plumbing.Hash{head}})
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	b.head = h
	return h.String(), nil
}
