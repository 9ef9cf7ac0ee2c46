package vcs

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// LocalCommit is one of the commits HEAD has that upstream lacks, for
// a squash plan.
type LocalCommit struct {
	Hash    string
	Author  Signature
	Message string
	Paths   []string // the paths it changed, sorted
	// Changes are the blob hashes of each changed path before and
	// after it ("" where the path is absent).
	Changes map[string][2]string
}

// SquashStep is one commit of a squash: the previous step's tree (at
// first upstream's) with Set applied, path to blob hash ("" removes),
// by Author with Message. The last step is HEAD's tree whatever its Set.
type SquashStep struct {
	Set     map[string]string
	Author  Signature
	Message string
}

// ErrNothingToSquash is returned by Squash when HEAD has fewer than two
// commits upstream lacks.
var ErrNothingToSquash = errors.New("vcs: nothing to squash")

// maxSquash bounds the local commits Squash reads.
const maxSquash = 10000

// Squash replaces the commits HEAD has that refs/remotes/origin/<branch>
// lacks with the commits plan returns for them (oldest first), each
// built on upstream's tree (or the previous step's) with its paths as
// HEAD holds them, committed by committer; the last step's tree must be
// HEAD's, so no content changes, and the working tree and git index
// stay as they are. Tolk never merges, so the local commits are a line.
// It returns the new commits' hashes, oldest first, or
// ErrNothingToSquash when there are fewer than two local commits.
func (r *Repo) Squash(committer Signature, plan func([]LocalCommit) []SquashStep) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.branch == "" {
		return nil, ErrDetachedHead
	}
	base, err := r.refHash(plumbing.NewRemoteReferenceName(remoteName, r.branch))
	if err != nil {
		return nil, err
	}
	head, err := r.head()
	if err != nil {
		return nil, err
	}
	var local []LocalCommit
	var headTree *object.Tree
	for h := head; h != base; {
		c, err := r.repo.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("squash: read %s: %w", h, err)
		}
		if len(c.ParentHashes) != 1 || len(local) >= maxSquash {
			return nil, fmt.Errorf("squash: %s is not on a line of local commits over upstream", h)
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, err
		}
		if headTree == nil {
			headTree = tree
		}
		parent, err := c.Parent(0)
		if err != nil {
			return nil, err
		}
		ptree, err := parent.Tree()
		if err != nil {
			return nil, err
		}
		changes, err := object.DiffTree(ptree, tree)
		if err != nil {
			return nil, err
		}
		lc := LocalCommit{Hash: h.String(), Message: c.Message, Changes: map[string][2]string{},
			Author: Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When}}
		for _, ch := range changes {
			if ch.From.Name != "" {
				v := lc.Changes[ch.From.Name]
				v[0] = ch.From.TreeEntry.Hash.String()
				lc.Changes[ch.From.Name] = v
			}
			if ch.To.Name != "" {
				v := lc.Changes[ch.To.Name]
				v[1] = ch.To.TreeEntry.Hash.String()
				lc.Changes[ch.To.Name] = v
			}
		}
		lc.Paths = slices.Sorted(maps.Keys(lc.Changes)) // every path a change names
		local = append(local, lc)
		h = c.ParentHashes[0]
	}
	if len(local) < 2 {
		return nil, ErrNothingToSquash
	}
	slices.Reverse(local)
	steps := plan(local)
	if len(steps) == 0 {
		return nil, ErrNothingToSquash
	}
	baseCommit, err := r.repo.CommitObject(base)
	if err != nil {
		return nil, fmt.Errorf("squash: read upstream %s: %w", base, err)
	}
	tree, parent := baseCommit.TreeHash, base
	var out []string
	for i, st := range steps {
		if i == len(steps)-1 || st.Set == nil {
			tree = headTree.Hash
		} else {
			edits := map[string]*object.TreeEntry{}
			for p, blob := range st.Set {
				if blob == "" {
					edits[p] = nil
					continue
				}
				e := object.TreeEntry{Name: p[strings.LastIndexByte(p, '/')+1:], Mode: filemode.Regular, Hash: plumbing.NewHash(blob)}
				if f, err := headTree.FindEntry(p); err == nil {
					e.Mode = f.Mode
				}
				edits[p] = &e
			}
			if tree, _, err = r.editTree(tree, edits); err != nil {
				return nil, err
			}
		}
		author := st.Author.object()
		cm := committer.object()
		if cm.When.IsZero() {
			cm.When = author.When
		}
		h, err := r.writeCommit(&object.Commit{Author: author, Committer: cm, Message: st.Message,
			TreeHash: tree, ParentHashes: []plumbing.Hash{parent}})
		if err != nil {
			return nil, err
		}
		parent = h
		out = append(out, h.String())
		if tree == headTree.Hash {
			break
		}
	}
	branch := plumbing.NewBranchReferenceName(r.branch)
	if err := r.setRef(branch, parent); err != nil {
		return nil, fmt.Errorf("squash: update %s: %w", branch, err)
	}
	if err := r.noteHead(parent); err != nil {
		return nil, fmt.Errorf("squash: %w", err)
	}
	return out, nil
}
