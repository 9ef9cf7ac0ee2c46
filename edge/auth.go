package edge

import (
	"context"
	"errors"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

type principalKey struct{}

// NewContext returns ctx carrying who makes the request.
func NewContext(ctx context.Context, p *index.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns who makes the request; anonymous (never
// nil) when nobody authenticated.
func FromContext(ctx context.Context) *index.Principal {
	if p, ok := ctx.Value(principalKey{}).(*index.Principal); ok && p != nil {
		return p
	}
	return &index.Principal{}
}

// Principal returns who makes the request c.
func Principal(c *gin.Context) *index.Principal { return FromContext(c.Request.Context()) }

// authError is a 401 whose code differs from the plain "no credentials"
// one: the reference answers a bad token with authentication_failed.
type authError struct{ detail string }

func (e *authError) Error() string { return "edge: " + e.detail }
func (e *authError) Unwrap() error { return index.ErrUnauthenticated }

// authenticate runs on every request. With `Authorization: Token <t>` or
// `Bearer <t>` it resolves the token and puts the principal in the
// request's context; a token that resolves to nobody is a 401 on every
// request, reads included, so a client never mistakes a typo for
// anonymous access. Other schemes are not Tolk's (the reference's token
// authentication ignores them too) and leave the request anonymous.
//
// The rate limits apply once the principal is known; a request whose
// token fails counts against its address as an anonymous one, so that
// guessing tokens is limited like anonymous reading.
func (s *Server) authenticate(c *gin.Context) {
	err := s.signIn(c)
	if !s.throttle(c) {
		return
	}
	if err != nil {
		s.Fail(c, err)
	}
}

// signIn resolves the request's token, if any, into the principal of its
// context.
func (s *Server) signIn(c *gin.Context) error {
	h := c.GetHeader("Authorization")
	scheme, token, _ := strings.Cut(strings.TrimSpace(h), " ")
	if !strings.EqualFold(scheme, "Token") && !strings.EqualFold(scheme, "Bearer") {
		// No token: a browser's session cookie may stand in, with its
		// CSRF token on the API's writes.
		if err := s.sessionSignIn(c); err != nil {
			return err
		}
		return s.checkAPICSRF(c)
	}
	token = strings.TrimSpace(token)
	switch {
	case token == "":
		return &authError{"Invalid token header. No credentials provided."}
	case strings.ContainsAny(token, " \t"):
		return &authError{"Invalid token header. Token string should not contain spaces."}
	}
	p, _, err := s.store.Authenticate(c.Request.Context(), token)
	if err != nil {
		if errors.Is(err, index.ErrUnauthenticated) {
			err = &authError{"Invalid token."}
		}
		return err
	}
	c.Request = c.Request.WithContext(NewContext(c.Request.Context(), &p))
	return nil
}

// ErrNotSignedIn is the reference's answer to an anonymous write: its
// default permission class refuses every unsafe method before the view
// runs, whatever the object.
var ErrNotSignedIn = index.Errorf(index.ErrUnauthenticated, "Authentication credentials were not provided.")

// requireSignedIn guards every write route: anonymous callers get 401
// before any lookup, as in the reference.
func (s *Server) requireSignedIn(c *gin.Context) {
	if Principal(c).Anonymous() {
		s.Fail(c, ErrNotSignedIn)
	}
}

// DefaultDenied is the reference framework's message for a refused
// permission.
const DefaultDenied = index.MsgNoPermission

// Authorize checks that the request's principal may do perm in the
// project with the given id (0 for site-wide permissions). denied is the
// message of the 403; "" uses the framework's default.
func Authorize(c *gin.Context, perm index.Permission, projectID int64, denied string) error {
	return authorized(c, Principal(c).Can(perm, projectID), denied)
}

// AuthorizeTranslation is Authorize for perm on translation t (its
// Component filled), where a team's grant narrowed to t's component or
// language counts too (Principal.CanTranslation), as the editor's
// checks count it.
func AuthorizeTranslation(c *gin.Context, perm index.Permission, t *index.Translation, denied string) error {
	return authorized(c, Principal(c).CanTranslation(perm, t), denied)
}

// authorized is Authorize's answer once the check gave ok.
func authorized(c *gin.Context, ok bool, denied string) error {
	if Principal(c).Anonymous() {
		return ErrNotSignedIn
	}
	if ok {
		return nil
	}
	if denied == "" {
		denied = DefaultDenied
	}
	return index.Errorf(index.ErrPermission, "%s", denied)
}

// Visible answers ErrNotFound for a project the principal may not see,
// so that a private project is indistinguishable from a missing one.
func Visible(c *gin.Context, p *index.Project) error {
	if Principal(c).CanView(p) {
		return nil
	}
	return ErrNoRoute
}
