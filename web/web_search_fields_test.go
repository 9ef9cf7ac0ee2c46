package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestEditorSearchFields sends every field and construct of the
// reference's search language (servertest.ReferenceSearchQueries) to
// the editor and its zen mode: each shows the page, none refuses the
// query.
func TestEditorSearchFields(t *testing.T) {
	srv, _ := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	for _, q := range servertest.ReferenceSearchQueries {
		for _, page := range []string{"/translate/shop/ui/de/", "/zen/shop/ui/de/"} {
			if r := anna.get(page + "?q=" + url.QueryEscape(q)); r.Status != http.StatusOK {
				t.Errorf("GET %s?q=%s = %d %.300s", page, q, r.Status, r.Body)
			}
		}
	}
	// The check can fail: a field the language lacks.
	if r := anna.get("/translate/shop/ui/de/?q=" + url.QueryEscape("colour:red")); r.Status == http.StatusOK {
		t.Errorf("an unknown field: %d", r.Status)
	}
}
