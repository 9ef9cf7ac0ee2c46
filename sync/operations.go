package sync

import (
	"context"
	"fmt"

	"github.com/tolk-project/tolk/index"
)

// OperationStore is what the repository operations cleanup, file-sync
// and file-scan need from the index beyond commits (part of Store).
type OperationStore interface {
	// ForceSync marks every unit of the component's translations
	// pending and records 83, in one transaction.
	ForceSync(ctx context.Context, componentID, userID int64, action index.Action, target string) (int64, error)
	// ForceScan forgets the revisions of the component's translations
	// and records 84, in one transaction.
	ForceScan(ctx context.Context, componentID, userID int64) error
}

// Cleanup removes the untracked files and directories of the component's
// checkout and drops its stale remote-tracking references (vcs.Clean: the
// reference's git clean -f -d and git remote prune origin), under the
// component's lock, and records "Repository cleanup" (88) by user (nil:
// nobody). A checkout whose working tree was never checked out has no
// file to remove. Tolk never merges or rebases with git, so there is no
// merge to abort first, as the reference does. A failure is an
// index.ErrConflict error saying "Could not clean the repository on
// <project>/<component>." (the cause is logged and wrapped, not shown);
// a checkout that does not exist yet is an error wrapping
// index.ErrNotFound.
func (s *Service) Cleanup(ctx context.Context, c index.Component, user *index.User) error {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return err
	}
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return err
	}
	defer unlock()
	log := s.opts.Logger.With("project", c.Project.Slug, "component", c.Slug)
	res, err := repo.Clean(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		log.Warn("cleanup failed", "err", err)
		return fmt.Errorf("%w (%w)", index.Errorf(index.ErrConflict, "Could not clean the repository on %s/%s.",
			c.Project.Slug, c.Slug), err)
	}
	if err := s.store.RecordRepositoryChange(ctx, c.ID, index.ActionRepoCleanup, userID(user), ""); err != nil {
		return fmt.Errorf("%s/%s: record cleanup: %w", c.Project.Slug, c.Slug, err)
	}
	log.Info("repository cleaned", "removed", len(res.Removed), "pruned", len(res.Pruned))
	return nil
}

// FileSync rewrites every translation file of the component from the
// index, as the reference's file-sync does: it marks every unit of the
// component's translations pending and records "Forced synchronization
// of translations" (83) by user (nil: nobody), in one transaction, then
// commits (Commit) and returns what the commit did. The formats writers
// change only the values that differ, so a file the index agrees with
// gets no commit; a file edited upstream in a way the index does not
// know gets its values back from the index. Unlike the reference, which
// queues the commit, the commit is made before FileSync returns. The
// checkout must exist (else an error wrapping index.ErrNotFound, with
// nothing marked).
func (s *Service) FileSync(ctx context.Context, c index.Component, user *index.User) (index.CommitResult, error) {
	// The lock orders the marking between two imports or commits, and
	// taking it through lockedCheckout checks that there is a checkout
	// to commit to.
	_, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return index.CommitResult{}, err
	}
	_, err = s.store.ForceSync(ctx, c.ID, userID(user), index.ActionForceSync, "")
	unlock()
	if err != nil {
		return index.CommitResult{}, fmt.Errorf("%s/%s: force sync: %w", c.Project.Slug, c.Slug, err)
	}
	return s.Commit(ctx, c, user)
}

// FileScan re-reads every file of the component into the index, as the
// reference's file-scan does: it commits the pending edits first
// (Commit, so nothing waiting is overwritten by the files), then, under
// the component's lock, forgets the translations' revisions and records
// "Forced rescan of translations" (84) by user (nil: nobody), and imports
// the checkout as it is, without fetching: every file is parsed, even
// one whose blob the index has seen, so an index that drifted from its
// files is put right. The checkout must exist (else an error wrapping
// index.ErrNotFound).
func (s *Service) FileScan(ctx context.Context, c index.Component, user *index.User) error {
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return err
	}
	if _, err := s.Commit(ctx, c, user); err != nil {
		return err
	}
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.store.ForceScan(ctx, c.ID, userID(user)); err != nil {
		return fmt.Errorf("%s/%s: force scan: %w", c.Project.Slug, c.Slug, err)
	}
	if _, err := s.importCheckout(ctx, checkedOut{c: c, repo: repo}); err != nil {
		return fmt.Errorf("%s/%s: scan: %w", c.Project.Slug, c.Slug, err)
	}
	return nil
}
