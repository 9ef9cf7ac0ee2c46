package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// projectRoutes registers the projects; their writes are in
// projects_write.go, their lock in lock.go.
func (s *Server) projectRoutes(r *edge.Router) {
	r.Resource("/api/projects/", "Project List", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listProjects, Post: s.createProject})
	r.Resource(projectPath, "Project Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getProject, Put: s.updateProject(false), Patch: s.updateProject(true),
			Delete: s.deleteProject})
	r.Resource(projectPath+"components/", "Components", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listProjectComponents, Post: s.createComponent})
	r.Resource(projectPath+"statistics/", "Statistics", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.getProjectStatistics})
	r.Resource(projectPath+"languages/", "Languages", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.listProjectLanguages})
	r.Resource(projectPath+"lock/", "Lock", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.getProjectLock, Post: s.lockProject})
}

// projectStore is what the project endpoints read.
type projectStore interface {
	// FindProject returns a project by slug.
	FindProject(ctx context.Context, slug string) (index.Project, error)
	// FindProjectPage returns one page of projects in ascending id order
	// and the number of projects, leaving out those whose ids are hidden.
	FindProjectPage(ctx context.Context, pg index.Page, hidden ...int64) ([]index.Project, int, error)
	// ProjectStats returns statistics summed over a project, including
	// RecentChanges.
	ProjectStats(ctx context.Context, projectID int64) (index.Stats, error)
	// ProjectLanguageStats returns every language of a project with its
	// statistics summed over the project's components, by language code.
	ProjectLanguageStats(ctx context.Context, projectID int64) ([]index.Language, []index.Stats, error)
}

// projectPath is the route of one project; its sub-resources hang below.
const projectPath = "/api/projects/:project/"

// listProjects serves GET /api/projects/ in ascending id order, as the
// reference orders its project queryset.
func (s *Server) listProjects(c *gin.Context) {
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	projects, pg, err := fetchPage(c, func(p index.Page) ([]index.Project, int, error) {
		return s.store.FindProjectPage(c.Request.Context(), p, hidden...)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	out := make([]projectJSON, len(projects))
	for i := range projects {
		out[i] = newProjectJSON(u, &projects[i])
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, u, pg, out))
}

// getProject serves GET /api/projects/:project/.
func (s *Server) getProject(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newProjectJSON(s.edge.URLsFor(c), &p))
}

// listProjectComponents serves GET /api/projects/:project/components/.
func (s *Server) listProjectComponents(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeComponentList(c, p.ID)
}

// getProjectStatistics serves GET /api/projects/:project/statistics/: one
// statistics object named after the project, read from the kept project
// row rather than summed per request.
func (s *Server) getProjectStatistics(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	st, err := s.store.ProjectStats(c.Request.Context(), p.ID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, namedStatsJSON{
		statsJSON: newStatsJSON(&st),
		Name:      p.Name,
		URL:       s.edge.URLsFor(c).ProjectWeb(p.Slug),
	})
}

// listProjectLanguages serves GET /api/projects/:project/languages/. The
// reference answers with a bare array of statistics objects, one per
// language of the project, not a paginated envelope.
func (s *Server) listProjectLanguages(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	langs, stats, err := s.store.ProjectLanguageStats(c.Request.Context(), p.ID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	out := make([]projectLanguageStatsJSON, len(langs))
	for i := range langs {
		out[i] = projectLanguageStatsJSON{
			statsJSON: newStatsJSON(&stats[i]),
			Code:      langs[i].Code,
			Name:      langs[i].Name,
			URL:       u.Share(p.Slug, langs[i].Code),
		}
	}
	s.edge.WriteJSON(c, http.StatusOK, out)
}
