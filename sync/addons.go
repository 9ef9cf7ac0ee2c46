package sync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tolk-project/tolk/index"
)

// The add-ons that run in the background, apart from the git jobs that
// trigger them: weblate.consistency.languages (addon_languages.go). Each
// run is keyed (a project, a component) and coalesced: a run asked for
// while one with the same key is under way runs once more after it, so
// that what the later trigger brought is seen, and never twice at once.
// A failing run is logged and recorded as an alert change on the
// component it concerns (addonAlert); it never fails the import, commit
// or API request that triggered it.

// AddonRunStore is what the background add-ons write (part of Store).
type AddonRunStore interface {
	// CreateTranslation adds a component's translation into a language,
	// its units empty and its file marked for the next commit to create.
	CreateTranslation(ctx context.Context, componentID int64, languageCode, filename string, by index.Actor) (int64, error)
	// RecordComponentChange records a change about a whole component.
	RecordComponentChange(ctx context.Context, c index.Change) error
	PseudoStore
	// CreateComponent saves a new component (resolving a weblate://
	// link) and records its creation.
	CreateComponent(ctx context.Context, c index.Component, by index.Actor) (index.Component, error)
}

// addonRunTimeout bounds one background add-on run.
const addonRunTimeout = 10 * time.Minute

// inBackground runs fn under the Service's life (and addonRunTimeout)
// on its own goroutine, coalesced by key as the comment above says; it
// returns at once. After Close it does nothing.
func (s *Service) inBackground(key string, fn func(ctx context.Context)) {
	s.addonMu.Lock()
	defer s.addonMu.Unlock()
	if s.life.Err() != nil {
		return
	}
	if s.addonRuns == nil {
		s.addonRuns = map[string]bool{}
	}
	if _, running := s.addonRuns[key]; running {
		s.addonRuns[key] = true // once more after the current run
		return
	}
	s.addonRuns[key] = false
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			ctx, cancel := context.WithTimeout(s.life, addonRunTimeout)
			fn(ctx)
			cancel()
			s.addonMu.Lock()
			again := s.addonRuns[key] && s.life.Err() == nil
			if !again {
				delete(s.addonRuns, key)
				s.addonMu.Unlock()
				return
			}
			s.addonRuns[key] = false
			s.addonMu.Unlock()
		}
	}()
}

// WaitAddons waits until no background add-on run is under way or ctx
// ends; tests and the trigger route use it.
func (s *Service) WaitAddons(ctx context.Context) error {
	for {
		s.addonMu.Lock()
		n := len(s.addonRuns)
		s.addonMu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// projectAddons returns the add-ons of the given name installed in the
// project, on it or on any of its components.
func (s *Service) projectAddons(ctx context.Context, projectID int64, name string) ([]index.Addon, error) {
	all, err := s.store.FindAddons(ctx, index.AddonFilter{ProjectID: projectID})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(a index.Addon) bool { return a.Name != name }), nil
}

// addonAlert logs that add-on name failed on c and records it as an
// alert change (47) on c, with the add-on's name and the reason as its
// target, the text the change list shows. A failure to record it is only logged.
func (s *Service) addonAlert(ctx context.Context, name string, c index.Component, err error) {
	s.opts.Logger.Warn("add-on failed", "addon", name, "project", c.Project.Slug, "component", c.Slug, "err", err)
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx) // the alert outlives a run cut short
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if rerr := s.store.RecordComponentChange(ctx, index.Change{Action: index.ActionAlertTriggered,
		ProjectID: c.ProjectID, ComponentID: c.ID, Target: fmt.Sprintf("Add-on %s: %v", name, err)}); rerr != nil &&
		!errors.Is(rerr, index.ErrNotFound) {
		s.opts.Logger.Error("record add-on alert", "addon", name, "component", c.ID, "err", rerr)
	}
}

// afterImportAddons queues the background add-ons an import of c that
// ended well triggers: the project's languages add-on when files were
// read or went away (the project's languages may have changed), c's
// pseudolocale add-ons when strings were added or changed, c's
// confirmed discovery add-ons when files were read or the checkout
// moved. It runs under the import's lock, so it only reads and queues.
func (s *Service) afterImportAddons(ctx context.Context, c index.Component, sum ImportSummary, moved bool) {
	all, err := s.store.FindAddons(ctx, index.AddonFilter{ProjectID: c.ProjectID})
	if err != nil {
		s.opts.Logger.Error("find add-ons", "project", c.Project.Slug, "err", err)
		return
	}
	languages := false
	for _, a := range all {
		switch {
		case a.Name == index.AddonLanguages:
			languages = languages || sum.Parsed > 0 || len(sum.StaleRemoved) > 0
		case a.ComponentID != c.ID:
		case a.Name == index.AddonPseudolocale && sum.Added+sum.Updated > 0:
			s.QueuePseudolocale(a, c, false)
		case a.Name == index.AddonDiscovery && a.Discovery.Confirm && (sum.Parsed > 0 || moved):
			s.QueueDiscovery(a, c)
		}
	}
	if languages {
		s.QueueLanguageConsistency(c.ProjectID)
	}
}
