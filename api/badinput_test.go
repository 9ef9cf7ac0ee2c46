package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestBadInput sends what scanners and broken clients send: traversal
// segments, NUL bytes, huge and malformed numbers, very long slugs. Each
// gets a clear JSON 4xx in the reference's envelope, and nothing reaches
// the log as a panic or a server error.
func TestBadInput(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	long := strings.Repeat("x", 10000)
	const tr = "/api/translations/demo/app/de/"
	cases := []struct {
		path   string
		status int
	}{
		{"/api/translations/demo/app/../app/de/", http.StatusNotFound},
		{"/api/../api/languages/de/", http.StatusNotFound},
		{"/api/languages/%2e%2e/", http.StatusNotFound},
		{"/api/languages/..%2fde/", http.StatusNotFound},
		{"/api/languages/de%00/", http.StatusNotFound},
		{"/api/translations/demo/app/%00/", http.StatusNotFound},
		{"/api/translations/" + long + "/app/de/", http.StatusNotFound},
		{"/api/languages/" + long + "/statistics/", http.StatusNotFound},
		{"/api/translations/demo/app/de/units/" + long + "/", http.StatusNotFound},
		{tr + "units/?page=abc", http.StatusNotFound},
		{tr + "units/?page=0", http.StatusNotFound},
		{tr + "units/?page=-1", http.StatusNotFound},
		{tr + "units/?page=1e3", http.StatusNotFound},
		{tr + "units/?page=%00", http.StatusNotFound},
		{tr + "units/?page=99999999999999999999999", http.StatusNotFound},
		{tr + "units/?page=2147483647", http.StatusNotFound},
		{tr + "changes/?page=9223372036854775807", http.StatusNotFound},
		{tr + "units/?page=" + long, http.StatusNotFound},
		{"/api/suggestions/?page=abc", http.StatusNotFound},
		{"/api/suggestions/?page=99999999999999999999999", http.StatusNotFound},
		{"/api/suggestions/" + long + "/", http.StatusNotFound},
		{"/api/suggestions/-1/", http.StatusNotFound},
		{"/api/suggestions/9223372036854775807/", http.StatusNotFound},
		{"/api/suggestions/1%00/", http.StatusNotFound},
		{"/api/units/99999999999999999999/suggestions/", http.StatusNotFound},
		{"/api/categories/?page=abc", http.StatusNotFound},
		{"/api/categories/" + long + "/", http.StatusNotFound},
		{"/api/categories/-1/", http.StatusNotFound},
		{"/api/categories/99999999999999999999/statistics/", http.StatusNotFound},
		{"/api/categories/1%00/", http.StatusNotFound},
		{"/api/projects/demo/categories/?page=0", http.StatusNotFound},
		{"/api/groups/?page=abc", http.StatusNotFound},
		{"/api/groups/" + long + "/", http.StatusNotFound},
		{"/api/groups/-1/", http.StatusNotFound},
		{"/api/groups/1%00/", http.StatusNotFound},
		{"/api/roles/?page=0", http.StatusNotFound},
		{"/api/roles/99999999999999999999/", http.StatusNotFound},
		{"/api/roles/1/", http.StatusNotFound}, // anonymous callers see no role
		{"/api/component-lists/?page=-1", http.StatusNotFound},
		{"/api/component-lists/" + long + "/", http.StatusNotFound},
		{"/api/component-lists/%00/", http.StatusNotFound},
		{"/api/units/1/suggestions/?page=0", http.StatusNotFound},
		{"/api/users/" + long + "/statistics/", http.StatusNotFound},
		{"/api/users/%00/statistics/", http.StatusNotFound},
		{"/api/users/..%2f/contributions/", http.StatusNotFound},
		{"/api/users/%ff%fe/contributions/?page=abc", http.StatusNotFound},
		{"/api/projects/demo/credits/?start=" + long, http.StatusUnauthorized}, // signed-in readers only
		// Hostile searches: each a 400 on q (or an answer), never a 500.
		{tr + "units/?q=%ff%fe", http.StatusBadRequest},
		{tr + "units/?q=" + strings.Repeat("(", 5000) + "a", http.StatusBadRequest},
		{tr + "units/?q=" + strings.Repeat("NOT+", 2000) + "a", http.StatusBadRequest},
		{tr + "units/?q=" + strings.Repeat("a+OR+", 500) + "a", http.StatusBadRequest},
		{"/api/units/?q=source%3Ar%22" + strings.Repeat("a", 2000) + "%22", http.StatusBadRequest},
		{"/api/units/?q=source%3Ar%22(%22", http.StatusBadRequest},
		{"/api/units/?q=source%3A%5B1+to", http.StatusBadRequest},
		{"/api/units/?q=changed%3A%5B99999999+to+-1%5D", http.StatusBadRequest},
		{"/api/units/?q=id%3A99999999999999999999", http.StatusBadRequest},
		{"/api/units/?q=%22%5C", http.StatusBadRequest},
		{"/api/units/?sort_by=%ff%fe", http.StatusBadRequest},
		{tr + "units/?sort_by=" + strings.Repeat("-", 5000), http.StatusBadRequest},
		{"/api/units/?sort_by=" + strings.Repeat("source,", 1000), http.StatusBadRequest},
		{"/api/units/?q=)", http.StatusBadRequest},
		{"/api/units/?q=" + strings.Repeat("%28changed_by%3Aa+OR+changed_by%3Ab%29+", 8), http.StatusBadRequest},
	}
	for _, tc := range cases {
		r := servertest.Do(t, http.MethodGet, srv.URL+tc.path, nil)
		name := tc.path
		if len(name) > 80 {
			name = name[:80] + "..."
		}
		if r.Status != tc.status {
			t.Errorf("GET %s = %d %s, want %d", name, r.Status, r.Body, tc.status)
			continue
		}
		checkErrorEnvelope(t, name, r)
	}

	// Patterns that backtrack for ever elsewhere are linear in RE2, and
	// odd but valid searches are answered.
	for _, q := range []string{`source:r"(a+)+$"`, `target:r"(x*)*y"`, `"` + strings.Repeat(`\"`, 100) + `"`,
		"f(x) http://x.y/z?a=b", "id:1,2,3,4,5", "changed:[0001 to 9999]", "changed:<=9999", "(((a)))"} {
		r := servertest.Do(t, http.MethodGet, srv.URL+"/api/units/?q="+url.QueryEscape(q), nil)
		if r.Status != http.StatusOK {
			t.Errorf("GET /api/units/?q=%s = %d %.300s, want 200", q, r.Status, r.Body)
		}
	}

	// Odd but harmless parameters are ignored, as the reference does.
	for _, q := range []string{"page_size=abc", "page_size=-1", "page_size=0", "page_size=99999999999999999999",
		"format=nope", "page=1&page=2", "%zz=1", "unknown=%00"} {
		r := servertest.Do(t, http.MethodGet, srv.URL+tr+"units/?"+q, nil)
		if r.Status != http.StatusOK {
			t.Errorf("GET units/?%s = %d %s, want 200", q, r.Status, r.Body)
		}
	}

	for _, line := range strings.Split(srv.Logs.String(), "\n") {
		if strings.Contains(line, "panic") || strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("log: %s", line)
		}
	}
}

// checkErrorEnvelope requires the reference's client error body.
func checkErrorEnvelope(tb testing.TB, what string, r servertest.Response) {
	tb.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		tb.Errorf("%s: Content-Type %q", what, ct)
	}
	var body struct {
		Type   string `json:"type"`
		Errors []struct {
			Code   string  `json:"code"`
			Detail string  `json:"detail"`
			Attr   *string `json:"attr"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		tb.Errorf("%s: body %q: %v", what, r.Body, err)
		return
	}
	if body.Type != "client_error" && body.Type != "validation_error" {
		tb.Errorf("%s: type %q", what, body.Type)
	}
	if len(body.Errors) == 0 || body.Errors[0].Code == "" || body.Errors[0].Detail == "" {
		tb.Errorf("%s: errors %+v", what, body.Errors)
	}
}
