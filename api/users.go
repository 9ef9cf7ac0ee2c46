package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// userJSON is the user object: the fields of the reference's user
// serializer that Tolk can answer. It leaves out e-mail (the reference
// shows it only to user managers, and Tolk has no such readers), groups,
// notifications and is_superuser (Tolk has none of them) and
// statistics_url (Tolk keeps no per-user counts of suggestions, uploads
// or profile languages).
type userJSON struct {
	FullName   string `json:"full_name"`
	Username   string `json:"username"`
	IsActive   bool   `json:"is_active"`
	IsBot      bool   `json:"is_bot"`
	DateJoined string `json:"date_joined"`
	URL        string `json:"url"`
}

func newUserJSON(u urls, x *index.User) userJSON {
	return userJSON{
		FullName:   x.FullName,
		Username:   x.Username,
		IsActive:   x.IsActive,
		IsBot:      x.IsBot,
		DateJoined: timestamp(x.Joined),
		URL:        *u.user(x.Username),
	}
}

// userStore is what the user endpoints read.
type userStore interface {
	// FindUser returns the user with the given username.
	FindUser(ctx context.Context, username string) (index.User, error)
	// FindUsers returns one page of users in ascending id order and the
	// number of matches.
	FindUsers(ctx context.Context, f index.UserFilter) ([]index.User, int, error)
}

func (s *Server) userResources() []resource {
	return []resource{
		{"/api/users/", "User List", []string{"GET", "POST", "HEAD", "OPTIONS"}, s.listUsers},
		{"/api/users/:username/", "User Instance",
			[]string{"GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}, s.getUser},
	}
}

// listUsers serves GET /api/users/ in ascending id order, with the
// reference's filters: username (prefix) and id.
func (s *Server) listUsers(c *gin.Context) {
	f := index.UserFilter{UsernamePrefix: c.Query("username")}
	if v := c.Query("id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			s.fail(c, &index.FieldError{Fields: map[string]index.FieldProblem{
				"id": {Code: "invalid", Detail: "Enter a number."}}})
			return
		}
		f.ID = id
		if id == 0 {
			f.ID = -1 // no user has id 0, and a zero ID is no filter
		}
	}
	users, pg, err := fetchPage(c, func(p index.Page) ([]index.User, int, error) {
		f.Page = p
		return s.store.FindUsers(c.Request.Context(), f)
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	u := s.urlsFor(c)
	out := make([]userJSON, len(users))
	for i := range users {
		out[i] = newUserJSON(u, &users[i])
	}
	s.writeJSON(c, http.StatusOK, newList(c, u, pg, out))
}

// getUser serves GET /api/users/:username/.
func (s *Server) getUser(c *gin.Context) {
	x, err := s.store.FindUser(c.Request.Context(), c.Param("username"))
	if err != nil {
		s.fail(c, err)
		return
	}
	s.writeJSON(c, http.StatusOK, newUserJSON(s.urlsFor(c), &x))
}
