package edge

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gin-gonic/gin"
)

// Without a BaseURL the URLs of a body are built from the request's Host
// (or a trusted proxy's X-Forwarded-Host), which the client chooses. As
// the reference's framework does with ALLOWED_HOSTS, a request naming a
// host the server does not answer for is refused with a 400, so that no
// body (or cache in front of it) ever holds links to a forged host.

// hostPattern is the shape of a Host header Django accepts: a name or an
// IPv4 address, or a bracketed IPv6 address, and an optional port.
var hostPattern = regexp.MustCompile(`^([a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(:[0-9]+)?$`)

// allowedPattern is the shape of an allowed-host pattern, normalized.
var allowedPattern = regexp.MustCompile(`^\.?[a-z0-9.:-]+$`)

// loopbackHosts are always allowed: the names Django allows in
// development, which only lead to the machine the client runs on.
var loopbackHosts = []string{"localhost", ".localhost", "127.0.0.1", "::1"}

// normalizeHostPattern lowercases an allowed-host pattern and drops the
// brackets of an IPv6 address; "" means it is not a pattern.
func normalizeHostPattern(p string) string {
	p = strings.Trim(strings.ToLower(strings.TrimSpace(p)), "[]")
	if p == "*" || allowedPattern.MatchString(p) {
		return p
	}
	return ""
}

// checkHost refuses a request whose URLs would name a host the server
// was not told it answers for: the address the connection arrived on,
// loopback names, or Options.AllowedHosts. With a BaseURL, URLs do not
// depend on the request and every host is served.
func (s *Server) checkHost(c *gin.Context) {
	if s.opts.base != "" {
		return
	}
	_, host := s.origin(c.Request)
	if !s.hostAllowed(c.Request, host) {
		s.Fail(c, &RequestError{Status: http.StatusBadRequest, Code: "invalid_host",
			Detail: fmt.Sprintf("Invalid HTTP_HOST header: %q. Tolk answers for its listen address, "+
				"localhost and the names given with --allowed-host.", host)})
	}
}

// hostAllowed matches hostport's host, without its port, as Django's
// validate_host does: "*" matches anything, ".example.com" the domain
// and its subdomains, anything else the host exactly; and the address
// the connection arrived on.
func (s *Server) hostAllowed(r *http.Request, hostport string) bool {
	if s.namedHosts.allowed(hostport) {
		return true
	}
	host, valid := hostOf(hostport)
	if !valid {
		return false
	}
	for _, list := range [][]string{loopbackHosts, s.opts.allowedHosts} {
		for _, p := range list {
			if p == "*" || p == host || strings.HasPrefix(p, ".") && (host == p[1:] || strings.HasSuffix(host, p)) {
				s.namedHosts.allow(hostport)
				return true
			}
		}
	}
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if local, err := netip.ParseAddrPort(addr.String()); err == nil {
			if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap() == local.Addr().Unmap() {
				return true
			}
		}
	}
	return false
}

// hostOf is the host of a Host header, lowercased, without its port,
// brackets or final dot; valid is false for a header of another shape.
func hostOf(hostport string) (host string, valid bool) {
	hostport = strings.ToLower(hostport)
	if !hostPattern.MatchString(hostport) {
		return "", false
	}
	host = hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.Trim(host, "[]"), "."), true
}

// maxNamedHosts bounds hostMemo: a deployment answers for a few names,
// and a client sending many others cannot grow it (only allowed ones are
// kept).
const maxNamedHosts = 64

// hostMemo keeps the Host headers found allowed by name (not by the
// connection's address, which differs per connection): matching the
// pattern and the lists was a twentieth of a statistics request.
type hostMemo struct {
	m sync.Map // Host header → struct{}
	n atomic.Int32
}

func (h *hostMemo) allowed(hostport string) bool {
	_, ok := h.m.Load(hostport)
	return ok
}

func (h *hostMemo) allow(hostport string) {
	if h.n.Load() < maxNamedHosts {
		if _, loaded := h.m.LoadOrStore(hostport, struct{}{}); !loaded {
			h.n.Add(1)
		}
	}
}
