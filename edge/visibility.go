package edge

import (
	"slices"

	"github.com/gin-gonic/gin"
)

// Private projects (index.AccessPrivate) exist only for those who may see
// them (index.Principal.CanView): every URL under one answers anyone else
// 404, as a missing object does, and no list shows anything of it. Objects
// reached by path go through FindProject, FindComponent and
// FindTranslation (lookup.go), which check; lists pass the hidden project ids to the
// store, which leaves their rows out of the page and of the count alike.

// HiddenProjects returns the ids of the private projects the request's
// principal may not see, for lists to leave out. nil, when there is no
// private project or the principal sees them all, leaves lists as they
// are, keyset paging included.
func (s *Server) HiddenProjects(c *gin.Context) ([]int64, error) {
	private, err := s.store.FindPrivateProjects(c.Request.Context())
	if err != nil || len(private) == 0 {
		return nil, err
	}
	return Principal(c).Hidden(private), nil
}

// ListHidden is HiddenProjects for a list of the objects of every project
// (scope 0); a list within one object, which was found visible, hides
// nothing.
func (s *Server) ListHidden(c *gin.Context, scope int64) ([]int64, error) {
	if scope != 0 {
		return nil, nil
	}
	return s.HiddenProjects(c)
}

// HiddenProject reports whether the project with the given id is one the
// request's principal may not see; 0 (no project) never is.
func (s *Server) HiddenProject(c *gin.Context, projectID int64) (bool, error) {
	if projectID == 0 {
		return false, nil
	}
	hidden, err := s.HiddenProjects(c)
	return slices.Contains(hidden, projectID), err
}
