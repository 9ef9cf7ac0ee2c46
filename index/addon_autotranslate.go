package index

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// AddonAutoTranslate runs automatic translation on a component's
// translations after each import that changed the component (the
// reference's weblate.autotranslate.autotranslate; autotranslate runs
// it).
const AddonAutoTranslate = "weblate.autotranslate.autotranslate"

func init() { AddonNames = append(AddonNames, AddonAutoTranslate) }

// AutoTranslateAddon is the configuration of a
// weblate.autotranslate.autotranslate add-on: a run's parameters, as
// the API's automatic translation takes them.
type AutoTranslateAddon struct {
	// Params are the run's; their ComponentID is not used: Component
	// says which component "others" reads.
	Params AutoTranslateParams
	// Component is the configuration's component as given (an id, a
	// slug or "project/slug" of the project; "" for every other one),
	// resolved at each run so that a renamed or removed one is noticed.
	Component string
}

// ParseAutoTranslateAddon reads the configuration of an automatic
// translation add-on; problems are *FieldErrors naming
// "configuration.<key>". It lives here, not in autotranslate, so that the
// API reads it without importing the runner.
func ParseAutoTranslateAddon(cfg map[string]any) (AutoTranslateAddon, error) {
	p, component, err := parseAutoTranslateAddon(cfg)
	return AutoTranslateAddon{Params: p, Component: component}, err
}

// parseAutoTranslateAddon reads the add-on's configuration as the reference stores it
// (mode, q or the older filter_type, auto_source, component, engines,
// threshold; strings or numbers as its form gives them) into a run's
// parameters, with the API's defaults for what is missing. A problem is
// an *FieldError naming "configuration.<key>". The component, when
// given, is kept as said: RunComponent resolves it in the project.
func parseAutoTranslateAddon(cfg map[string]any) (AutoTranslateParams, string, error) {
	p := AutoTranslateParams{Mode: AutoSuggest, Query: AutoDefaultQuery,
		Source: AutoSourceOthers, Threshold: MemoryDefaultThreshold}
	bad := func(key, msg string) error {
		return FieldErr("configuration."+key, "invalid", msg)
	}
	badChoice := func(key, s string) error { // the reference's code for a choice
		return FieldErr("configuration."+key, "invalid_choice", fmt.Sprintf("%q is not a valid choice.", s))
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
		if !ValidAutoMode(AutoMode(s)) {
			return p, "", badChoice("mode", s)
		}
		p.Mode = AutoMode(s)
	}
	if s, ok, err := text("q"); err != nil {
		return p, "", err
	} else if ok {
		if _, err := ParseUnitQuery(s); err != nil {
			return p, "", bad("q", err.Error())
		}
		p.Query = s
	} else if s, ok, err := text("filter_type"); err != nil {
		return p, "", err
	} else if ok {
		q, known := addonFilters[s]
		if !known {
			return p, "", badChoice("filter_type", s)
		}
		p.Query = q
	}
	if s, ok, err := text("auto_source"); err != nil {
		return p, "", err
	} else if ok {
		if s != AutoSourceOthers && s != AutoSourceMT {
			return p, "", badChoice("auto_source", s)
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
	if p.Source == AutoSourceMT && len(p.Engines) == 0 {
		return p, "", FieldErr("configuration.engines", "required", "This field is required.")
	}
	component, _, err := text("component")
	return p, strings.TrimSpace(component), err
}

// addonFilters are the filter_type values of the reference's add-on
// before 5.13, as the API reads them.
var addonFilters = map[string]string{
	"all": "", "nottranslated": "state:empty", "todo": "state:<translated", "fuzzy": "state:needs-editing",
}
