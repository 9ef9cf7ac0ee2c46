package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// translationRoutes registers the translations; their writes are in
// translations_write.go, their files and repository in repository.go.
func (s *Server) translationRoutes(r *edge.Router) {
	r.Resource("/api/translations/", "Translation List", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.listTranslations})
	r.Resource(translationPath, "Translation Instance", "GET, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getTranslation, Delete: s.deleteTranslation})
	r.Resource(translationPath+"statistics/", "Statistics", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.getTranslationStatistics})
}

// translationJSON is the Translation object (spec, "Translation").
type translationJSON struct {
	Language             languageJSON  `json:"language"`
	Component            componentJSON `json:"component"`
	LanguageCode         string        `json:"language_code"`
	ID                   int64         `json:"id"`
	Filename             string        `json:"filename"`
	Revision             string        `json:"revision"`
	WebURL               string        `json:"web_url"`
	ShareURL             string        `json:"share_url"`
	TranslateURL         string        `json:"translate_url"`
	URL                  string        `json:"url"`
	IsTemplate           bool          `json:"is_template"`
	IsSource             bool          `json:"is_source"`
	Total                int           `json:"total"`
	TotalWords           int           `json:"total_words"`
	Translated           int           `json:"translated"`
	TranslatedWords      int           `json:"translated_words"`
	TranslatedPercent    percent       `json:"translated_percent"`
	Fuzzy                int           `json:"fuzzy"`
	FuzzyWords           int           `json:"fuzzy_words"`
	FuzzyPercent         percent       `json:"fuzzy_percent"`
	FailingChecks        int           `json:"failing_checks"`
	FailingChecksWords   int           `json:"failing_checks_words"`
	FailingChecksPercent percent       `json:"failing_checks_percent"`
	HaveSuggestion       int           `json:"have_suggestion"`
	HaveComment          int           `json:"have_comment"`
	LastChange           *string       `json:"last_change"`
	LastAuthor           *string       `json:"last_author"`
	RepositoryURL        string        `json:"repository_url"`
	FileURL              string        `json:"file_url"`
	StatisticsURL        string        `json:"statistics_url"`
	ChangesListURL       string        `json:"changes_list_url"`
	UnitsListURL         string        `json:"units_list_url"`
	// ImportError is Tolk's own field (README, "Import errors"): why the
	// file did not parse at the last import, with its line and column,
	// or null. The units the index held before stay.
	ImportError *string `json:"import_error"`
}

func newTranslationJSON(u edge.URLs, t *index.Translation, source *index.Language, addons []string) translationJSON {
	p, c, l := t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode
	st := &t.Stats
	return translationJSON{
		Language:             newLanguageJSON(u, &t.Language),
		Component:            newComponentJSON(u, &t.Component, source, addons),
		LanguageCode:         t.LanguageCode,
		ID:                   t.ID,
		Filename:             t.Filename,
		Revision:             t.Revision,
		WebURL:               u.TranslationWeb(p, c, l),
		ShareURL:             u.Share(p, l),
		TranslateURL:         u.Translate(p, c, l),
		URL:                  u.Translation(p, c, l, ""),
		IsTemplate:           t.IsTemplate,
		IsSource:             t.IsSource,
		Total:                st.Total,
		TotalWords:           st.TotalWords,
		Translated:           st.Translated,
		TranslatedWords:      st.TranslatedWords,
		TranslatedPercent:    pct(st.Translated, st.Total),
		Fuzzy:                st.Fuzzy,
		FuzzyWords:           st.FuzzyWords,
		FuzzyPercent:         pct(st.Fuzzy, st.Total),
		FailingChecks:        st.Failing,
		FailingChecksWords:   st.FailingWords,
		FailingChecksPercent: pct(st.Failing, st.Total),
		HaveSuggestion:       st.Suggestions,
		HaveComment:          st.Comments,
		LastChange:           timestampOrNull(st.LastChange),
		LastAuthor:           stringOrNull(st.LastAuthor),
		RepositoryURL:        u.Translation(p, c, l, "repository"),
		FileURL:              u.Translation(p, c, l, "file"),
		StatisticsURL:        u.Translation(p, c, l, "statistics"),
		ChangesListURL:       u.Translation(p, c, l, "changes"),
		UnitsListURL:         u.Translation(p, c, l, "units"),
		ImportError:          stringOrNull(t.LoadError),
	}
}

// translationStore is what the translation endpoints read.
type translationStore interface {
	// FindTranslation returns a translation with its component, project,
	// language and stored statistics.
	FindTranslation(ctx context.Context, projectSlug, componentSlug, languageCode string) (index.Translation, error)
	// TranslationStats returns a translation's statistics including
	// RecentChanges.
	TranslationStats(ctx context.Context, translationID int64) (index.Stats, error)
	// FindTranslationPage returns one page of the translations of a
	// component (of all components when componentID is 0) in ascending id
	// order, each with its statistics including RecentChanges, and their
	// number, leaving out those of the projects whose ids are hidden.
	FindTranslationPage(ctx context.Context, componentID int64, pg index.Page, hidden ...int64) ([]index.Translation, int, error)
	// FindUnitIDByHash returns the id of a translation's unit by id_hash.
	FindUnitIDByHash(ctx context.Context, translationID, idHash int64) (int64, error)
}

// translationPath is the route of one translation; its sub-resources
// hang below it.
const translationPath = "/api/translations/:project/:component/:language/"

// getTranslation serves GET /api/translations/:project/:component/:language/.
func (s *Server) getTranslation(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	source, err := s.edge.SourceLanguage(c, t.Component.SourceLanguage)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	body := translationDetail(newTranslationJSON(u, &t, &source, s.addonURLs(c.Request.Context(), u, t.Component.ID)))
	s.edge.WriteJSON(c, http.StatusOK, &body)
}

// listTranslations serves GET /api/translations/: every translation in
// ascending id order, as the reference orders its translation queryset.
func (s *Server) listTranslations(c *gin.Context) { s.writeTranslationList(c, 0) }

// writeTranslationList answers with one page of the translations of a
// component (of all components the principal may see, for 0).
func (s *Server) writeTranslationList(c *gin.Context, componentID int64) {
	hidden, err := s.edge.ListHidden(c, componentID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeTranslationPage(c, func(p index.Page) ([]index.Translation, int, error) {
		return s.store.FindTranslationPage(c.Request.Context(), componentID, p, hidden...)
	})
}

// writeTranslationPage answers with the page of translations fetch
// returns for the request's page, and their number.
func (s *Server) writeTranslationPage(c *gin.Context, fetch func(index.Page) ([]index.Translation, int, error)) {
	trs, pg, err := fetchPage(c, fetch)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u, source := s.edge.URLsFor(c), s.sourceLanguages(c)
	out := make([]translationJSON, len(trs))
	for i := range trs {
		l, err := source(trs[i].Component.SourceLanguage)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		out[i] = newTranslationJSON(u, &trs[i], &l, s.addonURLs(c.Request.Context(), u, trs[i].Component.ID))
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, u, pg, out))
}
