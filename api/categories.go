package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// categoryRoutes registers the categories (the reference's
// CategoryViewSet) and a project's list of them.
func (s *Server) categoryRoutes(r *edge.Router) {
	r.Resource("/api/categories/", "Category List", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listCategories, Post: s.createCategory})
	r.Resource(categoryPath, "Category Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getCategory, Put: s.updateCategory(false), Patch: s.updateCategory(true),
			Delete: s.deleteCategory})
	r.Resource(categoryPath+"statistics/", "Statistics", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.getCategoryStatistics})
	r.Resource(projectPath+"categories/", "Categories", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.listProjectCategories})
}

// categoryStore is what the category endpoints read and write.
type categoryStore interface {
	// FindCategory returns a category with its project by id.
	FindCategory(ctx context.Context, id int64) (index.Category, error)
	// FindCategoryPage returns one page of the categories of a project
	// (of every project for 0) in ascending id order and their number,
	// leaving out those of the projects whose ids are hidden.
	FindCategoryPage(ctx context.Context, projectID int64, pg index.Page, hidden ...int64) ([]index.Category, int, error)
	// CreateCategory adds a category; a parent of another project, too
	// deep a nesting or a name or slug taken is a *index.FieldError.
	CreateCategory(ctx context.Context, k index.Category) (index.Category, error)
	// UpdateCategory applies update in one transaction, checked as
	// CreateCategory checks, and returns the category.
	UpdateCategory(ctx context.Context, id int64, update func(*index.Category) error) (index.Category, error)
	// DeleteCategory removes a category, its subcategories and their
	// components, and returns the components.
	DeleteCategory(ctx context.Context, id int64, by index.Actor) ([]index.Component, error)
	// CategoryStats sums the statistics of the components in a
	// category and its subcategories.
	CategoryStats(ctx context.Context, id int64) (index.Stats, error)
}

// categoryPath is the route of one category.
const categoryPath = "/api/categories/:category/"

// categoryRequired are the fields a category's create and PUT need.
var categoryRequired = []string{"name", "slug", "project"}

// categoryJSON is the reference's Category object (CategorySerializer).
type categoryJSON struct {
	ID            int64   `json:"id"`
	Name          string  `json:"name"`
	Slug          string  `json:"slug"`
	Project       string  `json:"project"`
	Category      *string `json:"category"`
	URL           string  `json:"url"`
	StatisticsURL string  `json:"statistics_url"`
}

func newCategoryJSON(u edge.URLs, k *index.Category) categoryJSON {
	return categoryJSON{
		ID:            k.ID,
		Name:          k.Name,
		Slug:          k.Slug,
		Project:       u.Project(k.Project.Slug, ""),
		Category:      categoryURL(u, k.CategoryID),
		URL:           u.Category(k.ID, ""),
		StatisticsURL: u.Category(k.ID, "statistics"),
	}
}

// categoryURL is the API URL of a category, or nil for none.
func categoryURL(u edge.URLs, id int64) *string {
	if id == 0 {
		return nil
	}
	return ptr(u.Category(id, ""))
}

// findCategory resolves the category of the request path; one in a
// project the principal may not see is not found.
func (s *Server) findCategory(c *gin.Context) (index.Category, error) {
	id, err := pathID(c, "category")
	if err != nil {
		return index.Category{}, err
	}
	k, err := s.store.FindCategory(c.Request.Context(), id)
	if err == nil {
		err = edge.Visible(c, &k.Project)
	}
	return k, err
}

// listCategories serves GET /api/categories/: the categories of every
// project the principal may see, in ascending id order.
func (s *Server) listCategories(c *gin.Context) { s.writeCategoryList(c, 0) }

// listProjectCategories serves GET /api/projects/:project/categories/.
func (s *Server) listProjectCategories(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeCategoryList(c, p.ID)
}

func (s *Server) writeCategoryList(c *gin.Context, projectID int64) {
	hidden, err := s.edge.ListHidden(c, projectID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	writePage(s, c, func(p index.Page) ([]index.Category, int, error) {
		return s.store.FindCategoryPage(c.Request.Context(), projectID, p, hidden...)
	}, newCategoryJSON)
}

// getCategory serves GET /api/categories/:category/.
func (s *Server) getCategory(c *gin.Context) {
	k, err := s.findCategory(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newCategoryJSON(s.edge.URLsFor(c), &k))
}

// getCategoryStatistics serves GET /api/categories/:category/statistics/:
// one statistics object named after the category, summed over its
// components and its subcategories' components.
func (s *Server) getCategoryStatistics(c *gin.Context) {
	k, err := s.findCategory(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	st, err := s.store.CategoryStats(ctx, k.ID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	path, err := s.categoryPath(ctx, k)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, namedStatsJSON{
		statsJSON: newStatsJSON(&st),
		Name:      k.Name,
		URL:       s.edge.URLsFor(c).CategoryWeb(k.Project.Slug, path...),
	})
}

// categoryPath returns the slugs of k's categories from the outermost
// down to k's own. The depth limit bounds the walk.
func (s *Server) categoryPath(ctx context.Context, k index.Category) ([]string, error) {
	path := []string{k.Slug}
	for parent := k.CategoryID; parent != 0 && len(path) <= index.MaxCategoryDepth; {
		up, err := s.store.FindCategory(ctx, parent)
		if err != nil {
			return nil, err
		}
		path = append([]string{up.Slug}, path...)
		parent = up.CategoryID
	}
	return path, nil
}

// createCategory serves POST /api/categories/: name, slug and project
// (its API URL) required, category (a parent's API URL) optional; 201
// with the category. As in the reference, the project field accepts only
// projects the caller may edit (project.edit): any other is "Object does
// not exist", a 400 on the field rather than a 403.
func (s *Server) createCategory(c *gin.Context) {
	pl, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	pl.require(categoryRequired...)
	var k index.Category
	readName(pl, &k.Name, &k.Slug, index.CategoryNameLength)
	project, err := s.readProjectRef(c, pl, "project")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	k.ProjectID, k.Project = project.ID, project
	if k.CategoryID, _, err = s.readCategoryRef(c, pl, "category"); err != nil {
		s.edge.Fail(c, err)
		return
	}
	if err := pl.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	k, err = s.store.CreateCategory(c.Request.Context(), k)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	body := newCategoryJSON(s.edge.URLsFor(c), &k)
	c.Header("Location", body.URL)
	s.edge.WriteJSON(c, http.StatusCreated, body)
}

// writableCategory resolves the category of the request path for a
// write: 404 when the caller may not see its project, 403 when they may
// not edit the project (the reference's project.edit, its
// settings_permission and remove_permission).
func (s *Server) writableCategory(c *gin.Context, denied string) (index.Category, error) {
	k, err := s.findCategory(c)
	if err != nil {
		return k, err
	}
	return k, edge.Authorize(c, index.PermProjectEdit, k.ProjectID, denied)
}

// updateCategory serves PUT (partial false: name, slug and project
// required) and PATCH on /api/categories/:category/. A category stays in
// its project: a project field is checked as on create and then
// ignored, as the reference's serializer does. The reference also moves
// a category to the project's top level on any write that leaves out
// category (a DRF workaround, CategorySerializer.to_internal_value);
// Tolk keeps the parent unless the body names one, so that a PATCH of
// the name does not move the category.
func (s *Server) updateCategory(partial bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		k, err := s.writableCategory(c, "Can not edit category")
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		pl, err := readPayload(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		pl.require(requiredUnless(partial, categoryRequired...)...)
		var name, slug string
		readName(pl, &name, &slug, index.CategoryNameLength)
		if pl.has("project") {
			if _, err := s.readProjectRef(c, pl, "project"); err != nil {
				s.edge.Fail(c, err)
				return
			}
		}
		parent, hasParent, err := s.readCategoryRef(c, pl, "category")
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		if err := pl.err(); err != nil {
			s.edge.Fail(c, err)
			return
		}
		k, err = s.store.UpdateCategory(c.Request.Context(), k.ID, func(q *index.Category) error {
			if pl.has("name") {
				q.Name = name
			}
			if pl.has("slug") {
				q.Slug = slug
			}
			if hasParent {
				q.CategoryID = parent
			}
			return nil
		})
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, newCategoryJSON(s.edge.URLsFor(c), &k))
	}
}

// deleteCategory serves DELETE /api/categories/:category/: 204, with the
// category's subcategories and their components removed as the
// reference's category_removal removes them.
func (s *Server) deleteCategory(c *gin.Context) {
	k, err := s.writableCategory(c, "Can not delete category")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	removed, err := s.store.DeleteCategory(c.Request.Context(), k.ID, index.UserActor(edge.Principal(c).User))
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.removeCheckouts(c, removed...)
	noContent(c)
}

// The reference's words for a hyperlinked field that names nothing
// (DRF's HyperlinkedRelatedField).
const (
	msgHyperlinkType    = "Incorrect type. Expected URL string, received %s."
	msgHyperlinkNoMatch = "Invalid hyperlink - No URL match."
	msgHyperlinkMissing = "Invalid hyperlink - Object does not exist."
)

var (
	projectRefRE  = regexp.MustCompile(`/api/projects/([^/]+)/$`)
	categoryRefRE = regexp.MustCompile(`/api/categories/([0-9]+)/$`)
)

// refPath reads a hyperlinked field and returns the part of its URL path
// re captures, recording the reference's problem on the field when it
// is not a URL string or names no such route. ok is false when absent,
// null (null reported when it may not be) or bad.
func refPath(pl *payload, name string, re *regexp.Regexp, nullable bool) (string, bool) {
	if nullable && pl.isNull(name) {
		return "", false
	}
	v, ok := pl.value(name)
	if !ok {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		pl.fail(name, "incorrect_type", fmt.Sprintf(msgHyperlinkType, jsonKind(v)))
		return "", false
	}
	u, err := url.Parse(s)
	var m []string
	if err == nil {
		m = re.FindStringSubmatch(u.Path)
	}
	if m == nil {
		pl.fail(name, "no_match", msgHyperlinkNoMatch)
		return "", false
	}
	return m[1], true
}

// readProjectRef reads a project's API URL from the field name: the
// project, which the caller may edit. Problems are recorded on pl.
func (s *Server) readProjectRef(c *gin.Context, pl *payload, name string) (index.Project, error) {
	slug, ok := refPath(pl, name, projectRefRE, false)
	if !ok {
		return index.Project{}, nil
	}
	p, err := s.store.FindProject(c.Request.Context(), slug)
	switch {
	case errors.Is(err, index.ErrNotFound):
	case err != nil:
		return p, err
	case edge.Visible(c, &p) == nil && edge.Principal(c).Can(index.PermProjectEdit, p.ID):
		return p, nil
	}
	pl.fail(name, "does_not_exist", msgHyperlinkMissing)
	return index.Project{}, nil
}

// readCategoryRef reads a category's API URL, or null for none, from
// the field name: its id (0 for null) and whether the body gave the
// field. A category the caller may not see does not exist; one of
// another project is refused by the store.
func (s *Server) readCategoryRef(c *gin.Context, pl *payload, name string) (int64, bool, error) {
	if !pl.has(name) {
		return 0, false, nil
	}
	raw, ok := refPath(pl, name, categoryRefRE, true)
	if !ok {
		return 0, true, nil
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		pl.fail(name, "does_not_exist", msgHyperlinkMissing)
		return 0, true, nil
	}
	k, err := s.store.FindCategory(c.Request.Context(), id)
	switch {
	case errors.Is(err, index.ErrNotFound) || (err == nil && edge.Visible(c, &k.Project) != nil):
		pl.fail(name, "does_not_exist", msgHyperlinkMissing)
		return 0, true, nil
	case err != nil:
		return 0, true, err
	}
	return id, true, nil
}
