package edge

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

// URLs builds the absolute URLs of one response. Every URL a body holds
// comes from here, so the base address and the format=api rule apply to
// all of them alike.
type URLs struct {
	base      string // scheme://host[/prefix], no trailing slash
	FormatAPI bool   // the request carried format=api
}

// PageURLs builds links for pages: like the API's, minus format=api,
// which means nothing to a page.
func (s *Server) PageURLs(c *gin.Context) URLs {
	u := s.URLsFor(c)
	u.FormatAPI = false
	return u
}

// URLsFor derives the base address of a request: Options.BaseURL when
// set; otherwise the request's scheme and Host, or X-Forwarded-Proto and
// X-Forwarded-Host when the direct peer is a trusted proxy.
func (s *Server) URLsFor(c *gin.Context) URLs {
	r := c.Request
	u := URLs{base: s.opts.base, FormatAPI: r.URL.Query().Get("format") == "api"}
	if u.base != "" {
		return u
	}
	scheme, host := s.origin(r)
	u.base = scheme + "://" + host
	return u
}

// origin is the scheme and host a request was sent to: its own, or
// X-Forwarded-Proto and X-Forwarded-Host when the direct peer is a
// trusted proxy. An HTTP/1.0 request without Host was sent to the
// address its connection arrived on. checkHost has refused the hosts not
// allowed.
func (s *Server) origin(r *http.Request) (scheme, host string) {
	scheme, host = "http", r.Host
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && host == "" {
		host = local.String()
	}
	if r.TLS != nil {
		scheme = "https"
	}
	if s.trustedPeer(r.RemoteAddr) {
		if p := firstValue(r.Header.Get("X-Forwarded-Proto")); p == "http" || p == "https" {
			scheme = p
		}
		if h := firstValue(r.Header.Get("X-Forwarded-Host")); h != "" {
			host = h
		}
	}
	return scheme, host
}

func (s *Server) trustedPeer(remoteAddr string) bool {
	if len(s.opts.proxies) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, p := range s.opts.proxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// firstValue returns the first of a comma-separated header's values: the
// one the client-facing proxy set.
func firstValue(v string) string {
	v, _, _ = strings.Cut(v, ",")
	return strings.TrimSpace(v)
}

// Abs returns the absolute URL of path (which starts with "/") and the
// already encoded query (may be empty), with format=api appended last when
// the request carried it (spec, "Common response behaviour", rule 3).
func (u URLs) Abs(path, query string) string {
	var b strings.Builder
	b.Grow(len(u.base) + len(path) + len(query) + 12)
	b.WriteString(u.base)
	b.WriteString(path)
	sep := byte('?')
	if query != "" {
		b.WriteByte('?')
		b.WriteString(query)
		sep = '&'
	}
	if u.FormatAPI {
		b.WriteByte(sep)
		b.WriteString("format=api")
	}
	return b.String()
}

// Join builds a path from segments, escaping each and ending in "/".
func Join(segments ...string) string {
	n := len(segments) + 1
	for _, s := range segments {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n) // exact unless a segment needs escaping
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	b.WriteByte('/')
	return b.String()
}

// API resources (spec, "Linked resources"). sub is a sub-resource such
// as "statistics", or "" for the resource itself.

func (u URLs) Project(p, sub string) string {
	return u.Abs(Join(withSub([]string{"api", "projects", p}, sub)...), "")
}

func (u URLs) Component(p, c, sub string) string {
	return u.Abs(Join(withSub([]string{"api", "components", p, c}, sub)...), "")
}

func (u URLs) Translation(p, c, l, sub string) string {
	return u.Abs(Join(withSub([]string{"api", "translations", p, c, l}, sub)...), "")
}

func (u URLs) Language(code, sub string) string {
	return u.Abs(Join(withSub([]string{"api", "languages", code}, sub)...), "")
}

func (u URLs) Unit(id int64) string { return u.ByID("/api/units/", id) }

func (u URLs) Change(id int64) string { return u.ByID("/api/changes/", id) }

func (u URLs) Addon(id int64, sub string) string {
	return u.Abs(Join(withSub([]string{"api", "addons", strconv.FormatInt(id, 10)}, sub)...), "")
}

// Category is a category's API URL, or that of one of its
// sub-resources ("statistics").
func (u URLs) Category(id int64, sub string) string {
	return u.Abs(Join(withSub([]string{"api", "categories", strconv.FormatInt(id, 10)}, sub)...), "")
}

// CategoryWeb is a category's page: the project, then the slugs of the
// categories from the outermost down, as the reference's get_url_path.
func (u URLs) CategoryWeb(p string, path ...string) string {
	return u.Abs(Join(append([]string{"projects", p}, path...)...), "")
}

// ByID is Abs(collection + id + "/", "") in one allocation: list pages
// build two of these per item.
func (u URLs) ByID(collection string, id int64) string {
	b := make([]byte, 0, len(u.base)+len(collection)+32)
	b = append(b, u.base...)
	b = append(b, collection...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, '/')
	if u.FormatAPI {
		b = append(b, "?format=api"...)
	}
	return string(b)
}

// User returns the user resource's URL, or nil for no user.
func (u URLs) User(username string) *string {
	if username == "" {
		return nil
	}
	return toPtr(u.Abs(Join("api", "users", username), ""))
}

func withSub(segments []string, sub string) []string {
	if sub != "" {
		segments = append(segments, sub)
	}
	return segments
}

// Human-facing pages, shaped like the reference's.

// Task is a background task's URL.
func (u URLs) Task(id string) string { return u.Abs(Join("api", "tasks", id), "") }

func (u URLs) ProjectWeb(p string) string { return u.Abs(Join("projects", p), "") }

// The pages take a component's full slug (index.Component.FullSlug) and
// give each category a segment of its own, as the reference's
// get_url_path does: /projects/p/cat/sub/c/ (the API puts it in one
// segment, cat%2Fsub%2Fc). foldCategories reads them back.

func (u URLs) ComponentWeb(p, c string) string {
	return u.Abs(Join(pageSegments("projects", p, c)...), "")
}
func (u URLs) TranslationWeb(p, c, l string) string {
	return u.Abs(Join(pageSegments("projects", p, c, l)...), "")
}
func (u URLs) Translate(p, c, l string) string {
	return u.Abs(Join(pageSegments("translate", p, c, l)...), "")
}
func (u URLs) Share(p, l string) string       { return u.Abs(Join("engage", p, "-", l), "") }
func (u URLs) GitExport(p, c string) string   { return u.Abs(Join("git", p, c), "") }
func (u URLs) LanguageWeb(code string) string { return u.Abs(Join("languages", code), "") }

// NewURLs returns the builder of URLs under base (scheme://host[/prefix],
// no trailing slash), with format=api on each when formatAPI: for tests
// and for callers outside a request.
func NewURLs(base string, formatAPI bool) URLs { return URLs{base: base, FormatAPI: formatAPI} }

// Base is the scheme, host and path prefix every URL starts with, without
// a trailing slash.
func (u URLs) Base() string { return u.base }

func toPtr[T any](v T) *T { return &v }

// pageSegments is a page's segments: kind, the project, the component's
// full slug split at its slashes, then the rest.
func pageSegments(kind, p, fullSlug string, rest ...string) []string {
	out := append([]string{kind, p}, strings.Split(fullSlug, "/")...)
	return append(out, rest...)
}
