package sync

import (
	"context"
	"fmt"
	"slices"

	"github.com/tolk-project/tolk/index"
)

// ErrNotTriggerable refuses to run on demand an add-on that acts only on
// its events (a webhook, squash, the flag and JSON add-ons, which shape
// what commits and imports write) or that another runner owns
// (automatic translation, which its own endpoint runs).
var ErrNotTriggerable = index.Errorf(index.ErrInvalid, "This add-on can not be triggered manually.")

// Triggerable reports whether StartAddon runs add-on name.
func Triggerable(name string) bool {
	return slices.Contains([]string{index.AddonLanguages, index.AddonPseudolocale, index.AddonCleanup,
		index.AddonCleanupBlank, index.AddonDiscovery}, name)
}

// StartAddon runs add-on a on demand as a task (POST
// /api/addons/<id>/trigger/): the languages add-on on its project, the
// pseudolocale add-on on every string up to translated, discovery
// (creating what it finds), a cleanup add-on on its component's checkout
// (committed, pushed with the next push). The task's result counts what
// it did ("added", "updated", "created" or "commits"); its failure is
// the task's, and an alert as on any run.
func (s *Service) StartAddon(ctx context.Context, a index.Addon) (index.Task, error) {
	if !Triggerable(a.Name) {
		return index.Task{}, ErrNotTriggerable
	}
	var c index.Component
	if a.ComponentID != 0 {
		comps, err := s.store.FindComponents(ctx, a.ProjectID)
		if err != nil {
			return index.Task{}, err
		}
		i := slices.IndexFunc(comps, func(o index.Component) bool { return o.ID == a.ComponentID })
		if i < 0 {
			return index.Task{}, index.Errorf(index.ErrNotFound, "Not found.")
		}
		c = comps[i]
	}
	if a.Name != index.AddonLanguages && c.ID == 0 {
		// A project's cleanup add-on: no one checkout to run it on.
		return index.Task{}, index.Errorf(index.ErrInvalid, "Trigger this add-on through a component's installation.")
	}
	return s.runTask(c, a.ProjectID, addonRunTimeout, false, "add-on task failed",
		func(ctx context.Context, t *task) (map[string]int, error) {
			t.logf("Running %s", a.Name)
			return s.runAddon(ctx, a, c)
		}), nil
}

// runAddon is the work of StartAddon's task.
func (s *Service) runAddon(ctx context.Context, a index.Addon, c index.Component) (map[string]int, error) {
	switch a.Name {
	case index.AddonLanguages:
		n, err := s.LanguageConsistency(ctx, a.ProjectID)
		return map[string]int{"added": n}, err
	case index.AddonPseudolocale:
		n, err := s.Pseudolocale(ctx, a, c, true)
		if err != nil {
			s.addonAlert(ctx, a.Name, c, err)
		}
		return map[string]int{"updated": n}, err
	case index.AddonDiscovery:
		made, removed, err := s.DiscoverCreate(ctx, a, c)
		return map[string]int{"created": len(made), "removed": len(removed)}, err
	}
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if c.LinkedID != 0 {
		return nil, fmt.Errorf("%s/%s shares the checkout of another component: trigger the add-on there",
			c.Project.Slug, c.Slug)
	}
	jc := s.newJobCache()
	links, err := jc.links(ctx, c)
	if err != nil {
		return nil, err
	}
	return map[string]int{"commits": len(s.cleanupLocked(ctx, repo, c, links, jc))}, nil
}
