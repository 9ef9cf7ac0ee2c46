package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// changeJSON is the Change object (spec, "Change").
type changeJSON struct {
	Unit        *string `json:"unit"`
	Component   *string `json:"component"`
	Translation *string `json:"translation"`
	User        *string `json:"user"`
	Author      *string `json:"author"`
	Timestamp   string  `json:"timestamp"`
	Action      int     `json:"action"`
	Target      string  `json:"target"`
	ID          int64   `json:"id"`
	ActionName  string  `json:"action_name"`
	URL         string  `json:"url"`
}

// newChangeJSON converts a change. Links to what the change is not tied
// to are null (spec, "Common response behaviour", rule 4).
func newChangeJSON(u urls, ch *index.Change) changeJSON {
	out := changeJSON{
		User:       u.user(ch.UserName),
		Author:     u.user(ch.AuthorName),
		Timestamp:  timestamp(ch.Timestamp),
		Action:     int(ch.Action),
		Target:     ch.Target,
		ID:         ch.ID,
		ActionName: ch.Action.Name(),
		URL:        u.change(ch.ID),
	}
	if ch.UnitID != 0 {
		out.Unit = ptr(u.unit(ch.UnitID))
	}
	if ch.ProjectSlug != "" && ch.ComponentSlug != "" {
		out.Component = ptr(u.component(ch.ProjectSlug, ch.ComponentSlug, ""))
		if ch.LanguageCode != "" {
			out.Translation = ptr(u.translation(ch.ProjectSlug, ch.ComponentSlug, ch.LanguageCode, ""))
		}
	}
	return out
}

// changeStore is what the change endpoints read.
type changeStore interface {
	// FindChanges returns one page of changes in ascending timestamp, then
	// id, order and the number of matches.
	FindChanges(ctx context.Context, f index.ChangeFilter) ([]index.Change, int, error)
}

func (s *Server) changeResources() []resource {
	return []resource{
		{translationPath + "changes/", "Changes", []string{"GET", "HEAD", "OPTIONS"}, s.listTranslationChanges},
	}
}

// listTranslationChanges serves GET .../translations/P/C/L/changes/ in
// ascending timestamp, then id, order.
func (s *Server) listTranslationChanges(c *gin.Context) {
	t, err := s.findTranslation(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	changes, pg, err := fetchPage(c, func(p index.Page) ([]index.Change, int, error) {
		return s.store.FindChanges(c.Request.Context(), index.ChangeFilter{TranslationID: t.ID, Page: p})
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	u := s.urlsFor(c)
	out := make([]changeJSON, len(changes))
	for i := range changes {
		out[i] = newChangeJSON(u, &changes[i])
	}
	s.writeJSON(c, http.StatusOK, newList(c, u, pg, out))
}
