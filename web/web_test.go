package web_test

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

func href(url string) string { return `href="` + url + `"` }

func TestWebPages(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	translated := func(groups ...[]index.ImportUnit) string {
		return servertest.ExpectStats(groups...)["translated_percent"].(string) + "%"
	}
	all := [][]index.ImportUnit{servertest.DemoUnits["app/en"], servertest.DemoUnits["app/de"], servertest.DemoUnits["glossary/en"], servertest.DemoUnits["glossary/de"]}
	cases := []struct {
		path string
		want []string
		not  []string
	}{
		{"/projects/demo/", []string{"<h1>Demo</h1>", translated(all...), href(base + "/api/projects/demo/"),
			href(base + "/engage/demo/-/de/"), href(base + "/projects/demo/app/"), href(base + "/projects/demo/glossary/")}, nil},
		{"/projects/demo/app/", []string{"<h1>App</h1>", translated(servertest.DemoUnits["app/en"], servertest.DemoUnits["app/de"]),
			href(base + "/api/components/demo/app/"), href(base + "/projects/demo/app/de/"),
			href(base + "/projects/demo/app/en/"), href(base + "/projects/demo/")}, nil},
		{"/projects/demo/app/de/", []string{"<h1>App — German</h1>", translated(servertest.DemoUnits["app/de"]),
			href(base + "/api/translations/demo/app/de/"), href(base + "/translate/demo/app/de/"),
			href(base + "/engage/demo/-/de/")}, nil},
		{"/translate/demo/app/de/", []string{"Hallo", "Tschüss", "Datei öffnen…", "<h2>Strings <span class=\"quiet\">(6)</span></h2>",
			href(base + "/api/translations/demo/app/de/units/")}, nil},
		{"/engage/demo/-/de/", []string{"<h1>Demo — German</h1>", translated(servertest.DemoUnits["app/de"], servertest.DemoUnits["glossary/de"]),
			href(base + "/api/projects/demo/languages/"), href(base + "/languages/de/")}, nil},
		{"/languages/de/", []string{"<h1>German</h1>", translated(servertest.DemoUnits["app/de"], servertest.DemoUnits["glossary/de"]),
			href(base + "/api/languages/de/")}, nil},
		// format=api belongs to the API; pages ignore it.
		{"/projects/demo/?format=api", []string{href(base + "/api/projects/demo/")}, []string{"format=api"}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			body := servertest.GetPage(t, base+tc.path, http.StatusOK)
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q:\n%s", w, body)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("page holds %q:\n%s", n, body)
				}
			}
		})
	}
}

// TestWebURLsLeadSomewhere follows every human-facing URL the API emits
// for the demo's translations and units.
func TestWebURLsLeadSomewhere(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	for _, tr := range servertest.Results(t, servertest.GetObject(t, srv.URL+"/api/translations/")) {
		comp := servertest.Obj(t, tr["component"])
		for _, url := range []any{tr["web_url"], tr["share_url"], tr["translate_url"], comp["web_url"],
			servertest.Obj(t, comp["project"])["web_url"], servertest.Obj(t, tr["language"])["web_url"],
			servertest.Obj(t, comp["source_language"])["web_url"]} {
			servertest.GetPage(t, url.(string), http.StatusOK)
		}
		units := servertest.Results(t, servertest.GetObject(t, tr["units_list_url"].(string)))
		for _, u := range units {
			body := servertest.GetPage(t, u["web_url"].(string), http.StatusOK)
			// The checksum picks out exactly this unit.
			src := u["source"].([]any)[0].(string)
			id := u["id"].(json.Number).String()
			if !strings.Contains(body, ">"+template.HTMLEscapeString(src)+"<") ||
				!strings.Contains(body, `<input type="hidden" name="id" value="`+id+`">`) ||
				!strings.Contains(body, href(u["url"].(string))) {
				t.Errorf("%s does not show unit %v:\n%s", u["web_url"], u["url"], body)
			}
		}
	}
}

func TestWebNotFound(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	for _, path := range []string{
		"/projects/nope/", "/projects/demo/nope/", "/projects/demo/app/xx/", "/translate/demo/app/xx/",
		"/translate/demo/app/de/?checksum=zz", "/translate/demo/app/de/?checksum=0",
		"/engage/demo/-/xx/", "/engage/nope/-/de/", "/languages/xx/",
	} {
		body := servertest.GetPage(t, srv.URL+path, http.StatusNotFound)
		if !strings.Contains(body, "<h1>Not found</h1>") {
			t.Errorf("GET %s body = %s", path, body)
		}
	}
}

func TestWebEscapes(t *testing.T) {
	db := servertest.MustOpenDB(t)
	const evil = `<script>alert("x")</script> & <b>`
	p := servertest.MustProject(t, db, index.Project{Name: evil, Slug: "evil"})
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, evil, "comp", "*.json", "en.json"
	c = servertest.MustComponent(t, db, c)
	servertest.MustImport(t, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en", Filename: "en.json",
		Revision: "r", IsSource: true, IsTemplate: true, Monolingual: true,
		Units: []index.ImportUnit{servertest.Unit(evil, evil, evil, index.StateReadOnly)}})
	srv := servertest.Serve(t, db, servertest.Options{})
	for _, path := range []string{"/", "/projects/evil/", "/projects/evil/comp/", "/projects/evil/comp/en/",
		"/translate/evil/comp/en/", "/translate/evil/comp/en/?q=" + url.QueryEscape(`'`+evil+`'`),
		"/engage/evil/-/en/"} {
		body := servertest.GetPage(t, srv.URL+path, http.StatusOK)
		if strings.Contains(body, "<script>") || strings.Contains(body, "<b>") {
			t.Errorf("%s prints markup unescaped:\n%s", path, body)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;") {
			t.Errorf("%s lacks the escaped name:\n%s", path, body)
		}
	}
}

// TestLoginEscapes: what the sign-in form echoes (the return address,
// the username) is escaped.
func TestLoginEscapes(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	const evil = `/"><script>alert(1)</script>`
	body := servertest.GetPage(t, srv.URL+"/accounts/login/?next="+url.QueryEscape(evil), http.StatusOK)
	if strings.Contains(body, "<script>") || !strings.Contains(body, `value="/&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`) {
		t.Errorf("sign-in form prints next unescaped:\n%s", body)
	}
}

func TestWebMethods(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	r := servertest.Do(t, "HEAD", srv.URL+"/projects/demo/", nil)
	if r.Status != http.StatusOK || len(r.Body) != 0 || r.Header.Get("Content-Type") != servertest.HTMLType ||
		r.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("HEAD = %d %q %v", r.Status, r.Body, r.Header)
	}
	for _, m := range []string{"POST", "OPTIONS"} {
		r = servertest.Do(t, m, srv.URL+"/languages/de/", nil)
		if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s = %d %v", m, r.Status, r.Header)
		}
	}
	r = servertest.Do(t, "GET", srv.URL+"/projects/demo/app", nil)
	if r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != "/projects/demo/app/" {
		t.Errorf("no slash = %d %v", r.Status, r.Header)
	}
}
