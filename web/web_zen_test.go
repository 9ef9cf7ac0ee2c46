package web_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

var zenRowRE = regexp.MustCompile(`(?s)<form method="post" action="[^"]*/translate/shop/ui/de/save/" class="zen-row" id="zen-(\d+)".*?name="version" value="([0-9a-f]+)"`)

// TestZen: the zen view lists the search's strings, each with its own
// editor saving through the editor's save; a row saved twice in a row
// needs the version the first save answered; a visitor reads rows
// without fields to write in; a bad offset is a 400 naming it.
func TestZen(t *testing.T) {
	srv, _ := shopServer(t)
	visitor := newBrowser(t, srv.URL)
	r := visitor.get("/zen/shop/ui/de/")
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `class="zen-row"`) ||
		strings.Contains(string(r.Body), `<textarea name="target" lang="de" dir="ltr" rows="2">`) ||
		!strings.Contains(string(r.Body), "You are not signed in") {
		t.Fatalf("visitor's zen view = %d\n%s", r.Status, r.Body)
	}
	if r := visitor.get("/zen/shop/ui/de/?offset=x"); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "offset") {
		t.Errorf("bad offset = %d %s", r.Status, r.Body)
	}
	if r := visitor.get("/zen/shop/ui/de/?q=" + "key%3A%22open"); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "q") {
		t.Errorf("a query that does not parse = %d %s", r.Status, r.Body)
	}
	if r := visitor.get("/zen/shop/nothing/de/"); r.Status != http.StatusNotFound {
		t.Errorf("unknown component = %d", r.Status)
	}

	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	r = anna.get("/zen/shop/ui/de/?q=state:empty")
	rows := zenRowRE.FindAllSubmatch(r.Body, -1)
	if r.Status != http.StatusOK || len(rows) != 3 {
		t.Fatalf("anna's zen view = %d, %d rows\n%s", r.Status, len(rows), r.Body)
	}
	// The plural row has a field per form, labelled.
	if n := strings.Count(string(r.Body), `<textarea name="target" lang="de" dir="ltr" rows="2">`); n != 4 {
		t.Errorf("%d editable fields, want 4 (two strings and a plural of two)", n)
	}
	token := csrf(t, r.Body)
	id, version := string(rows[0][1]), string(rows[0][2])
	save := map[string]any{"id": json.Number(id), "version": version, "q": "state:empty", "target": []string{"Erster"}}
	res := saveJSON(anna, token, save)
	if res.Status != http.StatusOK {
		t.Fatalf("save = %d %s", res.Status, res.Body)
	}
	answered := decodeJSON(t, res.Body)["version"]
	if answered == nil || answered == version {
		t.Fatalf("the save answered version %v (had %s)", answered, version)
	}
	// The old version is refused; the answered one saves again.
	save["target"] = []string{"Zweiter"}
	if res := saveJSON(anna, token, save); res.Status != http.StatusConflict {
		t.Errorf("save with the old version = %d %s", res.Status, res.Body)
	}
	save["version"] = answered
	if res := saveJSON(anna, token, save); res.Status != http.StatusOK {
		t.Errorf("save with the answered version = %d %s", res.Status, res.Body)
	}
	if unit := servertest.GetObject(t, srv.URL+"/api/units/"+id+"/"); unit["target"].([]any)[0] != "Zweiter" {
		t.Errorf("unit after two zen saves = %v", unit["target"])
	}
	// The translation page and the editor lead here.
	if page := anna.get("/projects/shop/ui/de/"); !strings.Contains(string(page.Body), `/zen/shop/ui/de/?q=state%3A%3Ctranslated">Zen mode`) {
		t.Errorf("the translation page has no zen link:\n%s", page.Body)
	}
	if page := anna.get("/translate/shop/ui/de/?q=state:empty"); !strings.Contains(string(page.Body), `href="/zen/shop/ui/de/?q=state%3aempty">Zen mode`) &&
		!strings.Contains(string(page.Body), `/zen/shop/ui/de/?q=state%3aempty">Zen mode`) {
		t.Errorf("the editor has no zen link:\n%s", page.Body)
	}
}
