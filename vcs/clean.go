package vcs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// CleanResult says what Clean removed.
type CleanResult struct {
	// Removed are the working tree's untracked files and the directories
	// left empty, slash-separated, a directory with a trailing slash, in
	// the order they were removed.
	Removed []string
	// Pruned are the remote-tracking references dropped because origin
	// no longer has their branch, sorted.
	Pruned []string
}

// Clean does what `git clean -f -d` and `git remote prune origin` do
// together: it removes the working tree's untracked files (ignored ones
// stay, as without -x) and the directories left empty, then drops the
// remote-tracking references of branches origin no longer has, asking
// origin for its branches (a network call, cancelled with ctx). A working
// tree never checked out (CloneOptions.NoCheckout) has nothing to remove.
// Symbolic links are removed, never followed, and a nested repository (a
// directory holding .git) is left alone, as git does without -ff. A
// repository without a remote has nothing to prune. Network errors are
// wrapped as Pull's are.
func (r *Repo) Clean(ctx context.Context) (CleanResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var res CleanResult
	var err error
	if res.Removed, err = r.cleanFiles(); err != nil {
		return res, fmt.Errorf("clean: %w", err)
	}
	if res.Pruned, err = r.prune(ctx); err != nil {
		return res, err
	}
	return res, nil
}

// cleanFiles removes the untracked files and the empty directories of
// the working tree and lists what it removed; r.mu is held.
func (r *Repo) cleanFiles() ([]string, error) {
	ok, err := r.checkedOut()
	if err != nil || !ok {
		return nil, err
	}
	wt, err := r.repo.Worktree()
	if err != nil {
		return nil, err
	}
	// go-git's status leaves out files .gitignore matches, as git clean
	// without -x keeps them.
	st, err := wt.Status()
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	var removed, dirs []string
	// WalkDir reports a symbolic link as a link and never descends into
	// it, so nothing outside the working tree is reached.
	err = filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == r.dir {
			return nil
		}
		rel, err := filepath.Rel(r.dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == git.GitDirName {
				return fs.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(p, git.GitDirName)); err == nil {
				return fs.SkipDir // a nested repository
			}
			dirs = append(dirs, rel)
			return nil
		}
		if !st.IsUntracked(rel) {
			return nil
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		removed = append(removed, rel)
		return nil
	})
	if err != nil {
		return removed, err
	}
	// Git tracks no directories: one left empty goes too. Children come
	// after their parent in walk order, so backwards empties parents last.
	for i := len(dirs) - 1; i >= 0; i-- {
		p := filepath.Join(r.dir, filepath.FromSlash(dirs[i]))
		empty, err := isEmptyDir(p)
		if err != nil {
			return removed, err
		}
		if !empty {
			continue
		}
		if err := os.Remove(p); err != nil {
			return removed, err
		}
		removed = append(removed, dirs[i]+"/")
	}
	return removed, nil
}

// prune drops the references under refs/remotes/origin/ whose branch
// origin no longer has; r.mu is held.
func (r *Repo) prune(ctx context.Context) ([]string, error) {
	if r.url == "" {
		return nil, nil
	}
	prefix := "refs/remotes/" + remoteName + "/"
	var tracking []plumbing.ReferenceName
	iter, err := r.repo.References()
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		// origin/HEAD names the remote's default branch, not a branch.
		if n := ref.Name(); strings.HasPrefix(n.String(), prefix) && n.String() != prefix+"HEAD" {
			tracking = append(tracking, n)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	if len(tracking) == 0 {
		return nil, nil // nothing could be stale: no need to ask origin
	}
	remote, err := r.repo.Remote(remoteName)
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	ctx, auth, err := remoteSetup(ctx, r.auth, r.guard, r.url)
	if err != nil {
		return nil, remoteError(ctx, "prune", r.url, r.auth, err)
	}
	w := watchRemote(ctx, r.timeouts, "", nil)
	defer w.stop()
	refs, err := remote.ListContext(w.ctx, &git.ListOptions{Auth: auth})
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, remoteError(w.ctx, "prune", r.url, r.auth, err)
	}
	has := map[string]bool{}
	for _, ref := range refs {
		if ref.Name().IsBranch() {
			has[ref.Name().Short()] = true
		}
	}
	var pruned []string
	for _, n := range tracking {
		if has[strings.TrimPrefix(n.String(), prefix)] {
			continue
		}
		if err := r.repo.Storer.RemoveReference(n); err != nil {
			return pruned, fmt.Errorf("prune %s: %w", n, err)
		}
		pruned = append(pruned, n.String())
	}
	sort.Strings(pruned)
	return pruned, nil
}
