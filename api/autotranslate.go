package api

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/machinery"
)

// autoTranslateRoutes registers a translation's automatic translation
// (reference workspace §6.3).
func (s *Server) autoTranslateRoutes(r *edge.Router) {
	r.Resource(translationPath+"autotranslate/", "Auto Translate", "POST, OPTIONS",
		edge.Handlers{Post: s.autoTranslate})
}

// AutoTranslator runs automatic translations in the background
// (*autotranslate.Runner).
type AutoTranslator interface {
	// Start stores a job for t and runs it; the channel closes when it
	// ends.
	Start(ctx context.Context, t index.Translation, userID int64, p index.AutoTranslateParams) (index.AutoTranslateJob, <-chan struct{}, error)
	// CancelJob stops a job for good.
	CancelJob(ctx context.Context, id string) error
}

// autoTranslateStore is what automatic translation reads: its jobs (as
// tasks) and the components and services a request may name.
type autoTranslateStore interface {
	FindAutoTranslateJob(ctx context.Context, id string) (index.AutoTranslateJob, error)
	AutoTranslateJobs(ctx context.Context, open bool) ([]index.AutoTranslateJob, error)
	FindComponents(ctx context.Context, projectID int64) ([]index.Component, error)
}

// The reference's messages (weblate/api/views.py, weblate/trans/
// autotranslate.py).
const (
	msgNoAutoTranslate = "Can not auto translate"
	msgComponentLocked = "Component is locked"
	msgAutoRunning     = "Automatic translation is running in the background."
)

// DefaultAutoTranslateWait is how long the API waits for an automatic
// translation before answering that it runs as a task.
const DefaultAutoTranslateWait = 10 * time.Second

// filterTypes maps the filter_type of clients older than the reference's
// 5.13 (which replaced it with q and now ignores it) to its search.
var filterTypes = map[string]string{
	"all": "", "nottranslated": "state:empty", "todo": "state:<translated", "fuzzy": "state:needs-editing",
	"check": "has:check", "suggestions": "has:suggestion", "comments": "has:comment",
	"approved": "state:approved", "unapproved": "state:translated",
}

// autoTranslate serves POST .../translations/P/C/L/autotranslate/ with
// the reference's fields (mode, q, auto_source, component, engines,
// threshold), permissions and answer: 200 {"details": "Automatic
// translation completed, N strings were updated."}. Better than the
// reference, whose call runs in the request until the HTTP timeout ends
// it: the run is a job that survives the request and a restart; when it
// takes longer than the API waits (Options.AutoTranslateWait), the
// answer is 202 with the details saying so and task_url, the task's
// address under /api/tasks/ (progress, result, DELETE to cancel). Also
// better: q defaults to state:<translated, auto_source to others and
// threshold to 80 instead of being required, and the old filter_type is
// read when q is absent. Bad fields are 400s naming the field in Tolk's
// usual error body.
func (s *Server) autoTranslate(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err == nil {
		err = edge.AuthorizeTranslation(c, index.PermTranslationAuto, &t, msgNoAutoTranslate)
	}
	if err == nil && t.Component.Locked {
		err = index.Errorf(index.ErrPermission, "%s", msgComponentLocked)
	}
	if err == nil && s.opts.AutoTranslate == nil {
		err = edge.ErrNotImplemented
	}
	var p index.AutoTranslateParams
	if err == nil {
		p, err = s.readAutoTranslate(c, &t)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	// The caller's personal memory scope answers as it does their
	// lookups (memoryLookup): not through a token narrowed to a project.
	p.Personal = edge.Principal(c).ScopeProjectID == 0
	j, done, err := s.opts.AutoTranslate.Start(ctx, t, edge.Principal(c).User.ID, p)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	timer := time.NewTimer(s.opts.AutoTranslateWait)
	defer timer.Stop()
	// A job that ends within the wait answers 200 with its result; past
	// the wait it is a task, even if it ended while both were ready
	// (select picks at random, and a client's short wait must not make
	// the answer's shape a coin toss).
	waited := false
	select {
	case <-done:
		select {
		case <-timer.C:
			waited = true
		default:
		}
	case <-timer.C:
		waited = true
	case <-ctx.Done():
		return // the client left; the job goes on
	}
	if j, err = s.store.FindAutoTranslateJob(ctx, j.ID); err != nil {
		s.edge.Fail(c, err)
		return
	}
	if waited || !j.Completed {
		s.edge.WriteJSON(c, http.StatusAccepted, gin.H{"details": msgAutoRunning,
			"task_url": s.edge.URLsFor(c).Task(j.ID)})
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, gin.H{"details": autoTranslateDetails(&j)})
}

// autoTranslateDetails is the reference's sentence for a finished job.
func autoTranslateDetails(j *index.AutoTranslateJob) string {
	switch {
	case j.Err != "":
		return "Automatic translation failed: " + j.Err
	case j.Updated == 0:
		return "Automatic translation completed, no strings were updated."
	case j.Updated == 1:
		return "Automatic translation completed, 1 string was updated."
	}
	return fmt.Sprintf("Automatic translation completed, %d strings were updated.", j.Updated)
}

// readAutoTranslate reads and checks the request's fields, and the
// rights its mode needs: approved is a choice only for reviewers (the
// reference's form offers it to them only), and every mode but suggest
// saves directly, so it needs unit.edit and, under suggestion voting,
// unit.override (check_auto_translate_permission).
func (s *Server) readAutoTranslate(c *gin.Context, t *index.Translation) (index.AutoTranslateParams, error) {
	who := edge.Principal(c)
	p := index.AutoTranslateParams{Query: index.AutoDefaultQuery, Source: index.AutoSourceOthers,
		Threshold: index.MemoryDefaultThreshold}
	pl, err := readPayload(c)
	if err != nil {
		return p, err
	}
	pl.require("mode")
	modes := []string{string(index.AutoSuggest), string(index.AutoTranslate), string(index.AutoFuzzy)}
	if who.CanTranslation(index.PermUnitReview, t) {
		modes = append(modes, string(index.AutoApproved))
	}
	var mode string
	pl.choice("mode", &mode, modes)
	p.Mode = index.AutoMode(mode)
	switch {
	case pl.has("q"):
		pl.str("q", &p.Query, true)
		if _, err := index.ParseUnitQuery(p.Query); err != nil && !pl.errs.Has("q") {
			pl.fieldError(err)
		}
	case pl.has("filter_type"):
		var ft string
		pl.choice("filter_type", &ft, slices.Sorted(maps.Keys(filterTypes)))
		p.Query = filterTypes[ft]
	}
	pl.choice("auto_source", &p.Source, []string{index.AutoSourceOthers, index.AutoSourceMT})
	pl.integer("threshold", &p.Threshold, 1, 100)
	var component string
	if pl.has("component") && !pl.isNull("component") {
		if v, ok := pl.value("component"); ok {
			component = strings.TrimSpace(fmt.Sprint(v))
		}
	}
	pl.strList("engines", &p.Engines)
	if err := pl.err(); err != nil {
		return p, err
	}
	if component != "" {
		id, err := s.autoComponent(c.Request.Context(), t, component)
		if err != nil {
			return p, err
		}
		p.ComponentID = id
	}
	if p.Source == index.AutoSourceMT {
		if err := s.checkEngines(c.Request.Context(), t, p.Engines); err != nil {
			return p, err
		}
	}
	if p.Mode != index.AutoSuggest {
		if err := edge.AuthorizeTranslation(c, index.PermUnitEdit, t, msgNoAutoTranslate); err != nil {
			return p, err
		}
		if err := index.CheckDirectSave(who, t); err != nil {
			return p, err
		}
	}
	return p, nil
}

// autoComponent resolves the component field: an id, a slug of the
// project or "project/component", which must be another component of
// the translation's project.
func (s *Server) autoComponent(ctx context.Context, t *index.Translation, v string) (int64, error) {
	comps, err := s.store.FindComponents(ctx, t.Component.ProjectID)
	if err != nil {
		return 0, err
	}
	id, _ := strconv.ParseInt(v, 10, 64)
	slug := strings.TrimPrefix(v, t.Component.Project.Slug+"/")
	for _, comp := range comps {
		if comp.ID != t.ComponentID && (comp.ID == id || comp.Slug == slug) {
			return comp.ID, nil
		}
	}
	return 0, index.FieldErr("component", "invalid_choice", fmt.Sprintf("%q is not a valid choice.", v))
}

// checkEngines checks the engines field of an mt run: at least one, each
// a service the project has (its own or the site's).
func (s *Server) checkEngines(ctx context.Context, t *index.Translation, engines []string) error {
	if len(engines) == 0 {
		return index.FieldErr("engines", "required", "This field is required.")
	}
	settings, err := s.store.FindMachinerySettings(ctx, t.Component.ProjectID)
	if err != nil {
		return err
	}
	have := s.opts.Machinery.Effective(settings)
	for _, e := range engines {
		if !slices.ContainsFunc(have, func(c machinery.Configured) bool { return c.Service.ID == e }) {
			return index.FieldErr("engines", "invalid_choice", fmt.Sprintf("%q is not a valid choice.", e))
		}
	}
	return nil
}

// autoTask is an automatic translation job as the tasks resource shows
// it; its log says what the job did.
func autoTask(j *index.AutoTranslateJob) index.Task {
	t := index.Task{ID: j.ID, ProjectID: j.ProjectID, ComponentID: j.ComponentID, Completed: j.Completed,
		Progress: j.Progress(), Err: j.Err, Started: j.Created}
	if j.Completed && j.Err == "" {
		t.Result = map[string]int{"updated": j.Updated, "total": j.Total}
	}
	t.Log = fmt.Sprintf("Automatic translation (%s, %s): %d of %d strings looked at, %d updated.\n",
		j.Params.Mode, j.Params.Source, j.Done, j.Total, j.Updated)
	if j.Completed {
		t.Log += autoTranslateDetails(j) + "\n"
	}
	return t
}

// findAutoTask returns the automatic translation job id as a task.
func (s *Server) findAutoTask(ctx context.Context, id string) (index.Task, bool, error) {
	j, err := s.store.FindAutoTranslateJob(ctx, id)
	if errors.Is(err, index.ErrNotFound) {
		return index.Task{}, false, nil
	}
	if err != nil {
		return index.Task{}, false, err
	}
	return autoTask(&j), true, nil
}

// autoTasks returns the automatic translation jobs kept, as tasks.
func (s *Server) autoTasks(ctx context.Context) ([]index.Task, error) {
	jobs, err := s.store.AutoTranslateJobs(ctx, false)
	out := make([]index.Task, len(jobs))
	for i := range jobs {
		out[i] = autoTask(&jobs[i])
	}
	return out, err
}
