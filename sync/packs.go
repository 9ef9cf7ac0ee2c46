package sync

import (
	"context"
	"errors"
	"fmt"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// Damaged checkouts. A process killed while go-git wrote a fetched pack
// leaves a cut-off pack index that go-git trusts ever after
// (vcs.CheckPacks). Before each git job, and at start (RemoveStale),
// the checkout's packs are checked: a header and a trailer read per
// pack. What a cut-off write left is removed, and a checkout whose
// branch's history went with it is cloned again: the index is the
// truth, so the edits it still owes are written again by the next
// commit, and those only the lost commits held are made pending again.

// checkPacks removes the damaged and temporary packs of c's checkout;
// the caller holds the component's mutex, so no fetch into it runs. It
// reports whether objects git read went with them.
func (s *Service) checkPacks(c index.Component) (bool, error) {
	res, err := vcs.CheckPacks(s.repoDir(c))
	if len(res.Removed) > 0 {
		s.opts.Logger.Warn("removed damaged or temporary packs", "project", c.Project.Slug, "component", c.Slug,
			"files", res.Removed, "objects_lost", res.Lost)
	}
	if err != nil {
		return res.Lost, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, err)
	}
	return res.Lost, nil
}

// refetch fetches again what removed packs held, when they held objects
// git read and the checkout has a remote. A failure is logged, not
// returned: the checkout is whole without it (vcs.Open checked its
// branch's history), and the job's own fetch, if it has one, says why.
func (s *Service) refetch(ctx context.Context, c index.Component, repo *vcs.Repo, lost bool) {
	if !lost || repo.URL() == "" {
		return
	}
	if _, err := repo.Fetch(ctx); err != nil {
		s.opts.Logger.Warn("fetch after removing damaged packs", "project", c.Project.Slug, "component", c.Slug,
			"error", err)
	}
}

// recloneIfLost clones c's checkout again when opening it failed because
// objects of its branch's history are lost (vcs.ErrObjectsLost); any
// other error is returned as it is. When the new clone's branch is not
// where the old one was (Tolk's commits not pushed went with it), every
// translated string is made pending and the checkout imported, as
// reset-keep does, so the next commit writes the index's texts on top of
// upstream. The caller holds the component's lock.
func (s *Service) recloneIfLost(ctx context.Context, c index.Component, err error) (*vcs.Repo, error) {
	if !errors.Is(err, vcs.ErrObjectsLost) || isLocal(c) {
		return nil, err
	}
	repo, previous, cerr := vcs.Reclone(ctx, vcs.CloneOptions{URL: c.Repo, Branch: c.Branch, Dir: s.repoDir(c),
		NoCheckout: true, Timeouts: s.opts.GitTimeouts, Guard: s.guard(c)})
	if cerr != nil {
		return nil, fmt.Errorf("%s/%s: clone again: %w (after: %w)", c.Project.Slug, c.Slug, cerr, err)
	}
	head, herr := repo.Head()
	if herr != nil {
		return nil, fmt.Errorf("%s/%s: %w", c.Project.Slug, c.Slug, herr)
	}
	s.opts.Logger.Warn("checkout cloned again: objects of its history were lost", "project", c.Project.Slug,
		"component", c.Slug, "error", err, "previous_head", previous, "head", head)
	if previous == head {
		return repo, nil
	}
	if _, err := s.store.ForceSync(ctx, c.ID, 0, index.ActionReset,
		fmt.Sprintf("Cloned the repository again: objects of its history were lost; %s is now at %.12s, "+
			"the translations are kept.", repo.Branch(), head)); err != nil {
		return nil, fmt.Errorf("%s/%s: keep translations: %w", c.Project.Slug, c.Slug, err)
	}
	if _, err := s.importCheckout(ctx, checkedOut{c: c, repo: repo}); err != nil {
		return nil, err
	}
	return repo, nil
}
