package vcs

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// CommitInfo describes one commit.
type CommitInfo struct {
	Hash      string // hex SHA-1
	Author    Signature
	Committer Signature
	Message   string // full message, as stored
}

// Summary returns the first line of the message.
func (c CommitInfo) Summary() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return strings.TrimRight(s, "\r")
}

// Status is the state of a checkout relative to its remote branch as last
// fetched, computed without contacting the remote.
type Status struct {
	Branch string     // checked-out branch; "" if HEAD is detached
	Head   CommitInfo // the commit HEAD points to
	// Remote is the commit of refs/remotes/origin/<branch>, or nil for a
	// repository without a remote or whose branch was never fetched.
	Remote *CommitInfo
	// Ahead counts the commits HEAD has that Remote lacks (to push);
	// Behind those Remote has that HEAD lacks (to merge). Both are 0
	// without Remote.
	Ahead, Behind int
	// Modified lists the working tree's tracked files that differ from
	// HEAD, Untracked its files git does not track; both sorted.
	Modified, Untracked []string
}

// Fetch updates refs/remotes/origin/<branch> from origin without touching
// HEAD, the index or the working tree, and reports whether that reference
// moved. Use Status to see what the fetch brought, Pull to apply it.
//
// Errors wrap ErrNoRemote, ErrDetachedHead, ErrAuthRequired,
// ErrRemoteNotFound, ErrBranchNotFound, or the context's error.
func (r *Repo) Fetch(ctx context.Context) (changed bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.remoteReady("fetch"); err != nil {
		return false, err
	}
	return r.fetchLocked(ctx, "fetch")
}

// Status returns the state of the checkout. It reads the object store and
// hashes the working tree's files, so it costs about as much as
// `git status`; it does not contact the remote.
func (r *Repo) Status() (Status, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := Status{Branch: r.branch}
	head, err := r.head()
	if err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	if st.Head, err = r.commitInfo(head); err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	if r.url != "" && r.branch != "" {
		remote, err := r.refHash(plumbing.NewRemoteReferenceName(remoteName, r.branch))
		if err != nil {
			return st, fmt.Errorf("status: %w", err)
		}
		if !remote.IsZero() {
			info, err := r.commitInfo(remote)
			if err != nil {
				return st, fmt.Errorf("status: %w", err)
			}
			st.Remote = &info
			if st.Ahead, st.Behind, err = r.aheadBehind(head, remote); err != nil {
				return st, fmt.Errorf("status: %w", err)
			}
		}
	}
	// A working tree never checked out (NoCheckout) holds nothing Tolk
	// wrote: it is HEAD, unmodified, however git would list it.
	if ok, err := r.checkedOut(); err != nil || !ok {
		if err != nil {
			return st, fmt.Errorf("status: %w", err)
		}
		return st, nil
	}
	wt, err := r.repo.Worktree()
	if err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	ws, err := wt.Status()
	if err != nil {
		return st, fmt.Errorf("status: working tree: %w", err)
	}
	for path, fs := range ws {
		switch {
		case fs.Worktree == git.Untracked:
			st.Untracked = append(st.Untracked, path)
		case fs.Worktree != git.Unmodified || fs.Staging != git.Unmodified:
			st.Modified = append(st.Modified, path)
		}
	}
	sort.Strings(st.Modified)
	sort.Strings(st.Untracked)
	return st, nil
}

func (r *Repo) commitInfo(h plumbing.Hash) (CommitInfo, error) {
	c, err := r.repo.CommitObject(h)
	if err != nil {
		return CommitInfo{}, fmt.Errorf("read commit %s: %w", h, err)
	}
	return CommitInfo{
		Hash:      c.Hash.String(),
		Author:    Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When},
		Committer: Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: c.Committer.When},
		Message:   c.Message,
	}, nil
}

// aheadBehind counts the commits reachable from a but not b, and from b
// but not a. It walks both histories in full, which is cheap for the
// repositories Tolk holds (translation files, a few thousand commits).
func (r *Repo) aheadBehind(a, b plumbing.Hash) (ahead, behind int, err error) {
	if a == b {
		return 0, 0, nil
	}
	fromA, err := r.reachable(a)
	if err != nil {
		return 0, 0, err
	}
	fromB, err := r.reachable(b)
	if err != nil {
		return 0, 0, err
	}
	for h := range fromA {
		if !fromB[h] {
			ahead++
		}
	}
	for h := range fromB {
		if !fromA[h] {
			behind++
		}
	}
	return ahead, behind, nil
}

// reachable returns the set of commits reachable from h, h included.
func (r *Repo) reachable(h plumbing.Hash) (map[plumbing.Hash]bool, error) {
	c, err := r.repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	seen := map[plumbing.Hash]bool{}
	it := object.NewCommitPreorderIter(c, seen, nil)
	defer it.Close()
	for {
		c, err := it.Next()
		if err == io.EOF {
			return seen, nil
		}
		if err != nil {
			return nil, fmt.Errorf("walk history of %s: %w", h, err)
		}
		seen[c.Hash] = true
	}
}

// String renders the status the way `git status` (without options) does
// for the cases a Tolk checkout can be in, so that clients written for the
// reference can show it as they show the reference's.
func (s Status) String() string {
	var b strings.Builder
	if s.Branch == "" {
		fmt.Fprintf(&b, "HEAD detached at %s\n", s.Head.Hash[:7])
	} else {
		fmt.Fprintf(&b, "On branch %s\n", s.Branch)
	}
	if s.Remote != nil {
		upstream := "'" + remoteName + "/" + s.Branch + "'"
		switch {
		case s.Ahead > 0 && s.Behind > 0:
			fmt.Fprintf(&b, "Your branch and %s have diverged,\nand have %d and %d different commits each, respectively.\n"+
				"  (use \"git pull\" to merge the remote branch into yours)\n", upstream, s.Ahead, s.Behind)
		case s.Ahead > 0:
			fmt.Fprintf(&b, "Your branch is ahead of %s by %s.\n  (use \"git push\" to publish your local commits)\n",
				upstream, commits(s.Ahead))
		case s.Behind > 0:
			fmt.Fprintf(&b, "Your branch is behind %s by %s, and can be fast-forwarded.\n"+
				"  (use \"git pull\" to update your local branch)\n", upstream, commits(s.Behind))
		default:
			fmt.Fprintf(&b, "Your branch is up to date with %s.\n", upstream)
		}
		b.WriteString("\n")
	}
	if len(s.Modified) > 0 {
		b.WriteString("Changes not staged for commit:\n")
		for _, p := range s.Modified {
			fmt.Fprintf(&b, "\tmodified:   %s\n", p)
		}
		b.WriteString("\n")
	}
	if len(s.Untracked) > 0 {
		b.WriteString("Untracked files:\n")
		for _, p := range s.Untracked {
			fmt.Fprintf(&b, "\t%s\n", p)
		}
		b.WriteString("\n")
	}
	switch {
	case len(s.Modified) > 0:
		b.WriteString("no changes added to commit\n")
	case len(s.Untracked) > 0:
		b.WriteString("nothing added to commit but untracked files present\n")
	default:
		b.WriteString("nothing to commit, working tree clean\n")
	}
	return b.String()
}

func commits(n int) string {
	if n == 1 {
		return "1 commit"
	}
	return fmt.Sprintf("%d commits", n)
}
