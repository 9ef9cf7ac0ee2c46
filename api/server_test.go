package api_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// endpoints are every route with the methods its Allow header advertises
// (spec, "Endpoints").
var endpoints = []struct {
	path, allow, name string
}{
	{"/api/translations/demo/app/de/", "GET, DELETE, HEAD, OPTIONS", "Translation Instance"},
	{"/api/translations/demo/app/de/changes/", "GET, HEAD, OPTIONS", "Changes"},
	{"/api/translations/demo/app/de/units/", "GET, POST, HEAD, OPTIONS", "Units"},
	{"/api/translations/demo/app/de/statistics/", "GET, HEAD, OPTIONS", "Statistics"},
	{"/api/languages/de/", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS", "Language Instance"},
	{"/api/languages/de/statistics/", "GET, HEAD, OPTIONS", "Statistics"},
	// The reference's ProjectViewSet, ComponentViewSet and
	// TranslationViewSet (weblate/api/views.py). The project languages
	// list (a bare array), lock and links (no URLs in their bodies) are
	// checked in projects_test.go and components_test.go, because
	// TestFormatAPI needs an object holding URLs.
	{"/api/projects/", "GET, POST, HEAD, OPTIONS", "Project List"},
	{"/api/projects/demo/", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS", "Project Instance"},
	{"/api/projects/demo/components/", "GET, POST, HEAD, OPTIONS", "Components"},
	{"/api/projects/demo/statistics/", "GET, HEAD, OPTIONS", "Statistics"},
	{"/api/components/", "GET, HEAD, OPTIONS", "Component List"},
	{"/api/components/demo/app/", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS", "Component Instance"},
	{"/api/components/demo/app/translations/", "GET, POST, HEAD, OPTIONS", "Translations"},
	{"/api/components/demo/app/statistics/", "GET, HEAD, OPTIONS", "Statistics"},
	{"/api/translations/", "GET, HEAD, OPTIONS", "Translation List"},
	{"/api/", "GET, HEAD, OPTIONS", "Api Root"},
	{"/api/units/", "GET, HEAD, OPTIONS", "Unit List"},
	{"/api/units/1/", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS", "Unit Instance"},
	{"/api/changes/", "GET, HEAD, OPTIONS", "Change List"},
	{"/api/changes/2/", "GET, HEAD, OPTIONS", "Change Instance"},
	{"/api/components/demo/app/changes/", "GET, HEAD, OPTIONS", "Changes"},
	{"/api/projects/demo/changes/", "GET, HEAD, OPTIONS", "Changes"},
	{"/api/languages/", "GET, POST, HEAD, OPTIONS", "Language List"},
}

func TestHeaders(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	for _, ep := range endpoints {
		for _, method := range []string{"GET", "HEAD", "OPTIONS"} {
			t.Run(method+" "+ep.path, func(t *testing.T) {
				r := servertest.Do(t, method, srv.URL+ep.path, nil)
				if r.Status != http.StatusOK {
					t.Fatalf("status %d, body %s", r.Status, r.Body)
				}
				for h, want := range map[string]string{
					"Allow": ep.allow, "Vary": "Accept", "Content-Type": "application/json",
				} {
					if got := strings.Join(r.Header.Values(h), ", "); got != want {
						t.Errorf("%s = %q, want %q", h, got, want)
					}
				}
				switch method {
				case "HEAD":
					if len(r.Body) != 0 {
						t.Errorf("HEAD body = %q, want none", r.Body)
					}
				case "OPTIONS":
					var meta map[string]any
					if err := json.Unmarshal(r.Body, &meta); err != nil {
						t.Fatal(err)
					}
					want := `{"name":"` + ep.name + `","description":"","renders":["application/json","text/html"],` +
						`"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}`
					if string(r.Body) != want {
						t.Errorf("OPTIONS body = %s, want %s", r.Body, want)
					}
				}
			})
		}
	}
}

func TestMethods(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	const denied = `{"type":"client_error","errors":[{"code":"not_authenticated",` +
		`"detail":"Authentication credentials were not provided.","attr":null}]}`
	notAllowed := func(m string) string {
		return `{"type":"client_error","errors":[{"code":"method_not_allowed","detail":"Method \"` + m +
			`\" not allowed.","attr":null}]}`
	}
	for _, ep := range endpoints {
		advertised := strings.Split(ep.allow, ", ")
		for _, method := range []string{"POST", "PUT", "PATCH", "DELETE", "PROPFIND"} {
			t.Run(method+" "+ep.path, func(t *testing.T) {
				r := servertest.Do(t, method, srv.URL+ep.path, nil)
				wantStatus, wantBody := http.StatusMethodNotAllowed, notAllowed(method)
				if contains(advertised, method) {
					// Advertised: anonymous writes are refused before
					// the object is even looked up.
					wantStatus, wantBody = http.StatusUnauthorized, denied
				}
				if r.Status != wantStatus || string(r.Body) != wantBody {
					t.Errorf("%s = %d %s, want %d %s", method, r.Status, r.Body, wantStatus, wantBody)
				}
				if got := r.Header.Get("Allow"); got != ep.allow {
					t.Errorf("Allow = %q, want %q", got, ep.allow)
				}
				if got := r.Header.Get("Content-Type"); got != "application/json" {
					t.Errorf("Content-Type = %q", got)
				}
			})
		}
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestUnknownPath(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	const notFound = `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, path := range []string{
		"/api/nope/", "/api/translations/demo/app/de/nope/", "/api/translations/demo/app/de/nope",
		"/api/projects/demo/nope/", "/api/components/demo/app/de/",
		// Below the human pages, paths that are not pages stay JSON.
		"/projects/demo/app/de/nope/", "/engage/demo/", "/translate/demo/app/",
	} {
		r := servertest.Do(t, "GET", srv.URL+path, nil)
		if r.Status != http.StatusNotFound || string(r.Body) != notFound {
			t.Errorf("GET %s = %d %s, want 404 %s", path, r.Status, r.Body, notFound)
		}
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Vary") != "Accept" {
			t.Errorf("GET %s headers = %v", path, r.Header)
		}
	}
}

// TestTrailingSlash checks the reference's redirect of a path that lacks
// only its final slash: 301 to the slashed path, query kept, no body.
func TestTrailingSlash(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	for _, tc := range []struct{ path, want string }{
		{"/api/translations/demo/app/de", "/api/translations/demo/app/de/"},
		{"/api/translations/demo/app/de/units?page=2&format=api", "/api/translations/demo/app/de/units/?page=2&format=api"},
		{"/api/languages/de/statistics", "/api/languages/de/statistics/"},
	} {
		for _, method := range []string{"GET", "HEAD", "POST"} {
			r := servertest.Do(t, method, srv.URL+tc.path, nil)
			if r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != tc.want || len(r.Body) != 0 {
				t.Errorf("%s %s = %d Location %q body %q, want 301 to %s", method, tc.path, r.Status,
					r.Header.Get("Location"), r.Body, tc.want)
			}
		}
	}
}

// TestFormatAPI checks the spec's rule: with format=api every URL the
// service makes ends in format=api; without it none carries it. External
// addresses (the project's home page, the license page) are left alone.
func TestFormatAPI(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	external := map[string]bool{"https://example.com/": true, "https://spdx.org/licenses/MIT.html": true}
	for _, ep := range endpoints {
		t.Run(ep.path, func(t *testing.T) {
			for _, withFormat := range []bool{false, true} {
				url := srv.URL + ep.path
				if withFormat {
					url += "?format=api"
				}
				var all []string
				servertest.Strs(servertest.GetObject(t, url), &all)
				seen := 0
				for _, s := range all {
					if external[s] {
						continue
					}
					if !strings.HasPrefix(s, "http") {
						if strings.Contains(s, "format=api") {
							t.Errorf("non-URL string %q holds format=api", s)
						}
						continue
					}
					seen++
					if !strings.HasPrefix(s, srv.URL+"/") {
						t.Errorf("URL %q is not under %s", s, srv.URL)
					}
					n := strings.Count(s, "format=api")
					switch {
					case !withFormat && n != 0:
						t.Errorf("without format: %q", s)
					case withFormat && (n != 1 || !(strings.HasSuffix(s, "?format=api") || strings.HasSuffix(s, "&format=api"))):
						t.Errorf("with format=api: %q", s)
					case withFormat && strings.Contains(s, "?checksum=") && !strings.HasSuffix(s, "&format=api"):
						t.Errorf("with another parameter: %q", s)
					}
				}
				if seen == 0 {
					t.Errorf("no edge.URLs in %s", url)
				}
			}
		})
	}
}

func TestBaseURLAndProxies(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	path := "/api/languages/de/"
	forwarded := http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"tolk.example.org, inner.local"}}
	cases := []struct {
		name   string
		opts   servertest.Options
		header http.Header
		want   string // prefix of url; "" means the test server's own
	}{
		{"direct", servertest.Options{}, nil, ""},
		{"untrusted forwarded headers", servertest.Options{}, forwarded, ""},
		{"other proxy", servertest.Options{TrustedProxies: []string{"10.0.0.0/8"}}, forwarded, ""},
		{"trusted proxy", servertest.Options{TrustedProxies: []string{"127.0.0.1"}, AllowedHosts: []string{"tolk.example.org"}},
			forwarded, "https://tolk.example.org"},
		{"trusted range", servertest.Options{TrustedProxies: []string{"127.0.0.0/8", "::1"}, AllowedHosts: []string{".example.org"}},
			forwarded, "https://tolk.example.org"},
		{"base URL wins", servertest.Options{BaseURL: "https://tolk.example.com/l10n/", TrustedProxies: []string{"127.0.0.1"}},
			forwarded, "https://tolk.example.com/l10n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := servertest.Serve(t, db, tc.opts)
			want := tc.want
			if want == "" {
				want = srv.URL
			}
			r := servertest.Do(t, "GET", srv.URL+path, tc.header)
			l := servertest.Decode(t, r.Body)
			if l["url"] != want+path || l["web_url"] != want+"/languages/de/" {
				t.Errorf("url %v web_url %v, want under %s", l["url"], l["web_url"], want)
			}
		})
	}
}

// TestForgedHost: without a base URL, a request naming a host the server
// does not answer for (directly or through a trusted proxy) is refused,
// so no body links to it; the listen address, localhost and the allowed
// hosts are served.
func TestForgedHost(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	const path = "/api/languages/de/"
	refused := func(host string) string {
		return `{"type":"client_error","errors":[{"code":"invalid_host","detail":"Invalid HTTP_HOST header: \"` + host +
			`\". Tolk answers for its listen address, localhost and the names given with --allowed-host.","attr":null}]}`
	}
	proxied := servertest.Options{TrustedProxies: []string{"127.0.0.1"}, AllowedHosts: []string{"tolk.example.org", ".example.net"}}
	for _, tc := range []struct {
		name   string
		opts   servertest.Options
		host   string // the Host header; "" keeps the listen address
		fwd    string // X-Forwarded-Host
		want   int
		prefix string // of the URLs served; "" for the listen address
	}{
		{"forged host", servertest.Options{}, "evil.example", "", 400, ""},
		{"forged host with port", servertest.Options{}, "evil.example:8080", "", 400, ""},
		{"malformed host", servertest.Options{AllowedHosts: []string{"*"}}, "evil_example.com", "", 400, ""},
		{"listen address", servertest.Options{}, "", "", 200, ""},
		{"localhost", servertest.Options{}, "localhost:1234", "", 200, "http://localhost:1234"},
		{"allowed host", servertest.Options{AllowedHosts: []string{"Tolk.Example.org"}}, "tolk.example.org", "", 200, "http://tolk.example.org"},
		{"allowed domain", servertest.Options{AllowedHosts: []string{".example.org"}}, "a.example.org:81", "", 200, "http://a.example.org:81"},
		{"other domain", servertest.Options{AllowedHosts: []string{".example.org"}}, "example.org.evil", "", 400, ""},
		{"any host", servertest.Options{AllowedHosts: []string{"*"}}, "whatever.example", "", 200, "http://whatever.example"},
		{"forged forwarded host", proxied, "", "evil.example", 400, ""},
		{"allowed forwarded host", proxied, "", "tolk.example.org", 200, "http://tolk.example.org"},
		{"base URL serves any host", servertest.Options{BaseURL: "https://tolk.example.com"}, "evil.example", "", 200, "https://tolk.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := servertest.Serve(t, db, tc.opts)
			req, err := http.NewRequest("GET", srv.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.fwd != "" {
				req.Header.Set("X-Forwarded-Host", tc.fwd)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.want {
				t.Fatalf("Host %q, X-Forwarded-Host %q: %d %s, want %d", tc.host, tc.fwd, resp.StatusCode, body, tc.want)
			}
			if tc.want == 400 {
				host := cmp.Or(tc.fwd, tc.host)
				if string(body) != refused(host) {
					t.Errorf("body %s, want %s", body, refused(host))
				}
				return
			}
			prefix := cmp.Or(tc.prefix, srv.URL)
			if l := servertest.Decode(t, body); l["url"] != prefix+path {
				t.Errorf("url %v, want %s", l["url"], prefix+path)
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, bad := range []servertest.Options{
		{BaseURL: "ftp://example.com"}, {BaseURL: "example.com"}, {BaseURL: "https://"},
		{BaseURL: "https://example.com/?x=1"}, {TrustedProxies: []string{"proxy.local"}},
		{TrustedProxies: []string{"10.0.0.0/33"}}, {AllowedHosts: []string{"https://tolk.example.com/"}},
		{AllowedHosts: []string{""}}, {WriteTimeout: -1},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
	good := servertest.Options{BaseURL: "https://example.com/tolk/", TrustedProxies: []string{"10.1.2.3", "fd00::/8"}}
	if err := good.Validate(); err != nil || good.Logger == nil {
		t.Errorf("Validate(good) = %v, logger %v", err, good.Logger)
	}
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestRequestIDAndLog(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	r := servertest.Do(t, "GET", srv.URL+"/api/languages/de/", http.Header{"X-Request-Id": {"abc-123"}})
	if got := r.Header.Get("X-Request-ID"); got != "abc-123" {
		t.Errorf("echoed request id = %q", got)
	}
	for _, given := range []string{"", "has spaces", strings.Repeat("x", 200)} {
		r := servertest.Do(t, "GET", srv.URL+"/api/languages/de/", http.Header{"X-Request-Id": {given}})
		if got := r.Header.Get("X-Request-ID"); !hexID.MatchString(got) {
			t.Errorf("given %q: request id = %q, want a fresh one", given, got)
		}
	}
	// One line per request, with what the log needs.
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(srv.Logs.String()), "\n") {
		if strings.Contains(l, `"request_id":"abc-123"`) {
			if line != nil {
				t.Fatalf("two log lines for one request: %s", srv.Logs)
			}
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatal(err)
			}
		}
	}
	if line == nil {
		t.Fatalf("no log line for the request: %s", srv.Logs)
	}
	for k, want := range map[string]any{"msg": "request", "method": "GET", "route": "/api/languages/:code/",
		"status": float64(200), "level": "INFO"} {
		if line[k] != want {
			t.Errorf("log %s = %v, want %v", k, line[k], want)
		}
	}
	if b, _ := line["bytes"].(float64); b <= 0 {
		t.Errorf("log bytes = %v", line["bytes"])
	}
	if _, ok := line["duration"]; !ok {
		t.Error("log has no duration")
	}
}

// failing is the real index with one method replaced.
type failing struct {
	*sqlstore.DB
	findLanguage func() error
}

func (f failing) FindLanguage(ctx context.Context, code string) (index.Language, error) {
	if err := f.findLanguage(); err != nil {
		return index.Language{}, err
	}
	return f.DB.FindLanguage(ctx, code)
}

const serverError = `{"type":"server_error","errors":[{"code":"error","detail":"A server error occurred.","attr":null}]}`

func TestPanicIsJSON500(t *testing.T) {
	db := servertest.MustOpenDB(t)
	srv := servertest.Serve(t, failing{db, func() error { panic("secret panic value") }}, servertest.Options{})
	r := servertest.Do(t, "GET", srv.URL+"/api/languages/de/", http.Header{"X-Request-Id": {"panic-1"}})
	if r.Status != 500 || string(r.Body) != serverError {
		t.Errorf("panic = %d %s, want 500 %s", r.Status, r.Body, serverError)
	}
	if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Allow") == "" {
		t.Errorf("headers = %v", r.Header)
	}
	logs := srv.Logs.String()
	if !strings.Contains(logs, `"msg":"panic"`) || !strings.Contains(logs, "secret panic value") ||
		!strings.Contains(logs, `"request_id":"panic-1"`) {
		t.Errorf("panic not logged with its request id: %s", logs)
	}
	// The server survives.
	r = servertest.Do(t, "GET", srv.URL+"/api/languages/de/statistics/", nil)
	if r.Status != 500 {
		t.Errorf("after panic: %d", r.Status)
	}
}

func TestErrorKinds(t *testing.T) {
	db := servertest.MustOpenDB(t)
	cases := []struct {
		err    error
		status int
		body   string
	}{
		{errors.New("disk on fire at /secret/path"), 500, serverError},
		{index.ErrNotFound, 404,
			`{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`},
		{index.Errorf(index.ErrLocked, "This component is locked."), 423,
			`{"type":"client_error","errors":[{"code":"locked","detail":"This component is locked.","attr":null}]}`},
		{index.ErrUnauthenticated, 401,
			`{"type":"client_error","errors":[{"code":"not_authenticated","detail":"Authentication credentials were not provided.","attr":null}]}`},
		{&index.FieldError{Fields: map[string]index.FieldProblem{
			"target": {Code: "required", Detail: "This field is required."},
			"state":  {Code: "invalid", Detail: "Invalid state."}}}, 400,
			`{"type":"validation_error","errors":[{"code":"invalid","detail":"Invalid state.","attr":"state"},` +
				`{"code":"required","detail":"This field is required.","attr":"target"}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.err.Error(), func(t *testing.T) {
			srv := servertest.Serve(t, failing{db, func() error { return tc.err }}, servertest.Options{})
			r := servertest.Do(t, "GET", srv.URL+"/api/languages/de/", nil)
			if r.Status != tc.status || string(r.Body) != tc.body {
				t.Errorf("= %d %s, want %d %s", r.Status, r.Body, tc.status, tc.body)
			}
			logged := strings.Contains(srv.Logs.String(), tc.err.Error())
			if logged != (tc.status >= 500) {
				t.Errorf("error logged = %v for status %d: %s", logged, tc.status, srv.Logs)
			}
		})
	}
}

// TestHostOfConnection: the address a connection arrived on is always a
// host the server answers for (a wildcard listen reached by IP), and an
// HTTP/1.0 request without Host gets URLs under it. The server listens
// on a non-loopback address where the machine has one, so that the
// loopback names do not answer for it.
func TestHostOfConnection(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	var ip net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP
			break
		}
	}
	srv := httptest.NewUnstartedServer(servertest.Handler(db, servertest.Options{}))
	if ip != nil {
		ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
		if err != nil {
			t.Fatal(err)
		}
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	for _, req := range []string{
		"GET /api/languages/de/ HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n\r\n",
		"GET /api/languages/de/ HTTP/1.0\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, req)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		conn.Close()
		want := `"url":"http://` + addr + `/api/languages/de/"`
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%q: %d %s, want 200 with %s", req, resp.StatusCode, body, want)
		}
	}
}
