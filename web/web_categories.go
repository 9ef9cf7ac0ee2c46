package web

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// categoryStore is what the category pages read.
type categoryStore interface {
	// FindCategoryPage returns one page of a project's categories (all
	// with a zero page) and their number.
	FindCategoryPage(ctx context.Context, projectID int64, pg index.Page, hidden ...int64) ([]index.Category, int, error)
	// CategoryStats sums the statistics of the components in a
	// category and its subcategories.
	CategoryStats(ctx context.Context, id int64) (index.Stats, error)
}

// projectCategories is a project's categories with their paths
// (Component.CategoryPath's form), by id.
type projectCategories struct {
	byID map[int64]index.Category
	path map[int64]string
}

func (s *Server) projectCategories(ctx context.Context, projectID int64) (projectCategories, error) {
	all, _, err := s.store.FindCategoryPage(ctx, projectID, index.Page{})
	if err != nil {
		return projectCategories{}, err
	}
	pc := projectCategories{byID: map[int64]index.Category{}, path: map[int64]string{}}
	for _, k := range all {
		pc.byID[k.ID] = k
	}
	var pathOf func(id int64, depth int) string
	pathOf = func(id int64, depth int) string {
		k, ok := pc.byID[id]
		if !ok || depth > index.MaxCategoryDepth {
			return ""
		}
		if k.CategoryID == 0 {
			return k.Slug
		}
		return pathOf(k.CategoryID, depth+1) + "/" + k.Slug
	}
	for id := range pc.byID {
		pc.path[id] = pathOf(id, 1)
	}
	return pc, nil
}

// children are the categories directly inside parent (0: the project's
// top level), by name.
func (pc projectCategories) children(parent int64) []index.Category {
	var out []index.Category
	for _, k := range pc.byID {
		if k.CategoryID == parent {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b index.Category) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// categoryLinks are the links to a project's top-level categories, for
// its page: the way into the category pages.
func (s *Server) categoryLinks(ctx context.Context, u edge.URLs, p *index.Project) ([]webLink, error) {
	pc, err := s.projectCategories(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	var out []webLink
	for _, k := range pc.children(0) {
		out = append(out, webLink{Name: "Category: " + k.Name, URL: u.CategoryWeb(p.Slug, k.Slug)})
	}
	return out, nil
}

// find returns the category with the given path.
func (pc projectCategories) find(path string) (index.Category, bool) {
	for id, p := range pc.path {
		if p == path {
			return pc.byID[id], true
		}
	}
	return index.Category{}, false
}

// crumbs are the links of a category's parents and itself, outermost
// first, after the project's.
func (pc projectCategories) crumbs(u edge.URLs, p *index.Project, id int64) []webLink {
	var chain []index.Category
	for k, ok := pc.byID[id]; ok && len(chain) <= index.MaxCategoryDepth; k, ok = pc.byID[k.CategoryID] {
		chain = append([]index.Category{k}, chain...)
	}
	out := []webLink{{Name: p.Name, URL: u.ProjectWeb(p.Slug)}}
	for _, k := range chain {
		out = append(out, webLink{Name: k.Name, URL: u.CategoryWeb(p.Slug, strings.Split(pc.path[k.ID], "/")...)})
	}
	return out
}

// categoryPage serves a category's page, /projects/:project/cat[/sub…]/
// (the edge folds the path into the component segment, and componentPage
// hands over what names no component): its statistics, its
// subcategories and its components, each with its translated share, and
// the breadcrumbs of its parents.
func (s *Server) categoryPage(c *gin.Context, path string) error {
	ctx := c.Request.Context()
	p, err := s.edge.FindProject(c)
	if err != nil {
		return err
	}
	pc, err := s.projectCategories(ctx, p.ID)
	if err != nil {
		return err
	}
	k, ok := pc.find(path)
	if !ok {
		return index.ErrNotFound
	}
	st, err := s.store.CategoryStats(ctx, k.ID)
	if err != nil {
		return err
	}
	u := s.edge.PageURLs(c)
	page := s.newPage(c, k.Name)
	page.Crumbs = pc.crumbs(u, &p, k.CategoryID)
	page.Stats, page.ListName = statRows(&st), "Categories and components"
	page.APIURL = u.Category(k.ID, "")
	for _, sub := range pc.children(k.ID) {
		id := sub.ID
		sst, err := s.store.CategoryStats(ctx, id)
		if err != nil {
			return err
		}
		page.List = append(page.List, progressRow(sub.Name, u.CategoryWeb(p.Slug, strings.Split(pc.path[id], "/")...),
			sst.Translated, sst.Total))
	}
	comps, err := s.store.FindComponents(ctx, p.ID)
	if err != nil {
		return err
	}
	for _, comp := range comps {
		if comp.CategoryID != k.ID {
			continue
		}
		cst, err := s.store.ComponentStats(ctx, comp.ID)
		if err != nil {
			return err
		}
		page.List = append(page.List, progressRow(comp.Name, u.ComponentWeb(p.Slug, comp.FullSlug()), cst.Translated, cst.Total))
	}
	if len(page.List) == 0 {
		page.Note = "This category is empty."
	}
	s.writePage(c, http.StatusOK, page)
	return nil
}

// componentOrCategory serves /projects/:project/:component/: the
// component's page, or the category's the path names instead.
func (s *Server) componentOrCategory(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	switch {
	case errors.Is(err, index.ErrNotFound):
		if err := s.categoryPage(c, c.Param("component")); err != nil {
			s.failPage(c, err)
		}
	case err != nil:
		s.failPage(c, err)
	default:
		s.componentPage(c, comp)
	}
}

// componentCrumbs are the links above a component's page: its project's
// and its categories', outermost first. A component outside categories
// costs no query.
func (s *Server) componentCrumbs(c *gin.Context, u edge.URLs, comp *index.Component) []webLink {
	p := &comp.Project
	if comp.CategoryID == 0 {
		return []webLink{{Name: p.Name, URL: u.ProjectWeb(p.Slug)}}
	}
	pc, err := s.projectCategories(c.Request.Context(), p.ID)
	if err != nil { // the links are a convenience: the page goes on with the project's
		return []webLink{{Name: p.Name, URL: u.ProjectWeb(p.Slug)}}
	}
	return pc.crumbs(u, p, comp.CategoryID)
}
