package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// repositoryOperations maps each operation of POST .../repository/ to the
// permission the reference checks for it (REPO_OPERATIONS in its views).
var repositoryOperations = map[string]index.Permission{
	"commit":          index.PermVCSCommit,
	"push":            index.PermVCSPush,
	"pull":            index.PermVCSUpdate,
	"pull-rebase":     index.PermVCSUpdate,
	"pull-merge":      index.PermVCSUpdate,
	"pull-merge-noff": index.PermVCSUpdate,
	"reset":           index.PermVCSReset,
	"reset-keep":      index.PermVCSReset,
	"cleanup":         index.PermVCSReset,
	"file-sync":       index.PermVCSReset,
	"file-scan":       index.PermVCSReset,
}

// RepositoryOperations runs the repository operations of POST
// .../repository/ that Tolk implements; *sync.Service satisfies it and
// cmd/tolk wires it. Errors carrying a user-safe message (index.Errorf:
// a rejected push, a component not cloned yet) are the operation's
// failure, answered as the reference does (200, result false, the message
// as detail); other errors are internal. Safe for concurrent use.
type RepositoryOperations interface {
	// Commit writes the component's pending edits to its repository as
	// commits; user (nil: nobody) is who asked.
	Commit(ctx context.Context, c index.Component, user *index.User) (index.CommitResult, error)
	// Push commits the pending edits and pushes the component's branch.
	Push(ctx context.Context, c index.Component, user *index.User) error
	// Pull brings upstream's changes in, keeping every edit upstream
	// lacks; it never locks the component.
	Pull(ctx context.Context, c index.Component, user *index.User) error
	// Reset puts the component back to upstream, discarding local
	// commits and pending edits.
	Reset(ctx context.Context, c index.Component, user *index.User) error
	// ResetKeep puts the component's branch back to upstream and writes
	// the index's translations on top.
	ResetKeep(ctx context.Context, c index.Component, user *index.User) error
	// Cleanup removes untracked files from the component's checkout and
	// drops stale remote-tracking references, recording 88.
	Cleanup(ctx context.Context, c index.Component, user *index.User) error
	// FileSync marks every unit of the component's translations pending,
	// recording 83, and commits: every file rewritten from the index.
	FileSync(ctx context.Context, c index.Component, user *index.User) (index.CommitResult, error)
	// FileScan commits the pending edits, records 84 and reads every file
	// of the component's checkout into the index again.
	FileScan(ctx context.Context, c index.Component, user *index.User) error
}

// operationRunner runs one repository operation on one component.
type operationRunner func(RepositoryOperations, context.Context, index.Component, *index.User) error

// repositoryRunners are the operations of POST .../repository/ that Tolk runs;
// the others answer errGitWriteBackMissing.
var repositoryRunners = map[string]operationRunner{
	"commit": func(o RepositoryOperations, ctx context.Context, c index.Component, u *index.User) error {
		_, err := o.Commit(ctx, c, u)
		return err
	},
	"push":    RepositoryOperations.Push,
	"cleanup": RepositoryOperations.Cleanup,
	"file-sync": func(o RepositoryOperations, ctx context.Context, c index.Component, u *index.User) error {
		_, err := o.FileSync(ctx, c, u)
		return err
	},
	"file-scan": RepositoryOperations.FileScan,
	// Tolk never merges text (sync.Service.Pull): every strategy is the
	// same re-application of the edits upstream lacks.
	"pull":            RepositoryOperations.Pull,
	"pull-rebase":     RepositoryOperations.Pull,
	"pull-merge":      RepositoryOperations.Pull,
	"pull-merge-noff": RepositoryOperations.Pull,
	"reset":           RepositoryOperations.Reset,
	"reset-keep":      RepositoryOperations.ResetKeep,
}

// errGitWriteBackMissing is the honest answer to a repository operation
// Tolk does not run yet: the reference answers failures as 200 with
// result false and a detail, which its client prints.
const errGitWriteBackMissing = "Tolk does not run this repository operation yet."

// errNothingPending is the translation-level commit's answer when the
// translation has no pending edits or removed strings (the reference
// returns false then).
const errNothingPending = "There are no pending changes to commit in this translation."

// operationJSON is the answer of POST .../repository/, in the
// reference's key order; a success has no detail.
type operationJSON struct {
	Result bool   `json:"result"`
	Detail string `json:"detail,omitempty"`
}

// repositoryScope is what POST .../repository/ runs on: the project's
// components, one component, or a translation's component.
type repositoryScope struct {
	project     index.Project
	components  []index.Component
	translation *index.Translation
}

// findRepositoryScope resolves the request path.
func (s *Server) findRepositoryScope(c *gin.Context) (repositoryScope, error) {
	var sc repositoryScope
	var err error
	switch {
	case c.Param("component") == "":
		sc.project, sc.components, err = s.findProjectComponents(c)
	case c.Param("language") == "":
		var comp index.Component
		comp, err = s.edge.FindComponent(c)
		sc.project, sc.components = comp.Project, []index.Component{comp}
	default:
		var t index.Translation
		t, err = s.edge.FindTranslation(c)
		sc.project, sc.components, sc.translation = t.Component.Project, []index.Component{t.Component}, &t
	}
	return sc, err
}

// postRepository serves POST .../repository/ for a project, component
// or translation: it checks the operation and its permission, runs it
// on every component of the scope (a translation's operations other
// than commit run on its whole component, as the reference delegates
// them), and answers with the reference's {"result", "detail"}: true
// when every component succeeded, the failures' messages joined by
// newlines otherwise.
func (s *Server) postRepository(c *gin.Context) {
	sc, err := s.findRepositoryScope(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	p, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	op, _ := p.text("operation", true, false)
	perm, ok := repositoryOperations[op]
	if !ok && !p.errs.Has("operation") {
		p.fail("operation", "invalid_choice", `"`+op+`" is not a valid choice.`)
	}
	if err := p.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	if err := edge.Authorize(c, perm, sc.project.ID, ""); err != nil {
		s.edge.Fail(c, err)
		return
	}
	ops, run := s.opts.Operations, repositoryRunners[op]
	if ops == nil || run == nil {
		s.edge.WriteJSON(c, http.StatusOK, operationJSON{Detail: errGitWriteBackMissing})
		return
	}
	ctx := c.Request.Context()
	if op == "commit" && sc.translation != nil {
		pending, err := s.store.FindPendingUnits(ctx, sc.translation.ID)
		var removed []index.RemovedUnit
		if err == nil {
			removed, err = s.store.RemovedUnits(ctx, sc.translation.ID)
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		if len(pending) == 0 && len(removed) == 0 {
			s.edge.WriteJSON(c, http.StatusOK, operationJSON{Detail: errNothingPending})
			return
		}
	}
	user := edge.Principal(c).User
	var details []string
	for _, comp := range sc.components {
		err = run(ops, ctx, comp, user)
		if msg := index.ErrorMessage(err); msg != "" {
			details = append(details, msg)
			continue
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
	}
	if len(details) > 0 {
		s.edge.WriteJSON(c, http.StatusOK, operationJSON{Detail: strings.Join(details, "\n")})
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, operationJSON{Result: true})
}
