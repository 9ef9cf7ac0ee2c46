package sync

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	gosync "sync"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// errNotCloned answers for a component whose checkout does not exist yet
// (its first import failed or has not run).
var errNotCloned = index.Errorf(index.ErrNotFound, "The repository of this component is not available yet.")

// errNoFile answers for a path HEAD does not hold.
var errNoFile = index.Errorf(index.ErrNotFound, "File not found.")

// openCheckout opens the component's existing checkout; the caller holds
// the component's lock. It never clones: reads must not start network work.
func (s *Service) openCheckout(c index.Component) (*vcs.Repo, error) {
	repo, err := vcs.Open(s.repoDir(c))
	if errors.Is(err, vcs.ErrNotCheckout) {
		return nil, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, errNotCloned)
	}
	if err != nil {
		return nil, err
	}
	repo.SetTimeouts(s.opts.GitTimeouts)
	repo.SetGuard(s.guard(c))
	return repo, nil
}

// cloned reports whether c's checkout has been cloned, without opening
// it.
func (s *Service) cloned(c index.Component) bool {
	_, err := os.Stat(filepath.Join(s.repoDir(c), ".git"))
	return !errors.Is(err, os.ErrNotExist)
}

// lockedCheckout takes the component's lock for a git job (lockComponent)
// and opens its checkout, moved to the recorded head (catchUp). On
// success the caller holds the lock and must unlock it; on error it is
// already released.
func (s *Service) lockedCheckout(ctx context.Context, c index.Component) (*vcs.Repo, func(), error) {
	c, err := s.onLink(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if err := s.checkCloned(ctx, c); err != nil {
		return nil, nil, err
	}
	unlock, err := s.lockComponent(ctx, c.ID)
	if err != nil {
		return nil, nil, err
	}
	repo, err := s.caughtUp(ctx, c)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return repo, unlock, nil
}

// readCheckout is lockedCheckout for reads of this process's checkout
// (its status, its files): under this process's mutex alone, so that a
// read does not wait for another process's git job. The checkout moves
// to the recorded head all the same; the caller must unlock mu.
func (s *Service) readCheckout(ctx context.Context, c index.Component) (*vcs.Repo, *gosync.Mutex, error) {
	c, err := s.onLink(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if err := s.checkCloned(ctx, c); err != nil {
		return nil, nil, err
	}
	mu := s.componentLock(c.ID)
	mu.Lock()
	repo, err := s.caughtUp(ctx, c)
	if err != nil {
		mu.Unlock()
		return nil, nil, err
	}
	return repo, mu, nil
}

// checkCloned returns an error wrapping index.ErrNotFound when the
// component has no checkout to open: none here, and none another
// process made (which records a head this one can clone to).
func (s *Service) checkCloned(ctx context.Context, c index.Component) error {
	// A first import clones aside and renames into place, and may hang
	// on the remote for long holding the lock: a read of a component
	// not cloned yet answers at once.
	if s.cloned(c) {
		return nil
	}
	if s.store.SharedCheckouts() {
		if _, ok, err := s.store.GitHead(ctx, c.GitID()); err != nil || ok {
			return err
		}
	}
	return fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, errNotCloned)
}

// caughtUp opens the component's checkout and moves it to the recorded
// head (catchUp); a component another process imported first is cloned
// here. Its packs are checked first (checkPacks): what a cut-off fetch
// left is fetched again, and a checkout that lost its branch's history
// is cloned again (recloneIfLost). The caller holds the component's
// mutex.
func (s *Service) caughtUp(ctx context.Context, c index.Component) (*vcs.Repo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.cloned(c) && s.store.SharedCheckouts() {
		return s.openOrClone(ctx, c)
	}
	lost, err := s.checkPacks(c)
	if err != nil {
		return nil, err
	}
	repo, err := s.openCheckout(c)
	if err != nil {
		repo, err = s.recloneIfLost(ctx, c, err)
	} else {
		s.refetch(ctx, c, repo, lost)
	}
	if err != nil {
		return nil, err
	}
	if err := s.catchUp(ctx, c, repo); err != nil {
		return nil, err
	}
	return repo, nil
}

// RepositoryStatus reports the state of the component's checkout against
// its remote branch as last fetched, with the component's scheduled jobs
// (Jobs); it does not contact the remote. It
// returns an error wrapping index.ErrNotFound when the checkout does not
// exist yet.
func (s *Service) RepositoryStatus(ctx context.Context, c index.Component) (index.RepositoryStatus, error) {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return index.RepositoryStatus{}, err
	}
	repo, lock, err := s.readCheckout(ctx, c)
	if err != nil {
		return index.RepositoryStatus{}, err
	}
	// A commit cut short between git and the index left edits pending
	// that a commit on the branch holds: settled first, the status says
	// what is true (nothing to commit, something to push) rather than
	// waiting for the next commit.
	if cut, err := repo.Mark(committingMark); err != nil || cut != "" {
		lock.Unlock()
		if err == nil {
			err = s.settleCutCommit(ctx, c)
		}
		if err != nil {
			return index.RepositoryStatus{}, fmt.Errorf("%s/%s: settle a cut-short commit: %w", c.Project.Slug, c.Slug, err)
		}
		if repo, lock, err = s.readCheckout(ctx, c); err != nil {
			return index.RepositoryStatus{}, err
		}
	}
	defer lock.Unlock()
	st, err := repo.Status()
	if err != nil {
		return index.RepositoryStatus{}, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	pending, err := s.store.PendingUnits(ctx, c.ID)
	if err != nil {
		return index.RepositoryStatus{}, fmt.Errorf("%s/%s: pending edits: %w", c.Project.Slug, c.Slug, err)
	}
	out := index.RepositoryStatus{
		// Edits, new and removed strings and added or deleted
		// translations wait in the index for the next commit.
		NeedsCommit: pending.Any(),
		NeedsMerge:  st.Behind > 0,
		NeedsPush:   st.Ahead > 0,
		Status:      st.String(),
		LocalCommit: commitOf(st.Head),
		Jobs:        s.Jobs(c),
		Outgoing:    st.Ahead,
		Missing:     st.Behind,
		Pending:     pending,
	}
	// A pull never fails on text (it does not merge): a failure is git's
	// own, or a rejected push, and says why.
	if out.MergeFailure, err = s.store.RepositoryFailure(ctx, c.ID); err != nil {
		return index.RepositoryStatus{}, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	if st.Remote != nil {
		rc := commitOf(*st.Remote)
		out.RemoteCommit = &rc
	}
	return out, nil
}

func commitOf(c vcs.CommitInfo) index.Commit {
	return index.Commit{
		Revision:       c.Hash,
		AuthorName:     c.Author.Name,
		AuthorEmail:    c.Author.Email,
		AuthorDate:     c.Author.When,
		CommitterName:  c.Committer.Name,
		CommitterEmail: c.Committer.Email,
		CommitDate:     c.Committer.When,
		Message:        c.Message,
	}
}

// Fetch updates the component's remote-tracking branch from its remote
// without changing the checkout (RepositoryStatus then reports
// NeedsMerge), and reports whether it moved. A component without a remote
// has nothing to fetch: false, nil.
func (s *Service) Fetch(ctx context.Context, c index.Component) (bool, error) {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return false, err
	}
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return false, err
	}
	defer unlock()
	changed, err := repo.Fetch(ctx)
	if errors.Is(err, vcs.ErrNoRemote) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	return changed, nil
}

// ReadFile returns the content of the file at the slash-separated path as
// committed at the checkout's HEAD, byte for byte. It returns an error
// wrapping index.ErrNotFound when the checkout or the file does not exist.
func (s *Service) ReadFile(ctx context.Context, c index.Component, path string) ([]byte, error) {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return nil, err
	}
	// Without the component's lock: objects never change once written,
	// and HEAD names the commit before a commit or pull moves it or the
	// one after, both whole. A download neither waits for a long pull nor
	// holds one up. Only a reference caught mid-write (go-git rewrites
	// them in place) sends the read to the lock.
	repo, err := s.openCheckout(c)
	var head string
	if err == nil {
		head, err = repo.Head()
	}
	if err == nil {
		// Another process may have moved the component since: the
		// checkout catches up first (under the lock, below).
		err = s.behind(ctx, c, repo, head)
	}
	if err != nil {
		var lock *gosync.Mutex
		if repo, lock, err = s.readCheckout(ctx, c); err != nil {
			return nil, err
		}
		head, err = repo.Head()
		lock.Unlock()
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
		}
	}
	b, err := repo.ReadFileAt(head, path)
	if errors.Is(err, vcs.ErrNotExist) {
		return nil, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, errNoFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	return b, nil
}

// GitExport returns a handler serving the component's checkout read-only
// over Git's smart HTTP protocol (see vcs.Export for the paths it
// answers). It returns an error wrapping index.ErrNotFound when the
// checkout does not exist yet. The handler takes the component's lock
// only while it reads references, so a long clone does not hold up an
// import.
func (s *Service) GitExport(ctx context.Context, c index.Component) (http.Handler, error) {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return nil, err
	}
	repo, lock, err := s.readCheckout(ctx, c)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	return &vcs.Export{Dir: repo.Dir(), Lock: lock}, nil
}
