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
// checked by index.ParseAutoTranslateAddon, and a call of
// Runner.RunAddon when sync says (after an import that changed the
// component's strings, on its daily turns), sync coalescing the runs.
const AddonName = index.AddonAutoTranslate

// ComponentStore is what RunComponent reads (part of Store).
type ComponentStore interface {
	FindTranslations(ctx context.Context, componentID int64) ([]index.Translation, error)
	FindComponents(ctx context.Context, projectID int64) ([]index.Component, error)
}

// RunComponent runs the add-on on every translation of component c but
// its source, one job after another (each resumable as any job), and
// returns how many strings they updated. Its jobs are the add-on's: no
// user is credited. component is the configuration's component (an id,
// a slug or "project/slug" of c's project; "" for all).
func (r *Runner) RunComponent(ctx context.Context, c index.Component, p index.AutoTranslateParams,
	component string) (int, error) {
	store := r.store
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

// RunAddon runs the automatic translation add-on a on every translation
// of c but its source (RunComponent with a's configuration), waiting for
// its jobs; sync.AutoTranslator.
func (r *Runner) RunAddon(ctx context.Context, a index.Addon, c index.Component) (int, error) {
	return r.RunComponent(ctx, c, a.AutoTranslate.Params, a.AutoTranslate.Component)
}
