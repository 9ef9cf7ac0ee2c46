package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// lockStore is what the lock endpoints need.
type lockStore interface {
	// SetComponentLock locks or unlocks a component, recording the
	// change when there is one, and reports whether there was.
	SetComponentLock(ctx context.Context, componentID int64, locked bool, actor index.Actor) (bool, error)
	// SetProjectLock locks or unlocks every component of a project and
	// returns how many changed.
	SetProjectLock(ctx context.Context, projectID int64, locked bool, actor index.Actor) (int, error)
	// ProjectLocked reports whether a project has components and all are
	// locked.
	ProjectLocked(ctx context.Context, projectID int64) (bool, error)
}

// readLock reads {"lock": bool}; wlc sends true/false, older scripts 1/0.
func readLock(c *gin.Context) (bool, error) {
	p, err := readPayload(c)
	if err != nil {
		return false, err
	}
	lock, _ := p.flag("lock", true)
	return lock, p.err()
}

// lockComponent serves POST .../components/P/C/lock/: component.lock
// (403 with the framework's message, as the reference's bare
// PermissionDenied), then the body; the answer is the new lock state.
func (s *Server) lockComponent(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	s.postLock(c, &comp.Project, err, index.PermComponentLock, func(ctx context.Context, lock bool, by index.Actor) error {
		_, err := s.store.SetComponentLock(ctx, comp.ID, lock, by)
		return err
	})
}

// lockProject serves POST /api/projects/:project/lock/: project.edit,
// then every component of the project is locked or unlocked.
func (s *Server) lockProject(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	s.postLock(c, &p, err, index.PermProjectEdit, func(ctx context.Context, lock bool, by index.Actor) error {
		_, err := s.store.SetProjectLock(ctx, p.ID, lock, by)
		return err
	})
}

// postLock answers a lock request on an object of project p, found (as
// findProject and findComponent find, visibility included) or not
// (err): 403 without perm, 400 for a bad body, then set does the
// locking.
func (s *Server) postLock(c *gin.Context, p *index.Project, err error, perm index.Permission,
	set func(ctx context.Context, lock bool, by index.Actor) error) {
	if err == nil {
		err = edge.Authorize(c, perm, p.ID, "")
	}
	var lock bool
	if err == nil {
		lock, err = readLock(c)
	}
	if err == nil {
		err = set(c.Request.Context(), lock, index.UserActor(edge.Principal(c).User))
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, lockJSON{Locked: lock})
}

// getProjectLock serves GET /api/projects/:project/lock/.
func (s *Server) getProjectLock(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	var locked bool
	if err == nil {
		locked, err = s.store.ProjectLocked(c.Request.Context(), p.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, lockJSON{Locked: locked})
}
