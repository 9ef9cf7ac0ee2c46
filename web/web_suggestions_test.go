package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestEditorSuggestions: the editor's Suggest sends the text as a
// suggestion (the API's write and rules), the string then lists it with
// who made it and its failing checks, and a reviewer accepts it from
// the list; a user without a role neither suggests nor sees buttons; a
// form without the session's CSRF token is refused.
func TestEditorSuggestions(t *testing.T) {
	srv, db := shopServer(t)
	servertest.MustUser(t, db, "rita", false, [2]string{"Review strings", "shop"})
	mustPassword(t, db, "rita", "correct horse")
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	const page = "/translate/shop/ui/de/?q=key:bye"
	id, _, token := editorState(t, anna, page)
	if body := string(anna.get(page).Body); !strings.Contains(body, `id="suggest"`) || !strings.Contains(body, "No suggestions.") {
		t.Fatalf("anna's editor offers no Suggest:\n%s", body)
	}
	form := url.Values{"csrf_token": {token}, "id": {id}, "op": {"suggest"}, "target": {"Auf Wiedersehen..."}, "q": {"key:bye"}}
	if r := anna.post("/translate/shop/ui/de/suggestions/", url.Values{"id": {id}, "op": {"suggest"},
		"target": {"x"}}); r.Status != http.StatusForbidden {
		t.Errorf("suggest without CSRF = %d", r.Status)
	}
	r := anna.post("/translate/shop/ui/de/suggestions/", form)
	if r.Status != http.StatusSeeOther || !strings.Contains(r.Header.Get("Location"), "checksum=") {
		t.Fatalf("suggest = %d %v %s", r.Status, r.Header, r.Body)
	}
	body := string(anna.get(page).Body)
	// The fixups ran (… for ...), the checks of the text are shown, and
	// anna may delete her own but not accept (Translate may accept: the
	// reference's Translate role has suggestion.accept).
	if !strings.Contains(body, "<q lang=\"de\" dir=\"ltr\">Auf Wiedersehen...</q>") && !strings.Contains(body, "Auf Wiedersehen") {
		t.Errorf("the suggestion is not listed:\n%s", body)
	}
	if !strings.Contains(body, "anna,") || !strings.Contains(body, "Failing checks:") || !strings.Contains(body, `value="delete"`) {
		t.Errorf("the suggestion's row:\n%s", body)
	}
	u, err := db.FindUnitByID(context.Background(), mustID(t, id))
	if err != nil || !u.HasSuggestion || u.State != index.StateEmpty {
		t.Fatalf("unit after suggesting: %+v %v", u, err)
	}
	list, _, err := db.FindSuggestions(context.Background(), index.SuggestionFilter{UnitID: u.ID, Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(list) != 1 {
		t.Fatalf("suggestions: %v %v", list, err)
	}

	rita := newBrowser(t, srv.URL)
	ritaToken := rita.signIn("rita", "correct horse")
	if r := rita.post("/translate/shop/ui/de/suggestions/", url.Values{"csrf_token": {ritaToken}, "id": {id},
		"op": {"accept"}, "suggestion": {itoa(list[0].ID)}}); r.Status != http.StatusSeeOther {
		t.Fatalf("accept = %d %s", r.Status, r.Body)
	}
	if u, _ = db.FindUnitByID(context.Background(), u.ID); u.HasSuggestion || u.State != index.StateTranslated ||
		u.Target[0] != list[0].Target[0] {
		t.Errorf("unit after accepting: %+v", u)
	}

	otto := newBrowser(t, srv.URL)
	ottoToken := otto.signIn("otto", "correct horse")
	if body := string(otto.get(page).Body); strings.Contains(body, `id="suggest"`) {
		t.Errorf("otto's editor offers Suggest")
	}
	form.Set("csrf_token", ottoToken)
	if r := otto.post("/translate/shop/ui/de/suggestions/", form); r.Status != http.StatusForbidden {
		t.Errorf("otto's suggestion = %d", r.Status)
	}
	form.Set("op", "nonsense")
	if r := otto.post("/translate/shop/ui/de/suggestions/", form); r.Status != http.StatusBadRequest {
		t.Errorf("unknown action = %d", r.Status)
	}
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
