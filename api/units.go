package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

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

// unitLinks is what the URLs of one translation's units share, built
// once per translation rather than once per unit of a page.
type unitLinks struct {
	u           urls
	translation string // the translation's API URL
	editor      string // the translate page, to which ?checksum= is added
}

func newUnitLinks(u urls, t *index.Translation) unitLinks {
	p, c, l := t.Component.Project.Slug, t.Component.Slug, t.LanguageCode
	editor := u
	editor.formatAPI = false // the checksum comes first; abs-style suffix added per unit
	return unitLinks{u: u, translation: u.translation(p, c, l, ""), editor: editor.abs(join("translate", p, c, l), "")}
}

// web is urls.unitWeb for this translation.
func (l *unitLinks) web(idHash int64) string {
	b := make([]byte, 0, len(l.editor)+40)
	b = append(b, l.editor...)
	b = append(b, "?checksum="...)
	b = strconv.AppendUint(b, uint64(idHash)+1<<63, 16)
	if l.u.formatAPI {
		b = append(b, "&format=api"...)
	}
	return string(b)
}

// newUnitJSON converts a unit of the translation l links to.
func newUnitJSON(l *unitLinks, x *index.Unit) unitJSON {
	var sourceUnit *string
	if x.SourceUnitID != 0 {
		sourceUnit = ptr(l.u.unit(x.SourceUnitID))
	}
	return unitJSON{
		Translation:     l.translation,
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
		WebURL:          l.web(x.IDHash),
		URL:             l.u.unit(x.ID),
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
	// FindUnitByID returns one unit.
	FindUnitByID(ctx context.Context, id int64) (index.Unit, error)
	// FindTranslationByID returns a translation with its component,
	// project and language, which a unit's translation URL needs.
	FindTranslationByID(ctx context.Context, id int64) (index.Translation, error)
}

func (s *Server) unitResources() []resource {
	return []resource{
		{translationPath + "units/", "Units", []string{"GET", "POST", "HEAD", "OPTIONS"}, s.listTranslationUnits},
		{"/api/units/", "Unit List", []string{"GET", "HEAD", "OPTIONS"}, s.listUnits},
		{"/api/units/:id/", "Unit Instance", []string{"GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}, s.getUnit},
	}
}

// unitQuery reads the search q. It is parsed here, before any lookup of
// the page, so a bad query is a 400 on q whatever the engine.
func unitQuery(c *gin.Context) (string, error) {
	q := c.Query("q")
	if _, err := index.ParseUnitQuery(q); err != nil {
		return "", err
	}
	return q, nil
}

// listTranslationUnits serves GET .../translations/P/C/L/units/: the
// translation's units matching q in ascending id order, so without q the
// count equals its total.
func (s *Server) listTranslationUnits(c *gin.Context) {
	t, err := s.findTranslation(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	q, err := unitQuery(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	units, pg, err := fetchPage(c, func(p index.Page) ([]index.Unit, int, error) {
		return s.store.FindUnits(c.Request.Context(), index.UnitFilter{TranslationID: t.ID, Query: q, Page: p})
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	u := s.urlsFor(c)
	links := newUnitLinks(u, &t)
	out := make([]unitJSON, len(units))
	for i := range units {
		out[i] = newUnitJSON(&links, &units[i])
	}
	s.writeJSON(c, http.StatusOK, newList(c, u, pg, out))
}

// listUnits serves GET /api/units/: every unit matching q, in ascending
// id order.
func (s *Server) listUnits(c *gin.Context) {
	q, err := unitQuery(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	units, pg, err := fetchPageOf(c, largePages, func(p index.Page) ([]index.Unit, int, error) {
		return s.store.FindUnits(c.Request.Context(), index.UnitFilter{Query: q, Page: p})
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	out, err := s.unitsJSON(c, units)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.writeJSON(c, http.StatusOK, newList(c, s.urlsFor(c), pg, out))
}

// getUnit serves GET /api/units/:id/.
func (s *Server) getUnit(c *gin.Context) {
	id, err := pathID(c, "id")
	if err != nil {
		s.fail(c, err)
		return
	}
	unit, err := s.store.FindUnitByID(c.Request.Context(), id)
	if err != nil {
		s.fail(c, err)
		return
	}
	out, err := s.unitsJSON(c, []index.Unit{unit})
	if err != nil {
		s.fail(c, err)
		return
	}
	s.writeJSON(c, http.StatusOK, out[0])
}

// unitsJSON converts units of any translations, looking each distinct
// translation up once for the slugs its URL needs.
func (s *Server) unitsJSON(c *gin.Context, units []index.Unit) ([]unitJSON, error) {
	u := s.urlsFor(c)
	owners := map[int64]*unitLinks{}
	out := make([]unitJSON, len(units))
	for i := range units {
		o := owners[units[i].TranslationID]
		if o == nil {
			t, err := s.store.FindTranslationByID(c.Request.Context(), units[i].TranslationID)
			if err != nil {
				// The unit exists, so its translation must: a miss is
				// internal, not the client's 404, hence %v over %w.
				return nil, fmt.Errorf("translation %d of unit %d: %v", units[i].TranslationID, units[i].ID, err)
			}
			links := newUnitLinks(u, &t)
			o = &links
			owners[t.ID] = o
		}
		out[i] = newUnitJSON(o, &units[i])
	}
	return out, nil
}

// pathID reads a numeric id from the path. Anything but a positive
// decimal integer names no object, which the reference answers with 404.
func pathID(c *gin.Context, name string) (int64, error) {
	v := c.Param(name)
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 1 || strings.TrimLeft(v, "0123456789") != "" {
		return 0, errNoRoute
	}
	return id, nil
}
