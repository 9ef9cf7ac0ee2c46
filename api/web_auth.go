package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// Signing in from the browser. A session cookie resolves to the same
// index.Principal a token does (a user with their grants, unscoped), so
// pages, the editor's saves and the API all decide through
// Principal.Can. The cookie is HttpOnly, SameSite=Lax and Secure when
// the site is served over HTTPS; every state-changing request a session
// makes carries a CSRF token derived from the cookie, which a page from
// another site cannot read.

// sessionStore is what signing in needs.
type sessionStore interface {
	// FindPassword returns a user and their password hash ("" for none),
	// or ErrNotFound.
	FindPassword(ctx context.Context, username string) (index.User, string, error)
	// CreateSession stores a session.
	CreateSession(ctx context.Context, s index.Session) error
	// DeleteSession removes the session stored under a hash, if any.
	DeleteSession(ctx context.Context, hash string) error
	// SessionPrincipal returns who a session cookie stands for, or an
	// error wrapping ErrUnauthenticated.
	SessionPrincipal(ctx context.Context, cookie string) (index.Principal, error)
}

// Cookie names: the session, and the pre-session cookie the sign-in
// form's CSRF token is derived from.
const (
	sessionCookie = "tolk_session"
	csrfCookie    = "tolk_csrf"
	csrfField     = "csrf_token"
	csrfHeader    = "X-CSRF-Token"
)

// LoginLimit is how many failed sign-ins one address may make for one
// username in LoginLimitPeriod before it must wait.
const (
	LoginLimit       = 5
	LoginLimitPeriod = 15 * time.Minute
)

type sessionKey struct{}

// viaSession reports whether the request's principal came from a session
// cookie rather than a token.
func viaSession(c *gin.Context) bool {
	v, _ := c.Request.Context().Value(sessionKey{}).(bool)
	return v
}

// sessionSignIn resolves the session cookie, if any, into the request's
// principal. A cookie that resolves to nobody (expired, signed out, a
// changed password) leaves the request anonymous: pages then offer to
// sign in rather than failing.
func (s *Server) sessionSignIn(c *gin.Context) error {
	cookie, err := c.Cookie(sessionCookie)
	if err != nil || cookie == "" {
		return nil
	}
	p, err := s.store.SessionPrincipal(c.Request.Context(), cookie)
	if errors.Is(err, index.ErrUnauthenticated) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx := context.WithValue(newContextWithPrincipal(c.Request.Context(), &p), sessionKey{}, true)
	c.Request = c.Request.WithContext(ctx)
	return nil
}

// errCSRF refuses a state-changing request of a session without the
// session's CSRF token.
var errCSRF = index.Errorf(index.ErrPermission, "CSRF verification failed. Reload the page and try again.")

// safeMethod reports whether a method changes nothing.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// checkAPICSRF guards the API's writes made with a session cookie: they
// must send the CSRF token in X-CSRF-Token. The pages' own writes
// (webRoutes) check theirs, which may also come in the form. Token-authenticated
// requests need none, since a browser never adds a token by itself.
func (s *Server) checkAPICSRF(c *gin.Context) error {
	if !viaSession(c) || safeMethod(c.Request.Method) || !strings.HasPrefix(c.Request.URL.Path, "/api/") {
		return nil
	}
	return s.checkCSRF(c, c.GetHeader(csrfHeader))
}

// csrfSecret is what a request's CSRF token is derived from: its session
// cookie, or else its pre-session cookie; "" when it has neither.
func csrfSecret(c *gin.Context) string {
	if v, err := c.Cookie(sessionCookie); err == nil && v != "" {
		return v
	}
	v, _ := c.Cookie(csrfCookie)
	return v
}

// csrfFor derives the CSRF token of a cookie: a hash, so the token in a
// page reveals nothing of the HttpOnly cookie.
func csrfFor(secret string) string {
	sum := sha256.Sum256([]byte("tolk csrf\x00" + secret))
	return hex.EncodeToString(sum[:16])
}

// checkCSRF compares a presented token with the request's, in constant
// time.
func (s *Server) checkCSRF(c *gin.Context, presented string) error {
	secret := csrfSecret(c)
	if secret == "" || subtle.ConstantTimeCompare([]byte(presented), []byte(csrfFor(secret))) != 1 {
		return errCSRF
	}
	return nil
}

// csrfToken returns the token a page's forms carry, setting a
// pre-session cookie first when the browser has no cookie to derive it
// from.
func (s *Server) csrfToken(c *gin.Context) string {
	secret := csrfSecret(c)
	if secret == "" {
		secret = index.NewToken(index.SessionPrefix)
		s.setCookie(c, csrfCookie, secret, 0)
		// Later reads in this request see it too.
		c.Request.AddCookie(&http.Cookie{Name: csrfCookie, Value: secret})
	}
	return csrfFor(secret)
}

// setCookie sets an HttpOnly, SameSite=Lax cookie for the whole site,
// Secure when the site is reached over HTTPS; maxAge 0 lasts the browser
// session, negative deletes.
func (s *Server) setCookie(c *gin.Context, name, value string, maxAge int) {
	u := s.webURLs(c)
	http.SetCookie(c.Writer, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: strings.HasPrefix(u.base, "https://")})
}

// loginPage serves GET /accounts/login/.
func (s *Server) loginPage(c *gin.Context) {
	s.writeLogin(c, http.StatusOK, "")
}

func (s *Server) writeLogin(c *gin.Context, status int, problem string) {
	page := s.newPage(c, "Sign in")
	page.CSRF = s.csrfToken(c)
	// next comes in the query of the sign-in page and in the form posted
	// from it.
	page.Login = &loginForm{Next: localPath(c.Request.FormValue("next")), Problem: problem,
		Username: c.PostForm("username")}
	s.writePage(c, status, page)
}

// localPath keeps a "next" address only when it is a path on this site,
// so the sign-in form cannot send anyone elsewhere.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	return next
}

// login serves POST /accounts/login/: a session cookie and a redirect to
// where the user was going, or the form again with what went wrong.
func (s *Server) login(c *gin.Context) {
	if err := s.checkCSRF(c, c.PostForm(csrfField)); err != nil {
		s.failPage(c, err)
		return
	}
	ctx := c.Request.Context()
	name, password := c.PostForm("username"), c.PostForm("password")
	key := "login:" + clientKey(c.ClientIP()) + ":" + name
	if ok, _, wait := s.loginLimit.take(key); !ok {
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
	s.loginLimit.forget(key)
	cookie := index.NewToken(index.SessionPrefix)
	if err := s.store.CreateSession(ctx, index.Session{Hash: index.HashToken(cookie), UserID: u.ID,
		Expires: time.Now().Add(index.SessionLifetime)}); err != nil {
		s.failPage(c, err)
		return
	}
	s.setCookie(c, sessionCookie, cookie, int(index.SessionLifetime/time.Second))
	s.setCookie(c, csrfCookie, "", -1)
	c.Redirect(http.StatusSeeOther, localPath(c.PostForm("next")))
}

// logout serves POST /accounts/logout/: the session ends here and in
// the store.
func (s *Server) logout(c *gin.Context) {
	if err := s.checkCSRF(c, c.PostForm(csrfField)); err != nil {
		s.failPage(c, err)
		return
	}
	if cookie, err := c.Cookie(sessionCookie); err == nil && cookie != "" {
		if err := s.store.DeleteSession(c.Request.Context(), index.HashToken(cookie)); err != nil {
			s.failPage(c, err)
			return
		}
	}
	s.setCookie(c, sessionCookie, "", -1)
	c.Redirect(http.StatusSeeOther, "/")
}
