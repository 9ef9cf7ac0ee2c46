package edge

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// The reference addresses a component inside categories by its full slug
// in one path segment, the slashes encoded: /api/components/p/cat%2Fc/.
// gin matches on the decoded path by default, where that segment is two,
// so the engine routes on the raw path (UseRawPath) and routePath gives
// it a canonical one first: every segment decoded but for '/' (so an
// encoded slash stays inside its segment), '%' and '+' (which gin's
// QueryUnescape of the parameters would otherwise turn into a space).
// Static segments therefore match however a client encodes them, as they
// did on the decoded path, and only a parameter can hold a '/'.

// serveHTTP canonicalises the raw path, folds a page path's categories
// into its component's segment, then routes.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	r.URL.RawPath = routePath(r.URL)
	s.foldCategories(r)
	s.engine.ServeHTTP(w, r)
}

// pagePrefixes are the pages whose paths name a component after the
// project: the reference gives its categories segments of their own
// there (/projects/p/cat/sub/c/de/).
var pagePrefixes = []string{"/projects/", "/translate/", "/zen/"}

// foldCategories rewrites a page path whose segments after the project
// start with the slugs of one of the project's categories so that the
// category path and the segment after it (the component) become one
// segment, cat%2Fsub%2Fc, as the routes and FindComponent read it. A
// path naming a category itself (/projects/p/cat/sub/) becomes
// /projects/p/cat%2Fsub/, which the component page serves as the
// category's. Category and component slugs are unique together at each
// level, so the reading is never ambiguous. Projects without categories
// cost one cached lookup.
func (s *Server) foldCategories(r *http.Request) {
	path := matchedPath(r.URL)
	var prefix string
	for _, p := range pagePrefixes {
		if strings.HasPrefix(path, p) {
			prefix = p
			break
		}
	}
	if prefix == "" {
		return
	}
	segs := strings.Split(path[len(prefix):], "/")
	if len(segs) < 3 || segs[1] == "" { // project, one segment at least, then the trailing ""
		return
	}
	project, err := url.PathUnescape(segs[0])
	if err != nil {
		return
	}
	cats, err := s.store.CategoryPaths(r.Context(), project)
	if err != nil || len(cats) == 0 {
		return
	}
	rest := segs[1:]
	k := 0
	for n := 1; n <= index.MaxCategoryDepth && n < len(rest); n++ {
		if rest[n-1] == "" {
			break
		}
		joined, err := url.PathUnescape(strings.Join(rest[:n], "/"))
		if err != nil {
			return
		}
		if slices.Contains(cats, joined) {
			k = n
		}
	}
	if k == 0 {
		return
	}
	take := k + 1 // the categories and the component
	if rest[k] == "" {
		take = k // the category's own page
	}
	folded := strings.Join(rest[:take], "%2F")
	out := append([]string{segs[0], folded}, rest[take:]...)
	raw := prefix + strings.Join(out, "/")
	r.URL.RawPath = raw
}

// routePath is the path the router matches: "" when the request's path
// has no escapes beyond the default ones (gin then uses the decoded
// path, which is the same), else the canonical raw path described above.
func routePath(u *url.URL) string {
	if u.RawPath == "" {
		return ""
	}
	raw := u.EscapedPath() // RawPath if it is a valid encoding of Path
	segs := strings.Split(raw, "/")
	for i, seg := range segs {
		d, err := url.PathUnescape(seg)
		if err != nil {
			return "" // EscapedPath returned an invalid encoding: cannot happen; route on Path
		}
		segs[i] = segmentEscaper.Replace(d)
	}
	return strings.Join(segs, "/")
}

var segmentEscaper = strings.NewReplacer("%", "%25", "/", "%2F", "+", "%2B")

// matchedPath is the path matchPath compares with patterns: the one the
// router matched.
func matchedPath(u *url.URL) string {
	if p := routePath(u); p != "" {
		return p
	}
	return u.Path
}

// splitComponentPath reads a component's path parameter: a slug, or the
// reference's full slug (the categories' slugs, outermost first, then
// the component's, joined by '/'). ok is false for anything else: an
// empty part, "." or "..", more categories than index.MaxCategoryDepth.
func splitComponentPath(param string) (categoryPath, slug string, ok bool) {
	i := strings.LastIndexByte(param, '/')
	categoryPath, slug = "", param
	if i >= 0 {
		categoryPath, slug = param[:i], param[i+1:]
	}
	parts := strings.Split(param, "/")
	if len(parts) > index.MaxCategoryDepth+1 {
		return "", "", false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return "", "", false
		}
	}
	return categoryPath, slug, true
}

// ErrComponentPath answers a component path that names no component.
var errComponentPath = index.Errorf(index.ErrNotFound, "No Component matches the given query.")

// inCategories reports whether a component found by its slug is the one
// a path parameter names: the path's categories are the component's.
// A bare slug names a component in categories too (the reference's slugs
// are unique only inside a category, Tolk's in the whole project, so a
// bare slug is never ambiguous and the URLs clients stored before the
// component moved into a category keep working).
func inCategories(c *index.Component, categoryPath string) bool {
	return categoryPath == "" || categoryPath == c.CategoryPath
}
