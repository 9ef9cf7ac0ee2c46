package api

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

// urls builds the absolute URLs of one response. Every URL a body holds
// comes from here, so the base address and the format=api rule apply to
// all of them alike.
type urls struct {
	base      string // scheme://host[/prefix], no trailing slash
	formatAPI bool   // the request carried format=api
}

// urlsFor derives the base address of a request: Options.BaseURL when
// set; otherwise the request's scheme and Host, or X-Forwarded-Proto and
// X-Forwarded-Host when the direct peer is a trusted proxy.
func (s *Server) urlsFor(c *gin.Context) urls {
	r := c.Request
	u := urls{base: s.opts.base, formatAPI: r.URL.Query().Get("format") == "api"}
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

// abs returns the absolute URL of path (which starts with "/") and the
// already encoded query (may be empty), with format=api appended last when
// the request carried it (spec, "Common response behaviour", rule 3).
func (u urls) abs(path, query string) string {
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
	if u.formatAPI {
		b.WriteByte(sep)
		b.WriteString("format=api")
	}
	return b.String()
}

// join builds a path from segments, escaping each and ending in "/".
func join(segments ...string) string {
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

func (u urls) project(p, sub string) string {
	return u.abs(join(withSub([]string{"api", "projects", p}, sub)...), "")
}

func (u urls) component(p, c, sub string) string {
	return u.abs(join(withSub([]string{"api", "components", p, c}, sub)...), "")
}

func (u urls) translation(p, c, l, sub string) string {
	return u.abs(join(withSub([]string{"api", "translations", p, c, l}, sub)...), "")
}

func (u urls) language(code, sub string) string {
	return u.abs(join(withSub([]string{"api", "languages", code}, sub)...), "")
}

func (u urls) unit(id int64) string { return u.byID("/api/units/", id) }

func (u urls) change(id int64) string { return u.byID("/api/changes/", id) }

func (u urls) addon(id int64, sub string) string {
	return u.abs(join(withSub([]string{"api", "addons", strconv.FormatInt(id, 10)}, sub)...), "")
}

// byID is abs(collection + id + "/", "") in one allocation: list pages
// build two of these per item.
func (u urls) byID(collection string, id int64) string {
	b := make([]byte, 0, len(u.base)+len(collection)+32)
	b = append(b, u.base...)
	b = append(b, collection...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, '/')
	if u.formatAPI {
		b = append(b, "?format=api"...)
	}
	return string(b)
}

// user returns the user resource's URL, or nil for no user.
func (u urls) user(username string) *string {
	if username == "" {
		return nil
	}
	return ptr(u.abs(join("api", "users", username), ""))
}

func withSub(segments []string, sub string) []string {
	if sub != "" {
		segments = append(segments, sub)
	}
	return segments
}

// Human-facing pages, shaped like the reference's.

func (u urls) projectWeb(p string) string           { return u.abs(join("projects", p), "") }
func (u urls) componentWeb(p, c string) string      { return u.abs(join("projects", p, c), "") }
func (u urls) translationWeb(p, c, l string) string { return u.abs(join("projects", p, c, l), "") }
func (u urls) translate(p, c, l string) string      { return u.abs(join("translate", p, c, l), "") }
func (u urls) share(p, l string) string             { return u.abs(join("engage", p, "-", l), "") }
func (u urls) gitExport(p, c string) string         { return u.abs(join("git", p, c), "") }
func (u urls) languageWeb(code string) string       { return u.abs(join("languages", code), "") }

// licenseURL links a license identifier to its SPDX page; nil when the
// license is unset or not an SPDX identifier. It is an external address,
// so format=api does not apply.
func licenseURL(license string) *string {
	if license == "" || license == "proprietary" {
		return nil
	}
	return ptr("https://spdx.org/licenses/" + url.PathEscape(license) + ".html")
}

func ptr[T any](v T) *T { return &v }
