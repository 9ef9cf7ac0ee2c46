package api

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// changeRoutes registers the change lists of every scope.
func (s *Server) changeRoutes(r *edge.Router) {
	const allow = "GET, HEAD, OPTIONS"
	r.Resource(translationPath+"changes/", "Changes", allow, edge.Handlers{Get: s.listTranslationChanges})
	r.Resource(componentPath+"changes/", "Changes", allow, edge.Handlers{Get: s.listComponentChanges})
	r.Resource(projectPath+"changes/", "Changes", allow, edge.Handlers{Get: s.listProjectChanges})
	r.Resource("/api/changes/", "Change List", allow, edge.Handlers{Get: s.listAllChanges})
	r.Resource("/api/changes/:id/", "Change Instance", allow, edge.Handlers{Get: s.getChange})
}

// changeLinks builds the URLs of one page's changes as JSON fragments
// (see unitLinks), each distinct component, translation and user once.
// It is not safe for concurrent use.
type changeLinks struct {
	u            edge.URLs
	units        byIDJSON
	changes      byIDJSON
	components   map[[2]string][]byte
	translations map[[3]string][]byte
	users        map[string][]byte
}

func newChangeLinks(u edge.URLs) *changeLinks {
	return &changeLinks{u: u, units: newByIDJSON(u, "/api/units/"), changes: newByIDJSON(u, "/api/changes/"),
		components: map[[2]string][]byte{}, translations: map[[3]string][]byte{}, users: map[string][]byte{}}
}

// memo returns m[k], building it as the quoted url() on first use.
func memo[K comparable](m map[K][]byte, k K, url func() string) []byte {
	v, ok := m[k]
	if !ok {
		v = appendJSONString(nil, url())
		m[k] = v
	}
	return v
}

func (l *changeLinks) appendUser(b []byte, name string) []byte {
	if name == "" {
		return append(b, "null"...)
	}
	return append(b, memo(l.users, name, func() string { return *l.u.User(name) })...)
}

// changeItem is the Change object (spec, "Change"), written straight
// from the index's change, as unitItem writes units. Links to what the
// change is not tied to are null (spec, "Common response behaviour",
// rule 4). jsonappend_test.go holds the wire struct this must match byte
// for byte.
type changeItem struct {
	links  *changeLinks
	change *index.Change
	// listed shortens a long target (edge.ShortText): a list's items
	// are; the change's own URL, where the whole text is read, is not.
	listed bool
}

func (it *changeItem) AppendJSON(b []byte) []byte {
	l, ch := it.links, it.change
	b = append(b, `{"unit":`...)
	if ch.UnitID != 0 {
		b = l.units.appendURL(b, ch.UnitID)
	} else {
		b = append(b, "null"...)
	}
	p, c, lang := ch.ProjectSlug, ch.ComponentFullSlug(), ch.LanguageCode
	tied := p != "" && c != ""
	b = append(b, `,"component":`...)
	if tied {
		b = append(b, memo(l.components, [2]string{p, c}, func() string { return l.u.Component(p, c, "") })...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"translation":`...)
	if tied && lang != "" {
		b = append(b, memo(l.translations, [3]string{p, c, lang}, func() string {
			return l.u.Translation(p, c, lang, "")
		})...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"user":`...)
	b = l.appendUser(b, ch.UserName)
	b = append(b, `,"author":`...)
	b = l.appendUser(b, ch.AuthorName)
	b = append(b, `,"timestamp":"`...)
	b = appendTimestamp(b, ch.Timestamp)
	b = append(b, `","action":`...)
	b = appendJSONInt(b, int64(ch.Action))
	b = append(b, `,"target":`...)
	target := ch.Target
	if it.listed {
		target, _ = edge.ShortText(target)
	}
	b = appendJSONString(b, target)
	b = append(b, `,"id":`...)
	b = appendJSONInt(b, ch.ID)
	b = append(b, `,"action_name":`...)
	b = appendJSONString(b, ch.Action.Name())
	b = append(b, `,"url":`...)
	b = l.changes.appendURL(b, ch.ID)
	return append(b, '}')
}

// changeStore is what the change endpoints read.
type changeStore interface {
	// FindChanges returns one page of changes in ascending timestamp, then
	// id, order and the number of matches. The changes may be shared with
	// the store's cache: they must not be modified.
	FindChanges(ctx context.Context, f index.ChangeFilter) ([]index.Change, int, error)
	// FindChangeByID returns one change.
	FindChangeByID(ctx context.Context, id int64) (index.Change, error)
	// FindComponent returns a component by project and component slug.
	FindComponent(ctx context.Context, projectSlug, slug string) (index.Component, error)
	// FindProject returns a project by slug.
	FindProject(ctx context.Context, slug string) (index.Project, error)
}

// listTranslationChanges serves GET .../translations/P/C/L/changes/.
func (s *Server) listTranslationChanges(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.listChanges(c, index.ChangeFilter{TranslationID: t.ID})
}

// listComponentChanges serves GET /api/components/P/C/changes/.
func (s *Server) listComponentChanges(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.listChanges(c, index.ChangeFilter{ComponentID: comp.ID})
}

// listProjectChanges serves GET /api/projects/P/changes/.
func (s *Server) listProjectChanges(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.listChanges(c, index.ChangeFilter{ProjectID: p.ID})
}

// listAllChanges serves GET /api/changes/: those of the projects the
// principal may see, and those tied to no project.
func (s *Server) listAllChanges(c *gin.Context) {
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.listChanges(c, index.ChangeFilter{HiddenProjects: hidden})
}

// listChanges answers one change list: the changes within scope that
// pass the request's filters, in ascending timestamp, then id, order.
func (s *Server) listChanges(c *gin.Context, scope index.ChangeFilter) {
	f, err := changeFilter(c.Request.URL.Query(), scope)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	changes, pg, err := fetchPage(c, func(p index.Page) ([]index.Change, int, error) {
		f.Page = p
		return s.store.FindChanges(c.Request.Context(), f)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	writeListPage(s, c, changes, pg, func() any {
		u := s.edge.URLsFor(c)
		links := newChangeLinks(u)
		out := make([]changeItem, len(changes))
		for i := range changes {
			out[i] = changeItem{links, &changes[i], true}
		}
		return newList(c, u, pg, out)
	})
}

// getChange serves GET /api/changes/:id/.
func (s *Server) getChange(c *gin.Context) {
	id, err := pathID(c, "id")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	ch, err := s.store.FindChangeByID(c.Request.Context(), id)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if hidden, err := s.edge.HiddenProject(c, ch.ProjectID); err != nil || hidden {
		s.edge.Fail(c, cmp.Or(err, edge.ErrNoRoute))
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, &changeItem{newChangeLinks(s.edge.URLsFor(c)), &ch, false})
}

// changeFilter adds the reference's change filters to scope: action
// (repeatable; any of them), user (exact username of the acting user)
// and timestamp_after / timestamp_before (ISO 8601, both inclusive; a
// time without zone is UTC, the reference's default). Bad values are
// reported together, on the reference's field names: "action" and
// "timestamp" (the two bounds are one range field there).
func changeFilter(q url.Values, scope index.ChangeFilter) (index.ChangeFilter, error) {
	f := scope
	problems := map[string]index.FieldProblem{}
	for _, v := range q["action"] {
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if a := index.Action(n); err != nil || !a.Valid() {
			problems["action"] = index.FieldProblem{Code: "invalid_choice",
				Detail: fmt.Sprintf("Select a valid choice. %s is not one of the available choices.", v)}
			break
		}
		f.Actions = append(f.Actions, index.Action(n))
	}
	f.UserName = q.Get("user")
	// The index's bounds are exclusive and its times have microseconds:
	// t <= x <= u becomes ceil(t)-1µs < x < floor(u)+1µs.
	if v := q.Get("timestamp_after"); v != "" {
		t, err := parseISOTime(v)
		if err != nil {
			problems["timestamp"] = invalidTime
		} else {
			ceil := t.Truncate(time.Microsecond)
			if ceil.Before(t) {
				ceil = ceil.Add(time.Microsecond)
			}
			f.After = ceil.Add(-time.Microsecond)
		}
	}
	if v := q.Get("timestamp_before"); v != "" {
		t, err := parseISOTime(v)
		if err != nil {
			problems["timestamp"] = invalidTime
		} else {
			f.Before = t.Truncate(time.Microsecond).Add(time.Microsecond)
		}
	}
	if len(problems) > 0 {
		return f, &index.FieldError{Fields: problems}
	}
	return f, nil
}

var invalidTime = index.FieldProblem{Code: "invalid", Detail: "Enter a valid date/time."}

// isoLayouts are the ISO 8601 forms accepted for timestamps, after a
// space between date and time has become a "T". Fractions of a second
// are accepted after the seconds of any layout.
var isoLayouts = []string{
	"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05",
	"2006-01-02T15:04Z07:00", "2006-01-02T15:04Z0700", "2006-01-02T15:04",
	"2006-01-02",
}

// parseISOTime parses an ISO 8601 date or date-time; without a zone it
// is UTC.
func parseISOTime(v string) (time.Time, error) {
	if len(v) > 10 && v[10] == ' ' {
		v = v[:10] + "T" + v[11:]
	}
	for _, layout := range isoLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not an ISO 8601 time: %q", v)
}
