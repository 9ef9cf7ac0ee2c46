package main

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// projectConfig is a project of the setup file. Keys are the API's own
// field names; whatever a file leaves out keeps the reference's default
// (defaultProjectConfig) or, for a project the index holds, its stored
// value.
type projectConfig struct {
	Name              string `yaml:"name"`
	Slug              string `yaml:"slug"`
	Web               string `yaml:"web"`
	Instructions      string `yaml:"instructions"`
	TranslationReview bool   `yaml:"translation_review"`
	SourceReview      bool   `yaml:"source_review"`
	SetLanguageTeam   bool   `yaml:"set_language_team"`
	EnableHooks       bool   `yaml:"enable_hooks"`
	LanguageAliases   string `yaml:"language_aliases"`
	AccessControl     int    `yaml:"access_control"`
	HookSecret        string `yaml:"hook_secret"`
}

// componentConfig is a component of the setup file, as projectConfig is
// a project; the file lists them under a project's components key.
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
	case !f.Monolingual && !f.TemplateOptional && c.Template != "":
		cerr.add(key+".template", "must be empty for file_format %s (bilingual)", c.FileFormat)
	}
	// The template need not match the filemask (Android's values/ beside
	// values-*/): the reference only requires it to exist.
	// The one check sync makes of a component's mask (one file, or one
	// '*'), with the field at fault.
	if err := tolksync.CheckFilemask(index.Component{FileFormat: c.FileFormat, Filemask: c.Filemask,
		LanguageRegex: c.LanguageRegex}); err != nil {
		var fe *index.FieldError
		if errors.As(err, &fe) {
			for field, p := range fe.Fields {
				cerr.add(key+"."+field, "%s", p.Detail)
			}
		}
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
// component (the keys given): one that does not render would fail every
// commit, so it is refused at startup, as the API refuses it when saved.
// Templates the file leaves out are the defaults or what the index
// holds, which the file's author does not answer for.
func validateMessages(c *index.Component, given []string, key string, cerr *configError) {
	for _, m := range []struct{ name, tmpl string }{
		{"commit_message", c.CommitMessage}, {"add_message", c.AddMessage}, {"delete_message", c.DeleteMessage},
		{"merge_message", c.MergeMessage}, {"addon_message", c.AddonMessage}, {"pull_message", c.PullMessage},
	} {
		switch {
		case !slices.Contains(given, m.name):
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

// project is the project pc describes.
func (pc projectConfig) project() index.Project {
	return index.Project{Name: pc.Name, Slug: pc.Slug, Web: pc.Web, Instructions: pc.Instructions,
		TranslationReview: pc.TranslationReview, SourceReview: pc.SourceReview,
		SetLanguageTeam: pc.SetLanguageTeam, EnableHooks: pc.EnableHooks, LanguageAliases: pc.LanguageAliases,
		AccessControl: pc.AccessControl, HookSecret: pc.HookSecret}
}

// projectConfigOf is the configuration that describes p, the inverse of
// projectConfig.project.
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
