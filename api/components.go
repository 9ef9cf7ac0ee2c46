package api

import (
	"github.com/tolk-project/tolk/index"
)

// componentStore is what the component endpoints read.
type componentStore interface{}

func (s *Server) componentResources() []resource { return nil }

// projectJSON is the Project object (spec, "Project").
type projectJSON struct {
	Name              string `json:"name"`
	Slug              string `json:"slug"`
	ID                int64  `json:"id"`
	Web               string `json:"web"`
	WebURL            string `json:"web_url"`
	URL               string `json:"url"`
	ComponentsListURL string `json:"components_list_url"`
	RepositoryURL     string `json:"repository_url"`
	StatisticsURL     string `json:"statistics_url"`
	ChangesListURL    string `json:"changes_list_url"`
	LanguagesURL      string `json:"languages_url"`
	TranslationReview bool   `json:"translation_review"`
	SourceReview      bool   `json:"source_review"`
	SetLanguageTeam   bool   `json:"set_language_team"`
	Instructions      string `json:"instructions"`
	EnableHooks       bool   `json:"enable_hooks"`
	LanguageAliases   string `json:"language_aliases"`
}

func newProjectJSON(u urls, p *index.Project) projectJSON {
	return projectJSON{
		Name:              p.Name,
		Slug:              p.Slug,
		ID:                p.ID,
		Web:               p.Web, // the project's own home page, external: no format=api
		WebURL:            u.projectWeb(p.Slug),
		URL:               u.project(p.Slug, ""),
		ComponentsListURL: u.project(p.Slug, "components"),
		RepositoryURL:     u.project(p.Slug, "repository"),
		StatisticsURL:     u.project(p.Slug, "statistics"),
		ChangesListURL:    u.project(p.Slug, "changes"),
		LanguagesURL:      u.project(p.Slug, "languages"),
		TranslationReview: p.TranslationReview,
		SourceReview:      p.SourceReview,
		SetLanguageTeam:   p.SetLanguageTeam,
		Instructions:      p.Instructions,
		EnableHooks:       p.EnableHooks,
		LanguageAliases:   p.LanguageAliases,
	}
}

// componentJSON is the Component object (spec, "Component").
type componentJSON struct {
	Name                        string       `json:"name"`
	Slug                        string       `json:"slug"`
	ID                          int64        `json:"id"`
	SourceLanguage              languageJSON `json:"source_language"`
	Project                     projectJSON  `json:"project"`
	VCS                         string       `json:"vcs"`
	Repo                        string       `json:"repo"`
	GitExport                   string       `json:"git_export"`
	Branch                      string       `json:"branch"`
	PushBranch                  string       `json:"push_branch"`
	Filemask                    string       `json:"filemask"`
	Template                    string       `json:"template"`
	EditTemplate                bool         `json:"edit_template"`
	Intermediate                string       `json:"intermediate"`
	NewBase                     string       `json:"new_base"`
	FileFormat                  string       `json:"file_format"`
	License                     string       `json:"license"`
	LicenseURL                  *string      `json:"license_url"`
	Agreement                   string       `json:"agreement"`
	WebURL                      string       `json:"web_url"`
	URL                         string       `json:"url"`
	RepositoryURL               string       `json:"repository_url"`
	TranslationsURL             string       `json:"translations_url"`
	StatisticsURL               string       `json:"statistics_url"`
	LockURL                     string       `json:"lock_url"`
	LinksURL                    string       `json:"links_url"`
	ChangesListURL              string       `json:"changes_list_url"`
	TaskURL                     *string      `json:"task_url"`
	NewLang                     string       `json:"new_lang"`
	LanguageCodeStyle           string       `json:"language_code_style"`
	Push                        string       `json:"push"`
	CheckFlags                  string       `json:"check_flags"`
	Priority                    int          `json:"priority"`
	EnforcedChecks              []string     `json:"enforced_checks"`
	Restricted                  bool         `json:"restricted"`
	Repoweb                     string       `json:"repoweb"`
	ReportSourceBugs            string       `json:"report_source_bugs"`
	MergeStyle                  string       `json:"merge_style"`
	CommitMessage               string       `json:"commit_message"`
	AddMessage                  string       `json:"add_message"`
	DeleteMessage               string       `json:"delete_message"`
	MergeMessage                string       `json:"merge_message"`
	AddonMessage                string       `json:"addon_message"`
	PullMessage                 string       `json:"pull_message"`
	AllowTranslationPropagation bool         `json:"allow_translation_propagation"`
	ManageUnits                 bool         `json:"manage_units"`
	EnableSuggestions           bool         `json:"enable_suggestions"`
	SuggestionVoting            bool         `json:"suggestion_voting"`
	SuggestionAutoaccept        int          `json:"suggestion_autoaccept"`
	PushOnCommit                bool         `json:"push_on_commit"`
	CommitPendingAge            int          `json:"commit_pending_age"`
	AutoLockError               bool         `json:"auto_lock_error"`
	LanguageRegex               string       `json:"language_regex"`
	VariantRegex                string       `json:"variant_regex"`
	Addons                      []string     `json:"addons"`
	IsGlossary                  bool         `json:"is_glossary"`
	GlossaryColor               string       `json:"glossary_color"`
}

// newComponentJSON converts a component; source is its source language,
// which the domain type holds only as a code.
func newComponentJSON(u urls, c *index.Component, source *index.Language) componentJSON {
	p, s := c.Project.Slug, c.Slug
	checks := c.EnforcedChecks
	if checks == nil {
		checks = []string{}
	}
	return componentJSON{
		Name:                        c.Name,
		Slug:                        s,
		ID:                          c.ID,
		SourceLanguage:              newLanguageJSON(u, source),
		Project:                     newProjectJSON(u, &c.Project),
		VCS:                         c.VCS,
		Repo:                        c.Repo,
		GitExport:                   u.gitExport(p, s),
		Branch:                      c.Branch,
		PushBranch:                  c.PushBranch,
		Filemask:                    c.Filemask,
		Template:                    c.Template,
		EditTemplate:                c.EditTemplate,
		Intermediate:                c.Intermediate,
		NewBase:                     c.NewBase,
		FileFormat:                  c.FileFormat,
		License:                     c.License,
		LicenseURL:                  licenseURL(c.License),
		Agreement:                   c.Agreement,
		WebURL:                      u.componentWeb(p, s),
		URL:                         u.component(p, s, ""),
		RepositoryURL:               u.component(p, s, "repository"),
		TranslationsURL:             u.component(p, s, "translations"),
		StatisticsURL:               u.component(p, s, "statistics"),
		LockURL:                     u.component(p, s, "lock"),
		LinksURL:                    u.component(p, s, "links"),
		ChangesListURL:              u.component(p, s, "changes"),
		TaskURL:                     nil, // no background task is ever pending for a read
		NewLang:                     c.NewLang,
		LanguageCodeStyle:           c.LanguageCode,
		Push:                        c.Push,
		CheckFlags:                  c.CheckFlags,
		Priority:                    c.Priority,
		EnforcedChecks:              checks,
		Restricted:                  c.Restricted,
		Repoweb:                     c.Repoweb,
		ReportSourceBugs:            c.ReportSourceBugs,
		MergeStyle:                  c.MergeStyle,
		CommitMessage:               c.CommitMessage,
		AddMessage:                  c.AddMessage,
		DeleteMessage:               c.DeleteMessage,
		MergeMessage:                c.MergeMessage,
		AddonMessage:                c.AddonMessage,
		PullMessage:                 c.PullMessage,
		AllowTranslationPropagation: c.AllowTranslationPropagation,
		ManageUnits:                 c.ManageUnits,
		EnableSuggestions:           c.EnableSuggestions,
		SuggestionVoting:            c.SuggestionVoting,
		SuggestionAutoaccept:        c.SuggestionAutoaccept,
		PushOnCommit:                c.PushOnCommit,
		CommitPendingAge:            c.CommitPendingAge,
		AutoLockError:               c.AutoLockError,
		LanguageRegex:               c.LanguageRegex,
		VariantRegex:                c.VariantRegex,
		Addons:                      []string{}, // add-ons do not exist yet
		IsGlossary:                  c.IsGlossary,
		GlossaryColor:               c.GlossaryColor,
	}
}
