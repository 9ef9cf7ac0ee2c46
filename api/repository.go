package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// repositoryRoutes registers the repository status and operations
// (repository_write.go), the file downloads and uploads (files.go,
// upload.go) and the Git export. The reference's repository action takes
// GET and POST; its file actions take GET, plus POST and PUT (uploads) on
// a translation (weblate/api/views.py). The framework lists methods in
// its own order.
func (s *Server) repositoryRoutes(r *edge.Router) {
	const repository, download = "GET, POST, HEAD, OPTIONS", "GET, HEAD, OPTIONS"
	r.Resource(projectPath+"repository/", "Repository", repository,
		edge.Handlers{Get: s.getProjectRepository, Post: s.postRepository})
	r.Resource(componentPath+"repository/", "Repository", repository,
		edge.Handlers{Get: s.getComponentRepository, Post: s.postRepository})
	r.Resource(translationPath+"repository/", "Repository", repository,
		edge.Handlers{Get: s.getTranslationRepository, Post: s.postRepository})
	r.Resource(projectPath+"file/", "File", download, edge.Handlers{Get: s.getProjectFile})
	r.Resource(componentPath+"file/", "File", download, edge.Handlers{Get: s.getComponentFile})
	// The reference accepts both POST and PUT for an upload
	// (TranslationViewSet.file).
	r.Resource(translationPath+"file/", "File", "GET, POST, PUT, HEAD, OPTIONS",
		edge.Handlers{Get: s.getTranslationFile, Post: s.upload, Put: s.upload})
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
		r.Handle(m, gitExportPath, s.serveGit)
	}
}

// Repositories is the git work the API asks of the service that owns the
// checkouts; *sync.Service satisfies it and cmd/tolk wires the two, so
// api never imports sync or vcs. Every method returns an error wrapping
// index.ErrNotFound when the component has no checkout (or, for ReadFile,
// no such file at HEAD); other errors are internal. Methods must be safe
// for concurrent use.
type Repositories interface {
	// RepositoryStatus reports the component's checkout against its
	// remote branch as last fetched, without contacting the remote.
	RepositoryStatus(ctx context.Context, c index.Component) (index.RepositoryStatus, error)
	// ReadFile returns the bytes of the slash-separated path as committed
	// at the checkout's HEAD.
	ReadFile(ctx context.Context, c index.Component, path string) ([]byte, error)
	// GitExport returns a handler serving the checkout read-only over
	// Git's smart HTTP protocol under any path prefix
	// (".../info/refs", ".../git-upload-pack").
	GitExport(ctx context.Context, c index.Component) (http.Handler, error)
}

// repositoryStore is what the repository and file endpoints read.
type repositoryStore interface {
	FindProject(ctx context.Context, slug string) (index.Project, error)
	FindComponent(ctx context.Context, projectSlug, slug string) (index.Component, error)
	// FindComponents returns a project's components.
	FindComponents(ctx context.Context, projectID int64) ([]index.Component, error)
	// FindTranslations returns a component's translations.
	FindTranslations(ctx context.Context, componentID int64) ([]index.Translation, error)
	// RemovedUnits returns the strings removed from a translation that
	// its file still holds.
	RemovedUnits(ctx context.Context, translationID int64) ([]index.RemovedUnit, error)
}

// errNoRepositories answers the repository, file and Git endpoints of a
// server built without Options.Repositories.
var errNoRepositories = index.Errorf(index.ErrNotFound, "Not found.")

// repositories returns the configured Repositories, or fails the request
// with a 404 when there are none.
func (s *Server) repositories(c *gin.Context) (Repositories, bool) {
	if s.opts.Repositories == nil {
		s.edge.Fail(c, errNoRepositories)
		return nil, false
	}
	return s.opts.Repositories, true
}

// repositoryJSON holds the fields every level of GET .../repository/
// answers.
type repositoryJSON struct {
	NeedsCommit bool   `json:"needs_commit"`
	NeedsMerge  bool   `json:"needs_merge"`
	NeedsPush   bool   `json:"needs_push"`
	URL         string `json:"url"`
}

// pendingUnitsJSON is the reference's pending_units: what waits for a
// commit. Tolk has no commit policy and commits units with failing
// checks, so everything pending is eligible.
type pendingUnitsJSON struct {
	Total               int `json:"total"`
	ErrorsSkipped       int `json:"errors_skipped"`
	CommitPolicySkipped int `json:"commit_policy_skipped"`
	EligibleForCommit   int `json:"eligible_for_commit"`
}

func newPendingUnitsJSON(p index.Pending) pendingUnitsJSON {
	n := p.Units + p.Removed
	return pendingUnitsJSON{Total: n, EligibleForCommit: n}
}

// projectRepositoryJSON is the project-level answer: the reference's
// (2026.8) shape, whose per-repository fields are null for a project.
// Jobs run per component, so a project has none to list: jobs is null.
type projectRepositoryJSON struct {
	repositoryJSON
	WeblateCommit   *commitJSON      `json:"weblate_commit"`
	Status          *string          `json:"status"`
	MergeFailure    *string          `json:"merge_failure"`
	OutgoingCommits *int             `json:"outgoing_commits"`
	MissingCommits  *int             `json:"missing_commits"`
	RemoteCommit    *commitJSON      `json:"remote_commit"`
	PendingUnits    pendingUnitsJSON `json:"pending_units"`
	Jobs            []jobJSON        `json:"jobs"`
}

// jobJSON is one scheduled job of a component and its last run; Tolk's
// own, beyond the reference's answer. Times are null until they happened
// (or, for next_run, when the job is not scheduled).
type jobJSON struct {
	Name       string  `json:"name"`
	Running    bool    `json:"running"`
	LastStart  *string `json:"last_start"`
	LastEnd    *string `json:"last_end"`
	LastResult *string `json:"last_result"` // "ok" or the error's message
	NextRun    *string `json:"next_run"`
	// Failures counts the runs that failed in a row, which space the
	// next runs out.
	Failures int `json:"failures"`
}

// newJobsJSON lists jobs, never null: a component without a scheduler
// running has an empty list.
func newJobsJSON(jobs []index.Job) []jobJSON {
	out := make([]jobJSON, len(jobs))
	for i, j := range jobs {
		out[i] = jobJSON{Name: j.Name, Running: j.Running, LastStart: timestampOrNull(j.LastStart),
			LastEnd: timestampOrNull(j.LastEnd), LastResult: stringOrNull(j.LastResult),
			NextRun: timestampOrNull(j.NextRun), Failures: j.Failures}
	}
	return out
}

// componentRepositoryJSON is the component- and translation-level answer,
// in the reference's key order.
type componentRepositoryJSON struct {
	repositoryJSON
	RemoteCommit *commitJSON `json:"remote_commit"`
	// WeblateCommit is the checkout's HEAD; the reference names it after
	// itself, and clients read it by that name.
	WeblateCommit   *commitJSON      `json:"weblate_commit"`
	Status          string           `json:"status"`
	MergeFailure    *string          `json:"merge_failure"`
	OutgoingCommits int              `json:"outgoing_commits"`
	MissingCommits  int              `json:"missing_commits"`
	PendingUnits    pendingUnitsJSON `json:"pending_units"`
	// Jobs are the component's scheduled jobs (Tolk's own field).
	Jobs []jobJSON `json:"jobs"`
}

// commitJSON is the reference's revision info. The shared notes call
// remote_commit "text", but the reference (views.py, get_revision_info)
// and the fixtures of its client send this object, so scripts read
// remote_commit.revision.
type commitJSON struct {
	Revision      string `json:"revision"`
	ShortRevision string `json:"shortrevision"`
	Author        string `json:"author"` // "Name <email>"
	AuthorName    string `json:"author_name"`
	AuthorEmail   string `json:"author_email"`
	AuthorDate    string `json:"authordate"`
	Commit        string `json:"commit"` // the committer, "Name <email>"
	CommitName    string `json:"commit_name"`
	CommitEmail   string `json:"commit_email"`
	CommitDate    string `json:"commitdate"`
	Message       string `json:"message"`
	Summary       string `json:"summary"`
}

// commitDateLayout is ISO 8601 with a numeric offset, as the reference
// writes the dates it parses from git (never "Z").
const commitDateLayout = "2006-01-02T15:04:05-07:00"

func newCommitJSON(c *index.Commit) *commitJSON {
	short := c.Revision
	if len(short) > 7 {
		short = short[:7]
	}
	return &commitJSON{
		Revision:      c.Revision,
		ShortRevision: short,
		Author:        fmt.Sprintf("%s <%s>", c.AuthorName, c.AuthorEmail),
		AuthorName:    c.AuthorName,
		AuthorEmail:   c.AuthorEmail,
		AuthorDate:    c.AuthorDate.Format(commitDateLayout),
		Commit:        fmt.Sprintf("%s <%s>", c.CommitterName, c.CommitterEmail),
		CommitName:    c.CommitterName,
		CommitEmail:   c.CommitterEmail,
		CommitDate:    c.CommitDate.Format(commitDateLayout),
		Message:       c.Message,
		Summary:       c.Summary(),
	}
}

func newComponentRepositoryJSON(url string, c *index.Component, st *index.RepositoryStatus) componentRepositoryJSON {
	out := componentRepositoryJSON{
		repositoryJSON: repositoryJSON{NeedsCommit: st.NeedsCommit, NeedsMerge: st.NeedsMerge,
			NeedsPush: st.NeedsPush, URL: url},
		Status:          st.Status,
		MergeFailure:    stringOrNull(st.MergeFailure),
		OutgoingCommits: st.Outgoing,
		MissingCommits:  st.Missing,
		PendingUnits:    newPendingUnitsJSON(st.Pending),
		Jobs:            newJobsJSON(st.Jobs),
	}
	if st.RemoteCommit != nil {
		out.RemoteCommit = newCommitJSON(st.RemoteCommit)
	}
	// The reference reports no commits for a component without a
	// repository of its own (vcs "local").
	if c.VCS != "local" {
		out.WeblateCommit = newCommitJSON(&st.LocalCommit)
	}
	return out
}

// getComponentRepository serves GET /api/components/:project/:component/repository/.
func (s *Server) getComponentRepository(c *gin.Context) {
	repos, ok := s.repositories(c)
	if !ok {
		return
	}
	comp, err := s.edge.FindComponent(c)
	if err == nil {
		err = canViewRepository(c, comp.ProjectID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	st, err := repos.RepositoryStatus(c.Request.Context(), comp)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	url := s.edge.URLsFor(c).Component(comp.Project.Slug, comp.FullSlug(), "repository")
	s.edge.WriteJSON(c, http.StatusOK, newComponentRepositoryJSON(url, &comp, &st))
}

// getTranslationRepository serves GET .../translations/:project/:component/:language/repository/:
// the component's repository, under the translation's URL.
func (s *Server) getTranslationRepository(c *gin.Context) {
	repos, ok := s.repositories(c)
	if !ok {
		return
	}
	t, err := s.edge.FindTranslation(c)
	if err == nil {
		err = canViewRepository(c, t.Component.ProjectID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	st, err := repos.RepositoryStatus(c.Request.Context(), t.Component)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	url := s.edge.URLsFor(c).Translation(t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode, "repository")
	s.edge.WriteJSON(c, http.StatusOK, newComponentRepositoryJSON(url, &t.Component, &st))
}

// findProjectComponents resolves the project named by the request path
// and lists its components.
func (s *Server) findProjectComponents(c *gin.Context) (index.Project, []index.Component, error) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		return p, nil, err
	}
	comps, err := s.store.FindComponents(c.Request.Context(), p.ID)
	return p, comps, err
}

// errNoRepositoryAccess is the reference's answer to a repository status
// read without the rights to it. The reference raises it from the view,
// not through the framework's permission check, so an anonymous reader
// gets this 403 too rather than a 401.
var errNoRepositoryAccess = index.Errorf(index.ErrPermission, "%s", edge.DefaultDenied)

// canViewRepository checks that the principal may see the repository
// status in the project with the given id.
func canViewRepository(c *gin.Context, projectID int64) error {
	if edge.Principal(c).CanViewRepository(projectID) {
		return nil
	}
	return errNoRepositoryAccess
}

// getProjectRepository serves GET /api/projects/:project/repository/: a
// project needs a commit, merge or push when any of its components does.
// Components without a checkout yet have nothing to report and are left
// out.
func (s *Server) getProjectRepository(c *gin.Context) {
	repos, ok := s.repositories(c)
	if !ok {
		return
	}
	p, comps, err := s.findProjectComponents(c)
	if err == nil {
		err = canViewRepository(c, p.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out := projectRepositoryJSON{repositoryJSON: repositoryJSON{URL: s.edge.URLsFor(c).Project(p.Slug, "repository")}}
	for _, comp := range comps {
		st, err := repos.RepositoryStatus(c.Request.Context(), comp)
		if errors.Is(err, index.ErrNotFound) {
			continue
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		out.NeedsCommit = out.NeedsCommit || st.NeedsCommit
		out.NeedsMerge = out.NeedsMerge || st.NeedsMerge
		out.NeedsPush = out.NeedsPush || st.NeedsPush
		pending := newPendingUnitsJSON(st.Pending)
		out.PendingUnits.Total += pending.Total
		out.PendingUnits.EligibleForCommit += pending.EligibleForCommit
	}
	s.edge.WriteJSON(c, http.StatusOK, out)
}

// gitExportPath is the component's git_export URL (urls.gitExport) and
// everything a Git client asks below it.
const gitExportPath = "/git/:project/:component/*path"

// serveGit hands Git's requests to the component's export, and answers
// a person opening the git_export URL itself with how to clone it.
func (s *Server) serveGit(c *gin.Context) {
	repos, ok := s.repositories(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	h, err := repos.GitExport(ctx, comp)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if c.Param("path") == "/" && c.Request.Method != http.MethodPost {
		u := s.edge.URLsFor(c)
		u.FormatAPI = false // a clone URL, not an API link
		note := fmt.Sprintf("Read-only Git export of %s / %s.\n\nClone it with:\n\n    git clone %s\n\n"+
			"Pushing is not accepted; translations are made in Tolk.\n",
			comp.Project.Name, comp.Name, u.GitExport(comp.Project.Slug, comp.Slug))
		c.Header("Content-Type", "text/plain; charset=utf-8")
		c.Header("Content-Length", strconv.Itoa(len(note)))
		c.Status(http.StatusOK)
		c.Writer.WriteString(note)
		return
	}
	h.ServeHTTP(c.Writer, c.Request)
}
