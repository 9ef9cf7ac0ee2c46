package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// userRoutes registers the users; their writes are in users_write.go.
func (s *Server) userRoutes(r *edge.Router) {
	r.Resource("/api/users/", "User List", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listUsers, Post: s.createUser})
	r.Resource(userPath, "User Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getUser, Put: s.updateUser, Patch: s.updateUser, Delete: s.deleteUser})
}

// Users are shown as the reference's UserViewSet shows them
// (../shared/reference/weblate-writes.md §5.3): who may manage users
// (user.edit) sees every field Tolk has of everyone; any other signed-in
// reader sees the id, name and username of anyone it asks for by name,
// and lists only itself or a username search of two characters or more.
//
// The reference shows anonymous readers no user at all, so the user and
// author links of the changes they may read lead nowhere. Tolk shows them
// the basic fields of a user who made or is credited with a change they
// can see, and answers 404 for everyone else: the links resolve, and
// accounts that never acted in public stay out of view.

// basicUserJSON is the reference's BasicUserSerializer.
type basicUserJSON struct {
	ID       int64  `json:"id"`
	FullName string `json:"full_name"`
	Username string `json:"username"`
}

// selfUserJSON is the reference's SelfUserSerializer, what a user's edit
// of its own account answers, less the profile Tolk does not keep.
type selfUserJSON struct {
	ID       int64   `json:"id"`
	Email    *string `json:"email"`
	FullName string  `json:"full_name"`
	Username string  `json:"username"`
	// SecondaryLanguages is the reference's profile field of that name
	// (its user data export's profile.secondary_languages: language
	// codes), here where the reference's API has no profile: Tolk's
	// users have nothing else of one.
	SecondaryLanguages []string `json:"secondary_languages"`
}

// fullUserJSON is the reference's FullUserSerializer, in its key order,
// less what Tolk does not have: notifications, the profile,
// date_expires (accounts do not expire; tokens do) and last_login (there
// is no log-in, only tokens).
type fullUserJSON struct {
	ID       int64   `json:"id"`
	Email    *string `json:"email"` // null when the user has none, as the reference's nullable field
	FullName string  `json:"full_name"`
	Username string  `json:"username"`
	// Groups are the API URLs of the user's teams (api/groups.go fills
	// them).
	Groups      []string `json:"groups"`
	IsSuperuser bool     `json:"is_superuser"`
	IsActive    bool     `json:"is_active"`
	IsBot       bool     `json:"is_bot"`
	DateJoined  string   `json:"date_joined"`
	URL         string   `json:"url"`
	// StatisticsURL and ContributionsURL lead to api/people.go.
	StatisticsURL    string `json:"statistics_url"`
	ContributionsURL string `json:"contributions_url"`
	// SecondaryLanguages as selfUserJSON's.
	SecondaryLanguages []string `json:"secondary_languages"`
}

func newBasicUserJSON(x *index.User) basicUserJSON {
	return basicUserJSON{ID: x.ID, FullName: x.FullName, Username: x.Username}
}

func newFullUserJSON(u edge.URLs, x *index.User) fullUserJSON {
	return fullUserJSON{
		ID:          x.ID,
		Email:       stringOrNull(x.Email),
		FullName:    x.FullName,
		Username:    x.Username,
		Groups:      []string{},
		IsSuperuser: x.IsSuperuser,
		IsActive:    x.IsActive,
		IsBot:       x.IsBot,
		DateJoined:  timestamp(x.Joined),
		URL:         *u.User(x.Username),

		StatisticsURL:    u.Abs(edge.Join("api", "users", x.Username, "statistics"), ""),
		ContributionsURL: u.Abs(edge.Join("api", "users", x.Username, "contributions"), ""),

		SecondaryLanguages: nonNil(x.SecondaryLanguages),
	}
}

// userStore is what the user endpoints read and write.
type userStore interface {
	// FindUser returns the user with the given username.
	FindUser(ctx context.Context, username string) (index.User, error)
	// FindUsers returns one page of users in ascending id order and the
	// number of matches.
	FindUsers(ctx context.Context, f index.UserFilter) ([]index.User, int, error)
	// UserHasChanges reports whether the user with the given id made or
	// is credited with a change outside the projects whose ids are
	// hidden.
	UserHasChanges(ctx context.Context, userID int64, hidden []int64) (bool, error)
	// CreateUser adds a user and returns it with its ID; a username or
	// e-mail address another user has is an *index.FieldError.
	CreateUser(ctx context.Context, u index.User) (index.User, error)
	// UpdateUser changes the fields upd sets and returns the user as
	// stored; a username or e-mail address another user has is an
	// *index.FieldError.
	UpdateUser(ctx context.Context, username string, upd index.UserUpdate) (index.User, error)
	// RemoveUser anonymises and deactivates a user and revokes its
	// tokens and roles.
	RemoveUser(ctx context.Context, username string) error
}

// userPath is the route of one user.
const userPath = "/api/users/:username/"

// canManageUsers reports whether the principal may see and change every
// user: the reference's user.edit (user.view, its read-only sibling, is
// not a Tolk permission), whatever kind of action its token is scoped to.
func canManageUsers(c *gin.Context) bool { return edge.Principal(c).CanRead(index.PermUserEdit, 0) }

// listUsers serves GET /api/users/ in ascending id order, with the
// reference's filters: username (prefix), id, is_active and, for those
// who manage users, email (exact, ignoring case). Who sees what is the
// reference's: anonymous readers nobody; other readers only themselves,
// or the matches of a username search of at least two characters (the
// length the reference's autocompletion asks for).
func (s *Server) listUsers(c *gin.Context) {
	manager := canManageUsers(c)
	f, err := userFilter(c, manager)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	p := edge.Principal(c)
	none := p.Anonymous()
	if !manager && !none {
		if _, search := c.GetQuery("username"); !search {
			none = f.ID != 0 && f.ID != p.User.ID
			f.ID = p.User.ID
		} else if len([]rune(f.UsernamePrefix)) < 2 {
			none = true
		}
	}
	users, pg, err := fetchPage(c, func(pg index.Page) ([]index.User, int, error) {
		if none {
			return nil, 0, nil
		}
		f.Page = pg
		return s.store.FindUsers(c.Request.Context(), f)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	if manager {
		out, err := s.fullUsers(c, users)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, newList(c, u, pg, out))
		return
	}
	out := make([]basicUserJSON, len(users))
	for i := range users {
		out[i] = newBasicUserJSON(&users[i])
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, u, pg, out))
}

// userFilter reads the user list's filters. email is a filter only for
// those who manage users, as in the reference: to others it would tell
// whose an address is.
func userFilter(c *gin.Context, manager bool) (index.UserFilter, error) {
	f := index.UserFilter{UsernamePrefix: c.Query("username")}
	if v := c.Query("id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return f, &index.FieldError{Fields: map[string]index.FieldProblem{
				"id": {Code: "invalid", Detail: "Enter a number."}}}
		}
		f.ID = id
		if id == 0 {
			f.ID = -1 // no user has id 0, and a zero ID is no filter
		}
	}
	// The reference's boolean filter ignores values it cannot read.
	switch strings.ToLower(c.Query("is_active")) {
	case "true", "1":
		f.IsActive = ptr(true)
	case "false", "0":
		f.IsActive = ptr(false)
	}
	if manager {
		f.Email = c.Query("email")
	}
	return f, nil
}

// getUser serves GET /api/users/:username/.
func (s *Server) getUser(c *gin.Context) {
	x, err := s.findUser(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if canManageUsers(c) {
		body, err := s.fullUser(c, &x)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, body)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newBasicUserJSON(&x))
}

// findUser resolves the user the path names, as far as the principal may
// see it: signed-in readers see every user; anonymous ones only those who
// acted in a change they can see.
func (s *Server) findUser(c *gin.Context) (index.User, error) {
	x, err := s.store.FindUser(c.Request.Context(), c.Param("username"))
	if err != nil || !edge.Principal(c).Anonymous() {
		return x, err
	}
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		return x, err
	}
	acted, err := s.store.UserHasChanges(c.Request.Context(), x.ID, hidden)
	if err == nil && !acted {
		err = edge.ErrNoRoute
	}
	return x, err
}
