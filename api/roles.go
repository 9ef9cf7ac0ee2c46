package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// roleRoutes registers the roles (the reference's RoleViewSet).
func (s *Server) roleRoutes(r *edge.Router) {
	r.Resource("/api/roles/", "Role List", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listRoles, Post: s.createRole})
	r.Resource(rolePath, "Role Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getRole, Put: s.updateRole(false), Patch: s.updateRole(true), Delete: s.deleteRole})
}

// roleStore is what the role endpoints read and write.
type roleStore interface {
	// FindRoles returns every role in ascending id order.
	FindRoles(ctx context.Context) ([]index.StoredRole, error)
	// FindRole returns a role by id.
	FindRole(ctx context.Context, id int64) (index.StoredRole, error)
	// CreateRole adds a custom role; a name taken is an
	// *index.FieldError.
	CreateRole(ctx context.Context, r index.Role) (index.StoredRole, error)
	// UpdateRole renames a custom role (name "" keeps it) and adds perms
	// to its permissions or, with replace, makes them its permissions;
	// a built-in role is an ErrInvalid.
	UpdateRole(ctx context.Context, id int64, name string, perms []index.Permission, replace bool) (index.StoredRole, error)
	// DeleteRole removes a custom role; a built-in one is an ErrInvalid.
	DeleteRole(ctx context.Context, id int64) error
}

// rolePath is the route of one role.
const rolePath = "/api/roles/:role/"

// roleJSON is the reference's Role object (RoleSerializer).
type roleJSON struct {
	ID          int64              `json:"id"`
	Name        string             `json:"name"`
	Permissions []index.Permission `json:"permissions"`
	URL         string             `json:"url"`
}

func newRoleJSON(u edge.URLs, r *index.StoredRole) roleJSON {
	perms := r.Permissions
	if perms == nil {
		perms = []index.Permission{}
	}
	return roleJSON{ID: r.ID, Name: r.Name, Permissions: perms, URL: u.ByID("/api/roles/", r.ID)}
}

// canManageRoles reports whether the principal may see and change every
// role (role.edit), whatever its token's scope, for the reads.
func canManageRoles(c *gin.Context) bool { return edge.Principal(c).CanRead(index.PermRoleEdit, 0) }

// visibleRoles returns the roles the principal may see: every role for
// a role manager, otherwise those its teams give it (as the reference's
// RoleViewSet.get_queryset), none for anonymous callers.
func (s *Server) visibleRoles(c *gin.Context) ([]index.StoredRole, error) {
	p := edge.Principal(c)
	if p.Anonymous() {
		return nil, nil
	}
	roles, err := s.store.FindRoles(c.Request.Context())
	if err != nil || canManageRoles(c) {
		return roles, err
	}
	return slices.DeleteFunc(roles, func(r index.StoredRole) bool {
		return !slices.ContainsFunc(p.Grants, func(g index.Grant) bool { return g.Role == r.Name })
	}), nil
}

// listRoles serves GET /api/roles/.
func (s *Server) listRoles(c *gin.Context) {
	roles, err := s.visibleRoles(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	writePage(s, c, func(p index.Page) ([]index.StoredRole, int, error) {
		return pageOf(roles, p), len(roles), nil
	}, newRoleJSON)
}

// findRole resolves the role of the request path among those the
// principal may see.
func (s *Server) findRole(c *gin.Context) (index.StoredRole, error) {
	id, err := pathID(c, "role")
	if err != nil {
		return index.StoredRole{}, err
	}
	roles, err := s.visibleRoles(c)
	if err != nil {
		return index.StoredRole{}, err
	}
	if i := slices.IndexFunc(roles, func(r index.StoredRole) bool { return r.ID == id }); i >= 0 {
		return roles[i], nil
	}
	return index.StoredRole{}, edge.ErrNoRoute
}

// getRole serves GET /api/roles/:role/.
func (s *Server) getRole(c *gin.Context) {
	r, err := s.findRole(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newRoleJSON(s.edge.URLsFor(c), &r))
}

// writableRole resolves the role of the request path for a change,
// after checking role.edit as the reference does (its perm_check comes
// before the lookup): 403 without it, then 404 for a missing role.
func (s *Server) writableRole(c *gin.Context) (index.StoredRole, error) {
	if err := edge.Authorize(c, index.PermRoleEdit, 0, msgManageRoles); err != nil {
		return index.StoredRole{}, err
	}
	return s.findRole(c)
}

// msgManageRoles is the reference's refusal of a role write.
const msgManageRoles = "Can not manage roles"

// readRole reads a role's name and permissions; unknown codenames are
// the reference's problem on permissions.
func readRole(pl *payload, required bool) (string, []index.Permission) {
	var name string
	var perms []string
	if required {
		pl.require("name")
	}
	pl.str("name", &name, false)
	pl.maxLength("name", name, index.TeamNameLength)
	pl.strList("permissions", &perms)
	out := make([]index.Permission, 0, len(perms))
	for _, p := range perms {
		if !index.ValidPermission(index.Permission(p)) {
			pl.fail("permissions", "does_not_exist", "Permission with this codename was not found.")
			return name, nil
		}
		out = append(out, index.Permission(p))
	}
	return name, out
}

// createRole serves POST /api/roles/: name required, permissions (a
// list of codenames) optional; 201 with the role. Needs role.edit.
func (s *Server) createRole(c *gin.Context) {
	if err := edge.Authorize(c, index.PermRoleEdit, 0, msgManageRoles); err != nil {
		s.edge.Fail(c, err)
		return
	}
	pl, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	name, perms := readRole(pl, true)
	if err := pl.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	r, err := s.store.CreateRole(c.Request.Context(), index.Role{Name: name, Permissions: perms})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	body := newRoleJSON(s.edge.URLsFor(c), &r)
	c.Header("Location", body.URL)
	s.edge.WriteJSON(c, http.StatusCreated, body)
}

// updateRole serves PUT (partial false: name required, the permissions
// replaced) and PATCH (the permissions given added, as the reference's
// RoleSerializer.update does) on /api/roles/:role/. Built-in roles are
// refused with a 400: their permissions are Tolk's, kept in code so
// that the permissions a later version adds reach them (the reference
// lets them be edited, and an upgrade then leaves them behind).
func (s *Server) updateRole(partial bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		r, err := s.writableRole(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		pl, err := readPayload(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		name, perms := readRole(pl, !partial)
		if err := pl.err(); err != nil {
			s.edge.Fail(c, err)
			return
		}
		r, err = s.store.UpdateRole(c.Request.Context(), r.ID, name, perms, !partial)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, newRoleJSON(s.edge.URLsFor(c), &r))
	}
}

// deleteRole serves DELETE /api/roles/:role/: 204; the teams holding the
// role lose it.
func (s *Server) deleteRole(c *gin.Context) {
	r, err := s.writableRole(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if err := s.store.DeleteRole(c.Request.Context(), r.ID); err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}
