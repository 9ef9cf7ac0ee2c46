package api

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// taskRoutes registers the background tasks of component writes.
func (s *Server) taskRoutes(r *edge.Router) {
	r.Resource("/api/tasks/", "Task List", "GET, HEAD, OPTIONS", edge.Handlers{Get: s.listTasks})
	r.Resource(taskPath, "Task Instance", "GET, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getTask, Delete: s.cancelTask})
}

// taskPath is the route of one background task.
const taskPath = "/api/tasks/:task/"

// errNoTask is the reference's answer for a task it does not know.
var errNoTask = index.Errorf(index.ErrNotFound, "Invalid task")

// taskJSON is the reference's task status object.
type taskJSON struct {
	Completed bool   `json:"completed"`
	Progress  int    `json:"progress"`
	Result    any    `json:"result"` // null while running, the error text on failure
	Log       string `json:"log"`
}

func newTaskJSON(t *index.Task) taskJSON {
	out := taskJSON{Completed: t.Completed, Progress: t.Progress, Log: t.Log}
	switch {
	case t.Completed && t.Err != "":
		out.Result = t.Err
	case t.Completed:
		out.Result = t.Result
	}
	return out
}

// taskListItem is a task in the list: its status and its address.
type taskListItem struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	taskJSON
}

// visibleTask returns the task of the request path when the caller may
// see its project, and whether it is an automatic translation's job
// (autotranslate.go, kept in the index) rather than the repository's; a
// task of a project they may not see is as unknown as one that never
// existed.
func (s *Server) visibleTask(c *gin.Context) (t index.Task, auto bool, err error) {
	ok := false
	if s.opts.Components != nil {
		t, ok = s.opts.Components.Task(c.Param("task"))
	}
	if !ok {
		if t, ok, err = s.findAutoTask(c.Request.Context(), c.Param("task")); err != nil {
			return t, false, err
		}
		auto = ok
	}
	if !ok {
		return t, false, errNoTask
	}
	p, err := s.store.FindProjectByID(c.Request.Context(), t.ProjectID)
	if errors.Is(err, index.ErrNotFound) || (err == nil && !edge.Principal(c).CanView(&p)) {
		return t, false, errNoTask
	}
	return t, auto, err
}

// getTask serves GET /api/tasks/:task/.
func (s *Server) getTask(c *gin.Context) {
	t, _, err := s.visibleTask(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newTaskJSON(&t))
}

// cancelTask serves DELETE /api/tasks/:task/: cancels the task (it
// completes with an error) and answers 204; it needs component.edit, as
// in the reference.
func (s *Server) cancelTask(c *gin.Context) {
	t, auto, err := s.visibleTask(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if err := edge.Authorize(c, index.PermComponentEdit, t.ProjectID, ""); err != nil {
		s.edge.Fail(c, err)
		return
	}
	if auto && s.opts.AutoTranslate != nil {
		err = s.opts.AutoTranslate.CancelJob(c.Request.Context(), t.ID)
	} else if s.opts.Components != nil {
		s.opts.Components.CancelTask(t.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}

// listTasks serves GET /api/tasks/: the kept tasks of the projects the
// caller may see, paginated like every list, newest first by the time
// each was queued and, between two queued at once, by id, so that a
// page's neighbours stay put while no task is added (the repository's
// tasks and the automatic translations' used to follow each other in
// two runs, and ties in any order). The reference lists no tasks
// (its Celery results are reached by id only); this order is Tolk's.
func (s *Server) listTasks(c *gin.Context) {
	var all []index.Task
	if s.opts.Components != nil {
		all = s.opts.Components.Tasks()
	}
	ctx := c.Request.Context()
	auto, err := s.autoTasks(ctx)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	all = append(all, auto...)
	slices.SortFunc(all, func(a, b index.Task) int {
		return cmp.Or(b.Started.Compare(a.Started), strings.Compare(a.ID, b.ID))
	})
	seen := map[int64]bool{}
	var tasks []index.Task
	for _, t := range all {
		ok, known := seen[t.ProjectID]
		if !known {
			p, err := s.store.FindProjectByID(ctx, t.ProjectID)
			if err != nil && !errors.Is(err, index.ErrNotFound) {
				s.edge.Fail(c, err)
				return
			}
			ok = err == nil && edge.Principal(c).CanView(&p)
			seen[t.ProjectID] = ok
		}
		if ok {
			tasks = append(tasks, t)
		}
	}
	writePage(s, c, func(p index.Page) ([]index.Task, int, error) {
		return pageOf(tasks, p), len(tasks), nil
	}, func(u edge.URLs, t *index.Task) taskListItem {
		return taskListItem{ID: t.ID, URL: u.Task(t.ID), taskJSON: newTaskJSON(t)}
	})
}
