package api_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

const notFoundBody = `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`

// Statistics shapes of the aggregates: a project is named like a
// language; one language of a project has a code but no translate page.
var (
	projectStatsShape         = without(statsShape, "code", "translate_url")
	projectLanguageStatsShape = without(statsShape, "translate_url")
)

// seedExtra adds projects zulu, beta and mike after demo, each with a
// component "strings" holding one English source string. Their names
// sort differently from their ids, so a list in name order fails.
func seedExtra(tb testing.TB, db *sqlstore.DB) {
	tb.Helper()
	for _, name := range []string{"Zulu", "Beta", "Mike"} {
		p := servertest.MustProject(tb, db, index.Project{Name: name, Slug: strings.ToLower(name)})
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, "Strings", "strings", "*.json", "en.json"
		c = servertest.MustComponent(tb, db, c)
		servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en", Filename: "en.json",
			Revision: "r", IsSource: true, IsTemplate: true, Monolingual: true,
			Units: []index.ImportUnit{servertest.Unit("k", "Key", "Key", index.StateReadOnly)}})
	}
}

// getArray GETs url, requires a 200 and decodes a JSON array of objects.
func getArray(tb testing.TB, url string) []map[string]any {
	tb.Helper()
	r := servertest.Do(tb, http.MethodGet, url, nil)
	if r.Status != http.StatusOK {
		tb.Fatalf("GET %s: status %d, body %s", url, r.Status, r.Body)
	}
	return servertest.Results(tb, servertest.Decode(tb, []byte(`{"results":`+string(r.Body)+`}`)))
}

// checkAllow checks Allow, OPTIONS and the 403/405 split of one
// endpoint, for those the shared endpoints table cannot hold.
func checkAllow(t *testing.T, base, path, allow, name string) {
	t.Helper()
	for _, method := range []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"} {
		r := servertest.Do(t, method, base+path, nil)
		want := http.StatusMethodNotAllowed
		switch {
		case method == "GET" || method == "HEAD" || method == "OPTIONS":
			want = http.StatusOK
		case strings.Contains(allow, method):
			want = http.StatusUnauthorized // anonymous writes are refused
		}
		if r.Status != want {
			t.Errorf("%s %s = %d %s, want %d", method, path, r.Status, r.Body, want)
		}
		if r.Header.Get("Allow") != allow || r.Header.Get("Vary") != "Accept" ||
			r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s headers = %v, want Allow %q", method, path, r.Header, allow)
		}
		if method == "OPTIONS" && !strings.HasPrefix(string(r.Body), `{"name":"`+name+`",`) {
			t.Errorf("OPTIONS %s = %s, want name %q", path, r.Body, name)
		}
		if method == "HEAD" && len(r.Body) != 0 {
			t.Errorf("HEAD %s body = %q", path, r.Body)
		}
	}
}

func TestProjectList(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	seedExtra(t, db)
	srv := servertest.Serve(t, db, servertest.Options{})
	l := servertest.GetObject(t, srv.URL+"/api/projects/")
	servertest.CheckShape(t, "project list", l, servertest.Shape{"count": "int", "next": "null", "previous": "null", "results": "array"})
	var slugs []string
	for _, p := range servertest.Results(t, l) {
		servertest.CheckShape(t, "project", p, projectShape)
		slugs = append(slugs, p["slug"].(string))
	}
	// The reference orders projects by id: creation order, not name.
	if servertest.Num(l["count"]) != "4" || strings.Join(slugs, ",") != "demo,zulu,beta,mike" {
		t.Errorf("projects = %v (count %v), want demo,zulu,beta,mike", slugs, l["count"])
	}
}

func TestProject(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	p := servertest.GetObject(t, base+"/api/projects/demo/")
	servertest.CheckShape(t, "project", p, projectShape)
	checkValues(t, "project", p, map[string]any{
		"name": "Demo", "slug": "demo", "web": "https://example.com/",
		"web_url":             base + "/projects/demo/",
		"url":                 base + "/api/projects/demo/",
		"components_list_url": base + "/api/projects/demo/components/",
		"repository_url":      base + "/api/projects/demo/repository/",
		"statistics_url":      base + "/api/projects/demo/statistics/",
		"categories_url":      base + "/api/projects/demo/categories/",
		"changes_list_url":    base + "/api/projects/demo/changes/",
		"languages_url":       base + "/api/projects/demo/languages/",
		"labels_url":          base + "/api/projects/demo/labels/",
		"credits_url":         base + "/api/projects/demo/credits/",
		"set_language_team":   true, "enable_hooks": true, "translation_review": false,
		"source_review": false, "instructions": "", "language_aliases": "",
		"use_shared_tm": true, "contribute_shared_tm": true,
	})
	// The lists the project names are served: its categories and labels
	// (none in the demo), paged as every list.
	for _, field := range []string{"categories_url", "labels_url"} {
		l := servertest.GetObject(t, p[field].(string))
		servertest.CheckShape(t, field, l, servertest.Shape{"count": "int", "next": "null", "previous": "null", "results": "array"})
		if servertest.Num(l["count"]) != "0" {
			t.Errorf("GET %s = %v, want an empty list", field, l)
		}
	}
	// The embedded project of a component is the same object.
	comp := servertest.GetObject(t, base+"/api/components/demo/app/")
	if fmt.Sprint(comp["project"]) != fmt.Sprint(p) {
		t.Errorf("component.project = %v, want %v", comp["project"], p)
	}
}

func TestProjectStatistics(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	st := servertest.GetObject(t, base+"/api/projects/demo/statistics/")
	servertest.CheckShape(t, "project statistics", st, projectStatsShape)
	want := servertest.ExpectStats(servertest.DemoUnits["app/en"], servertest.DemoUnits["app/de"], servertest.DemoUnits["glossary/en"], servertest.DemoUnits["glossary/de"])
	want["name"], want["url"] = "Demo", base+"/projects/demo/"
	// The ninth write: languages, project, app, en, de, de again,
	// glossary, its en and its de.
	want["last_change"], want["last_author"] = "2026-11-23T01:02:11.123456Z", nil
	checkValues(t, "project statistics", st, want)
	if n, _ := strconv.Atoi(servertest.Num(st["recent_changes"])); n == 0 {
		t.Errorf("recent_changes = %v, want the import's changes", st["recent_changes"])
	}
}

func TestProjectLanguages(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	checkAllow(t, base, "/api/projects/demo/languages/", "GET, HEAD, OPTIONS", "Languages")
	langs := getArray(t, base+"/api/projects/demo/languages/")
	if len(langs) != 2 {
		t.Fatalf("languages = %v, want de and en", langs)
	}
	for i, tc := range []struct {
		code, name, last string
		units            [][]index.ImportUnit
	}{
		{"de", "German", "2026-11-23T01:02:11.123456Z", [][]index.ImportUnit{servertest.DemoUnits["app/de"], servertest.DemoUnits["glossary/de"]}},
		{"en", "English", "2026-11-23T01:02:10.123456Z", [][]index.ImportUnit{servertest.DemoUnits["app/en"], servertest.DemoUnits["glossary/en"]}},
	} {
		servertest.CheckShape(t, tc.code, langs[i], projectLanguageStatsShape)
		want := servertest.ExpectStats(tc.units...)
		want["code"], want["name"], want["url"] = tc.code, tc.name, base+"/engage/demo/-/"+tc.code+"/"
		want["last_change"] = tc.last
		// Recent changes of a language are those of its translations.
		recent := 0
		for _, comp := range []string{"app", "glossary"} {
			n, _ := strconv.Atoi(servertest.Num(servertest.GetObject(t, base+"/api/translations/demo/"+comp+"/"+tc.code+"/statistics/")["recent_changes"]))
			recent += n
		}
		want["recent_changes"] = strconv.Itoa(recent)
		checkValues(t, tc.code, langs[i], want)
	}
	// format=api reaches into the array too.
	for _, l := range getArray(t, base+"/api/projects/demo/languages/?format=api") {
		if u, _ := l["url"].(string); !strings.HasSuffix(u, "/?format=api") {
			t.Errorf("url with format=api = %q", u)
		}
	}
}

func TestProjectNotFound(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	for _, path := range []string{
		"/api/projects/nope/", "/api/projects/nope/components/", "/api/projects/nope/statistics/",
		"/api/projects/nope/languages/",
	} {
		r := servertest.Do(t, "GET", srv.URL+path, nil)
		if r.Status != http.StatusNotFound || string(r.Body) != notFoundBody ||
			r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s = %d %s %v, want 404 %s", path, r.Status, r.Body, r.Header, notFoundBody)
		}
	}
}
