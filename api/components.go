package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// componentRoutes registers the components; their writes are in
// components_write.go, their lock in lock.go.
func (s *Server) componentRoutes(r *edge.Router) {
	r.Resource("/api/components/", "Component List", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.listComponents})
	r.Resource(componentPath, "Component Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getComponent, Put: s.updateComponent(false), Patch: s.updateComponent(true),
			Delete: s.deleteComponent})
	r.Resource(componentPath+"translations/", "Translations", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listComponentTranslations, Post: s.addTranslation})
	r.Resource(componentPath+"statistics/", "Statistics", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.listComponentStatistics})
	r.Resource(componentPath+"lock/", "Lock", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.getComponentLock, Post: s.lockComponent})
	r.Resource(componentPath+"links/", "Links", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listComponentLinks, Post: s.linkComponent})
}

// componentStore is what the component endpoints read.
type componentStore interface {
	// FindComponent returns a component with its project by slugs.
	FindComponent(ctx context.Context, projectSlug, slug string) (index.Component, error)
	// FindComponentPage returns one page of the components of a project
	// (of all projects when projectID is 0) in ascending id order, and
	// their number, leaving out those of the projects whose ids are
	// hidden.
	FindComponentPage(ctx context.Context, projectID int64, pg index.Page, hidden ...int64) ([]index.Component, int, error)
	// ComponentStats returns statistics summed over a component,
	// including RecentChanges.
	ComponentStats(ctx context.Context, componentID int64) (index.Stats, error)
}

// componentPath is the route of one component; its sub-resources hang
// below it.
const componentPath = "/api/components/:project/:component/"

// sourceLanguages returns a lookup of source languages that asks the
// store once per code, for lists whose components mostly share one.
func (s *Server) sourceLanguages(c *gin.Context) func(code string) (index.Language, error) {
	seen := map[string]index.Language{}
	return func(code string) (index.Language, error) {
		if l, ok := seen[code]; ok {
			return l, nil
		}
		l, err := s.edge.SourceLanguage(c, code)
		if err == nil {
			seen[code] = l
		}
		return l, err
	}
}

// listComponents serves GET /api/components/: every component in
// ascending id order, as the reference orders its component queryset.
func (s *Server) listComponents(c *gin.Context) { s.writeComponentList(c, 0) }

// writeComponentList answers with one page of the components of a project
// (of all projects the principal may see, for 0).
func (s *Server) writeComponentList(c *gin.Context, projectID int64) {
	hidden, err := s.edge.ListHidden(c, projectID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	comps, pg, err := fetchPage(c, func(p index.Page) ([]index.Component, int, error) {
		return s.store.FindComponentPage(c.Request.Context(), projectID, p, hidden...)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u, source := s.edge.URLsFor(c), s.sourceLanguages(c)
	out := make([]componentJSON, len(comps))
	for i := range comps {
		l, err := source(comps[i].SourceLanguage)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		out[i] = newComponentJSON(u, &comps[i], &l, s.addonURLs(c.Request.Context(), u, comps[i].ID))
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, u, pg, out))
}

// getComponent serves GET /api/components/:project/:component/.
func (s *Server) getComponent(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	source, err := s.edge.SourceLanguage(c, comp.SourceLanguage)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	s.edge.WriteJSON(c, http.StatusOK, newComponentJSON(u, &comp, &source, s.addonURLs(c.Request.Context(), u, comp.ID)))
}

// listComponentTranslations serves GET .../components/P/C/translations/:
// the component's translations in ascending id order.
func (s *Server) listComponentTranslations(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeTranslationList(c, comp.ID)
}

// lockJSON is the reference's lock status object.
type lockJSON struct {
	Locked bool `json:"locked"`
}

// getComponentLock serves GET .../components/P/C/lock/.
func (s *Server) getComponentLock(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, lockJSON{Locked: comp.Locked})
}

// listComponentLinks serves GET .../components/P/C/links/: the reference's
// paginated list of projects the component is shared with. Tolk does not
// share components across projects, so the list is always empty; it is
// still paged, so a page past the first is the reference's 404.
func (s *Server) listComponentLinks(c *gin.Context) {
	if _, err := s.edge.FindComponent(c); err != nil {
		s.edge.Fail(c, err)
		return
	}
	_, pg, err := fetchPage(c, func(index.Page) ([]projectJSON, int, error) { return nil, 0, nil })
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newList[projectJSON](c, s.edge.URLsFor(c), pg, nil))
}

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
	CategoriesURL     string `json:"categories_url"`
	ChangesListURL    string `json:"changes_list_url"`
	LanguagesURL      string `json:"languages_url"`
	LabelsURL         string `json:"labels_url"`
	CreditsURL        string `json:"credits_url"`
	TranslationReview bool   `json:"translation_review"`
	SourceReview      bool   `json:"source_review"`
	SetLanguageTeam   bool   `json:"set_language_team"`
	Instructions      string `json:"instructions"`
	EnableHooks       bool   `json:"enable_hooks"`
	LanguageAliases   string `json:"language_aliases"`
	// The shared translation memory's settings, as the reference's
	// Project model names them (reference workspace §5.1).
	UseSharedTM        bool `json:"use_shared_tm"`
	ContributeSharedTM bool `json:"contribute_shared_tm"`
}

func newProjectJSON(u edge.URLs, p *index.Project) projectJSON {
	return projectJSON{
		Name:               p.Name,
		Slug:               p.Slug,
		ID:                 p.ID,
		Web:                p.Web, // the project's own home page, external: no format=api
		WebURL:             u.ProjectWeb(p.Slug),
		URL:                u.Project(p.Slug, ""),
		ComponentsListURL:  u.Project(p.Slug, "components"),
		RepositoryURL:      u.Project(p.Slug, "repository"),
		StatisticsURL:      u.Project(p.Slug, "statistics"),
		CategoriesURL:      u.Project(p.Slug, "categories"),
		ChangesListURL:     u.Project(p.Slug, "changes"),
		LanguagesURL:       u.Project(p.Slug, "languages"),
		LabelsURL:          u.Project(p.Slug, "labels"),
		CreditsURL:         u.Project(p.Slug, "credits"),
		TranslationReview:  p.TranslationReview,
		SourceReview:       p.SourceReview,
		SetLanguageTeam:    p.SetLanguageTeam,
		Instructions:       p.Instructions,
		EnableHooks:        p.EnableHooks,
		LanguageAliases:    p.LanguageAliases,
		UseSharedTM:        p.UseSharedTM,
		ContributeSharedTM: p.ContributeSharedTM,
	}
}

// componentJSON is the Component object (spec, "Component").
type componentJSON struct {
	Name                        string       `json:"name"`
	Slug                        string       `json:"slug"`
	ID                          int64        `json:"id"`
	SourceLanguage              languageJSON `json:"source_language"`
	Project                     projectJSON  `json:"project"`
	Category                    *string      `json:"category"` // the category's API URL, null at the project's top level
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
	CreditsURL                  string       `json:"credits_url"`
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
	// LinkedComponent is the API URL of the component whose repository
	// this one shares (repo weblate://project/component), null for none:
	// the reference's read-only field.
	LinkedComponent *string `json:"linked_component"`
	// Tolk's own fields, not the reference's (README, "Import errors"):
	// what stopped the last import or update of the repository (null
	// when it finished) and the files matching the filemask it left out.
	ImportError  *string           `json:"import_error"`
	SkippedFiles []skippedFileJSON `json:"skipped_files"`
}

// skippedFileJSON is a file the last import left out, with why.
type skippedFileJSON struct {
	Filename string `json:"filename"`
	Reason   string `json:"reason"`
}

func newSkippedFilesJSON(files []index.SkippedFile) []skippedFileJSON {
	out := make([]skippedFileJSON, 0, len(files))
	for _, f := range files {
		out = append(out, skippedFileJSON{Filename: f.Filename, Reason: f.Reason})
	}
	return out
}

// linkedURL is the API URL of the component c links to, nil when c has
// a repository of its own. The store rewrites a link when its target is
// renamed, so the repo text names it.
func linkedURL(u edge.URLs, c *index.Component) *string {
	p, path, s, ok := index.LinkTarget(c.Repo)
	if c.LinkedID == 0 || !ok {
		return nil
	}
	return ptr(u.Component(p, index.FullSlug(path, s), ""))
}

// newComponentJSON converts a component; source is its source language,
// which the domain type holds only as a code.
func newComponentJSON(u edge.URLs, c *index.Component, source *index.Language, addons []string) componentJSON {
	p, s, fs := c.Project.Slug, c.Slug, c.FullSlug()
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
		Category:                    categoryURL(u, c.CategoryID),
		VCS:                         c.VCS,
		Repo:                        withoutCredentials(c.Repo),
		GitExport:                   u.GitExport(p, fs),
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
		WebURL:                      u.ComponentWeb(p, fs),
		URL:                         u.Component(p, fs, ""),
		RepositoryURL:               u.Component(p, fs, "repository"),
		TranslationsURL:             u.Component(p, fs, "translations"),
		StatisticsURL:               u.Component(p, fs, "statistics"),
		LockURL:                     u.Component(p, fs, "lock"),
		LinksURL:                    u.Component(p, fs, "links"),
		ChangesListURL:              u.Component(p, fs, "changes"),
		TaskURL:                     nil, // set by the writes that start a task (componentBody)
		CreditsURL:                  u.Component(p, fs, "credits"),
		NewLang:                     c.NewLang,
		LanguageCodeStyle:           c.LanguageCode,
		Push:                        withoutCredentials(c.Push),
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
		Addons:                      addons,
		IsGlossary:                  c.IsGlossary,
		GlossaryColor:               c.GlossaryColor,
		LinkedComponent:             linkedURL(u, c),
		ImportError:                 stringOrNull(c.Import.Error),
		SkippedFiles:                newSkippedFilesJSON(c.Import.Skipped),
	}
}
