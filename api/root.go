package api

import (
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
)

// rootRoutes registers the API root.
func (s *Server) rootRoutes(r *edge.Router) {
	// The served collections are read from the finished route table on
	// first use, so the root can never link a path that is not routed,
	// and a collection lists itself once another file routes it.
	var once sync.Once
	var served []string
	get := func(c *gin.Context) {
		once.Do(func() { served = servedCollections(r) })
		s.getRoot(c, served)
	}
	r.Resource("/api/", "Api Root", "GET, HEAD, OPTIONS", edge.Handlers{Get: get})
}

// collections are the reference's top-level collections, as its API root
// names them (../shared/reference/weblate-core.md, "Authentication and
// tokens"), with "suggestions" of its 2026.8 API (reference workspace
// §2.4). The root lists those Tolk serves.
var collections = []string{
	"addons", "categories", "changes", "component-lists", "components", "groups", "languages", "memory",
	"projects", "roles", "screenshots", "tasks", "translations", "units", "users",
	"suggestions",
}

// servedCollections returns the collections whose list path is routed.
func servedCollections(r *edge.Router) []string {
	var out []string
	for _, name := range collections {
		if r.Routed("/api/" + name + "/") {
			out = append(out, name)
		}
	}
	return out
}

// getRoot serves GET /api/: each served collection's name and absolute
// URL. encoding/json writes map keys sorted, the order the reference
// documents them in.
func (s *Server) getRoot(c *gin.Context, served []string) {
	u := s.edge.URLsFor(c)
	body := make(map[string]string, len(served))
	for _, name := range served {
		body[name] = u.Abs(edge.Join("api", name), "")
	}
	s.edge.WriteJSON(c, http.StatusOK, body)
}
