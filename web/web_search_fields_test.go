package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestEditorSearchFields sends every field and construct of the
// reference's search language (servertest.ReferenceSearchQueries) to
// the editor and its zen mode: each shows the page, none refuses the
// query.
func TestEditorSearchFields(t *testing.T) {
	srv, db := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	for _, q := range servertest.ReferenceSearchQueries {
		for _, page := range []string{"/translate/shop/ui/de/", "/zen/shop/ui/de/"} {
			if r := anna.get(page + "?q=" + url.QueryEscape(q)); r.Status != http.StatusOK {
				t.Errorf("GET %s?q=%s = %d %.300s", page, q, r.Status, r.Body)
			}
		}
	}
	// has:glossary through the same parser and store: the glossary's
	// apple, pear and basket are in three of the four strings ("pears"
	// is not "pear"), once the upkeep step has matched them.
	if _, err := db.IndexTrigrams(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, count, zen, notZen string }{
		{"has:glossary", "of <strong>3</strong>", "have an apple", "Good bye"},
		{"NOT has:glossary", "of <strong>1</strong>", "Good bye", "have an apple"},
	} {
		if r := anna.get("/translate/shop/ui/de/?q=" + url.QueryEscape(c.q)); !strings.Contains(string(r.Body), c.count) {
			t.Errorf("editor %s: want %q in %.300s", c.q, c.count, r.Body)
		}
		if r := anna.get("/zen/shop/ui/de/?q=" + url.QueryEscape(c.q)); !strings.Contains(string(r.Body), c.zen) ||
			strings.Contains(string(r.Body), c.notZen) {
			t.Errorf("zen %s: want %q and not %q", c.q, c.zen, c.notZen)
		}
	}
	// The check can fail: a field the language lacks.
	if r := anna.get("/translate/shop/ui/de/?q=" + url.QueryEscape("colour:red")); r.Status == http.StatusOK {
		t.Errorf("an unknown field: %d", r.Status)
	}
}
