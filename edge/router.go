package edge

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// Router registers the routes of one audience on the edge's engine.
// Each resource file of api and web calls it from its own routes
// function, so the file that serves a URL also says which methods answer
// it. Routes are registered before the first request; Router is not safe
// for concurrent use.
type Router struct {
	s *Server
	// resources is every resource registered, API and pages, for the
	// trailing-slash redirect, the 405 answer's Allow and the API root.
	resources []resource
	// pageFail renders an error the edge raises before a page's handler
	// runs (PageErrors); nil answers JSON everywhere.
	pageFail func(*gin.Context, error)
}

// resource is one endpoint: its gin path and the methods its Allow
// header advertises.
type resource struct {
	path  string
	allow []string
}

// Handlers are a resource's handlers by method. GET serves HEAD too;
// a method without a handler that the resource advertises answers that
// Tolk does not support it yet.
type Handlers struct {
	Get, Post, Put, Patch, Delete gin.HandlerFunc
	// AnonymousPost lets anonymous callers reach Post, which then decides
	// and limits them itself (a suggestion on a public project, as the
	// reference's Guests team may add).
	AnonymousPost bool
}

// Resource registers a JSON resource of the API at path. allow lists the
// methods its Allow header advertises, in the reference's order (e.g.
// "GET, POST, HEAD, OPTIONS"); OPTIONS is answered with the reference's
// metadata body naming the view name. Every write method runs after a
// check that the caller is signed in (anonymous: 401 before any lookup,
// as the reference does). It panics on a handler for a method allow does
// not advertise, so a route cannot be served without being advertised.
func (r *Router) Resource(path, name, allow string, h Handlers) {
	methods := strings.Split(allow, ", ")
	byMethod := map[string]gin.HandlerFunc{
		http.MethodGet: h.Get, http.MethodPost: h.Post, http.MethodPut: h.Put,
		http.MethodPatch: h.Patch, http.MethodDelete: h.Delete,
	}
	for m, f := range byMethod {
		if f != nil && !slices.Contains(methods, m) {
			panic(fmt.Sprintf("edge: %s %s has a handler but its Allow (%s) does not advertise it", m, path, allow))
		}
	}
	withAllow := func(c *gin.Context) { c.Header("Allow", allow) }
	for _, m := range methods {
		switch m {
		case http.MethodGet, http.MethodHead:
			r.s.engine.Handle(m, path, withAllow, h.Get)
		case http.MethodOptions:
			r.s.engine.Handle(m, path, withAllow, r.s.options(name))
		default:
			f := byMethod[m]
			if f == nil {
				f = r.s.notImplemented
			}
			if m == http.MethodPost && h.AnonymousPost {
				r.s.engine.Handle(m, path, withAllow, f)
				continue
			}
			r.s.engine.Handle(m, path, withAllow, r.s.requireSignedIn, f)
		}
	}
	r.resources = append(r.resources, resource{path: path, allow: methods})
}

// Page registers a human-facing page at path: GET and HEAD, advertised
// as such. Pages do not answer OPTIONS, whose body describes API views.
func (r *Router) Page(path string, get gin.HandlerFunc) {
	allow := "GET, HEAD"
	withAllow := func(c *gin.Context) { c.Header("Allow", allow) }
	r.s.engine.GET(path, withAllow, get)
	r.s.engine.HEAD(path, withAllow, get)
	r.resources = append(r.resources, resource{path: path, allow: []string{"GET", "HEAD"}})
}

// PageErrors sets how an error the edge raises before the handler runs
// (a client past its rate limit) is answered outside /api/ and /git/:
// fail renders err as a page a person can read, with the status
// edge.ErrorResponse gives it and the headers already set (Retry-After).
// Without it those errors are the JSON envelope everywhere.
func (r *Router) PageErrors(fail func(c *gin.Context, err error)) { r.pageFail = fail }

// Handle registers a route outside the resource table: a form's POST, a
// static file, the Git export, incoming hooks. Nothing is advertised for
// it and nothing runs before h but the middleware chain.
func (r *Router) Handle(method, path string, h gin.HandlerFunc) { r.s.engine.Handle(method, path, h) }

// Routed reports whether a resource is registered at exactly path.
func (r *Router) Routed(path string) bool {
	for _, res := range r.resources {
		if res.path == path {
			return true
		}
	}
	return false
}

// noRoute answers paths that name no endpoint: a path lacking only its
// trailing slash is redirected, anything else is a JSON 404.
func (s *Server) noRoute(c *gin.Context) {
	if to, ok := slashRedirect(c.Request.URL, s.router.resources); ok {
		// The reference's framework appends the slash with a permanent
		// redirect and an empty body, for every method.
		c.Header("Location", to)
		c.Status(http.StatusMovedPermanently)
		c.Writer.WriteHeaderNow()
		return
	}
	s.Fail(c, ErrNoRoute)
}

// noMethod answers a method the resource does not take, with its Allow.
func (s *Server) noMethod(c *gin.Context) {
	for _, r := range s.router.resources {
		if matchPath(r.path, matchedPath(c.Request.URL)) {
			c.Header("Allow", strings.Join(r.allow, ", "))
			break
		}
	}
	s.Fail(c, &MethodError{method: c.Request.Method})
}

// slashRedirect returns where a path that lacks only its trailing slash
// should go: the same path with the slash, query kept.
func slashRedirect(u *url.URL, resources []resource) (string, bool) {
	if strings.HasSuffix(matchedPath(u), "/") {
		return "", false
	}
	path := matchedPath(u) + "/"
	for _, r := range resources {
		if matchPath(r.path, path) {
			to := u.EscapedPath() + "/"
			if u.RawQuery != "" {
				to += "?" + u.RawQuery
			}
			return to, true
		}
	}
	return "", false
}

// matchPath reports whether path matches a gin pattern whose ":name"
// segments match any one non-empty segment. gin knows which methods a path
// has but not which resource it is; 405 needs the resource's Allow.
func matchPath(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, ":") {
			if xs[i] == "" {
				return false
			}
		} else if p != xs[i] {
			return false
		}
	}
	return true
}

// metadata is the body of an OPTIONS response, as the reference's
// framework describes a view.
type metadata struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Renders     []string `json:"renders"`
	Parses      []string `json:"parses"`
}

func (s *Server) options(name string) gin.HandlerFunc {
	body := metadata{
		Name:        name,
		Description: "",
		Renders:     []string{"application/json", "text/html"},
		Parses:      []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"},
	}
	return func(c *gin.Context) { s.WriteJSON(c, http.StatusOK, body) }
}

// ErrNotImplemented answers the methods an endpoint advertises (as the
// reference does) but Tolk cannot perform yet.
var ErrNotImplemented = index.Errorf(index.ErrPermission, "This operation is not supported by Tolk yet.")

// notImplemented answers every advertised write method until it exists.
func (s *Server) notImplemented(c *gin.Context) { s.Fail(c, ErrNotImplemented) }

// ErrNoRoute is the answer for paths that name no endpoint.
var ErrNoRoute = index.Errorf(index.ErrNotFound, "Not found.")
