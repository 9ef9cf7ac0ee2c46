package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestComponentLists: the list of every component and a project's list
// hold components of the reference's shape (with their project and
// source language), in id order, and nothing of other projects.
func TestComponentLists(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	seedExtra(t, db)
	srv := servertest.Serve(t, db, servertest.Options{})
	for _, tc := range []struct{ path, count, want string }{
		{"/api/components/", "5", "demo/app,demo/glossary,zulu/strings,beta/strings,mike/strings"},
		{"/api/projects/demo/components/", "2", "demo/app,demo/glossary"},
		{"/api/projects/beta/components/", "1", "beta/strings"},
	} {
		l := servertest.GetObject(t, srv.URL+tc.path)
		var names []string
		for _, c := range servertest.Results(t, l) {
			servertest.CheckShape(t, "component", c, componentShape)
			servertest.CheckShape(t, "component.project", servertest.Obj(t, c["project"]), projectShape)
			servertest.CheckShape(t, "component.source_language", servertest.Obj(t, c["source_language"]), languageShape)
			name := servertest.Obj(t, c["project"])["slug"].(string) + "/" + c["slug"].(string)
			if c["url"] != srv.URL+"/api/components/"+name+"/" {
				t.Errorf("%s: %s has url %v", tc.path, name, c["url"])
			}
			names = append(names, name)
		}
		if servertest.Num(l["count"]) != tc.count || strings.Join(names, ",") != tc.want {
			t.Errorf("%s = %v (count %v), want %s (count %s)", tc.path, names, l["count"], tc.want, tc.count)
		}
	}
}

func TestComponent(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	c := servertest.GetObject(t, base+"/api/components/demo/app/")
	servertest.CheckShape(t, "component", c, componentShape)
	checkValues(t, "component", c, map[string]any{
		"name": "App", "slug": "app", "vcs": "git", "repo": "file:///srv/repos/app.git", "branch": "main",
		"filemask": "locales/*.json", "template": "locales/en.json", "file_format": "json",
		"license": "MIT", "license_url": "https://spdx.org/licenses/MIT.html",
		"url":              base + "/api/components/demo/app/",
		"web_url":          base + "/projects/demo/app/",
		"translations_url": base + "/api/components/demo/app/translations/",
		"statistics_url":   base + "/api/components/demo/app/statistics/",
		"lock_url":         base + "/api/components/demo/app/lock/",
		"links_url":        base + "/api/components/demo/app/links/",
		"credits_url":      base + "/api/components/demo/app/credits/",
		"is_glossary":      false, "task_url": nil,
	})
	checkValues(t, "source_language", servertest.Obj(t, c["source_language"]), map[string]any{"code": "en", "name": "English"})
	// The component inside a translation is the same object.
	tr := servertest.GetObject(t, base+"/api/translations/demo/app/de/")
	if got, want := servertest.Obj(t, tr["component"]), c; len(got) != len(want) || got["url"] != want["url"] ||
		got["id"] != want["id"] {
		t.Errorf("translation.component = %v, want %v", got, want)
	}
	g := servertest.GetObject(t, base+"/api/components/demo/glossary/")
	checkValues(t, "glossary", g, map[string]any{"is_glossary": true, "file_format": "tbx", "license_url": nil})
}

func TestComponentTranslations(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	l := servertest.GetObject(t, base+"/api/components/demo/app/translations/")
	rs := servertest.Results(t, l)
	if servertest.Num(l["count"]) != "2" || len(rs) != 2 {
		t.Fatalf("translations = %v", l)
	}
	// Ascending id: the source was imported first.
	for i, code := range []string{"en", "de"} {
		servertest.CheckShape(t, code, rs[i], translationShape)
		want := servertest.GetObject(t, base+"/api/translations/demo/app/"+code+"/")
		for k, v := range want {
			if k == "component" || k == "language" {
				continue
			}
			if rs[i][k] != v {
				t.Errorf("%s.%s = %v, want %v as the instance has it", code, k, rs[i][k], v)
			}
		}
	}
}

func TestComponentStatistics(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	l := servertest.GetObject(t, base+"/api/components/demo/app/statistics/")
	rs := servertest.Results(t, l)
	if servertest.Num(l["count"]) != "2" || len(rs) != 2 || l["next"] != nil || l["previous"] != nil {
		t.Fatalf("statistics = %v", l)
	}
	for i, tc := range []struct{ code, name, last, recent string }{
		// The source: created with its six strings in one import.
		{"en", "English", "2026-11-23T01:02:06.123456Z", "1"},
		{"de", "German", "2026-11-23T01:02:08.123456Z", "3"},
	} {
		servertest.CheckShape(t, tc.code, rs[i], statsShape)
		want := servertest.ExpectStats(servertest.DemoUnits["app/"+tc.code])
		want["code"], want["name"], want["last_change"], want["last_author"] = tc.code, tc.name, tc.last, nil
		want["url"] = base + "/projects/demo/app/" + tc.code + "/"
		want["translate_url"] = base + "/translate/demo/app/" + tc.code + "/"
		want["recent_changes"] = tc.recent
		checkValues(t, tc.code, rs[i], want)
		// The list holds what the translation's own statistics hold.
		one := servertest.GetObject(t, base+"/api/translations/demo/app/"+tc.code+"/statistics/")
		for k, v := range one {
			if rs[i][k] != v {
				t.Errorf("%s.%s = %v, want %v as its own statistics have it", tc.code, k, rs[i][k], v)
			}
		}
	}
}

func TestComponentLockAndLinks(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	checkAllow(t, base, "/api/components/demo/app/lock/", "GET, POST, HEAD, OPTIONS", "Lock")
	checkAllow(t, base, "/api/components/demo/app/links/", "GET, POST, HEAD, OPTIONS", "Links")
	for _, tc := range []struct{ path, want string }{
		{"/api/components/demo/app/lock/", `{"locked":false}`},
		{"/api/components/demo/app/lock/?format=api", `{"locked":false}`},
		{"/api/components/demo/app/links/", `{"count":0,"next":null,"previous":null,"results":[]}`},
		{"/api/components/demo/glossary/links/?format=api", `{"count":0,"next":null,"previous":null,"results":[]}`},
	} {
		r := servertest.Do(t, "GET", base+tc.path, nil)
		if r.Status != http.StatusOK || string(r.Body) != tc.want {
			t.Errorf("GET %s = %d %s, want 200 %s", tc.path, r.Status, r.Body, tc.want)
		}
	}
	r := servertest.Do(t, "GET", base+"/api/components/demo/app/links/?page=2", nil)
	if r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), `"detail":"Invalid page."`) {
		t.Errorf("links page 2 = %d %s, want 404 Invalid page.", r.Status, r.Body)
	}
}

func TestComponentNotFound(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	for _, path := range []string{
		"/api/components/nope/app/", "/api/components/demo/nope/", "/api/components/demo/nope/translations/",
		"/api/components/demo/nope/statistics/", "/api/components/demo/nope/lock/",
		"/api/components/demo/nope/links/", "/api/components/nope/nope/statistics/",
	} {
		r := servertest.Do(t, "GET", srv.URL+path, nil)
		if r.Status != http.StatusNotFound || string(r.Body) != notFoundBody ||
			r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s = %d %s, want 404 %s", path, r.Status, r.Body, notFoundBody)
		}
	}
}
