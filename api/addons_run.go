package api

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// AddonRunner runs the add-ons whose events the API sees (an
// installation, a new translation). Its methods return at once: the
// add-ons run in the background, and a failure is an alert change on
// the component, never the request's error.
type AddonRunner interface {
	// TranslationAdded hears that a translation was added to c.
	TranslationAdded(c index.Component)
	// QueueLanguageConsistency runs weblate.consistency.languages on
	// the project.
	QueueLanguageConsistency(projectID int64)
	// QueuePseudolocale runs weblate.generate.pseudolocale a on c: on
	// every string up to translated when all, else the untranslated.
	QueuePseudolocale(a index.Addon, c index.Component, all bool)
	// StartAddon runs a on demand as a task, or refuses an add-on that
	// cannot be triggered (an ErrInvalid error).
	StartAddon(ctx context.Context, a index.Addon) (index.Task, error)
	// Discover previews a discovery configuration on c's checkout.
	Discover(ctx context.Context, d index.Discovery, c index.Component) ([]index.Discovered, error)
	// QueueDiscovery creates what discovery add-on a finds in c.
	QueueDiscovery(a index.Addon, c index.Component)
}

// msgAddonTriggered answers a trigger whose task runs on.
const msgAddonTriggered = "The add-on is running; its task reports how it went."

// triggerAddon serves POST /api/addons/:addon/trigger/: the add-on runs
// as a task, answered 202 with its task_url as a long automatic
// translation is; GET /api/tasks/<id>/ tells its progress and result.
// The same permission as editing the add-on; 404 for an add-on of a
// project the caller cannot see. The reference's 2026 documentation
// says add-ons that opt in can be triggered through its API, without the
// path or answer this reproduces; Tolk's shape follows its own tasks.
func (s *Server) triggerAddon(c *gin.Context) {
	a, err := s.findAddon(c)
	if err == nil && s.opts.Addons == nil {
		err = edge.ErrNotImplemented
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	t, err := s.opts.Addons.StartAddon(c.Request.Context(), a)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusAccepted, gin.H{"details": msgAddonTriggered,
		"task_url": s.edge.URLsFor(c).Task(t.ID)})
}

// addonInstalled runs what an add-on does when installed (the
// reference's post_configure), in the background. comp is a component
// add-on's component (nil for a project's).
func (s *Server) addonInstalled(a *index.Addon, comp *index.Component) {
	if s.opts.Addons == nil {
		return
	}
	switch {
	case a.Name == index.AddonLanguages:
		s.opts.Addons.QueueLanguageConsistency(a.ProjectID)
	case a.Name == index.AddonPseudolocale && comp != nil:
		s.opts.Addons.QueuePseudolocale(*a, *comp, true)
	case a.Name == index.AddonDiscovery && comp != nil:
		s.opts.Addons.QueueDiscovery(*a, *comp)
	}
}

// translationAdded tells the add-ons of a new translation of c.
func (s *Server) translationAdded(c index.Component) {
	if s.opts.Addons != nil {
		s.opts.Addons.TranslationAdded(c)
	}
}

// addonFits refuses an add-on its scope cannot run, as the reference's
// can_install and its forms' choices: the cleanup add-ons need a
// monolingual base file (a project's add-on skips the components it does
// not fit), the pseudolocale add-on a component whose translations its
// source and target are. comp is the component of a new component
// add-on; nil for a project's or an update (whose scope is the stored
// one).
func (s *Server) addonFits(ctx context.Context, a *index.Addon, comp *index.Component) error {
	if comp != nil {
		if index.NeedsTemplate(a.Name) && !comp.IsMonolingual() {
			return index.FieldErr("name", "invalid",
				"This add-on can not be installed on this component: it needs a monolingual base file (template).")
		}
		if msg := index.FlagAddonMisfit(a.Name, comp); msg != "" {
			return index.FieldErr("name", "invalid", msg)
		}
	}
	if a.Name == index.AddonDiscovery {
		return s.discoveryFits(ctx, a, comp)
	}
	if a.Name != index.AddonPseudolocale {
		return nil
	}
	if a.ComponentID == 0 {
		return index.FieldErr("name", "invalid", "This add-on can only be installed on a component.")
	}
	ts, err := s.store.FindTranslations(ctx, a.ComponentID)
	if err != nil {
		return err
	}
	var fe index.FieldError
	for _, f := range []struct {
		name   string
		id     int64
		target bool
	}{{"source", a.Pseudo.Source, false}, {"target", a.Pseudo.Target, true}} {
		i := slices.IndexFunc(ts, func(t index.Translation) bool { return t.ID == f.id })
		// Better than the reference: the target may not be the source
		// translation, whose strings the add-on would overwrite.
		if i < 0 || (f.target && ts[i].IsSource) {
			fe.Add("configuration."+f.name, "invalid_choice",
				fmt.Sprintf("Select a valid choice. %d is not one of the available choices.", f.id))
		}
	}
	return fe.Err()
}

// pseudolocaleJSON is a weblate.generate.pseudolocale add-on's
// configuration, with the reference's field names.
type pseudolocaleJSON struct {
	Source          int64   `json:"source"`
	Target          int64   `json:"target"`
	Prefix          string  `json:"prefix"`
	Suffix          string  `json:"suffix"`
	VarPrefix       string  `json:"var_prefix"`
	VarSuffix       string  `json:"var_suffix"`
	VarMultiplier   float64 `json:"var_multiplier"`
	IncludeReadOnly bool    `json:"include_readonly"`
}

// readPseudolocale reads a pseudolocale add-on's whole configuration:
// source and target required (translation ids), the texts optional, the
// multiplier 0.1 unless given (bounded by index.MaxPseudoMultiplier).
func readPseudolocale(pl *payload) index.Pseudolocale {
	p := index.Pseudolocale{VarMultiplier: 0.1}
	pl.require("source", "target")
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"source", &p.Source}, {"target", &p.Target}} {
		var n int
		pl.integer(f.name, &n, 1, 1<<53)
		*f.dst = int64(n)
	}
	pl.str("prefix", &p.Prefix, true)
	pl.str("suffix", &p.Suffix, true)
	pl.str("var_prefix", &p.VarPrefix, true)
	pl.str("var_suffix", &p.VarSuffix, true)
	pl.boolean("include_readonly", &p.IncludeReadOnly)
	if v, ok := pl.value("var_multiplier"); ok {
		f, err := strconv.ParseFloat(numberText(v), 64)
		switch {
		case err != nil || math.IsNaN(f):
			pl.fail("var_multiplier", "invalid", "A valid number is required.")
		case f < 0:
			pl.fail("var_multiplier", "min_value", "Ensure this value is greater than or equal to 0.")
		case f > index.MaxPseudoMultiplier:
			pl.fail("var_multiplier", "max_value",
				fmt.Sprintf("Ensure this value is less than or equal to %d.", index.MaxPseudoMultiplier))
		default:
			p.VarMultiplier = f
		}
	}
	return p
}

// discoveryJSON is a weblate.discovery.discovery add-on's configuration.
type discoveryJSON struct {
	Match            string `json:"match"`
	FileFormat       string `json:"file_format"`
	NameTemplate     string `json:"name_template"`
	BaseFileTemplate string `json:"base_file_template"`
	NewBaseTemplate  string `json:"new_base_template"`
	LanguageRegex    string `json:"language_regex"`
	Remove           bool   `json:"remove"`
	Confirm          bool   `json:"confirm"`
}

// maxDiscoveryPattern bounds match and the templates.
const maxDiscoveryPattern = 1000

// readDiscovery reads a discovery add-on's whole configuration: match
// (a regular expression with the groups component and language) and
// file_format required, the templates and language_regex with the
// reference's defaults.
func (s *Server) readDiscovery(pl *payload) index.Discovery {
	d := index.Discovery{NameTemplate: "{{ component }}", LanguageRegex: "^[^.]+$"}
	pl.require("match", "file_format")
	pl.str("match", &d.Match, false)
	pl.maxLength("match", d.Match, maxDiscoveryPattern)
	if d.Match != "" && !pl.errs.Has(pl.prefix+"match") {
		re, err := regexp.Compile(d.Match)
		switch {
		case err != nil:
			pl.fail("match", "invalid", "Invalid regular expression: "+err.Error())
		case re.SubexpIndex("component") < 0 || re.SubexpIndex("language") < 0:
			pl.fail("match", "invalid", "The regular expression needs the named groups component and language.")
		}
	}
	pl.str("file_format", &d.FileFormat, false)
	if d.FileFormat != "" && len(s.opts.FileFormats) > 0 &&
		!slices.ContainsFunc(s.opts.FileFormats, func(f FileFormat) bool { return f.Name == d.FileFormat }) {
		pl.fail("file_format", "invalid_choice", fmt.Sprintf("%q is not a valid choice.", d.FileFormat))
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"name_template", &d.NameTemplate}, {"base_file_template", &d.BaseFileTemplate},
		{"new_base_template", &d.NewBaseTemplate}} {
		pl.str(f.name, f.dst, f.name != "name_template")
		pl.maxLength(f.name, *f.dst, maxDiscoveryPattern)
	}
	pl.str("language_regex", &d.LanguageRegex, false)
	if _, err := regexp.Compile(d.LanguageRegex); err != nil {
		pl.fail("language_regex", "invalid", "Invalid regular expression: "+err.Error())
	}
	pl.boolean("remove", &d.Remove)
	pl.boolean("confirm", &d.Confirm)
	return d
}

// maxPreview is how many discovered components a refusal lists.
const maxPreview = 50

// discoveryFits checks a discovery add-on against its component's
// checkout: the templates render for what the match finds, and without
// confirm the answer is the preview, as a 400 on configuration.confirm
// listing the components (those the project has marked), nothing
// installed — the reference's form shows the same preview before its
// confirm box. A repository over the walk's bound is refused.
func (s *Server) discoveryFits(ctx context.Context, a *index.Addon, comp *index.Component) error {
	if a.ComponentID == 0 {
		return index.FieldErr("name", "invalid", "This add-on can only be installed on a component.")
	}
	if comp == nil || s.opts.Addons == nil {
		if !a.Discovery.Confirm {
			return index.FieldErr("configuration.confirm", "required", "Please review and confirm the matched components.")
		}
		return nil
	}
	found, err := s.opts.Addons.Discover(ctx, a.Discovery, *comp)
	if err != nil {
		return err
	}
	if a.Discovery.Confirm {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Please review and confirm the matched components (%d):", len(found))
	for i, f := range found {
		if i == maxPreview {
			fmt.Fprintf(&b, " and %d more.", len(found)-maxPreview)
			break
		}
		state := "new"
		if f.Exists {
			state = "exists as " + f.ExistingSlug
		}
		fmt.Fprintf(&b, " %s (%s, %s; %d languages; %s);", f.Name, f.Slug, f.Filemask, len(f.Languages), state)
	}
	return index.FieldErr("configuration.confirm", "required", strings.TrimSuffix(b.String(), ";"))
}
