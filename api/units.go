package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// unitJSON is the Unit object (spec, "Unit").
type unitJSON struct {
	Translation     string   `json:"translation"`
	Source          []string `json:"source"`
	PreviousSource  string   `json:"previous_source"`
	Target          []string `json:"target"`
	IDHash          int64    `json:"id_hash"`
	ContentHash     int64    `json:"content_hash"`
	Location        string   `json:"location"`
	Context         string   `json:"context"`
	Note            string   `json:"note"`
	Flags           string   `json:"flags"`
	Labels          []string `json:"labels"`
	State           int      `json:"state"`
	Fuzzy           bool     `json:"fuzzy"`
	Translated      bool     `json:"translated"`
	Approved        bool     `json:"approved"`
	Position        int      `json:"position"`
	HasSuggestion   bool     `json:"has_suggestion"`
	HasComment      bool     `json:"has_comment"`
	HasFailingCheck bool     `json:"has_failing_check"`
	NumWords        int      `json:"num_words"`
	SourceUnit      *string  `json:"source_unit"` // null when no source unit is linked
	Priority        int      `json:"priority"`
	ID              int64    `json:"id"`
	WebURL          string   `json:"web_url"`
	URL             string   `json:"url"`
	Explanation     string   `json:"explanation"`
	ExtraFlags      string   `json:"extra_flags"`
	Pending         bool     `json:"pending"`
	Timestamp       string   `json:"timestamp"`
}

// newUnitJSON converts a unit of translation t, whose URL is tURL.
func newUnitJSON(u urls, t *index.Translation, tURL string, x *index.Unit) unitJSON {
	var sourceUnit *string
	if x.SourceUnitID != 0 {
		sourceUnit = ptr(u.unit(x.SourceUnitID))
	}
	return unitJSON{
		Translation:     tURL,
		Source:          nonNil(x.Source),
		PreviousSource:  x.PreviousSource,
		Target:          nonNil(x.Target),
		IDHash:          x.IDHash,
		ContentHash:     x.ContentHash,
		Location:        x.Location,
		Context:         x.Context,
		Note:            x.Note,
		Flags:           x.Flags,
		Labels:          nonNil(x.Labels),
		State:           int(x.State),
		Fuzzy:           x.State.Fuzzy(),
		Translated:      x.State.Translated(),
		Approved:        x.State.Approved(),
		Position:        x.Position,
		HasSuggestion:   x.HasSuggestion,
		HasComment:      x.HasComment,
		HasFailingCheck: x.HasFailingCheck,
		NumWords:        x.NumWords,
		SourceUnit:      sourceUnit,
		Priority:        x.Priority,
		ID:              x.ID,
		WebURL:          u.unitWeb(t.Component.Project.Slug, t.Component.Slug, t.LanguageCode, x.IDHash),
		URL:             u.unit(x.ID),
		Explanation:     x.Explanation,
		ExtraFlags:      x.ExtraFlags,
		Pending:         x.Pending,
		Timestamp:       timestamp(x.Timestamp),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// unitStore is what the unit endpoints read.
type unitStore interface {
	// FindUnits returns one page of units in ascending id order and the
	// number of matches.
	FindUnits(ctx context.Context, f index.UnitFilter) ([]index.Unit, int, error)
}

func (s *Server) unitResources() []resource {
	return []resource{
		{translationPath + "units/", "Units", []string{"GET", "POST", "HEAD", "OPTIONS"}, s.listTranslationUnits},
	}
}

// listTranslationUnits serves GET .../translations/P/C/L/units/: the
// translation's units in ascending id order, so count equals its total.
func (s *Server) listTranslationUnits(c *gin.Context) {
	t, err := s.findTranslation(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	units, pg, err := fetchPage(c, func(p index.Page) ([]index.Unit, int, error) {
		return s.store.FindUnits(c.Request.Context(), index.UnitFilter{TranslationID: t.ID, Page: p})
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	u := s.urlsFor(c)
	tURL := u.translation(t.Component.Project.Slug, t.Component.Slug, t.LanguageCode, "")
	out := make([]unitJSON, len(units))
	for i := range units {
		out[i] = newUnitJSON(u, &t, tURL, &units[i])
	}
	s.writeJSON(c, http.StatusOK, newList(c, u, pg, out))
}
