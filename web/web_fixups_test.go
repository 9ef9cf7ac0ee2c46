package web_test

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/checks"
)

var fixupRE = regexp.MustCompile(`<li class="failing" data-check="([^"]+)">.*?<button type="button" class="fixup" data-fixup="([^"]*)"`)

// TestEditorFixString: a failing check with a fixup shows "Fix string"
// carrying checks.Fixup's replacements for the saved text; a check
// without one shows no
// button; a visitor, who may not edit, sees none.
func TestEditorFixString(t *testing.T) {
	srv, _ := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, token := editorState(t, anna, "/translate/shop/ui/de/?q=key:bye")
	saved := "Auf  Wiedersehen  und  tschüss"
	if r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "q": "key:bye",
		"target": []string{saved}}); r.Status != http.StatusOK {
		t.Fatalf("save = %d %s", r.Status, r.Body)
	}
	body := string(anna.get("/translate/shop/ui/de/?q=key:bye").Body)
	m := fixupRE.FindStringSubmatch(strings.ReplaceAll(body, "\n", " "))
	if m == nil || m[1] != "double_space" {
		t.Fatalf("no Fix string on double_space:\n%s", body)
	}
	var rs []checks.Replacement
	if err := json.Unmarshal([]byte(html.UnescapeString(m[2])), &rs); err != nil || len(rs) == 0 {
		t.Fatalf("the button's fixup %q: %v", m[2], err)
	}
	// The button carries the server's fixup for the saved text (the
	// script applying it is TestBrowserWorkspace's).
	want := checks.Fixup("double_space", checks.Unit{Target: []string{saved}, Language: "de"})
	if !slices.Equal(rs, want) {
		t.Errorf("the button's fixup is %+v, want %+v", rs, want)
	}
	if !strings.Contains(body, `<span class="fixup-status" role="status"></span>`) {
		t.Error("the button has no status for what it did")
	}
	// Left as its source, pears fails same, which has no fixup: no
	// button.
	id, version, token = editorState(t, anna, "/translate/shop/ui/de/?q=key:pears")
	if r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "q": "key:pears",
		"target": []string{"%d pears in the basket"}}); r.Status != http.StatusOK {
		t.Fatalf("save = %d %s", r.Status, r.Body)
	}
	body = string(anna.get("/translate/shop/ui/de/?q=key:pears").Body)
	if !strings.Contains(body, `<li class="failing"`) || strings.Contains(body, `class="fixup"`) {
		t.Errorf("a check without a fixup:\n%s", body)
	}
	visitor := newBrowser(t, srv.URL)
	if body := string(visitor.get("/translate/shop/ui/de/?q=key:bye").Body); !strings.Contains(body, `data-check="double_space"`) ||
		strings.Contains(body, `class="fixup"`) {
		t.Errorf("a visitor's editor offers Fix string")
	}
}
