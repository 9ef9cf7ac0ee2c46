package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var zenKeyRE = regexp.MustCompile(`<span class="sr">String \d+: </span><code>([^<]+)</code>`)

// TestZenSortAndSaveWithoutScript: zen mode lists its strings in the
// sort_by order, as the one-string editor does, and keeps the order in
// its links and forms; a bad sort_by is a 400 saying why; a row saved
// without JavaScript comes back to the zen page, at the row, in the same
// list — not to the one-string editor.
func TestZenSortAndSaveWithoutScript(t *testing.T) {
	srv, _ := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	keys := func(path string) ([]string, string) {
		t.Helper()
		r := anna.get(path)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, r.Status, r.Body)
		}
		var out []string
		for _, m := range zenKeyRE.FindAllSubmatch(r.Body, -1) {
			out = append(out, string(m[1]))
		}
		return out, string(r.Body)
	}
	if got, _ := keys("/zen/shop/ui/de/"); !slices.Equal(got, []string{"greet", "pears", "bye", "apples"}) {
		t.Errorf("default order = %q", got)
	}
	got, body := keys("/zen/shop/ui/de/?sort_by=-context")
	if !slices.Equal(got, []string{"pears", "greet", "bye", "apples"}) {
		t.Errorf("sort_by=-context = %q", got)
	}
	for _, want := range []string{`<input type="hidden" name="sort_by" value="-context">`,
		`/translate/shop/ui/de/?offset=1&amp;sort_by=-context"`,    // a row's link to the editor keeps the order
		`/zen/shop/ui/de/?q=state%3Aempty&amp;sort_by=-context"`} { // and so do the filters
		if !strings.Contains(body, want) {
			t.Errorf("the sorted zen page lacks %s", want)
		}
	}
	if r := anna.get("/zen/shop/ui/de/?sort_by=nonsense,-"); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "Unknown sort key") {
		t.Errorf("bad sort_by = %d %s", r.Status, r.Body)
	}

	// Save the second row (greet) as a browser without the script does:
	// the form as it is.
	m := regexp.MustCompile(`(?s)class="zen-row" id="zen-(\d+)".*?name="version" value="([0-9a-f]+)".*?class="zen-row" id="zen-(\d+)".*?name="version" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no rows:\n%s", body)
	}
	id, version := m[3], m[4]
	form := url.Values{"csrf_token": {csrf(t, []byte(body))}, "id": {id}, "version": {version}, "q": {""},
		"sort_by": {"-context"}, "offset": {"2"}, "zen": {"1"}, "target": {"Hallo {name}, nimm einen Apfel"}}
	r := anna.post("/translate/shop/ui/de/save/", form)
	loc := r.Header.Get("Location")
	if r.Status != http.StatusSeeOther || !strings.Contains(loc, "/zen/shop/ui/de/?offset=1&sort_by=-context#zen-"+id) {
		t.Fatalf("zen save without the script = %d, Location %q; want back to the zen page at the row", r.Status, loc)
	}
	if _, body := keys("/zen/shop/ui/de/?sort_by=-context"); !strings.Contains(body, "Hallo {name}, nimm einen Apfel") {
		t.Error("the zen page does not show the saved text")
	}
	// The one-string editor's form (no zen field) still moves on there.
	delete(form, "zen")
	form.Set("version", "x")
	if r := anna.post("/translate/shop/ui/de/save/", form); r.Status != http.StatusConflict {
		t.Errorf("stale save = %d", r.Status)
	}
}
