package api_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// update rewrites the golden API bodies under testdata/golden from what
// the server answers: go test ./api -run TestGoldenBodies -update, then
// review the diff.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenHost stands for the test server's address in the golden files.
const goldenHost = "http://tolk.test"

// goldenRequests are the bodies clients read most, and the error bodies
// they must tell apart, as the demo index answers them. Each is kept
// under testdata/golden/<name>.json, indented, with the server's address
// written as goldenHost; everything else is the wire's bytes (key order,
// escaping, nulls, numbers), which the compatibility rests on.
var goldenRequests = []struct {
	name, method, path string
	status             int
}{
	{"root", "GET", "/api/", 200},
	{"projects", "GET", "/api/projects/", 200},
	{"project", "GET", "/api/projects/demo/", 200},
	{"project-components", "GET", "/api/projects/demo/components/", 200},
	{"project-languages", "GET", "/api/projects/demo/languages/", 200},
	{"project-statistics", "GET", "/api/projects/demo/statistics/", 200},
	{"components", "GET", "/api/components/", 200},
	{"component", "GET", "/api/components/demo/app/", 200},
	{"component-translations", "GET", "/api/components/demo/app/translations/", 200},
	{"component-statistics", "GET", "/api/components/demo/app/statistics/", 200},
	{"component-lock", "GET", "/api/components/demo/app/lock/", 200},
	{"translations", "GET", "/api/translations/?page_size=2", 200},
	{"translation", "GET", "/api/translations/demo/app/de/", 200},
	{"translation-statistics", "GET", "/api/translations/demo/app/de/statistics/", 200},
	{"translation-units", "GET", "/api/translations/demo/app/de/units/", 200},
	{"translation-units-search", "GET", "/api/translations/demo/app/de/units/?q=state:translated", 200},
	{"glossary-units", "GET", "/api/translations/demo/glossary/de/units/", 200},
	{"unit", "GET", "/api/units/1/", 200},
	{"units-page-2", "GET", "/api/units/?page=2&page_size=3", 200},
	{"changes", "GET", "/api/changes/?page_size=5", 200},
	{"change", "GET", "/api/changes/2/", 200},
	{"languages", "GET", "/api/languages/", 200},
	{"language", "GET", "/api/languages/de/", 200},
	{"language-statistics", "GET", "/api/languages/de/statistics/", 200},
	{"options-units", "OPTIONS", "/api/translations/demo/app/de/units/", 200},
	{"error-not-found", "GET", "/api/projects/nothing/", 404},
	{"error-invalid-page", "GET", "/api/projects/?page=9", 404},
	{"error-method", "PUT", "/api/changes/", 405},
	{"error-not-signed-in", "POST", "/api/projects/", 401},
	{"error-bad-token", "GET", "/api/projects/", 401},
	{"error-bad-query", "GET", "/api/units/?q=nosuchfield:x", 400},
}

// TestGoldenBodies compares the demo's answers with the golden files,
// byte for byte but for indentation and the server's address. Each
// request is sent twice: the second answer (from the caches) must be
// the first's.
func TestGoldenBodies(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	for _, g := range goldenRequests {
		t.Run(g.name, func(t *testing.T) {
			h := http.Header{}
			if g.name == "error-bad-token" {
				h.Set("Authorization", "Token wlu_nosuchtoken")
			}
			var first []byte
			for i := range 2 {
				r := servertest.DoBody(t, g.method, srv.URL+g.path, h, nil)
				if r.Status != g.status {
					t.Fatalf("%s %s = %d %s, want %d", g.method, g.path, r.Status, r.Body, g.status)
				}
				if i == 0 {
					first = r.Body
				} else if !bytes.Equal(r.Body, first) {
					t.Errorf("answered again:\n%s\nfirst:\n%s", r.Body, first)
				}
			}
			got := goldenForm(t, first, srv.URL)
			file := filepath.Join("testdata", "golden", g.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./api -run TestGoldenBodies -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s %s differs from %s:\n got: %s\nwant: %s", g.method, g.path, file, got, want)
			}
		})
	}
}

// goldenForm indents body (json.Indent keeps every string's bytes and
// the key order) and writes base as goldenHost.
func goldenForm(tb testing.TB, body []byte, base string) []byte {
	tb.Helper()
	var out bytes.Buffer
	// Indent keeps trailing white space; the file ends in one newline.
	if err := json.Indent(&out, bytes.TrimRight(body, " \t\r\n"), "", "  "); err != nil {
		tb.Fatalf("not JSON: %v: %s", err, body)
	}
	out.WriteByte('\n')
	return []byte(strings.ReplaceAll(out.String(), base, goldenHost))
}

// TestGoldenFormIdempotent: writing a golden body's form again changes
// nothing, so -update never churns a file it has written.
func TestGoldenFormIdempotent(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	body := servertest.Do(t, "GET", srv.URL+"/api/translations/demo/app/de/units/", nil).Body
	once := goldenForm(t, body, srv.URL)
	if twice := goldenForm(t, once, srv.URL); !bytes.Equal(once, twice) {
		t.Errorf("formatting a golden body again changed it:\n%s\n%s", once, twice)
	}
}
