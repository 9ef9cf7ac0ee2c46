package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// languageRoutes registers the languages; their writes are in
// languages_write.go.
func (s *Server) languageRoutes(r *edge.Router) {
	r.Resource("/api/languages/", "Language List", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listLanguages, Post: s.createLanguage})
	r.Resource("/api/languages/:code/", "Language Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getLanguage, Put: s.updateLanguage(false), Patch: s.updateLanguage(true),
			Delete: s.deleteLanguage})
	r.Resource("/api/languages/:code/statistics/", "Statistics", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.getLanguageStatistics})
}

// languageJSON is the Language object (spec, "Language").
type languageJSON struct {
	Code          string     `json:"code"`
	Name          string     `json:"name"`
	Plural        pluralJSON `json:"plural"`
	Aliases       []string   `json:"aliases"`
	Direction     string     `json:"direction"`
	Population    int64      `json:"population"`
	WebURL        string     `json:"web_url"`
	URL           string     `json:"url"`
	StatisticsURL string     `json:"statistics_url"`
}

type pluralJSON struct {
	ID      int64  `json:"id"`
	Source  int    `json:"source"`
	Number  int    `json:"number"`
	Formula string `json:"formula"`
	Type    int    `json:"type"`
}

func newLanguageJSON(u edge.URLs, l *index.Language) languageJSON {
	aliases := l.Aliases
	if aliases == nil {
		aliases = []string{}
	}
	return languageJSON{
		Code: l.Code,
		Name: l.Name,
		Plural: pluralJSON{ID: l.Plural.ID, Source: l.Plural.Source, Number: l.Plural.Number,
			Formula: l.Plural.Formula, Type: l.Plural.Type},
		Aliases:       aliases,
		Direction:     l.Direction,
		Population:    l.Population,
		WebURL:        u.LanguageWeb(l.Code),
		URL:           u.Language(l.Code, ""),
		StatisticsURL: u.Language(l.Code, "statistics"),
	}
}

// languageStore is what the language endpoints read.
type languageStore interface {
	// FindLanguage returns a language by its canonical code.
	FindLanguage(ctx context.Context, code string) (index.Language, error)
	// LanguageStats returns statistics summed over every translation into
	// the language outside the projects whose ids are hidden.
	LanguageStats(ctx context.Context, code string, hidden ...int64) (index.Stats, error)
	// FindUsedLanguages returns one page of the languages that have a
	// translation outside the projects whose ids are hidden, in ascending
	// id order, and how many there are.
	FindUsedLanguages(ctx context.Context, p index.Page, hidden ...int64) ([]index.Language, int, error)
}

// listLanguages serves GET /api/languages/: the languages in use in the
// projects the principal may see, in the reference's id order. The reference lists every known language only to
// those who may manage languages; Tolk has no such readers, so it shows
// what the reference shows everyone else.
func (s *Server) listLanguages(c *gin.Context) {
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	langs, pg, err := fetchPage(c, func(p index.Page) ([]index.Language, int, error) {
		return s.store.FindUsedLanguages(c.Request.Context(), p, hidden...)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	out := make([]languageJSON, len(langs))
	for i := range langs {
		out[i] = newLanguageJSON(u, &langs[i])
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, u, pg, out))
}

// getLanguage serves GET /api/languages/:code/.
func (s *Server) getLanguage(c *gin.Context) {
	l, err := s.store.FindLanguage(c.Request.Context(), c.Param("code"))
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newLanguageJSON(s.edge.URLsFor(c), &l))
}
