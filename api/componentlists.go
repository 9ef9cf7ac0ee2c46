package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// componentListRoutes registers the component lists (the reference's
// ComponentListViewSet).
func (s *Server) componentListRoutes(r *edge.Router) {
	r.Resource("/api/component-lists/", "Component List List", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listComponentLists, Post: s.createComponentList})
	r.Resource(componentListPath, "Component List Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getComponentList, Put: s.updateComponentList(false),
			Patch: s.updateComponentList(true), Delete: s.deleteComponentList})
	r.Resource(componentListPath+"components/", "Component List Instance", "POST, OPTIONS",
		edge.Handlers{Post: s.addListComponent})
	r.Resource(componentListPath+"components/:component_slug/", "Component List Instance", "DELETE, OPTIONS",
		edge.Handlers{Delete: s.removeListComponent})
}

// componentListStore is what the component list endpoints read and
// write.
type componentListStore interface {
	// FindComponentListPage returns one page of the lists in ascending
	// id order, with their components, and their number.
	FindComponentListPage(ctx context.Context, pg index.Page) ([]index.ComponentList, int, error)
	// FindComponentList returns a list with its components by slug.
	FindComponentList(ctx context.Context, slug string) (index.ComponentList, error)
	// FindComponentListByID returns a list with its components by id.
	FindComponentListByID(ctx context.Context, id int64) (index.ComponentList, error)
	// CreateComponentList adds a list; a name or slug taken is an
	// *index.FieldError.
	CreateComponentList(ctx context.Context, l index.ComponentList) (index.ComponentList, error)
	// UpdateComponentList applies update in one transaction and returns
	// the list.
	UpdateComponentList(ctx context.Context, id int64, update func(*index.ComponentList) error) (index.ComponentList, error)
	// DeleteComponentList removes a list.
	DeleteComponentList(ctx context.Context, id int64) error
	// LinkComponentList adds or removes a component of a list.
	LinkComponentList(ctx context.Context, listID, componentID int64, add bool) error
}

// componentListPath is the route of one component list, by slug as the
// reference's.
const componentListPath = "/api/component-lists/:list/"

// componentListURL is the API URL of a component list.
func componentListURL(u edge.URLs, slug, sub string) string {
	if sub == "" {
		return u.Abs(edge.Join("api", "component-lists", slug), "")
	}
	return u.Abs(edge.Join("api", "component-lists", slug, sub), "")
}

// autoAssignJSON is one of the reference's automatic assignment rules.
type autoAssignJSON struct {
	ProjectMatch   string `json:"project_match"`
	ComponentMatch string `json:"component_match"`
}

// componentListJSON is the reference's ComponentList object
// (ComponentListSerializer), in its key order. auto_assign is read-only
// there (its rules are written in the admin interface); Tolk takes it on
// POST, PUT and PATCH too, as the reference's shape, so that a list can
// be set up through the API alone.
type componentListJSON struct {
	Name          string           `json:"name"`
	Slug          string           `json:"slug"`
	ID            int64            `json:"id"`
	ShowDashboard bool             `json:"show_dashboard"`
	Components    []string         `json:"components"`
	AutoAssign    []autoAssignJSON `json:"auto_assign"`
	URL           string           `json:"url"`
}

// newComponentListJSON builds the list's object, leaving out the
// components of projects the principal may not see.
func newComponentListJSON(c *gin.Context, u edge.URLs, l *index.ComponentList) componentListJSON {
	out := componentListJSON{Name: l.Name, Slug: l.Slug, ID: l.ID, ShowDashboard: l.ShowDashboard,
		Components: []string{}, AutoAssign: []autoAssignJSON{}, URL: componentListURL(u, l.Slug, "")}
	for _, comp := range visibleListComponents(c, l) {
		out.Components = append(out.Components, u.Component(comp.Project.Slug, comp.FullSlug(), ""))
	}
	for _, a := range l.AutoAssign {
		out.AutoAssign = append(out.AutoAssign, autoAssignJSON{ProjectMatch: a.ProjectMatch, ComponentMatch: a.ComponentMatch})
	}
	return out
}

// visibleListComponents are the components of l the principal may see.
func visibleListComponents(c *gin.Context, l *index.ComponentList) []index.Component {
	var out []index.Component
	for _, comp := range l.Components {
		if edge.Visible(c, &comp.Project) == nil {
			out = append(out, comp)
		}
	}
	return out
}

// listComponentLists serves GET /api/component-lists/.
func (s *Server) listComponentLists(c *gin.Context) {
	writePage(s, c, func(p index.Page) ([]index.ComponentList, int, error) {
		return s.store.FindComponentListPage(c.Request.Context(), p)
	}, func(u edge.URLs, l *index.ComponentList) componentListJSON {
		return newComponentListJSON(c, u, l)
	})
}

// getComponentList serves GET /api/component-lists/:list/.
func (s *Server) getComponentList(c *gin.Context) {
	l, err := s.store.FindComponentList(c.Request.Context(), c.Param("list"))
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newComponentListJSON(c, s.edge.URLsFor(c), &l))
}

// msgManageComponentLists refuses a component list write.
const msgManageComponentLists = "Can not manage component lists"

// componentListRequired are the fields a list's create and PUT need.
var componentListRequired = []string{"name", "slug"}

// readComponentList reads a list's name, slug and show_dashboard into l.
func readComponentList(pl *payload, l *index.ComponentList, required []string) {
	pl.require(required...)
	readName(pl, &l.Name, &l.Slug, index.ComponentListNameLength)
	if v, ok := pl.flag("show_dashboard", false); ok {
		l.ShowDashboard = v
	}
	if rules, ok := readAutoAssign(pl); ok {
		l.AutoAssign = rules
	}
}

// readAutoAssign reads auto_assign: a list of at most
// index.MaxAutoAssignRules objects whose project_match and
// component_match are regular expressions (each "^$", the reference's
// default, when left out). ok is false when it is absent or wrong, the
// problem recorded on auto_assign.
func readAutoAssign(pl *payload) ([]index.AutoAssign, bool) {
	raw, ok := pl.present("auto_assign", false)
	if !ok {
		return nil, false
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		pl.fail("auto_assign", "not_a_list", fmt.Sprintf("Expected a list of items but got type \"%s\".", rawKind(raw)))
		return nil, false
	}
	if len(items) > index.MaxAutoAssignRules {
		pl.fail("auto_assign", "max_length", fmt.Sprintf("Ensure this field has no more than %d elements.", index.MaxAutoAssignRules))
		return nil, false
	}
	rules := make([]index.AutoAssign, 0, len(items))
	for i, item := range items {
		var obj map[string]json.RawMessage
		if json.Unmarshal(item, &obj) != nil || obj == nil {
			pl.fail("auto_assign", "invalid", fmt.Sprintf("Item %d: expected a dictionary, but got %s.", i, rawKind(item)))
			return nil, false
		}
		a := index.AutoAssign{ProjectMatch: "^$", ComponentMatch: "^$"}
		for _, f := range []struct {
			name string
			dst  *string
		}{{"project_match", &a.ProjectMatch}, {"component_match", &a.ComponentMatch}} {
			v, ok := obj[f.name]
			if !ok {
				continue
			}
			if json.Unmarshal(v, f.dst) != nil {
				pl.fail("auto_assign", "invalid", fmt.Sprintf("Item %d: %s: not a valid string.", i, f.name))
				return nil, false
			}
			if utf8.RuneCountInString(*f.dst) > index.AutoAssignRegexLength || strings.ContainsRune(*f.dst, 0) {
				pl.fail("auto_assign", "invalid", fmt.Sprintf("Item %d: %s: ensure this field has no more than %d characters and no NUL.",
					i, f.name, index.AutoAssignRegexLength))
				return nil, false
			}
			if _, err := index.CompileAutoAssign(*f.dst); err != nil {
				pl.fail("auto_assign", "invalid", fmt.Sprintf("Item %d: %s: invalid regular expression: %v", i, f.name, err))
				return nil, false
			}
		}
		rules = append(rules, a)
	}
	return rules, true
}

// createComponentList serves POST /api/component-lists/: name and slug
// required, show_dashboard optional (true); 201. Needs componentlist.edit.
func (s *Server) createComponentList(c *gin.Context) {
	if err := edge.Authorize(c, index.PermComponentListEdit, 0, msgManageComponentLists); err != nil {
		s.edge.Fail(c, err)
		return
	}
	pl, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	l := index.ComponentList{ShowDashboard: true}
	readComponentList(pl, &l, componentListRequired)
	if err := pl.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	l, err = s.store.CreateComponentList(c.Request.Context(), l)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	body := newComponentListJSON(c, s.edge.URLsFor(c), &l)
	c.Header("Location", body.URL)
	s.edge.WriteJSON(c, http.StatusCreated, body)
}

// writableComponentList resolves the list of the request path for a
// change: 404 when there is none, 403 without componentlist.edit.
func (s *Server) writableComponentList(c *gin.Context) (index.ComponentList, error) {
	l, err := s.store.FindComponentList(c.Request.Context(), c.Param("list"))
	if err == nil {
		err = edge.Authorize(c, index.PermComponentListEdit, 0, msgManageComponentLists)
	}
	return l, err
}

// updateComponentList serves PUT (partial false: name and slug
// required) and PATCH on /api/component-lists/:list/.
func (s *Server) updateComponentList(partial bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		l, err := s.writableComponentList(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		pl, err := readPayload(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		in := l
		readComponentList(pl, &in, requiredUnless(partial, componentListRequired...))
		if err := pl.err(); err != nil {
			s.edge.Fail(c, err)
			return
		}
		l, err = s.store.UpdateComponentList(c.Request.Context(), l.ID, func(q *index.ComponentList) error {
			q.Name, q.Slug, q.ShowDashboard = in.Name, in.Slug, in.ShowDashboard
			if pl.has("auto_assign") { // a write without it keeps the rules
				q.AutoAssign = in.AutoAssign
			}
			return nil
		})
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, newComponentListJSON(c, s.edge.URLsFor(c), &l))
	}
}

// deleteComponentList serves DELETE /api/component-lists/:list/: 204.
func (s *Server) deleteComponentList(c *gin.Context) {
	l, err := s.writableComponentList(c)
	if err == nil {
		err = s.store.DeleteComponentList(c.Request.Context(), l.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}

// addListComponent serves POST /api/component-lists/:list/components/:
// the component whose id component_id gives joins the list; 200 with
// the list (the reference answers with the list too).
func (s *Server) addListComponent(c *gin.Context) {
	l, err := s.writableComponentList(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	pl, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	v, err := readLinkValue(pl, "component_id")
	var id int64
	if err == nil {
		id, err = findComponentID(s, c, v)
	}
	ctx := c.Request.Context()
	if err == nil {
		err = s.store.LinkComponentList(ctx, l.ID, id, true)
	}
	if err == nil {
		l, err = s.store.FindComponentListByID(ctx, l.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newComponentListJSON(c, s.edge.URLsFor(c), &l))
}

// errAmbiguousSlug refuses removing a component by a slug that names
// several of the list's (of different projects): the reference's route
// takes the slug alone and would fail the same way.
var errAmbiguousSlug = index.Errorf(index.ErrInvalid, "Several components of the list have this slug; remove the others first.")

// removeListComponent serves DELETE
// /api/component-lists/:list/components/:component_slug/: 204, or 404
// when the list has no visible component of that slug.
func (s *Server) removeListComponent(c *gin.Context) {
	l, err := s.writableComponentList(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	var found []int64
	for _, comp := range visibleListComponents(c, &l) {
		if comp.Slug == c.Param("component_slug") {
			found = append(found, comp.ID)
		}
	}
	switch {
	case len(found) == 0:
		err = edge.ErrNoRoute
	case len(found) > 1:
		err = errAmbiguousSlug
	default:
		err = s.store.LinkComponentList(c.Request.Context(), l.ID, found[0], false)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}
