package api

import (
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"
)

// collections are the reference's top-level collections, as its API root
// names them (../shared/reference/weblate-core.md, "Authentication and
// tokens"). The root lists those Tolk serves.
var collections = []string{
	"addons", "changes", "component-lists", "components", "groups", "languages", "memory",
	"projects", "roles", "screenshots", "tasks", "translations", "units", "users",
}

func (s *Server) rootResources() []resource {
	// The served collections are read from the finished route table on
	// first use, so the root can never link a path that is not routed,
	// and a collection lists itself once another file routes it.
	var once sync.Once
	var served []string
	get := func(c *gin.Context) {
		once.Do(func() { served = servedCollections(s.resources()) })
		s.getRoot(c, served)
	}
	return []resource{{"/api/", "Api Root", []string{"GET", "HEAD", "OPTIONS"}, get}}
}

// servedCollections returns the collections whose list path is routed.
func servedCollections(resources []resource) []string {
	routed := map[string]bool{}
	for _, r := range resources {
		routed[r.path] = true
	}
	var out []string
	for _, name := range collections {
		if routed["/api/"+name+"/"] {
			out = append(out, name)
		}
	}
	return out
}

// getRoot serves GET /api/: each served collection's name and absolute
// URL. encoding/json writes map keys sorted, the order the reference
// documents them in.
func (s *Server) getRoot(c *gin.Context, served []string) {
	u := s.urlsFor(c)
	body := make(map[string]string, len(served))
	for _, name := range served {
		body[name] = u.abs(join("api", name), "")
	}
	s.writeJSON(c, http.StatusOK, body)
}
