package sync

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	// DeleteComponent removes a component with its translations and
	// records its removal (38) by the actor.
	DeleteComponent(ctx context.Context, id int64, by index.Actor) (index.Component, error)
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

// jobCache is what one git job (an import with its linked components'
// imports, a commit, an update's import and commit) reads of the index
// once, at first need, and hands to each step instead of each step
// reading it again: every add-on of each project the job's components
// are in (for the flag add-ons and the background runs of an import,
// the JSON layout, cleanup and squash of a commit), and the components
// linked to the job's component. An add-on installed or changed during
// the job applies from the next one. It belongs to one job: not safe
// for concurrent use.
type jobCache struct {
	s         *Service
	byProject map[int64][]index.Addon
	linked    map[int64][]index.Component
}

// newJobCache returns an empty jobCache for one job.
func (s *Service) newJobCache() *jobCache {
	return &jobCache{s: s, byProject: map[int64][]index.Addon{}, linked: map[int64][]index.Component{}}
}

// links returns the components linked to c (Service.linksOf).
func (j *jobCache) links(ctx context.Context, c index.Component) ([]index.Component, error) {
	if l, ok := j.linked[c.ID]; ok {
		return l, nil
	}
	l, err := j.s.linksOf(ctx, c)
	if err != nil {
		return nil, err
	}
	j.linked[c.ID] = l
	return l, nil
}

// addons returns every add-on installed in the project, on it or on any
// of its components, in id order.
func (j *jobCache) addons(ctx context.Context, projectID int64) ([]index.Addon, error) {
	if all, ok := j.byProject[projectID]; ok {
		return all, nil
	}
	all, err := j.s.store.FindAddons(ctx, index.AddonFilter{ProjectID: projectID})
	if err != nil {
		return nil, err
	}
	if n := j.s.addonReads; n != nil {
		n.Add(1)
	}
	j.byProject[projectID] = all
	return all, nil
}

// covering returns the add-ons that apply to c, its project's and its
// own, in id order: index.AddonFilter.Covering's selection.
func (j *jobCache) covering(ctx context.Context, c index.Component) ([]index.Addon, error) {
	all, err := j.addons(ctx, c.ProjectID)
	if err != nil {
		return nil, err
	}
	var out []index.Addon
	for _, a := range all {
		if a.Covers(c.ProjectID, c.ID) {
			out = append(out, a)
		}
	}
	return out, nil
}

// componentAddon returns, of the add-ons covering a component, the one
// named name that applies: the component's own, else its project's;
// false when none. It is for the add-ons of which one applies (squash,
// JSON layout), as the reference installs one of each per scope.
func componentAddon(covering []index.Addon, name string) (index.Addon, bool) {
	var found index.Addon
	ok := false
	for _, a := range covering {
		if a.Name == name && (!ok || a.ComponentID != 0) {
			found, ok = a, true
		}
	}
	return found, ok
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
// read or went away (the project's languages may have changed), the
// automatic translation add-ons covering c when strings were added,
// changed or removed (the reference's component_update), c's
// pseudolocale add-ons when strings were added or changed, c's
// confirmed discovery add-ons when files were read or the checkout
// moved. It runs under the import's lock, so it only reads and queues.
func (s *Service) afterImportAddons(ctx context.Context, jc *jobCache, c index.Component, sum ImportSummary, moved bool) {
	all, err := jc.addons(ctx, c.ProjectID)
	if err != nil {
		s.opts.Logger.Error("find add-ons", "project", c.Project.Slug, "err", err)
		return
	}
	languages := false
	var auto []index.Addon
	for _, a := range all {
		switch {
		case a.Name == index.AddonLanguages:
			languages = languages || sum.Parsed > 0 || len(sum.StaleRemoved) > 0
		case !a.Covers(c.ProjectID, c.ID):
		case a.Name == index.AddonAutoTranslate && sum.Added+sum.Updated+sum.Removed > 0:
			auto = append(auto, a)
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
	s.queueAutoTranslate(auto, c)
}

// AutoTranslator runs automatic translation for the
// weblate.autotranslate.autotranslate add-on; autotranslate.Runner is
// one. sync decides when (after an import that changed strings, and on
// the daily turns) and coalesces the runs (inBackground).
type AutoTranslator interface {
	// RunAddon runs add-on a's configuration on every translation of c
	// but its source, waiting for its jobs, and returns how many strings
	// they updated.
	RunAddon(ctx context.Context, a index.Addon, c index.Component) (int, error)
}

// autoTranslate runs automatic translation add-on a on c now.
func (s *Service) autoTranslate(ctx context.Context, a index.Addon, c index.Component) error {
	if s.opts.AutoTranslate == nil {
		return nil
	}
	n, err := s.opts.AutoTranslate.RunAddon(ctx, a, c)
	if err == nil {
		s.opts.Logger.Info("automatic translation add-on", "addon", a.ID, "project", c.Project.Slug,
			"component", c.Slug, "updated", n)
	}
	return err
}

// queueAutoTranslate runs the automatic translation add-ons covering c
// in the background, one after another, when todo (those the trigger
// found) holds any; a failure is an alert on c. Each run reads the
// add-ons as installed when it starts: a run asked for while one of c's
// is under way follows it once (inBackground) and must run the add-ons
// installed or reconfigured since the first was asked for, not the
// first's list.
func (s *Service) queueAutoTranslate(todo []index.Addon, c index.Component) {
	if s.opts.AutoTranslate == nil || len(todo) == 0 {
		return
	}
	s.inBackground("autotranslate:"+strconv.FormatInt(c.ID, 10), func(ctx context.Context) {
		all, err := s.store.FindAddons(ctx, index.AddonFilter{ProjectID: c.ProjectID, Covering: c.ID})
		if err != nil {
			s.addonAlert(ctx, index.AddonAutoTranslate, c, err)
			return
		}
		for _, a := range all {
			if a.Name != index.AddonAutoTranslate {
				continue
			}
			if err := s.autoTranslate(ctx, a, c); err != nil {
				s.addonAlert(ctx, a.Name, c, err)
			}
		}
	})
}
