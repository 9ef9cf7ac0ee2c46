package web_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

var (
	currentKeyRE = regexp.MustCompile(`<dt>Key</dt><dd><code>([^<]*)</code>`)
	positionRE   = regexp.MustCompile(`String <strong>(\d+)</strong> of <strong>(\d+)</strong>`)
	checksumRE   = regexp.MustCompile(`checksum=([0-9a-f]+)`)
)

// editorAt is the key and the "String N of M" the editor shows.
func editorAt(t *testing.T, b *browser, path string) (key, pos, total string, body string) {
	t.Helper()
	r := b.get(path)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, r.Status, r.Body)
	}
	k, p := currentKeyRE.FindSubmatch(r.Body), positionRE.FindSubmatch(r.Body)
	if k == nil || p == nil {
		t.Fatalf("GET %s: no string shown:\n%s", path, r.Body)
	}
	return string(k[1]), string(p[1]), string(p[2]), string(r.Body)
}

// TestEditorSortBy: the editor's list follows sort_by, its menu shows
// the order chosen, and every link, form and save keeps it; next and
// previous step along the sorted list.
func TestEditorSortBy(t *testing.T) {
	srv, _ := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	const base = "/translate/shop/ui/de/"

	key, pos, total, body := editorAt(t, anna, base+"?sort_by=context")
	if key != "apples" || pos != "1" || total != "4" {
		t.Fatalf("sorted by key: %s, %s of %s", key, pos, total)
	}
	if !strings.Contains(body, `<option value="context" selected>`) || !strings.Contains(body, `name="sort_by" value="context"`) ||
		!strings.Contains(body, `href="`+srv.URL+base+`?offset=2&amp;sort_by=context" data-nav id="next"`) {
		t.Errorf("menu, hidden field or next link lost the order:\n%s", body)
	}
	if i, j := strings.Index(body, "<td><code>bye</code></td>"), strings.Index(body, "<td><code>pears</code></td>"); i < 0 || j < i {
		t.Errorf("list not in key order (bye at %d, pears at %d)", i, j)
	}
	if key, pos, _, body = editorAt(t, anna, base+"?offset=2&sort_by=context"); key != "bye" || pos != "2" ||
		!strings.Contains(body, `href="`+srv.URL+base+`?offset=1&amp;sort_by=context" data-nav id="prev"`) {
		t.Errorf("offset 2: %s at %s", key, pos)
	}
	// Descending, and a string reached by its checksum knows its place.
	if key, _, _, body = editorAt(t, anna, base+"?sort_by=-context"); key != "pears" {
		t.Errorf("descending: first %s", key)
	}
	sum := checksumRE.FindStringSubmatch(body)
	if sum == nil {
		t.Fatalf("no checksum link in:\n%s", body)
	}
	if _, pos, _, _ = editorAt(t, anna, base+"?sort_by=context&checksum="+sum[1]); pos == "" || pos == "0" {
		t.Errorf("checksum in a sorted list: place %q", pos)
	}
	// The filters keep the order.
	if !strings.Contains(body, `href="`+srv.URL+base+`?q=state%3Aempty&amp;sort_by=-context"`) {
		t.Errorf("filter links lost the order")
	}
	if r := anna.get(base + "?sort_by=nonsense"); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "Unknown sort key") {
		t.Errorf("unknown sort key = %d %s", r.Status, r.Body)
	}

	// Saving the first untranslated string in descending key order (pears)
	// takes it out of the list: the next is the one now at its place.
	id, version, token := editorState(t, anna, base+"?q=state:empty&sort_by=-context")
	r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "q": "state:empty",
		"sort_by": "-context", "offset": 1, "target": []string{"%d Birnen im Korb"}})
	next := srv.URL + base + "?offset=1&q=state%3Aempty&sort_by=-context"
	if r.Status != http.StatusOK || decodeJSON(t, r.Body)["next"] != next {
		t.Fatalf("save = %d %s, want next %s", r.Status, r.Body, next)
	}
	if key, pos, total, _ = editorAt(t, anna, strings.TrimPrefix(next, srv.URL)); key != "bye" || pos != "1" || total != "2" {
		t.Errorf("after the save: %s, %s of %s", key, pos, total)
	}
	// A save that keeps the string in the list moves one place on.
	id, version, token = editorState(t, anna, base+"?sort_by=context&offset=3")
	r = saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "sort_by": "context", "offset": 3,
		"target": []string{"Hallo {name}, nimm einen Apfel"}})
	if want := srv.URL + base + "?offset=4&sort_by=context"; r.Status != http.StatusOK || decodeJSON(t, r.Body)["next"] != want {
		t.Errorf("save in the whole list = %d %s, want next %s", r.Status, r.Body, want)
	}
	if u := servertest.GetObject(t, srv.URL+"/api/units/"+id+"/"); u["context"] != "greet" {
		t.Errorf("offset 3 by key was %v, not greet", u["context"])
	}
	r = saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "sort_by": "bogus",
		"target": []string{"x"}})
	if r.Status != http.StatusBadRequest && r.Status != http.StatusConflict {
		t.Errorf("save with a bad sort_by = %d %s", r.Status, r.Body)
	}
}
