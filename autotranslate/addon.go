package autotranslate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/tolk-project/tolk/index"
)

// AddonName is the reference's automatic translation add-on (reference
// workspace §6.3): the same run as the API's, on every translation of
// its component, when the component is updated from its repository.
//
// Registering it is the add-on framework's part: a name the API accepts
// (index.AddonNames), its configuration stored with the add-on and
// checked by ParseAddon, and a call of Runner.RunComponent after each
// import of the component (sync's update, a webhook's, the daily run).
const AddonName = index.AddonAutoTranslate

// ParseAddon reads the add-on's configuration as the reference stores
// it (index.ParseAutoTranslateAddon), returning the run's parameters and
// the component as given.
func ParseAddon(cfg map[string]any) (index.AutoTranslateParams, string, error) {
	a, err := index.ParseAutoTranslateAddon(cfg)
	return a.Params, a.Component, err
}

// ComponentStore is what RunComponent reads beyond the Runner's Store.
type ComponentStore interface {
	FindTranslations(ctx context.Context, componentID int64) ([]index.Translation, error)
	FindComponents(ctx context.Context, projectID int64) ([]index.Component, error)
}

// RunComponent runs the add-on on every translation of component c but
// its source, one job after another (each resumable as any job), and
// returns how many strings they updated. Its jobs are the add-on's: no
// user is credited. component is the configuration's component (an id,
// a slug or "project/slug" of c's project; "" for all).
func (r *Runner) RunComponent(ctx context.Context, store ComponentStore, c index.Component, p index.AutoTranslateParams,
	component string) (int, error) {
	if component != "" {
		comps, err := store.FindComponents(ctx, c.ProjectID)
		if err != nil {
			return 0, err
		}
		id, _ := strconv.ParseInt(component, 10, 64)
		i := slices.IndexFunc(comps, func(o index.Component) bool {
			return o.ID != c.ID && (o.ID == id || o.Slug == component || o.Project.Slug+"/"+o.Slug == component)
		})
		if i < 0 {
			return 0, fmt.Errorf("automatic translation add-on: no component %q in the project", component)
		}
		p.ComponentID = comps[i].ID
	}
	translations, err := store.FindTranslations(ctx, c.ID)
	if err != nil {
		return 0, err
	}
	updated := 0
	var errs []error
	for _, t := range translations {
		if t.IsSource {
			continue
		}
		j, done, err := r.Start(ctx, t, 0, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", t.LanguageCode, err))
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
			return updated, ctx.Err() // the job goes on
		}
		if j, err = r.store.FindAutoTranslateJob(ctx, j.ID); err != nil {
			return updated, err
		}
		if j.Err != "" {
			errs = append(errs, fmt.Errorf("%s: %s", t.LanguageCode, j.Err))
		}
		updated += j.Updated
	}
	return updated, errors.Join(errs...)
}

// AddonStore is what RunAddons reads.
type AddonStore interface {
	ComponentStore
	// FindAddons returns the add-ons f selects, in id order.
	FindAddons(ctx context.Context, f index.AddonFilter) ([]index.Addon, error)
}

// RunAddons runs, in the background, the automatic translation add-ons
// that cover component c (its own and its project's), one after
// another; sync calls it after an import that changed c, so it must
// not wait: the import's write and the component's lock are already
// released or about to be. A component whose run is under way is run
// once more after it, with what the later import brought. The jobs are
// stored as any job, so a run that Close stops is resumed by Resume.
// Failures are logged: nobody waits for them.
func (r *Runner) RunAddons(store AddonStore, c index.Component) {
	r.mu.Lock()
	if r.life.Err() != nil {
		r.mu.Unlock()
		return // closed: the next import runs them
	}
	if r.addonRuns == nil {
		r.addonRuns = map[int64]bool{}
	}
	if running, ok := r.addonRuns[c.ID]; ok {
		if !running {
			r.mu.Unlock()
			return // already queued after the current run
		}
		r.addonRuns[c.ID] = false // run again after the current run
		r.mu.Unlock()
		return
	}
	r.addonRuns[c.ID] = true
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		for {
			r.runAddons(store, c)
			r.mu.Lock()
			again := !r.addonRuns[c.ID]
			if !again || r.life.Err() != nil {
				delete(r.addonRuns, c.ID)
				r.mu.Unlock()
				return
			}
			r.addonRuns[c.ID] = true
			r.mu.Unlock()
		}
	}()
}

// runAddons is one run of c's add-ons.
func (r *Runner) runAddons(store AddonStore, c index.Component) {
	ctx := r.life
	all, err := store.FindAddons(ctx, index.AddonFilter{ProjectID: c.ProjectID, Covering: c.ID})
	if err != nil {
		r.opts.Logger.Error("automatic translation add-on", "component", c.ID, "err", err)
		return
	}
	for _, a := range all {
		if a.Name != AddonName {
			continue
		}
		n, err := r.RunComponent(ctx, store, c, a.AutoTranslate.Params, a.AutoTranslate.Component)
		if err != nil {
			r.opts.Logger.Warn("automatic translation add-on", "addon", a.ID, "project", c.Project.Slug,
				"component", c.Slug, "updated", n, "err", err)
			continue
		}
		r.opts.Logger.Info("automatic translation add-on", "addon", a.ID, "project", c.Project.Slug,
			"component", c.Slug, "updated", n)
	}
}
