package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// fileConfig is the declarative setup file. Keys are the API's own field
// names; whatever a file leaves out keeps the reference's default.
type fileConfig struct {
	// DB names the index as --db does (a PostgreSQL URL keeps its
	// password out of the process list here); --db wins.
	DB string `yaml:"db"`
	// HookSecret is the site-wide secret incoming webhooks must be
	// signed with, for projects without their own; --hook-secret wins.
	HookSecret string `yaml:"hook_secret"`
	// WebhookRetryPeriod is how long webhook deliveries are retried
	// ("36h"); --webhook-retry-period wins.
	WebhookRetryPeriod string          `yaml:"webhook_retry_period"`
	Projects           []projectConfig `yaml:"projects"`
}

// siteSettings are the setup file's settings of the whole service.
type siteSettings struct {
	HookSecret         string
	WebhookRetryPeriod time.Duration // 0 when the file does not say
}

type projectConfig struct {
	Name              string            `yaml:"name"`
	Slug              string            `yaml:"slug"`
	Web               string            `yaml:"web"`
	Instructions      string            `yaml:"instructions"`
	TranslationReview bool              `yaml:"translation_review"`
	SourceReview      bool              `yaml:"source_review"`
	SetLanguageTeam   bool              `yaml:"set_language_team"`
	EnableHooks       bool              `yaml:"enable_hooks"`
	LanguageAliases   string            `yaml:"language_aliases"`
	AccessControl     int               `yaml:"access_control"`
	HookSecret        string            `yaml:"hook_secret"`
	Components        []componentConfig `yaml:"components"`
}

type componentConfig struct {
	Name                        string   `yaml:"name"`
	Slug                        string   `yaml:"slug"`
	VCS                         string   `yaml:"vcs"`
	Repo                        string   `yaml:"repo"`
	Branch                      string   `yaml:"branch"`
	PushBranch                  string   `yaml:"push_branch"`
	Filemask                    string   `yaml:"filemask"`
	Template                    string   `yaml:"template"`
	EditTemplate                bool     `yaml:"edit_template"`
	Intermediate                string   `yaml:"intermediate"`
	NewBase                     string   `yaml:"new_base"`
	FileFormat                  string   `yaml:"file_format"`
	SourceLanguage              string   `yaml:"source_language"`
	License                     string   `yaml:"license"`
	Agreement                   string   `yaml:"agreement"`
	NewLang                     string   `yaml:"new_lang"`
	LanguageCodeStyle           string   `yaml:"language_code_style"`
	Push                        string   `yaml:"push"`
	CheckFlags                  string   `yaml:"check_flags"`
	Priority                    int      `yaml:"priority"`
	EnforcedChecks              []string `yaml:"enforced_checks"`
	Restricted                  bool     `yaml:"restricted"`
	Repoweb                     string   `yaml:"repoweb"`
	ReportSourceBugs            string   `yaml:"report_source_bugs"`
	MergeStyle                  string   `yaml:"merge_style"`
	CommitMessage               string   `yaml:"commit_message"`
	AddMessage                  string   `yaml:"add_message"`
	DeleteMessage               string   `yaml:"delete_message"`
	MergeMessage                string   `yaml:"merge_message"`
	AddonMessage                string   `yaml:"addon_message"`
	PullMessage                 string   `yaml:"pull_message"`
	AllowTranslationPropagation bool     `yaml:"allow_translation_propagation"`
	ManageUnits                 bool     `yaml:"manage_units"`
	EnableSuggestions           bool     `yaml:"enable_suggestions"`
	SuggestionVoting            bool     `yaml:"suggestion_voting"`
	SuggestionAutoaccept        int      `yaml:"suggestion_autoaccept"`
	PushOnCommit                bool     `yaml:"push_on_commit"`
	CommitPendingAge            int      `yaml:"commit_pending_age"`
	AutoLockError               bool     `yaml:"auto_lock_error"`
	LanguageRegex               string   `yaml:"language_regex"`
	VariantRegex                string   `yaml:"variant_regex"`
	IsGlossary                  bool     `yaml:"is_glossary"`
	GlossaryColor               string   `yaml:"glossary_color"`
	// ConflictPolicy is Tolk's own: who wins a string both a translator
	// and upstream changed since the last sync (index.ConflictPolicy).
	ConflictPolicy string `yaml:"conflict_policy,omitempty"`
}

func defaultProjectConfig() projectConfig {
	return projectConfig{SetLanguageTeam: true, EnableHooks: true}
}

func defaultComponentConfig() componentConfig {
	d := index.DefaultComponent()
	return componentConfig{
		VCS: d.VCS, FileFormat: d.FileFormat, SourceLanguage: d.SourceLanguage, NewLang: d.NewLang,
		LanguageCodeStyle: d.LanguageCode, Priority: d.Priority, EnforcedChecks: d.EnforcedChecks,
		MergeStyle: d.MergeStyle, CommitMessage: d.CommitMessage, AddMessage: d.AddMessage,
		DeleteMessage: d.DeleteMessage, MergeMessage: d.MergeMessage, AddonMessage: d.AddonMessage,
		PullMessage: d.PullMessage, AllowTranslationPropagation: d.AllowTranslationPropagation,
		EnableSuggestions: d.EnableSuggestions, CommitPendingAge: d.CommitPendingAge,
		AutoLockError: d.AutoLockError, LanguageRegex: d.LanguageRegex, GlossaryColor: d.GlossaryColor,
	}
}

// configError lists every problem of a configuration file, each naming
// the file, the key and the reason.
type configError struct {
	file     string
	problems []string
}

func (e *configError) Error() string {
	return e.file + ": " + strings.Join(e.problems, "\n"+e.file+": ")
}

func (e *configError) add(key, format string, args ...any) {
	e.problems = append(e.problems, key+": "+fmt.Sprintf(format, args...))
}

// existingIndex looks up the projects and components the index already
// holds (either may be nil: nothing exists). A setup file's keys apply on
// top of what it finds, so that a restart changes only what the file
// names: settings made through the API that the file leaves out stay.
type existingIndex struct {
	project   func(slug string) (index.Project, bool)
	component func(projectSlug, slug string) (index.Component, bool)
}

// configDB returns the db key of the setup file at path: the index to
// open, which must be known before the rest of the file, whose projects
// apply on top of what that index holds.
func configDB(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read config: %w", err)
	}
	var file struct {
		DB string `yaml:"db"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		// Not the string itself: it may hold a password.
		return "", &configError{file: path, problems: []string{"db: " + err.Error()}}
	}
	return file.DB, nil
}

// loadConfig reads and validates a setup file. resolve tells whether a
// language code is known.
// It also returns the file's site-wide settings.
func loadConfig(path string, resolve func(string) (index.Language, bool), existing existingIndex) ([]tolksync.ProjectSpec, siteSettings, error) {
	var site siteSettings
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, site, fmt.Errorf("read config: %w", err)
	}
	specs, err := parseConfig(path, data, resolve, existing)
	if err != nil {
		return nil, site, err
	}
	var file struct {
		HookSecret         string `yaml:"hook_secret"`
		WebhookRetryPeriod string `yaml:"webhook_retry_period"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		return nil, site, &configError{file: path, problems: []string{"hook_secret: " + err.Error()}}
	}
	site.HookSecret = file.HookSecret
	if file.WebhookRetryPeriod != "" {
		d, err := time.ParseDuration(file.WebhookRetryPeriod)
		if err != nil || d <= 0 {
			return nil, site, &configError{file: path, problems: []string{fmt.Sprintf(
				"webhook_retry_period: %q is not a positive duration such as 24h or 90m", file.WebhookRetryPeriod)}}
		}
		site.WebhookRetryPeriod = d
	}
	return specs, site, nil
}

func parseConfig(name string, data []byte, resolve func(string) (index.Language, bool), existing existingIndex) ([]tolksync.ProjectSpec, error) {
	cerr := &configError{file: name}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		cerr.add("(file)", "%v", err)
		return nil, cerr
	}
	if len(root.Content) == 0 {
		cerr.add("projects", "the file is empty")
		return nil, cerr
	}
	checkKeys(root.Content[0], reflect.TypeOf(fileConfig{}), "", cerr)
	if len(cerr.problems) > 0 {
		return nil, cerr
	}

	// Decode each project and component onto its defaults, so keys left
	// out keep them.
	var specs []tolksync.ProjectSpec
	projects := mappingValue(root.Content[0], "projects")
	if projects == nil || projects.Kind != yaml.SequenceNode {
		cerr.add("projects", "a list of projects is required")
		return nil, cerr
	}
	slugs := map[string]bool{}
	for i, pn := range projects.Content {
		key := fmt.Sprintf("projects[%d]", i)
		pc := defaultProjectConfig()
		if cerr.addKeys(key, decodeNode(pn, &pc, "components")) {
			continue
		}
		if existing.project != nil {
			if p, ok := existing.project(pc.Slug); ok {
				// Decoded again onto what the index holds: the file's keys win,
				// the others keep their stored values.
				pc = projectConfigOf(p)
				decodeNode(pn, &pc, "components")
			}
		}
		p := index.Project{Name: pc.Name, Slug: pc.Slug, Web: pc.Web, Instructions: pc.Instructions,
			TranslationReview: pc.TranslationReview, SourceReview: pc.SourceReview,
			SetLanguageTeam: pc.SetLanguageTeam, EnableHooks: pc.EnableHooks, LanguageAliases: pc.LanguageAliases,
			AccessControl: pc.AccessControl, HookSecret: pc.HookSecret}
		validateProject(p, key, slugs, cerr)
		spec := tolksync.ProjectSpec{Project: p}
		compSlugs := map[string]bool{}
		if comps := mappingValue(pn, "components"); comps != nil {
			for j, cn := range comps.Content {
				ckey := fmt.Sprintf("%s.components[%d]", key, j)
				cc := defaultComponentConfig()
				if cerr.addKeys(ckey, decodeNode(cn, &cc)) {
					continue
				}
				if existing.component != nil {
					if c, ok := existing.component(pc.Slug, cc.Slug); ok {
						cc = componentConfigOf(c)
						decodeNode(cn, &cc)
					}
				}
				c := cc.component()
				validateComponent(&c, ckey, compSlugs, resolve, cerr)
				validateMessages(&c, cn, ckey, cerr)
				spec.Components = append(spec.Components, c)
			}
		}
		specs = append(specs, spec)
	}
	if len(cerr.problems) > 0 {
		return nil, cerr
	}
	return specs, nil
}

// keyError is a value that does not decode into its key's type.
type keyError struct {
	key string
	err error
}

// decodeNode decodes a mapping onto v, leaving out the keys in skip, and
// returns each key whose value does not fit its field. Keys are decoded
// one at a time so that a type error names its key, not only the line
// yaml reports. Unknown keys were reported by checkKeys already.
func decodeNode(n *yaml.Node, v any, skip ...string) []keyError {
	var bad []keyError
	for i := 0; i+1 < len(n.Content); i += 2 {
		if slices.Contains(skip, n.Content[i].Value) {
			continue
		}
		one := *n
		one.Content = n.Content[i : i+2]
		if err := one.Decode(v); err != nil {
			bad = append(bad, keyError{n.Content[i].Value, err})
		}
	}
	return bad
}

// addKeys reports the keys under path that did not decode; it returns
// whether there were any.
func (e *configError) addKeys(path string, bad []keyError) bool {
	for _, b := range bad {
		msg := b.err.Error()
		var te *yaml.TypeError
		if errors.As(b.err, &te) {
			msg = strings.Join(te.Errors, "; ")
		}
		e.add(path+"."+b.key, "%s", msg)
	}
	return len(bad) > 0
}

// checkKeys walks a mapping node and reports every key the struct type
// does not name, with its full path.
func checkKeys(n *yaml.Node, t reflect.Type, path string, cerr *configError) {
	if n.Kind != yaml.MappingNode {
		cerr.add(orRoot(path), "expected a mapping (line %d)", n.Line)
		return
	}
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		fields[tag] = t.Field(i).Type
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if path != "" {
			key = path + "." + k.Value
		}
		ft, ok := fields[k.Value]
		if !ok {
			cerr.add(key, "unknown key (line %d)", k.Line)
			continue
		}
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			if v.Kind != yaml.SequenceNode {
				cerr.add(key, "expected a list (line %d)", v.Line)
				continue
			}
			for j, item := range v.Content {
				checkKeys(item, ft.Elem(), fmt.Sprintf("%s[%d]", key, j), cerr)
			}
		}
	}
}

func orRoot(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

var slugRe = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

func validateProject(p index.Project, key string, slugs map[string]bool, cerr *configError) {
	if strings.TrimSpace(p.Name) == "" {
		cerr.add(key+".name", "required")
	}
	checkSlug(p.Slug, key+".slug", slugs, cerr)
	switch p.AccessControl {
	case index.AccessPublic, index.AccessProtected, index.AccessPrivate:
	default:
		// The reference's custom access (200) needs its teams, which
		// Tolk does not have.
		cerr.add(key+".access_control", "%d: want 0 (public), 1 (protected) or 100 (private)", p.AccessControl)
	}
	if p.Web != "" {
		if u, err := url.Parse(p.Web); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			cerr.add(key+".web", "%q is not an http(s) URL", p.Web)
		}
	}
}

func checkSlug(slug, key string, seen map[string]bool, cerr *configError) {
	switch {
	case slug == "":
		cerr.add(key, "required")
	case len(slug) > 100 || !slugRe.MatchString(slug):
		cerr.add(key, "%q must be at most 100 letters, digits, '-' or '_'", slug)
	case seen[slug]:
		cerr.add(key, "%q is used twice", slug)
	}
	seen[slug] = true
}

func validateComponent(c *index.Component, key string, slugs map[string]bool,
	resolve func(string) (index.Language, bool), cerr *configError) {
	if strings.TrimSpace(c.Name) == "" {
		cerr.add(key+".name", "required")
	}
	checkSlug(c.Slug, key+".slug", slugs, cerr)
	switch c.VCS {
	case "git":
		if c.Repo == "" {
			cerr.add(key+".repo", "required when vcs is git")
		}
	case "local":
		if c.Repo == "" {
			c.Repo = "local:"
		}
	default:
		cerr.add(key+".vcs", "unsupported value %q (want git or local)", c.VCS)
	}
	switch f, ok := formats.Lookup(c.FileFormat); {
	case !ok:
		var names []string
		for _, f := range formats.All() {
			names = append(names, f.Name)
		}
		cerr.add(key+".file_format", "unsupported value %q (want one of %s)", c.FileFormat, strings.Join(names, ", "))
	case f.Monolingual && c.Template == "":
		cerr.add(key+".template", "required for file_format %s (monolingual)", c.FileFormat)
	case !f.Monolingual && c.Template != "":
		cerr.add(key+".template", "must be empty for file_format %s (bilingual)", c.FileFormat)
	}
	mask, err := tolksync.NewFilemask(c.Filemask, c.LanguageRegex)
	if err != nil {
		field := ".filemask"
		if strings.Count(c.Filemask, "*") == 1 {
			field = ".language_regex"
		}
		cerr.add(key+field, "%v", err)
	} else if c.Template != "" && !mask.Match(c.Template) {
		cerr.add(key+".template", "%q does not match the filemask %q", c.Template, c.Filemask)
	}
	if c.SourceLanguage == "" {
		cerr.add(key+".source_language", "required")
	} else if lang, ok := resolve(c.SourceLanguage); !ok {
		cerr.add(key+".source_language", "unknown language %q", c.SourceLanguage)
	} else {
		c.SourceLanguage = lang.Code
	}
	if c.CommitPendingAge < 0 {
		cerr.add(key+".commit_pending_age", "must not be negative")
	}
	switch c.ConflictPolicy {
	case "", index.ConflictTranslatorWins, index.ConflictUpstreamWins:
	default:
		cerr.add(key+".conflict_policy", "unsupported value %q (want %s or %s)", c.ConflictPolicy,
			index.ConflictTranslatorWins, index.ConflictUpstreamWins)
	}
	if c.MergeStyle != "rebase" && c.MergeStyle != "merge" {
		cerr.add(key+".merge_style", "unsupported value %q (want rebase or merge)", c.MergeStyle)
	}
	switch c.NewLang {
	case "add", "none", "contact", "url":
	default:
		cerr.add(key+".new_lang", "unsupported value %q (want add, none, contact or url)", c.NewLang)
	}
	if c.VariantRegex != "" {
		if _, err := regexp.Compile(c.VariantRegex); err != nil {
			cerr.add(key+".variant_regex", "%v", err)
		}
	}
}

// validateMessages checks the message templates the file gives for a
// component (n): one that does not render would fail every commit, so
// it is refused at startup, as the API refuses it when saved. Templates
// the file leaves out are the defaults or what the index holds, which
// the file's author does not answer for.
func validateMessages(c *index.Component, n *yaml.Node, key string, cerr *configError) {
	for _, m := range []struct{ name, tmpl string }{
		{"commit_message", c.CommitMessage}, {"add_message", c.AddMessage}, {"delete_message", c.DeleteMessage},
		{"merge_message", c.MergeMessage}, {"addon_message", c.AddonMessage}, {"pull_message", c.PullMessage},
	} {
		switch {
		case mappingValue(n, m.name) == nil:
		case strings.TrimSpace(m.tmpl) == "":
			cerr.add(key+"."+m.name, "must not be empty (leave the key out for the default)")
		default:
			if err := tolksync.CheckMessage(m.tmpl); err != nil {
				cerr.add(key+"."+m.name, "template does not render: %v", err)
			}
		}
	}
}

func (cc componentConfig) component() index.Component {
	checks := cc.EnforcedChecks
	if checks == nil {
		checks = []string{}
	}
	return index.Component{
		Name: cc.Name, Slug: cc.Slug, SourceLanguage: cc.SourceLanguage, VCS: cc.VCS, Repo: cc.Repo,
		Branch: cc.Branch, PushBranch: cc.PushBranch, Filemask: cc.Filemask, Template: cc.Template,
		EditTemplate: cc.EditTemplate, Intermediate: cc.Intermediate, NewBase: cc.NewBase,
		FileFormat: cc.FileFormat, License: cc.License, Agreement: cc.Agreement, NewLang: cc.NewLang,
		LanguageCode: cc.LanguageCodeStyle, Push: cc.Push, CheckFlags: cc.CheckFlags, Priority: cc.Priority,
		EnforcedChecks: checks, Restricted: cc.Restricted, Repoweb: cc.Repoweb,
		ReportSourceBugs: cc.ReportSourceBugs, MergeStyle: cc.MergeStyle, CommitMessage: cc.CommitMessage,
		AddMessage: cc.AddMessage, DeleteMessage: cc.DeleteMessage, MergeMessage: cc.MergeMessage,
		AddonMessage: cc.AddonMessage, PullMessage: cc.PullMessage,
		AllowTranslationPropagation: cc.AllowTranslationPropagation, ManageUnits: cc.ManageUnits,
		EnableSuggestions: cc.EnableSuggestions, SuggestionVoting: cc.SuggestionVoting,
		SuggestionAutoaccept: cc.SuggestionAutoaccept, PushOnCommit: cc.PushOnCommit,
		CommitPendingAge: cc.CommitPendingAge, AutoLockError: cc.AutoLockError,
		LanguageRegex: cc.LanguageRegex, VariantRegex: cc.VariantRegex, IsGlossary: cc.IsGlossary,
		GlossaryColor: cc.GlossaryColor, ConflictPolicy: cc.ConflictPolicy,
	}
}

var errUsage = errors.New("usage")

// projectConfigOf is the configuration that describes p.
func projectConfigOf(p index.Project) projectConfig {
	return projectConfig{Name: p.Name, Slug: p.Slug, Web: p.Web, Instructions: p.Instructions,
		TranslationReview: p.TranslationReview, SourceReview: p.SourceReview, SetLanguageTeam: p.SetLanguageTeam,
		EnableHooks: p.EnableHooks, LanguageAliases: p.LanguageAliases, AccessControl: p.AccessControl,
		HookSecret: p.HookSecret}
}

// componentConfigOf is the configuration that describes c, the inverse
// of componentConfig.component.
func componentConfigOf(c index.Component) componentConfig {
	return componentConfig{
		Name: c.Name, Slug: c.Slug, SourceLanguage: c.SourceLanguage, VCS: c.VCS, Repo: c.Repo,
		Branch: c.Branch, PushBranch: c.PushBranch, Filemask: c.Filemask, Template: c.Template,
		EditTemplate: c.EditTemplate, Intermediate: c.Intermediate, NewBase: c.NewBase,
		FileFormat: c.FileFormat, License: c.License, Agreement: c.Agreement, NewLang: c.NewLang,
		LanguageCodeStyle: c.LanguageCode, Push: c.Push, CheckFlags: c.CheckFlags, Priority: c.Priority,
		EnforcedChecks: slices.Clone(c.EnforcedChecks), Restricted: c.Restricted, Repoweb: c.Repoweb,
		ReportSourceBugs: c.ReportSourceBugs, MergeStyle: c.MergeStyle, CommitMessage: c.CommitMessage,
		AddMessage: c.AddMessage, DeleteMessage: c.DeleteMessage, MergeMessage: c.MergeMessage,
		AddonMessage: c.AddonMessage, PullMessage: c.PullMessage,
		AllowTranslationPropagation: c.AllowTranslationPropagation, ManageUnits: c.ManageUnits,
		EnableSuggestions: c.EnableSuggestions, SuggestionVoting: c.SuggestionVoting,
		SuggestionAutoaccept: c.SuggestionAutoaccept, PushOnCommit: c.PushOnCommit,
		CommitPendingAge: c.CommitPendingAge, AutoLockError: c.AutoLockError,
		LanguageRegex: c.LanguageRegex, VariantRegex: c.VariantRegex, IsGlossary: c.IsGlossary,
		GlossaryColor: c.GlossaryColor, ConflictPolicy: c.ConflictPolicy,
	}
}
