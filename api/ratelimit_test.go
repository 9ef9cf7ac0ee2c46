package api_test

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

func TestParseRateLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want edge.RateLimit
		ok   bool
		out  string
	}{
		{"100/day", edge.RateLimit{Requests: 100, Period: 24 * time.Hour}, true, "100/day"},
		{"5000/hour", edge.RateLimit{Requests: 5000, Period: time.Hour}, true, "5000/hour"},
		{"10/m", edge.RateLimit{Requests: 10, Period: time.Minute}, true, "10/minute"},
		{" 3/Seconds ", edge.RateLimit{Requests: 3, Period: time.Second}, true, "3/second"},
		{"0", edge.RateLimit{}, true, "off"},
		{"0/day", edge.RateLimit{}, true, "off"},
		{"off", edge.RateLimit{}, true, "off"},
		{"OFF", edge.RateLimit{}, true, "off"},
		{"", edge.RateLimit{}, false, ""},
		{"100", edge.RateLimit{}, false, ""},
		{"100/", edge.RateLimit{}, false, ""},
		{"x/day", edge.RateLimit{}, false, ""},
		{"-1/day", edge.RateLimit{}, false, ""},
		{"5/week", edge.RateLimit{}, false, ""},
	} {
		got, err := edge.ParseRateLimit(tc.in)
		if (err == nil) != tc.ok || got != tc.want || (tc.ok && got.String() != tc.out) {
			t.Errorf("ParseRateLimit(%q) = %v (%q), %v; want %v (%q)", tc.in, got, got.String(), err, tc.want, tc.out)
		}
	}
	for _, bad := range []edge.RateLimits{{Anonymous: edge.RateLimit{Requests: -1}},
		{User: edge.RateLimit{Requests: 5}}} {
		opts := servertest.Options{RateLimits: bad}
		if err := opts.Validate(); err == nil {
			t.Errorf("Validate accepted %+v", bad)
		}
	}
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// limited is one request's rate limit headers.
type limited struct {
	status                         int
	limit, remaining, reset, retry string
}

func limitsOf(r servertest.Response) limited {
	return limited{r.Status, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"),
		r.Header.Get("X-RateLimit-Reset"), r.Header.Get("Retry-After")}
}

// TestRateLimitAnonymous: N requests per window from one address, the
// reference's headers on each, then 429 with Retry-After until the window
// that opened with the first request ends.
func TestRateLimitAnonymous(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	srv := servertest.Serve(t, db, servertest.Options{RateLimits: edge.RateLimits{
		Anonymous: edge.RateLimit{Requests: 3, Period: time.Minute}, Now: clock.Now}})
	get := func(path string) servertest.Response { return servertest.Do(t, "GET", srv.URL+path, nil) }
	for i, want := range []limited{{200, "3", "2", "60", ""}, {200, "3", "1", "60", ""}, {404, "3", "0", "60", ""}} {
		path := "/api/projects/"
		if i == 2 {
			path = "/api/nothing/" // errors count too
		}
		if got := limitsOf(get(path)); got != want {
			t.Errorf("request %d: %+v, want %+v", i+1, got, want)
		}
	}
	const throttled = `{"type":"client_error","errors":[{"code":"throttled",` +
		`"detail":"Request was throttled. Expected available in 60 seconds.","attr":null}]}`
	r := get("/api/projects/")
	if got, want := limitsOf(r), (limited{429, "3", "0", "60", "60"}); got != want || string(r.Body) != throttled {
		t.Errorf("over the limit: %+v %s, want %+v %s", got, r.Body, want, throttled)
	}
	// Pages are counted in a window of their own (AnonymousPages, off
	// here; TestRateLimitEveryRoute): the API's 429 does not reach them.
	if r := get("/projects/demo/"); r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "" {
		t.Errorf("a page: %d %v", r.Status, r.Header)
	}
	clock.advance(59*time.Second + 500*time.Millisecond)
	r = get("/api/")
	if got, want := limitsOf(r), (limited{429, "3", "0", "1", "1"}); got != want ||
		!jsonContains(r.Body, "Expected available in 1 second.") {
		t.Errorf("half a second before the end: %+v %s, want %+v", got, r.Body, want)
	}
	clock.advance(time.Second)
	if got, want := limitsOf(get("/api/")), (limited{200, "3", "2", "60", ""}); got != want {
		t.Errorf("in the next window: %+v, want %+v", got, want)
	}
}

func jsonContains(body []byte, s string) bool { return bytes.Contains(body, []byte(s)) }

// TestRateLimitUsers: a signed-in user's requests count against the user,
// whichever token it presents; a token that fails counts against the
// address, as an anonymous request.
func TestRateLimitUsers(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	anna := servertest.MustUser(t, db, "anna", false)
	anna2 := mustToken(t, db, "anna", index.Token{Scope: index.ScopeRead})
	bob := servertest.MustUser(t, db, "bob", false)
	srv := servertest.Serve(t, db, servertest.Options{RateLimits: edge.RateLimits{
		Anonymous: edge.RateLimit{Requests: 1, Period: time.Hour},
		User:      edge.RateLimit{Requests: 2, Period: time.Hour}, Now: clock.Now}})
	get := func(auth string) limited { return limitsOf(servertest.DoJSON(t, "GET", srv.URL+"/api/", auth, nil)) }
	for i, tc := range []struct {
		auth string
		want limited
	}{
		{anna, limited{200, "2", "1", "3600", ""}},
		{anna2, limited{200, "2", "0", "3600", ""}},
		{anna, limited{429, "2", "0", "3600", "3600"}},
		{bob, limited{200, "2", "1", "3600", ""}},
		{"Token wlu_" + strings.Repeat("Q", 36), limited{401, "1", "0", "3600", ""}},
		{"", limited{429, "1", "0", "3600", "3600"}},
		{"Token wlu_" + strings.Repeat("Q", 36), limited{429, "1", "0", "3600", "3600"}},
	} {
		if got := get(tc.auth); got != tc.want {
			t.Errorf("request %d: %+v, want %+v", i+1, got, tc.want)
		}
	}
	// Writes count like reads.
	clock.advance(time.Hour)
	if r := servertest.DoJSON(t, "POST", srv.URL+"/api/projects/", bob, map[string]any{}); r.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("a write: %d %v", r.Status, r.Header)
	}
}

// TestRateLimitClients: clients are told apart by gin's ClientIP, which
// believes X-Forwarded-For only from trusted proxies; IPv6 clients by
// their /64; and the limiter forgets the client whose window ends first
// when it tracks as many as it may.
func TestRateLimitClients(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	db := servertest.MustOpenDB(t)
	one := edge.RateLimit{Requests: 1, Period: time.Hour}
	untrusted := servertest.Serve(t, db, servertest.Options{RateLimits: edge.RateLimits{Anonymous: one, Now: clock.Now}})
	from := func(srv *servertest.Running, ip string) int {
		return servertest.Do(t, "GET", srv.URL+"/api/", http.Header{"X-Forwarded-For": {ip}}).Status
	}
	if a, b := from(untrusted, "192.0.2.1"), from(untrusted, "192.0.2.2"); a != 200 || b != 429 {
		t.Errorf("without trusted proxies X-Forwarded-For is ignored: %d %d, want 200 429", a, b)
	}

	proxied := servertest.Serve(t, db, servertest.Options{TrustedProxies: []string{"127.0.0.1"},
		RateLimits: edge.RateLimits{Anonymous: one, MaxClients: 3, Now: clock.Now}})
	for _, tc := range []struct {
		ip   string
		want int
	}{
		{"192.0.2.1", 200}, {"192.0.2.1", 429}, {"192.0.2.2", 200},
		{"2001:db8::1", 200}, {"2001:db8::ffff", 429}, // one /64
		// A fourth client: the oldest window, 192.0.2.1's, is dropped.
		{"2001:db8:0:1::1", 200},
		{"192.0.2.2", 429}, {"192.0.2.1", 200},
	} {
		clock.advance(time.Second) // windows open in order
		if got := from(proxied, tc.ip); got != tc.want {
			t.Errorf("from %s: %d, want %d", tc.ip, got, tc.want)
		}
	}

	// Without limits, nothing is said about them.
	if r := servertest.Do(t, "GET", servertest.Serve(t, db, servertest.Options{}).URL+"/api/", nil); r.Header.Get("X-RateLimit-Limit") != "" {
		t.Errorf("limits off: %v", r.Header)
	}
}

// TestRateLimitEveryRoute (finding 9): every route a client can loop on
// is limited, so that a scraper the API answers with 429 cannot read on
// through another: the Git export counts against the API's limit, the
// pages and their forms against a window of their own (people read
// pages far more often than tools call the API). A page past its limit
// is a page a person can read, with Retry-After; the Git export answers
// the JSON envelope as its other errors do. The stylesheet and script
// (every page view fetches them), the probes and /hooks/ are not
// counted.
func TestRateLimitEveryRoute(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	srv := servertest.Serve(t, db, servertest.Options{RateLimits: edge.RateLimits{
		Anonymous:      edge.RateLimit{Requests: 4, Period: time.Minute},
		AnonymousPages: edge.RateLimit{Requests: 2, Period: time.Minute}, Now: clock.Now}})
	const gitRefs = "/git/demo/app/info/refs?service=git-upload-pack"
	do := func(method, path string) servertest.Response {
		return servertest.Do(t, method, srv.URL+path, nil)
	}
	notCounted := func(when string) {
		t.Helper()
		for _, path := range []string{"/static/tolk.css", "/static/tolk.js", "/healthz", "/readyz"} {
			if r := do("GET", path); r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "" {
				t.Errorf("%s: GET %s = %d with X-RateLimit-Limit %q; want 200, not counted", when,
					path, r.Status, r.Header.Get("X-RateLimit-Limit"))
			}
		}
		if r := do("POST", "/hooks/github/"); r.Status == 429 || r.Header.Get("X-RateLimit-Limit") != "" {
			t.Errorf("%s: POST /hooks/github/ = %d %v; want not counted", when, r.Status, r.Header)
		}
	}
	for i, step := range []struct {
		path string
		left int
	}{{"/api/", 3}, {"/projects/demo/", 1}, {gitRefs, 2}, {"/", 0}, {"/api/", 1}, {gitRefs, 0}} {
		notCounted("within the limit")
		r := do("GET", step.path)
		if got, want := r.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(step.left); got != want {
			t.Errorf("request %d, GET %s: %d, X-RateLimit-Remaining %q, want %d", i+1, step.path, r.Status, got, step.left)
		}
	}
	for _, tc := range []struct{ method, path, contentType string }{
		{"GET", "/projects/demo/", "text/html; charset=utf-8"},
		{"GET", "/translate/demo/app/de/", "text/html; charset=utf-8"},
		{"HEAD", "/", "text/html; charset=utf-8"},
		{"POST", "/accounts/login/", "text/html; charset=utf-8"},
		{"GET", gitRefs, "application/json"},
		{"GET", "/api/projects/", "application/json"},
	} {
		r := do(tc.method, tc.path)
		if r.Status != 429 || r.Header.Get("Retry-After") != "60" || r.Header.Get("Content-Type") != tc.contentType {
			t.Errorf("past the limit, %s %s = %d, Retry-After %q, %s; want 429, 60, %s", tc.method, tc.path,
				r.Status, r.Header.Get("Retry-After"), r.Header.Get("Content-Type"), tc.contentType)
		}
		if tc.method == "GET" && strings.HasPrefix(tc.contentType, "text/html") &&
			!bytes.Contains(r.Body, []byte("Too many requests")) {
			t.Errorf("past the limit, GET %s: the page does not say Too many requests", tc.path)
		}
	}
	notCounted("past the limit")
	clock.advance(time.Minute)
	if r := do("GET", "/projects/demo/"); r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("a page in the next window: %d %v", r.Status, r.Header)
	}
}
