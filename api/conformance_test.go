package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// bodyKind says how an endpoint wraps its objects.
type bodyKind int

const (
	object    bodyKind = iota // one object
	paginated                 // the spec's list envelope around objects
	array                     // a bare JSON array (project languages)
)

// anyChange is the spec's Change, whose component and translation links
// are null for changes tied to neither (a project being created).
var anyChange = func() shape {
	s := shape{}
	for k, v := range changeShape {
		s[k] = v
	}
	s["component"], s["translation"] = "url|null", "url|null"
	return s
}()

// conformance lists every JSON read endpoint of the demo with the shape
// of what it returns, derived from the spec's "Resources and their
// fields" (and the reference where the spec is silent). Per-resource tests
// check values; this table checks that nothing escapes the contract:
// fields and their types, headers, HEAD, OPTIONS and the format=api rule.
var conformance = []struct {
	path  string
	kind  bodyKind
	shape shape
}{
	{"/api/", object, shape{"addons": "url", "changes": "url", "components": "url", "languages": "url", "projects": "url",
		"tasks": "url", "translations": "url", "units": "url", "users": "url"}},
	{"/api/projects/", paginated, projectShape},
	{"/api/projects/demo/", object, projectShape},
	{"/api/projects/demo/components/", paginated, componentShape},
	{"/api/projects/demo/statistics/", object, projectStatsShape},
	{"/api/projects/demo/languages/", array, projectLanguageStatsShape},
	{"/api/projects/demo/changes/", paginated, anyChange},
	{"/api/components/", paginated, componentShape},
	{"/api/components/demo/app/", object, componentShape},
	{"/api/components/demo/glossary/", object, componentShape},
	{"/api/components/demo/app/translations/", paginated, translationShape},
	{"/api/components/demo/app/statistics/", paginated, statsShape},
	{"/api/components/demo/app/changes/", paginated, anyChange},
	{"/api/components/demo/app/lock/", object, shape{"locked": "bool"}},
	{"/api/components/demo/app/links/", paginated, projectShape},
	{"/api/translations/", paginated, translationShape},
	{"/api/translations/demo/app/de/", object, translationShape},
	{"/api/translations/demo/glossary/de/", object, translationShape},
	{"/api/translations/demo/app/de/units/", paginated, unitShape},
	{"/api/translations/demo/app/de/changes/", paginated, changeShape},
	{"/api/translations/demo/app/de/statistics/", object, statsShape},
	{"/api/units/", paginated, unitShape},
	{"/api/units/1/", object, unitShape},
	{"/api/changes/", paginated, anyChange},
	{"/api/changes/1/", object, anyChange},
	{"/api/languages/", paginated, languageShape},
	{"/api/languages/de/", object, languageShape},
	{"/api/languages/de/statistics/", object, languageStatsShape},
	{"/api/users/", paginated, userShape},
}

func TestConformance(t *testing.T) {
	srv, _ := demoServer(t)
	for _, ep := range conformance {
		t.Run(strings.Trim(ep.path, "/"), func(t *testing.T) {
			get := do(t, http.MethodGet, srv.URL+ep.path, nil)
			if get.status != http.StatusOK {
				t.Fatalf("GET: %d %s", get.status, get.body)
			}
			checkCommonHeaders(t, "GET", get)
			checkBody(t, ep.path, ep.kind, ep.shape, get.body)
			checkFormatRule(t, srv.URL, ep.path, false, get.body)

			api := do(t, http.MethodGet, srv.URL+ep.path+"?format=api", nil)
			if api.status != http.StatusOK {
				t.Fatalf("GET ?format=api: %d %s", api.status, api.body)
			}
			checkFormatRule(t, srv.URL, ep.path, true, api.body)

			head := do(t, http.MethodHead, srv.URL+ep.path, nil)
			checkCommonHeaders(t, "HEAD", head)
			if head.status != http.StatusOK || len(head.body) != 0 {
				t.Errorf("HEAD = %d with %d body bytes", head.status, len(head.body))
			}
			if got, want := head.header.Get("Content-Length"), strconv.Itoa(len(get.body)); got != want {
				t.Errorf("HEAD Content-Length = %s, want GET's %s", got, want)
			}
			if head.header.Get("Allow") != get.header.Get("Allow") {
				t.Errorf("HEAD Allow %q, GET Allow %q", head.header.Get("Allow"), get.header.Get("Allow"))
			}

			opts := do(t, http.MethodOptions, srv.URL+ep.path, nil)
			checkCommonHeaders(t, "OPTIONS", opts)
			meta := decode(t, opts.body)
			checkShape(t, "OPTIONS", meta, shape{"name": "string", "description": "string",
				"renders": "strings", "parses": "strings"})
		})
	}
}

// checkCommonHeaders holds the spec's "Common response behaviour" rules 1
// and 2: JSON, Allow (with the methods every resource takes) and Vary.
func checkCommonHeaders(tb testing.TB, method string, r response) {
	tb.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		tb.Errorf("%s Content-Type = %q", method, ct)
	}
	if v := r.header.Get("Vary"); v != "Accept" {
		tb.Errorf("%s Vary = %q", method, v)
	}
	allow := strings.Split(r.header.Get("Allow"), ", ")
	for _, m := range []string{"GET", "HEAD", "OPTIONS"} {
		if !contains(allow, m) {
			tb.Errorf("%s Allow = %q lacks %s", method, r.header.Get("Allow"), m)
		}
	}
}

func checkBody(tb testing.TB, path string, kind bodyKind, want shape, body []byte) {
	tb.Helper()
	switch kind {
	case object:
		checkShape(tb, path, decode(tb, body), want)
	case paginated:
		list := decode(tb, body)
		checkShape(tb, path, list, listShape)
		items := results(tb, list)
		for i, item := range items {
			checkShape(tb, path+" results["+strconv.Itoa(i)+"]", item, want)
		}
		if n, _ := strconv.Atoi(num(list["count"])); n < len(items) {
			tb.Errorf("%s: count %d < %d results", path, n, len(items))
		}
	case array:
		items := decodeArray(tb, body)
		if len(items) == 0 {
			tb.Errorf("%s: empty array; the demo has languages", path)
		}
		for i, item := range items {
			checkShape(tb, path+"["+strconv.Itoa(i)+"]", obj(tb, item), want)
		}
	}
}

// checkFormatRule holds rule 3: with format=api every URL of this server
// in the body carries it, without it none does.
func checkFormatRule(tb testing.TB, base, path string, formatAPI bool, body []byte) {
	tb.Helper()
	var urls []string
	strs(decodeAny(tb, body), &urls)
	seen := 0
	for _, u := range urls {
		if !strings.HasPrefix(u, base+"/") {
			continue
		}
		seen++
		if has := strings.HasSuffix(u, "?format=api") || strings.HasSuffix(u, "&format=api"); has != formatAPI {
			tb.Errorf("%s (format=api %v): URL %s", path, formatAPI, u)
		}
	}
	if seen == 0 && !strings.HasSuffix(path, "/lock/") && !strings.HasSuffix(path, "/users/") &&
		!strings.HasSuffix(path, "/links/") {
		tb.Errorf("%s: no URL of this server in the body", path)
	}
}

// decodeAny decodes any JSON body keeping numbers exact.
func decodeAny(tb testing.TB, body []byte) any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
	return v
}

func decodeArray(tb testing.TB, body []byte) []any {
	tb.Helper()
	items, ok := decodeAny(tb, body).([]any)
	if !ok {
		tb.Fatalf("body %s is not an array", body)
	}
	return items
}
