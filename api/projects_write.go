package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// projectWriteStore is what the project writes need.
type projectWriteStore interface {
	// CreateProject adds a project and records its creation by the
	// actor; a name or slug taken is a *index.FieldError.
	CreateProject(ctx context.Context, p index.Project, by index.Actor) (index.Project, error)
	// UpdateProject applies update to the stored project in one
	// transaction and returns it before and after.
	UpdateProject(ctx context.Context, id int64, update func(*index.Project) error) (before, after index.Project, err error)
	// DeleteProject removes a project with everything in it and returns
	// its components.
	DeleteProject(ctx context.Context, id int64) ([]index.Component, error)
	// FindProjectByID returns a project by id.
	FindProjectByID(ctx context.Context, id int64) (index.Project, error)
}

// Limits and forms of names, as the reference's models set them.
const (
	projectNameLength   = 60
	componentNameLength = 100
	hookSecretLength    = 255
)

// projectRequired are the fields a project's create and PUT need.
var projectRequired = []string{"name", "slug", "web"}

var slugRE = regexp.MustCompile(`^[-a-zA-Z0-9_]+$`)

// accessChoices are the project access levels Tolk enforces; the
// reference's "custom" (200) needs per-project team setup Tolk has not.
var accessChoices = []int{index.AccessPublic, index.AccessProtected, index.AccessPrivate}

// readName reads the name and slug fields shared by projects and
// components.
func readName(pl *payload, name, slug *string, maxLen int) {
	pl.str("name", name, false)
	pl.maxLength("name", *name, maxLen)
	if pl.has("slug") {
		pl.str("slug", slug, false)
		pl.maxLength("slug", *slug, maxLen)
		if *slug != "" && !slugRE.MatchString(*slug) {
			pl.fail("slug", "invalid", "Enter a valid “slug” consisting of letters, numbers, underscores or hyphens.")
		}
	}
}

// readProject reads the project fields the body gives into p, recording
// problems in pl; fields it lacks keep p's values. The body's other keys
// are ignored, as the reference ignores unknown and read-only ones
// (wlc's create_project sends a source_language no project has).
func readProject(pl *payload, p *index.Project) {
	readName(pl, &p.Name, &p.Slug, projectNameLength)
	pl.str("web", &p.Web, false)
	if pl.has("web") && !pl.errs.Has("web") && !isWebURL(p.Web) {
		pl.fail("web", "invalid", "Enter a valid URL.")
	}
	pl.str("instructions", &p.Instructions, true)
	pl.str("language_aliases", &p.LanguageAliases, true)
	pl.boolean("translation_review", &p.TranslationReview)
	pl.boolean("source_review", &p.SourceReview)
	pl.boolean("set_language_team", &p.SetLanguageTeam)
	pl.boolean("enable_hooks", &p.EnableHooks)
	pl.boolean("use_shared_tm", &p.UseSharedTM)
	pl.boolean("contribute_shared_tm", &p.ContributeSharedTM)
	// Tolk's own: the secret incoming webhooks must be signed with
	// (api/hooks.go). Written, never shown; "" removes it.
	pl.str("hook_secret", &p.HookSecret, true)
	pl.maxLength("hook_secret", p.HookSecret, hookSecretLength)
	if pl.has("access_control") {
		access := -1
		pl.integer("access_control", &access, 0, 1000)
		if access >= 0 {
			if !slices.Contains(accessChoices, access) {
				pl.fail("access_control", "invalid_choice", fmt.Sprintf("%q is not a valid choice.", strconv.Itoa(access)))
			} else {
				p.AccessControl = access
			}
		}
	}
}

// isWebURL reports whether s is an absolute http(s) URL with a host.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// createProject serves POST /api/projects/: the reference's payload
// (name, slug and web required), 201 with the project. A creator who is
// not a superuser becomes the project's administrator.
func (s *Server) createProject(c *gin.Context) {
	if err := edge.Authorize(c, index.PermProjectAdd, 0, "Can not create projects"); err != nil {
		s.edge.Fail(c, err)
		return
	}
	// The reference's model defaults.
	defaults := index.Project{SetLanguageTeam: true, EnableHooks: true, AccessControl: index.AccessPublic,
		UseSharedTM: true, ContributeSharedTM: true}
	_, p, err := readBody(c, defaults, projectRequired, readProject)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	p, err = s.store.CreateProject(c.Request.Context(), p, index.UserActor(edge.Principal(c).User))
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusCreated, newProjectJSON(s.edge.URLsFor(c), &p))
}

// writableProject resolves the project of the request path for a write
// needing perm: 404 for a project the caller may not see, 403 with denied
// for one they may not change.
func (s *Server) writableProject(c *gin.Context, perm index.Permission, denied string) (index.Project, error) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		return p, err
	}
	return p, edge.Authorize(c, perm, p.ID, denied)
}

// updateProject serves PUT (partial false: name, slug and web required)
// and PATCH on /api/projects/:project/. The body is validated first,
// then applied to the stored project inside the update's transaction, so
// that fields it does not name keep what a concurrent update wrote.
func (s *Server) updateProject(partial bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		p, err := s.writableProject(c, index.PermProjectEdit, "Can not edit project")
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		pl, _, err := readBody(c, p, requiredUnless(partial, projectRequired...), readProject)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		ctx := c.Request.Context()
		before, after, err := s.store.UpdateProject(ctx, p.ID, func(q *index.Project) error {
			readProject(pl, q)
			return pl.err()
		})
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		if before.Slug != after.Slug {
			s.moveProjectCheckouts(c, before, after)
		}
		s.edge.WriteJSON(c, http.StatusOK, newProjectJSON(s.edge.URLsFor(c), &after))
	}
}

// moveProjectCheckouts moves the checkouts of a renamed project's
// components to their new paths. The rename has committed: a checkout
// that cannot move is logged, and the next import clones it afresh.
func (s *Server) moveProjectCheckouts(c *gin.Context, before, after index.Project) {
	if s.opts.Components == nil {
		return
	}
	ctx, cancel := cleanupContext(c)
	defer cancel()
	comps, err := s.store.FindComponents(ctx, after.ID)
	if err == nil {
		for _, to := range comps {
			from := to
			from.Project = before
			if err = s.opts.Components.MoveCheckout(ctx, from, to); err != nil {
				break
			}
		}
	}
	if err != nil {
		edge.RequestLogger(c, s.log).Error("move checkouts", "project", after.Slug, "err", err)
	}
}

// cleanupTimeout bounds the disk work that follows a committed write.
const cleanupTimeout = time.Minute

// cleanupContext is the context of work that follows a committed write:
// it must finish even if the client goes away.
func cleanupContext(c *gin.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(c.Request.Context()), cleanupTimeout)
}

// deleteProject serves DELETE /api/projects/:project/: 204 once the
// project, its components, their checkouts and its grants are gone.
// The reference answers before an asynchronous removal; Tolk removes the
// index rows in one transaction and the checkouts right after it.
func (s *Server) deleteProject(c *gin.Context) {
	p, err := s.writableProject(c, index.PermProjectEdit, "Can not delete project")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	comps, err := s.store.DeleteProject(c.Request.Context(), p.ID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.removeCheckouts(c, comps...)
	noContent(c)
}

// removeCheckouts deletes the checkouts of components removed from the
// index. The removal has committed: a failure is logged, not answered.
func (s *Server) removeCheckouts(c *gin.Context, comps ...index.Component) {
	if s.opts.Components == nil {
		return
	}
	ctx, cancel := cleanupContext(c)
	defer cancel()
	for _, comp := range comps {
		if err := s.opts.Components.RemoveCheckout(ctx, comp); err != nil {
			edge.RequestLogger(c, s.log).Error("remove checkout", "project", comp.Project.Slug,
				"component", comp.Slug, "err", err)
		}
	}
}
