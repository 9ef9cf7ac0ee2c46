package web

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// Signing in from the browser. A session cookie resolves to the same
// index.Principal a token does (a user with their grants, unscoped), so
// pages, the editor's saves and the API all decide through
// Principal.Can. The cookie is HttpOnly, SameSite=Lax and Secure when
// the site is served over HTTPS; every state-changing request a session
// makes carries a CSRF token derived from the cookie, which a page from
// another site cannot read.

// loginPage serves GET /accounts/login/.
func (s *Server) loginPage(c *gin.Context) {
	s.writeLogin(c, http.StatusOK, "")
}

func (s *Server) writeLogin(c *gin.Context, status int, problem string) {
	page := s.newPage(c, "Sign in")
	page.CSRF = s.edge.CSRFToken(c)
	// next comes in the query of the sign-in page and in the form posted
	// from it.
	page.Login = &loginForm{Next: localPath(c.Request.FormValue("next")), Problem: problem,
		Username: c.PostForm("username")}
	s.writePage(c, status, page)
}

// localPath keeps a "next" address only when it is a path on this site,
// so the sign-in form cannot send anyone elsewhere; anything else is "/".
//
// Browsers read a URL more loosely than a prefix check does: they drop a
// TAB or newline anywhere in it and read a backslash as a slash, so
// "/\t/evil.example" leads to "//evil.example". Hence any control
// character or backslash is refused outright, then the address must parse
// with no scheme and no host, and its path, decoded, must neither start
// with two slashes nor hold what was refused above (a page on this site
// that redirects to its own decoded path must not lead elsewhere either).
func localPath(next string) string {
	if !utf8.ValidString(next) || strings.ContainsFunc(next, unicode.IsControl) || strings.ContainsRune(next, '\\') {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") ||
		strings.ContainsFunc(u.Path, unicode.IsControl) || strings.ContainsRune(u.Path, '\\') {
		return "/"
	}
	return next
}

// login serves POST /accounts/login/: a session cookie and a redirect to
// where the user was going, or the form again with what went wrong.
func (s *Server) login(c *gin.Context) {
	if err := s.edge.CheckCSRF(c, c.PostForm(edge.CSRFField)); err != nil {
		s.failPage(c, err)
		return
	}
	ctx := c.Request.Context()
	name, password := c.PostForm("username"), c.PostForm("password")
	key := "login:" + edge.ClientKey(c.ClientIP()) + ":" + name
	if ok, _, wait := s.loginLimit.Take(key); !ok {
		c.Header("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		s.writeLogin(c, http.StatusTooManyRequests, "Too many failed attempts; try again later.")
		return
	}
	u, hash, err := s.store.FindPassword(ctx, name)
	if err != nil && !errors.Is(err, index.ErrNotFound) {
		s.failPage(c, err)
		return
	}
	// The hash is compared even for a user who does not exist, so the
	// answer's timing does not tell.
	if !index.PasswordMatches(hash, password) || !u.IsActive {
		s.writeLogin(c, http.StatusOK, "The username or password is not right.")
		return
	}
	s.loginLimit.Forget(key)
	cookie := index.NewToken(index.SessionPrefix)
	if err := s.store.CreateSession(ctx, index.Session{Hash: index.HashToken(cookie), UserID: u.ID,
		Expires: time.Now().Add(index.SessionLifetime)}); err != nil {
		s.failPage(c, err)
		return
	}
	s.edge.SetCookie(c, edge.SessionCookie, cookie, int(index.SessionLifetime/time.Second))
	s.edge.SetCookie(c, edge.CSRFCookie, "", -1)
	c.Redirect(http.StatusSeeOther, localPath(c.PostForm("next")))
}

// logout serves POST /accounts/logout/: the session ends here and in
// the store.
func (s *Server) logout(c *gin.Context) {
	if err := s.edge.CheckCSRF(c, c.PostForm(edge.CSRFField)); err != nil {
		s.failPage(c, err)
		return
	}
	if cookie, err := c.Cookie(edge.SessionCookie); err == nil && cookie != "" {
		if err := s.store.DeleteSession(c.Request.Context(), index.HashToken(cookie)); err != nil {
			s.failPage(c, err)
			return
		}
	}
	s.edge.SetCookie(c, edge.SessionCookie, "", -1)
	c.Redirect(http.StatusSeeOther, "/")
}

// A one-time sign-in link (index/loginlink.go; `tolk serve --demo`
// prints one) leads to a page with one button: opening the link signs
// nobody in, so a mail scanner or a browser's prefetch fetching it does
// not spend it, and a page of another site cannot sign a visitor in as
// someone else (the button's form carries the CSRF token). The secret
// rides in the query, which the request log leaves out (it logs the
// path only).

// loginLinkForm is the sign-in link page's form.
type loginLinkForm struct {
	Key, Next, Problem string
}

// loginLinkPage serves GET /accounts/login/link/?key=….
func (s *Server) loginLinkPage(c *gin.Context) {
	s.writeLoginLink(c, http.StatusOK, "")
}

func (s *Server) writeLoginLink(c *gin.Context, status int, problem string) {
	page := s.newPage(c, "Sign in with a link")
	page.CSRF = s.edge.CSRFToken(c)
	page.LoginLink = &loginLinkForm{Key: c.Request.FormValue("key"), Next: localPath(c.Request.FormValue("next")),
		Problem: problem}
	if page.LoginLink.Key != "" && !index.LooksLikeLoginLink(page.LoginLink.Key) {
		page.LoginLink.Problem, status = "This is not a sign-in link: copy the whole address.", http.StatusBadRequest
	}
	s.writePage(c, status, page)
}

// loginLink serves POST /accounts/login/link/: the link is spent and a
// session opened in one write, or the page says why not.
func (s *Server) loginLink(c *gin.Context) {
	if err := s.edge.CheckCSRF(c, c.PostForm(edge.CSRFField)); err != nil {
		s.failPage(c, err)
		return
	}
	cookie := index.NewToken(index.SessionPrefix)
	_, err := s.store.RedeemLoginLink(c.Request.Context(), c.PostForm("key"),
		index.Session{Hash: index.HashToken(cookie), Expires: time.Now().Add(index.SessionLifetime)})
	if errors.Is(err, index.ErrUnauthenticated) {
		_, body := edge.ErrorResponse(err)
		s.writeLoginLink(c, http.StatusUnauthorized, body.Errors[0].Detail)
		return
	}
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.edge.SetCookie(c, edge.SessionCookie, cookie, int(index.SessionLifetime/time.Second))
	s.edge.SetCookie(c, edge.CSRFCookie, "", -1)
	c.Redirect(http.StatusSeeOther, localPath(c.PostForm("next")))
}
