package api_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

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

// glossaryUnits are the glossary's units as seedDemo imports them.
func glossaryUnits(sourceOnly bool) []index.ImportUnit {
	if sourceOnly {
		return []index.ImportUnit{unit("", "apple", "apple", index.StateReadOnly),
			unit("", "pear tree", "pear tree", index.StateReadOnly), unit("", "plum", "plum", index.StateReadOnly)}
	}
	return []index.ImportUnit{unit("", "apple", "Apfel", index.StateTranslated),
		unit("", "pear tree", "Birnbaum", index.StateTranslated), unit("", "plum", "", index.StateEmpty)}
}

// demoUnits are the units of each demo translation, as seeded.
var demoUnits = map[string][]index.ImportUnit{
	"app/en": appUnits(true), "app/de": appUnits(false),
	"glossary/en": glossaryUnits(true), "glossary/de": glossaryUnits(false),
}

// expectStats computes the statistics of the given units from the seed
// alone, as the reference counts them: words and characters of the
// source, states 20 and up translated, 10 fuzzy, 30 approved, 100
// read-only, percentages truncated to one decimal.
func expectStats(groups ...[]index.ImportUnit) map[string]any {
	var total, words, chars, tr, trWords, trChars, fuzzy, approved, readonly int
	for _, g := range groups {
		for _, u := range g {
			w, c := len(strings.Fields(u.Source[0])), utf8.RuneCountInString(u.Source[0])
			total, words, chars = total+1, words+w, chars+c
			if u.State >= 20 {
				tr, trWords, trChars = tr+1, trWords+w, trChars+c
			}
			switch u.State {
			case 10:
				fuzzy++
			case 30:
				approved++
			case 100:
				readonly++
			}
		}
	}
	pct := func(part, of int) string {
		if of == 0 {
			return "0.0"
		}
		return fmt.Sprintf("%.1f", float64(part*1000/of)/10)
	}
	return map[string]any{
		"total": strconv.Itoa(total), "total_words": strconv.Itoa(words), "total_chars": strconv.Itoa(chars),
		"translated": strconv.Itoa(tr), "translated_words": strconv.Itoa(trWords),
		"translated_chars": strconv.Itoa(trChars), "translated_percent": pct(tr, total),
		"translated_words_percent": pct(trWords, words), "translated_chars_percent": pct(trChars, chars),
		"fuzzy": strconv.Itoa(fuzzy), "fuzzy_percent": pct(fuzzy, total),
		"approved": strconv.Itoa(approved), "approved_percent": pct(approved, total),
		"readonly": strconv.Itoa(readonly), "readonly_percent": pct(readonly, total),
		"failing": "0", "failing_percent": "0.0", "suggestions": "0", "comments": "0",
	}
}

// seedExtra adds projects zulu, beta and mike after demo, each with a
// component "strings" holding one English source string. Their names
// sort differently from their ids, so a list in name order fails.
func seedExtra(tb testing.TB, db *sqlstore.DB) {
	tb.Helper()
	for _, name := range []string{"Zulu", "Beta", "Mike"} {
		p := mustProject(tb, db, index.Project{Name: name, Slug: strings.ToLower(name)})
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, "Strings", "strings", "*.json", "en.json"
		c = mustComponent(tb, db, c)
		mustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en", Filename: "en.json",
			Revision: "r", IsSource: true, IsTemplate: true, Monolingual: true,
			Units: []index.ImportUnit{unit("k", "Key", "Key", index.StateReadOnly)}})
	}
}

// getArray GETs url, requires a 200 and decodes a JSON array of objects.
func getArray(tb testing.TB, url string) []map[string]any {
	tb.Helper()
	r := do(tb, http.MethodGet, url, nil)
	if r.status != http.StatusOK {
		tb.Fatalf("GET %s: status %d, body %s", url, r.status, r.body)
	}
	return results(tb, decode(tb, []byte(`{"results":`+string(r.body)+`}`)))
}

// checkAllow checks Allow, OPTIONS and the 403/405 split of one
// endpoint, for those the shared endpoints table cannot hold.
func checkAllow(t *testing.T, base, path, allow, name string) {
	t.Helper()
	for _, method := range []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"} {
		r := do(t, method, base+path, nil)
		want := http.StatusMethodNotAllowed
		switch {
		case method == "GET" || method == "HEAD" || method == "OPTIONS":
			want = http.StatusOK
		case strings.Contains(allow, method):
			want = http.StatusUnauthorized // anonymous writes are refused
		}
		if r.status != want {
			t.Errorf("%s %s = %d %s, want %d", method, path, r.status, r.body, want)
		}
		if r.header.Get("Allow") != allow || r.header.Get("Vary") != "Accept" ||
			r.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s headers = %v, want Allow %q", method, path, r.header, allow)
		}
		if method == "OPTIONS" && !strings.HasPrefix(string(r.body), `{"name":"`+name+`",`) {
			t.Errorf("OPTIONS %s = %s, want name %q", path, r.body, name)
		}
		if method == "HEAD" && len(r.body) != 0 {
			t.Errorf("HEAD %s body = %q", path, r.body)
		}
	}
}

func TestProjectList(t *testing.T) {
	db := mustOpenDB(t)
	seedDemo(t, db)
	seedExtra(t, db)
	srv := mustServe(t, db, servertest.Options{})
	l := getObject(t, srv.URL+"/api/projects/")
	checkShape(t, "project list", l, shape{"count": "int", "next": "null", "previous": "null", "results": "array"})
	var slugs []string
	for _, p := range results(t, l) {
		checkShape(t, "project", p, projectShape)
		slugs = append(slugs, p["slug"].(string))
	}
	// The reference orders projects by id: creation order, not name.
	if num(l["count"]) != "4" || strings.Join(slugs, ",") != "demo,zulu,beta,mike" {
		t.Errorf("projects = %v (count %v), want demo,zulu,beta,mike", slugs, l["count"])
	}
}

func TestProject(t *testing.T) {
	srv, _ := demoServer(t)
	base := srv.URL
	p := getObject(t, base+"/api/projects/demo/")
	checkShape(t, "project", p, projectShape)
	checkValues(t, "project", p, map[string]any{
		"name": "Demo", "slug": "demo", "web": "https://example.com/",
		"web_url":             base + "/projects/demo/",
		"url":                 base + "/api/projects/demo/",
		"components_list_url": base + "/api/projects/demo/components/",
		"repository_url":      base + "/api/projects/demo/repository/",
		"statistics_url":      base + "/api/projects/demo/statistics/",
		"changes_list_url":    base + "/api/projects/demo/changes/",
		"languages_url":       base + "/api/projects/demo/languages/",
		"set_language_team":   true, "enable_hooks": true, "translation_review": false,
		"source_review": false, "instructions": "", "language_aliases": "",
	})
	// The embedded project of a component is the same object.
	comp := getObject(t, base+"/api/components/demo/app/")
	if fmt.Sprint(comp["project"]) != fmt.Sprint(p) {
		t.Errorf("component.project = %v, want %v", comp["project"], p)
	}
}

func TestProjectComponents(t *testing.T) {
	db := mustOpenDB(t)
	seedDemo(t, db)
	seedExtra(t, db)
	srv := mustServe(t, db, servertest.Options{})
	l := getObject(t, srv.URL+"/api/projects/demo/components/")
	var slugs []string
	for _, c := range results(t, l) {
		checkShape(t, "component", c, componentShape)
		checkShape(t, "component.project", obj(t, c["project"]), projectShape)
		checkShape(t, "component.source_language", obj(t, c["source_language"]), languageShape)
		slugs = append(slugs, c["slug"].(string))
	}
	if num(l["count"]) != "2" || strings.Join(slugs, ",") != "app,glossary" {
		t.Errorf("demo components = %v (count %v), want app,glossary", slugs, l["count"])
	}
	l = getObject(t, srv.URL+"/api/projects/beta/components/")
	if rs := results(t, l); len(rs) != 1 || rs[0]["url"] != srv.URL+"/api/components/beta/strings/" {
		t.Errorf("beta components = %v", rs)
	}
}

func TestProjectStatistics(t *testing.T) {
	srv, _ := demoServer(t)
	base := srv.URL
	st := getObject(t, base+"/api/projects/demo/statistics/")
	checkShape(t, "project statistics", st, projectStatsShape)
	want := expectStats(demoUnits["app/en"], demoUnits["app/de"], demoUnits["glossary/en"], demoUnits["glossary/de"])
	want["name"], want["url"] = "Demo", base+"/projects/demo/"
	// The ninth write: languages, project, app, en, de, de again,
	// glossary, its en and its de.
	want["last_change"], want["last_author"] = "2026-11-23T01:02:11.123456Z", nil
	checkValues(t, "project statistics", st, want)
	if n, _ := strconv.Atoi(num(st["recent_changes"])); n == 0 {
		t.Errorf("recent_changes = %v, want the import's changes", st["recent_changes"])
	}
}

func TestProjectLanguages(t *testing.T) {
	srv, _ := demoServer(t)
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
		{"de", "German", "2026-11-23T01:02:11.123456Z", [][]index.ImportUnit{demoUnits["app/de"], demoUnits["glossary/de"]}},
		{"en", "English", "2026-11-23T01:02:10.123456Z", [][]index.ImportUnit{demoUnits["app/en"], demoUnits["glossary/en"]}},
	} {
		checkShape(t, tc.code, langs[i], projectLanguageStatsShape)
		want := expectStats(tc.units...)
		want["code"], want["name"], want["url"] = tc.code, tc.name, base+"/engage/demo/-/"+tc.code+"/"
		want["last_change"] = tc.last
		// Recent changes of a language are those of its translations.
		recent := 0
		for _, comp := range []string{"app", "glossary"} {
			n, _ := strconv.Atoi(num(getObject(t, base+"/api/translations/demo/"+comp+"/"+tc.code+"/statistics/")["recent_changes"]))
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
	srv, _ := demoServer(t)
	for _, path := range []string{
		"/api/projects/nope/", "/api/projects/nope/components/", "/api/projects/nope/statistics/",
		"/api/projects/nope/languages/",
	} {
		r := do(t, "GET", srv.URL+path, nil)
		if r.status != http.StatusNotFound || string(r.body) != notFoundBody ||
			r.header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s = %d %s %v, want 404 %s", path, r.status, r.body, r.header, notFoundBody)
		}
	}
}
