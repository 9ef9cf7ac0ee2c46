package api_test

import (
	"encoding/json"
	"net/http"
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
		{"/api/units/1/suggestions/?page=0", http.StatusNotFound},
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
