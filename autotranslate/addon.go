package autotranslate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

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
const AddonName = "weblate.autotranslate.autotranslate"

// ParseAddon reads the add-on's configuration as the reference stores it
// (mode, q or the older filter_type, auto_source, component, engines,
// threshold; strings or numbers as its form gives them) into a run's
// parameters, with the API's defaults for what is missing. A problem is
// an *index.FieldError naming "configuration.<key>". The component, when
// given, is kept as said: RunComponent resolves it in the project.
func ParseAddon(cfg map[string]any) (index.AutoTranslateParams, string, error) {
	p := index.AutoTranslateParams{Mode: index.AutoSuggest, Query: index.AutoDefaultQuery,
		Source: index.AutoSourceOthers, Threshold: index.MemoryDefaultThreshold}
	bad := func(key, msg string) error {
		return index.FieldErr("configuration."+key, "invalid", msg)
	}
	text := func(key string) (string, bool, error) {
		v, ok := cfg[key]
		if !ok || v == nil {
			return "", false, nil
		}
		switch v := v.(type) {
		case string:
			return v, true, nil
		case float64, int, int64:
			return fmt.Sprint(v), true, nil
		}
		return "", false, bad(key, "Not a valid string.")
	}
	if s, ok, err := text("mode"); err != nil {
		return p, "", err
	} else if ok {
		if !index.ValidAutoMode(index.AutoMode(s)) {
			return p, "", bad("mode", fmt.Sprintf("%q is not a valid choice.", s))
		}
		p.Mode = index.AutoMode(s)
	}
	if s, ok, err := text("q"); err != nil {
		return p, "", err
	} else if ok {
		if _, err := index.ParseUnitQuery(s); err != nil {
			return p, "", bad("q", err.Error())
		}
		p.Query = s
	} else if s, ok, err := text("filter_type"); err != nil {
		return p, "", err
	} else if ok {
		q, known := addonFilters[s]
		if !known {
			return p, "", bad("filter_type", fmt.Sprintf("%q is not a valid choice.", s))
		}
		p.Query = q
	}
	if s, ok, err := text("auto_source"); err != nil {
		return p, "", err
	} else if ok {
		if s != index.AutoSourceOthers && s != index.AutoSourceMT {
			return p, "", bad("auto_source", fmt.Sprintf("%q is not a valid choice.", s))
		}
		p.Source = s
	}
	if s, ok, err := text("threshold"); err != nil {
		return p, "", err
	} else if ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 100 {
			return p, "", bad("threshold", "Ensure this value is between 1 and 100.")
		}
		p.Threshold = n
	}
	switch v := cfg["engines"].(type) {
	case nil:
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return p, "", bad("engines", "Not a valid string.")
			}
			p.Engines = append(p.Engines, s)
		}
	case []string:
		p.Engines = slices.Clone(v)
	default:
		return p, "", bad("engines", "Expected a list of items.")
	}
	if p.Source == index.AutoSourceMT && len(p.Engines) == 0 {
		return p, "", index.FieldErr("configuration.engines", "required", "This field is required.")
	}
	component, _, err := text("component")
	return p, strings.TrimSpace(component), err
}

// addonFilters are the filter_type values of the reference's add-on
// before 5.13, as the API reads them.
var addonFilters = map[string]string{
	"all": "", "nottranslated": "state:empty", "todo": "state:<translated", "fuzzy": "state:needs-editing",
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
