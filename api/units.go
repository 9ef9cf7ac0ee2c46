package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// unitRoutes registers the units; their writes are in units_write.go.
func (s *Server) unitRoutes(r *edge.Router) {
	r.Resource(translationPath+"units/", "Units", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listTranslationUnits, Post: s.addUnit})
	r.Resource("/api/units/", "Unit List", "GET, HEAD, OPTIONS", edge.Handlers{Get: s.listUnits})
	r.Resource("/api/units/:id/", "Unit Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getUnit, Delete: s.deleteUnit,
			Put:   func(c *gin.Context) { s.updateUnit(c, true) },
			Patch: func(c *gin.Context) { s.updateUnit(c, false) }})
}

// unitLinks is what the URLs of one translation's units share, built
// once per translation rather than once per unit of a page.
// The URLs are kept as JSON fragments: escaping them once is escaping
// every URL built from them, since what is appended per unit (digits,
// slashes, the format suffix) never needs escaping.
type unitLinks struct {
	translationJSON []byte // the quoted translation URL
	units           byIDJSON
	editorJSON      []byte // an opening quote and the escaped editor URL
	editorTail      string // what follows the checksum, closing quote included
}

func newUnitLinks(u edge.URLs, t *index.Translation) *unitLinks {
	p, c, lang := t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode
	editor := u
	editor.FormatAPI = false // the checksum comes first
	l := &unitLinks{
		translationJSON: appendJSONString(nil, u.Translation(p, c, lang, "")),
		units:           newByIDJSON(u, "/api/units/"),
		editorJSON:      openJSONString(editor.Translate(p, c, lang) + "?checksum="),
		editorTail:      `"`,
	}
	if u.FormatAPI {
		l.editorTail = `&format=api"`
	}
	return l
}

// appendChecksum appends the editor's checksum of a unit: the hex of
// its unsigned id_hash, as the reference addresses it.
func appendChecksum(b []byte, idHash int64) []byte {
	return strconv.AppendUint(b, uint64(idHash)+1<<63, 16)
}

// unitItem is the Unit object (spec, "Unit"), written straight from the
// index's unit: copying a page's 50 units into wire structs first meant
// building 29 fields each, URLs and timestamps among them, as strings
// that were copied again into the body. jsonappend_test.go holds the
// wire struct this must match byte for byte.
type unitItem struct {
	links *unitLinks
	unit  *index.Unit
}

func (it *unitItem) AppendJSON(b []byte) []byte {
	l, x := it.links, it.unit
	b = append(b, `{"translation":`...)
	b = append(b, l.translationJSON...)
	b = append(b, `,"source":`...)
	b = appendJSONStrings(b, nonNil(x.Source))
	b = append(b, `,"previous_source":`...)
	b = appendJSONString(b, x.PreviousSource)
	b = append(b, `,"target":`...)
	b = appendJSONStrings(b, nonNil(x.Target))
	b = append(b, `,"id_hash":`...)
	b = appendJSONInt(b, x.IDHash)
	b = append(b, `,"content_hash":`...)
	b = appendJSONInt(b, x.ContentHash)
	b = append(b, `,"location":`...)
	b = appendJSONString(b, x.Location)
	b = append(b, `,"context":`...)
	b = appendJSONString(b, x.Context)
	b = append(b, `,"note":`...)
	b = appendJSONString(b, x.Note)
	b = append(b, `,"flags":`...)
	b = appendJSONString(b, x.Flags)
	b = append(b, `,"labels":`...)
	b = appendLabels(b, x.Labels)
	b = append(b, `,"state":`...)
	b = appendJSONInt(b, int64(x.State))
	b = append(b, `,"fuzzy":`...)
	b = appendJSONBool(b, x.State.Fuzzy())
	b = append(b, `,"translated":`...)
	b = appendJSONBool(b, x.State.Translated())
	b = append(b, `,"approved":`...)
	b = appendJSONBool(b, x.State.Approved())
	b = append(b, `,"position":`...)
	b = appendJSONInt(b, int64(x.Position))
	b = append(b, `,"has_suggestion":`...)
	b = appendJSONBool(b, x.HasSuggestion)
	b = append(b, `,"has_comment":`...)
	b = appendJSONBool(b, x.HasComment)
	b = append(b, `,"has_failing_check":`...)
	b = appendJSONBool(b, x.HasFailingCheck)
	b = append(b, `,"num_words":`...)
	b = appendJSONInt(b, int64(x.NumWords))
	b = append(b, `,"source_unit":`...)
	if x.SourceUnitID != 0 {
		b = l.units.appendURL(b, x.SourceUnitID)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"priority":`...)
	b = appendJSONInt(b, int64(x.Priority))
	b = append(b, `,"id":`...)
	b = appendJSONInt(b, x.ID)
	b = append(b, `,"web_url":`...)
	b = append(b, l.editorJSON...)
	b = appendChecksum(b, x.IDHash)
	b = append(b, l.editorTail...)
	b = append(b, `,"url":`...)
	b = l.units.appendURL(b, x.ID)
	b = append(b, `,"explanation":`...)
	b = appendJSONString(b, x.Explanation)
	b = append(b, `,"extra_flags":`...)
	b = appendJSONString(b, x.ExtraFlags)
	b = append(b, `,"pending":`...)
	b = appendJSONBool(b, x.Pending)
	b = append(b, `,"timestamp":"`...)
	b = appendTimestamp(b, x.Timestamp)
	b = append(b, `","automatically_translated":`...)
	b = appendJSONBool(b, x.AutomaticallyTranslated)
	return append(b, '}')
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
	// number of matches. The units may be shared with the store's cache:
	// they must not be modified.
	FindUnits(ctx context.Context, f index.UnitFilter) ([]index.Unit, int, error)
	// FindUnitByID returns one unit.
	FindUnitByID(ctx context.Context, id int64) (index.Unit, error)
	// FindTranslationByID returns a translation with its component,
	// project and language, which a unit's translation URL needs.
	FindTranslationByID(ctx context.Context, id int64) (index.Translation, error)
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

// unitSort reads sort_by (index.ParseUnitSort): a 400 on sort_by for a
// key the list cannot sort by.
func unitSort(c *gin.Context) ([]index.UnitSort, error) {
	return index.ParseUnitSort(c.Query("sort_by"))
}

// listTranslationUnits serves GET .../translations/P/C/L/units/: the
// translation's units matching q in ascending id order (or sort_by's),
// so without q the count equals its total.
func (s *Server) listTranslationUnits(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	q, err := unitQuery(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	sort, err := unitSort(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	units, pg, err := fetchPage(c, func(p index.Page) ([]index.Unit, int, error) {
		return s.store.FindUnits(c.Request.Context(), index.UnitFilter{TranslationID: t.ID, Query: q, Sort: sort, Page: p})
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	writeListPage(s, c, units, pg, func() any {
		u := s.edge.URLsFor(c)
		links := newUnitLinks(u, &t)
		out := make([]unitItem, len(units))
		for i := range units {
			out[i] = unitItem{links, &units[i]}
		}
		return newList(c, u, pg, out)
	})
}

// listUnits serves GET /api/units/: every unit matching q that the
// principal may see, in ascending id order (or sort_by's).
func (s *Server) listUnits(c *gin.Context) {
	q, err := unitQuery(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	sort, err := unitSort(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	units, pg, err := fetchPageOf(c, largePages, func(p index.Page) ([]index.Unit, int, error) {
		return s.store.FindUnits(c.Request.Context(), index.UnitFilter{Query: q, HiddenProjects: hidden, Sort: sort, Page: p})
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out, err := s.unitsJSON(c, units)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, s.edge.URLsFor(c), pg, out))
}

// findUnit resolves the unit of the path and its translation: 404 for a
// unit that does not exist or that the caller may not see. The
// translation lookup is cached, and unitsJSON needs it anyway.
func (s *Server) findUnit(c *gin.Context) (index.Unit, index.Translation, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return index.Unit{}, index.Translation{}, err
	}
	return s.visibleUnit(c, id)
}

// visibleUnit finds unit id and its translation: ErrNotFound for a unit
// that does not exist or that the caller may not see, as for the
// objects hanging off a unit (its suggestions, its comments).
func (s *Server) visibleUnit(c *gin.Context, id int64) (index.Unit, index.Translation, error) {
	u, err := s.store.FindUnitByID(c.Request.Context(), id)
	if err != nil {
		return u, index.Translation{}, err
	}
	t, err := s.store.FindTranslationByID(c.Request.Context(), u.TranslationID)
	if err == nil {
		err = edge.Visible(c, &t.Component.Project)
	}
	return u, t, err
}

// getUnit serves GET /api/units/:id/.
func (s *Server) getUnit(c *gin.Context) {
	unit, _, err := s.findUnit(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out, err := s.unitsJSON(c, []index.Unit{unit})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, &out[0])
}

// unitsJSON converts units of any translations, looking each distinct
// translation up once for the slugs its URL needs.
func (s *Server) unitsJSON(c *gin.Context, units []index.Unit) ([]unitItem, error) {
	u := s.edge.URLsFor(c)
	owners := map[int64]*unitLinks{}
	out := make([]unitItem, len(units))
	for i := range units {
		o := owners[units[i].TranslationID]
		if o == nil {
			t, err := s.store.FindTranslationByID(c.Request.Context(), units[i].TranslationID)
			if err != nil {
				// The unit exists, so its translation must: a miss is
				// internal, not the client's 404, hence %v over %w.
				return nil, fmt.Errorf("translation %d of unit %d: %v", units[i].TranslationID, units[i].ID, err)
			}
			o = newUnitLinks(u, &t)
			owners[t.ID] = o
		}
		out[i] = unitItem{o, &units[i]}
	}
	return out, nil
}

// pathID reads a numeric id from the path. Anything but a positive
// decimal integer names no object, which the reference answers with 404.
func pathID(c *gin.Context, name string) (int64, error) {
	v := c.Param(name)
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 1 || strings.TrimLeft(v, "0123456789") != "" {
		return 0, edge.ErrNoRoute
	}
	return id, nil
}
