package edge

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHostMemo: remembering the hosts allowed by name changes no answer:
// a refused host is refused every time and never kept, a host allowed by
// the address one connection arrived on is not allowed on another, and
// no number of allowed names grows the memo past its bound.
func TestHostMemo(t *testing.T) {
	opts := Options{AllowedHosts: []string{".example.org"}}
	if err := opts.Validate(); err != nil {
		t.Fatal(err)
	}
	s := &Server{opts: opts}
	on := func(local string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		addr, _ := net.ResolveTCPAddr("tcp", local)
		return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
	}
	a, b := on("10.1.2.3:80"), on("10.9.9.9:80")
	for round := range 2 {
		for _, tc := range []struct {
			req  *http.Request
			host string
			want bool
		}{
			{a, "a.example.org", true},
			{a, "A.Example.org:81", true},
			{a, "evil.example", false},
			{a, "example.org.evil", false},
			{a, "10.1.2.3:80", true}, // the connection's own address
			{b, "10.1.2.3:80", false},
			{b, "localhost", true},
		} {
			if got := s.hostAllowed(tc.req, tc.host); got != tc.want {
				t.Errorf("round %d: %q on %v: %v, want %v", round, tc.host, tc.req.Context().Value(http.LocalAddrContextKey), got, tc.want)
			}
		}
	}
	for _, refused := range []string{"evil.example", "example.org.evil", "10.1.2.3:80"} {
		if s.namedHosts.allowed(refused) {
			t.Errorf("%q kept as allowed by name", refused)
		}
	}
	if n := s.namedHosts.n.Load(); n != 3 {
		t.Errorf("memo holds %d hosts, want 3", n)
	}

	anyHost := Options{AllowedHosts: []string{"*"}}
	if err := anyHost.Validate(); err != nil {
		t.Fatal(err)
	}
	s = &Server{opts: anyHost}
	for i := range 3 * maxNamedHosts {
		if host := fmt.Sprintf("h%d.example", i); !s.hostAllowed(a, host) {
			t.Fatalf("%q refused under *", host)
		}
	}
	if n := s.namedHosts.n.Load(); n != maxNamedHosts {
		t.Errorf("memo holds %d hosts, want at most %d", n, maxNamedHosts)
	}
}
