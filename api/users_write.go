package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// deniedUsers is the reference's message for a user write without the
// right to it.
const deniedUsers = "Can not manage Users"

// createUser serves POST /api/users/: 201 with the new user's full body
// and its URL in Location.
func (s *Server) createUser(c *gin.Context) {
	if err := edge.Authorize(c, index.PermUserEdit, 0, deniedUsers); err != nil {
		s.edge.Fail(c, err)
		return
	}
	fields, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	upd, err := userUpdate(fields, nil, true)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := index.User{IsActive: true}
	u.Apply(upd)
	u, err = s.store.CreateUser(c.Request.Context(), u)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	body := newFullUserJSON(s.edge.URLsFor(c), &u)
	c.Header("Location", body.URL)
	s.edge.WriteJSON(c, http.StatusCreated, body)
}

// updateUser serves PUT and PATCH /api/users/:username/. Who manages
// users may change every field of anyone (PUT needs username and
// full_name); a user may change its own full name, and its e-mail address
// only to the one it has: the reference accepts only verified addresses,
// and Tolk verifies none, so a new address is set by an administrator.
func (s *Server) updateUser(c *gin.Context) {
	x, err := s.store.FindUser(c.Request.Context(), c.Param("username"))
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	manager := edge.Principal(c).Can(index.PermUserEdit, 0)
	if !manager && !isSelf(c, &x) {
		s.edge.Fail(c, index.Errorf(index.ErrPermission, "%s", deniedUsers))
		return
	}
	fields, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	self := &x
	if manager {
		self = nil
	}
	upd, err := userUpdate(fields, self, c.Request.Method == http.MethodPut)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	x, err = s.store.UpdateUser(c.Request.Context(), x.Username, upd)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if manager {
		body, err := s.fullUser(c, &x)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, body)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, selfUserJSON{ID: x.ID, Email: stringOrNull(x.Email), FullName: x.FullName,
		Username: x.Username, SecondaryLanguages: nonNil(x.SecondaryLanguages)})
}

// isSelf reports whether x is the signed-in user acting with a token that
// narrows nothing: no permission covers one's own account, so a token
// scoped to reading, translating or one project may not change it.
func isSelf(c *gin.Context, x *index.User) bool {
	p := edge.Principal(c)
	return p.Unscoped() && p.User.ID == x.ID
}

// deleteUser serves DELETE /api/users/:username/: the user is anonymised
// and deactivated, not deleted, so the history that names it stays; its
// tokens and roles go. 204. The right comes before the lookup, as in the
// reference: a missing user is 404 only to who may remove users.
func (s *Server) deleteUser(c *gin.Context) {
	err := edge.Authorize(c, index.PermUserEdit, 0, deniedUsers)
	var x index.User
	if err == nil {
		x, err = s.store.FindUser(c.Request.Context(), c.Param("username"))
	}
	if err == nil {
		err = s.store.RemoveUser(c.Request.Context(), x.Username)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}

// userUpdate reads a user's fields from a body, all of their problems
// together. self is the user editing its own account without the right
// to manage users, or nil for a manager: a manager writes username,
// full_name, email, is_superuser, is_active and is_bot; a user on its own
// account full_name and email (the rest is ignored, as the reference's
// serializer for it ignores them). full requires what a creation or a PUT
// must give.
func userUpdate(p *payload, self *index.User, full bool) (index.UserUpdate, error) {
	var upd index.UserUpdate
	text := func(name string, nullable bool, check func(string) *index.FieldProblem) *string {
		v := ""
		if !nullable || !p.isNull(name) {
			var ok bool
			if v, ok = p.text(name, full && !nullable, true); !ok {
				return nil
			}
		}
		if problem := check(v); problem != nil {
			p.fail(name, problem.Code, problem.Detail)
			return nil
		}
		return &v
	}
	flag := func(name string) *bool {
		v, ok := p.flag(name, false)
		if !ok {
			return nil
		}
		return &v
	}
	if self == nil {
		upd.Username = text("username", false, index.CheckUsername)
	}
	upd.FullName = text("full_name", false, index.CheckFullName)
	upd.Email = text("email", true, func(email string) *index.FieldProblem {
		if self != nil && !strings.EqualFold(email, self.Email) {
			return &index.FieldProblem{Code: "invalid", Detail: "This e-mail address has not been verified."}
		}
		return index.CheckEmail(email)
	})
	if p.has("secondary_languages") {
		// Anyone's own, as the reference's profile form; the store
		// refuses unknown codes.
		var codes []string
		p.strList("secondary_languages", &codes)
		upd.SecondaryLanguages = &codes
	}
	if self == nil {
		upd.IsSuperuser = flag("is_superuser")
		upd.IsActive = flag("is_active")
		upd.IsBot = flag("is_bot")
		if _, given := p.lookup("date_expires"); given && !p.isNull("date_expires") {
			p.fail("date_expires", "invalid", "Tolk accounts do not expire; give the expiry to a token instead.")
		}
	}
	return upd, p.err()
}
