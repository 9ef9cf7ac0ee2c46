package sync

import (
	"context"
	"errors"
	"fmt"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// Linked components. A component whose repo is weblate://project/component
// (index.LinkScheme) has no checkout of its own: it reads and writes the
// files of its parent's (the linked component's), as the reference's
// perform_on_link does. Every git job asked of a linked component runs
// on its parent (onLink), under the parent's lock, and covers every
// component linked to it: an import imports them all (importCheckout),
// a commit commits the pending edits of them all (commitLocked), a push
// pushes the one branch. Heads are recorded under the parent's id
// (index.Component.GitID), so the processes sharing an index follow one
// record per checkout.

// LinkStore finds the components that share a checkout (part of Store).
type LinkStore interface {
	// FindComponent returns a component by its project's slug and its
	// own, or an error wrapping index.ErrNotFound.
	FindComponent(ctx context.Context, projectSlug, slug string) (index.Component, error)
	// FindComponentByID returns a component, or an error wrapping
	// index.ErrNotFound.
	FindComponentByID(ctx context.Context, id int64) (index.Component, error)
	// LinkedComponents returns the components linked to the one with
	// the given id, in id order.
	LinkedComponents(ctx context.Context, id int64) ([]index.Component, error)
}

// onLink returns the component whose checkout c uses and whose git jobs
// cover c: c itself, or its parent when c is linked.
func (s *Service) onLink(ctx context.Context, c index.Component) (index.Component, error) {
	if c.LinkedID == 0 {
		return c, nil
	}
	p, err := s.store.FindComponentByID(ctx, c.LinkedID)
	if err != nil {
		return c, fmt.Errorf("%s/%s: linked component: %w", c.Project.Slug, c.Slug, err)
	}
	return p, nil
}

// linksOf returns the components linked to c; none when c is linked
// itself (the store refuses chains).
func (s *Service) linksOf(ctx context.Context, c index.Component) ([]index.Component, error) {
	if c.LinkedID != 0 {
		return nil, nil
	}
	links, err := s.store.LinkedComponents(ctx, c.ID)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: linked components: %w", c.Project.Slug, c.Slug, err)
	}
	return links, nil
}

// importLinks imports the components linked to co.c from the checkout
// co.c's import just read, each recording how it went; the caller holds
// the lock. Their kept edits after a move are committed on top; the
// push that follows is the parent's (pushes go through it: a linked
// component has no branch of its own).
func (s *Service) importLinks(ctx context.Context, co checkedOut) error {
	links, err := co.cache.links(ctx, co.c)
	if err != nil || len(links) == 0 {
		return err
	}
	var errs []error
	for _, l := range links {
		lco := co
		lco.c, lco.push, lco.report = l, false, nil
		sum, err := s.importCheckout(ctx, lco)
		if co.linkSums != nil {
			co.linkSums[l.ID] = sum
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("import %s/%s: %w", l.Project.Slug, l.Slug, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if co.push && co.in.moved() && co.c.PushOnCommit {
		return s.pushLocked(ctx, co.repo, co.c, co.user)
	}
	return nil
}

// commitLinks commits the pending edits of links, the components linked
// to the one whose checkout repo is, adding to res; the caller holds the
// lock.
func (s *Service) commitLinks(ctx context.Context, repo *vcs.Repo, links []index.Component, user *index.User,
	jc *jobCache, res *index.CommitResult) error {
	var errs []error
	for _, l := range links {
		r, err := s.commitOne(ctx, repo, l, user, jc)
		res.Commits = append(res.Commits, r.Commits...)
		res.Translations += r.Translations
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
