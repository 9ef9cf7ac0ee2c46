package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
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
var anyChange = func() servertest.Shape {
	s := servertest.Shape{}
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
	shape servertest.Shape
}{
	{"/api/", object, servertest.Shape{"addons": "url", "categories": "url", "component-lists": "url", "groups": "url", "roles": "url", "changes": "url", "components": "url", "languages": "url",
		"projects": "url", "memory": "url", "tasks": "url", "translations": "url", "units": "url", "users": "url",
		"suggestions": "url"}},
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
	{"/api/components/demo/app/lock/", object, servertest.Shape{"locked": "bool"}},
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
	srv, _ := servertest.DemoServer(t)
	for _, ep := range conformance {
		t.Run(strings.Trim(ep.path, "/"), func(t *testing.T) {
			get := servertest.Do(t, http.MethodGet, srv.URL+ep.path, nil)
			if get.Status != http.StatusOK {
				t.Fatalf("GET: %d %s", get.Status, get.Body)
			}
			checkCommonHeaders(t, "GET", get)
			checkBody(t, ep.path, ep.kind, ep.shape, get.Body)
			checkFormatRule(t, srv.URL, ep.path, false, get.Body)

			api := servertest.Do(t, http.MethodGet, srv.URL+ep.path+"?format=api", nil)
			if api.Status != http.StatusOK {
				t.Fatalf("GET ?format=api: %d %s", api.Status, api.Body)
			}
			checkFormatRule(t, srv.URL, ep.path, true, api.Body)

			head := servertest.Do(t, http.MethodHead, srv.URL+ep.path, nil)
			checkCommonHeaders(t, "HEAD", head)
			if head.Status != http.StatusOK || len(head.Body) != 0 {
				t.Errorf("HEAD = %d with %d body bytes", head.Status, len(head.Body))
			}
			if got, want := head.Header.Get("Content-Length"), strconv.Itoa(len(get.Body)); got != want {
				t.Errorf("HEAD Content-Length = %s, want GET's %s", got, want)
			}
			if head.Header.Get("Allow") != get.Header.Get("Allow") {
				t.Errorf("HEAD Allow %q, GET Allow %q", head.Header.Get("Allow"), get.Header.Get("Allow"))
			}

			opts := servertest.Do(t, http.MethodOptions, srv.URL+ep.path, nil)
			checkCommonHeaders(t, "OPTIONS", opts)
			meta := servertest.Decode(t, opts.Body)
			servertest.CheckShape(t, "OPTIONS", meta, servertest.Shape{"name": "string", "description": "string",
				"renders": "strings", "parses": "strings"})
		})
	}
}

// checkCommonHeaders holds the spec's "Common response behaviour" rules 1
// and 2: JSON, Allow (with the methods every resource takes) and Vary.
func checkCommonHeaders(tb testing.TB, method string, r servertest.Response) {
	tb.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		tb.Errorf("%s Content-Type = %q", method, ct)
	}
	if v := r.Header.Get("Vary"); v != "Accept" {
		tb.Errorf("%s Vary = %q", method, v)
	}
	allow := strings.Split(r.Header.Get("Allow"), ", ")
	for _, m := range []string{"GET", "HEAD", "OPTIONS"} {
		if !contains(allow, m) {
			tb.Errorf("%s Allow = %q lacks %s", method, r.Header.Get("Allow"), m)
		}
	}
}

func checkBody(tb testing.TB, path string, kind bodyKind, want servertest.Shape, body []byte) {
	tb.Helper()
	switch kind {
	case object:
		servertest.CheckShape(tb, path, servertest.Decode(tb, body), want)
	case paginated:
		list := servertest.Decode(tb, body)
		servertest.CheckShape(tb, path, list, listShape)
		items := servertest.Results(tb, list)
		for i, item := range items {
			servertest.CheckShape(tb, path+" results["+strconv.Itoa(i)+"]", item, want)
		}
		if n, _ := strconv.Atoi(servertest.Num(list["count"])); n < len(items) {
			tb.Errorf("%s: count %d < %d results", path, n, len(items))
		}
	case array:
		items := decodeArray(tb, body)
		if len(items) == 0 {
			tb.Errorf("%s: empty array; the demo has languages", path)
		}
		for i, item := range items {
			servertest.CheckShape(tb, path+"["+strconv.Itoa(i)+"]", servertest.Obj(tb, item), want)
		}
	}
}

// checkFormatRule holds rule 3: with format=api every URL of this server
// in the body carries it, without it none does.
func checkFormatRule(tb testing.TB, base, path string, formatAPI bool, body []byte) {
	tb.Helper()
	var urls []string
	servertest.Strs(decodeAny(tb, body), &urls)
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
