package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// The profile page, /accounts/profile/: what a signed-in translator sets
// for themselves. Today that is their secondary languages (the
// reference's profile field of that name), which the editor lists first
// among a string's other languages; the API's PATCH of one's own user
// sets the same field.

// profileStore is what the profile page reads and writes.
type profileStore interface {
	// FindUser returns the user with the given username.
	FindUser(ctx context.Context, username string) (index.User, error)
	// UpdateUser changes the fields upd sets; unknown secondary
	// languages are an *index.FieldError.
	UpdateUser(ctx context.Context, username string, upd index.UserUpdate) (index.User, error)
}

// profileForm is the profile page's form.
type profileForm struct {
	// Secondary is the codes as the form shows them: "de, fr".
	Secondary string
	Problem   string
	Saved     bool
}

// profilePage serves GET /accounts/profile/.
func (s *Server) profilePage(c *gin.Context) {
	who := edge.Principal(c)
	if who.Anonymous() {
		c.Redirect(http.StatusSeeOther, "/accounts/login/?next=/accounts/profile/")
		return
	}
	u, err := s.store.FindUser(c.Request.Context(), who.User.Username)
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.writeProfile(c, http.StatusOK, &profileForm{Secondary: strings.Join(u.SecondaryLanguages, ", "),
		Saved: c.Query("saved") != ""})
}

func (s *Server) writeProfile(c *gin.Context, status int, f *profileForm) {
	page := s.newPage(c, "Your profile")
	page.CSRF = s.edge.CSRFToken(c)
	page.Profile = f
	s.writePage(c, status, page)
}

// saveProfile serves POST /accounts/profile/: the languages are codes
// separated by commas or spaces, in the order the editor is to list
// them; a code the index does not know is named back with the form.
func (s *Server) saveProfile(c *gin.Context) {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, 64<<10)
	if err := s.edge.CheckCSRF(c, c.PostForm(edge.CSRFField)); err != nil {
		s.failPage(c, err)
		return
	}
	who := edge.Principal(c)
	if who.Anonymous() {
		s.failPage(c, edge.ErrNotSignedIn)
		return
	}
	text := c.PostForm("secondary_languages")
	codes := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if codes == nil {
		codes = []string{}
	}
	_, err := s.store.UpdateUser(c.Request.Context(), who.User.Username, index.UserUpdate{SecondaryLanguages: &codes})
	var fe *index.FieldError
	if errors.As(err, &fe) {
		s.writeProfile(c, http.StatusBadRequest, &profileForm{Secondary: text, Problem: fe.Fields["secondary_languages"].Detail})
		return
	}
	if err != nil {
		s.failPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/accounts/profile/?saved=1")
}
