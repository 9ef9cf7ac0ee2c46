package edge

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// Cookie names: the session, and the pre-session cookie the sign-in
// form's CSRF token is derived from.
const (
	SessionCookie = "tolk_session"
	CSRFCookie    = "tolk_csrf"
	CSRFField     = "csrf_token"
	CSRFHeader    = "X-CSRF-Token"
)

type sessionKey struct{}

// ViaSession reports whether the request's principal came from a session
// cookie rather than a token.
func ViaSession(c *gin.Context) bool {
	v, _ := c.Request.Context().Value(sessionKey{}).(bool)
	return v
}

// sessionSignIn resolves the session cookie, if any, into the request's
// principal. A cookie that resolves to nobody (expired, signed out, a
// changed password) leaves the request anonymous: pages then offer to
// sign in rather than failing.
func (s *Server) sessionSignIn(c *gin.Context) error {
	cookie, err := c.Cookie(SessionCookie)
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
	ctx := context.WithValue(NewContext(c.Request.Context(), &p), sessionKey{}, true)
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
// must send the CSRF token in X-CSRF-Token. The pages' own writes (the
// forms of package web) check theirs with CheckCSRF, which may also come
// in the form. Token-authenticated requests need none, since a browser
// never adds a token by itself.
func (s *Server) checkAPICSRF(c *gin.Context) error {
	if !ViaSession(c) || safeMethod(c.Request.Method) || !strings.HasPrefix(c.Request.URL.Path, "/api/") {
		return nil
	}
	return s.CheckCSRF(c, c.GetHeader(CSRFHeader))
}

// csrfSecret is what a request's CSRF token is derived from: its session
// cookie, or else its pre-session cookie; "" when it has neither.
func csrfSecret(c *gin.Context) string {
	if v, err := c.Cookie(SessionCookie); err == nil && v != "" {
		return v
	}
	v, _ := c.Cookie(CSRFCookie)
	return v
}

// csrfFor derives the CSRF token of a cookie: a hash, so the token in a
// page reveals nothing of the HttpOnly cookie.
func csrfFor(secret string) string {
	sum := sha256.Sum256([]byte("tolk csrf\x00" + secret))
	return hex.EncodeToString(sum[:16])
}

// CheckCSRF compares a presented token with the request's, in constant
// time.
func (s *Server) CheckCSRF(c *gin.Context, presented string) error {
	secret := csrfSecret(c)
	if secret == "" || subtle.ConstantTimeCompare([]byte(presented), []byte(csrfFor(secret))) != 1 {
		return errCSRF
	}
	return nil
}

// CSRFToken returns the token a page's forms carry, setting a
// pre-session cookie first when the browser has no cookie to derive it
// from.
func (s *Server) CSRFToken(c *gin.Context) string {
	secret := csrfSecret(c)
	if secret == "" {
		secret = index.NewToken(index.SessionPrefix)
		s.SetCookie(c, CSRFCookie, secret, 0)
		// Later reads in this request see it too.
		c.Request.AddCookie(&http.Cookie{Name: CSRFCookie, Value: secret})
	}
	return csrfFor(secret)
}

// SetCookie sets an HttpOnly, SameSite=Lax cookie for the whole site,
// Secure when the site is reached over HTTPS; maxAge 0 lasts the browser
// session, negative deletes.
func (s *Server) SetCookie(c *gin.Context, name, value string, maxAge int) {
	u := s.PageURLs(c)
	http.SetCookie(c.Writer, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: strings.HasPrefix(u.Base(), "https://")})
}
