package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestEditorComments: the editor shows a string's comments and its
// source string's, rendered from Markdown without letting markup or
// script through, and its form adds one with the API's rules.
func TestEditorComments(t *testing.T) {
	srv, db := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	page := "/translate/shop/ui/de/?q=state:empty"
	id, _, token := editorState(t, anna, page)
	hostile := strings.Join([]string{
		"**bold** and [a link](https://example.com/)",
		`<script>alert("x")</script>`,
		`[click](javascript:alert(1))`,
		`<img src=x onerror=alert(1)>`,
		`[entity](jav&#x09;ascript:alert(1))`,
		`<a href="javascript:alert(2)">raw</a>`,
		`![img](javascript:alert(3))`,
	}, "\n\n")
	form := url.Values{"csrf_token": {token}, "id": {id}, "scope": {"translation"}, "comment": {hostile}, "q": {"state:empty"}}
	r := anna.post("/translate/shop/ui/de/comment/", form)
	if r.Status != http.StatusSeeOther || !strings.Contains(r.Header.Get("Location"), "checksum=") ||
		!strings.HasSuffix(r.Header.Get("Location"), "#comments") {
		t.Fatalf("comment form = %d %v %s", r.Status, r.Header, r.Body)
	}
	body := string(anna.get(strings.TrimPrefix(r.Header.Get("Location"), srv.URL)).Body)
	for _, want := range []string{"<strong>bold</strong>", `<a href="https://example.com/">a link</a>`,
		`id="comments"`, `name="scope"`, "anna"} {
		if !strings.Contains(body, want) {
			t.Errorf("editor lacks %q:\n%s", want, body)
		}
	}
	lower := strings.ToLower(body)
	for _, bad := range []string{"<script>alert", "javascript:", "onerror=", "<img src=x", `href="javascript`, "jav&#x09;ascript:alert"} {
		if strings.Contains(lower, bad) {
			t.Errorf("editor lets %q through:\n%s", bad, body)
		}
	}
	// The source string's comments show on every language's editor.
	ctx := context.Background()
	unitID := mustAtoi(t, id)
	u, err := db.FindUnitByID(ctx, unitID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddComment(ctx, unitID, index.Actor{}, index.NewComment{Scope: index.ScopeGlobal, Comment: "On the *source*"},
		func(index.Unit, index.Translation) (int64, error) { return u.SourceUnitID, nil }); err != nil {
		t.Fatal(err)
	}
	body = string(anna.get("/translate/shop/ui/de/?q=id:" + id).Body)
	if !strings.Contains(body, "<em>source</em>") || !strings.Contains(body, "(on the source string)") {
		t.Errorf("the source string's comment is missing:\n%s", body)
	}

	// Refusals: no CSRF token, an empty comment, a scope the string
	// does not take, someone without the right.
	if r := anna.post("/translate/shop/ui/de/comment/", url.Values{"id": {id}, "scope": {"global"}, "comment": {"x"}}); r.Status != http.StatusForbidden {
		t.Errorf("comment without CSRF = %d", r.Status)
	}
	for _, bad := range []url.Values{
		{"csrf_token": {token}, "id": {id}, "scope": {"global"}, "comment": {"  "}},
		{"csrf_token": {token}, "id": {id}, "scope": {"report"}, "comment": {"x"}},
		{"csrf_token": {token}, "id": {id}, "scope": {"nowhere"}, "comment": {"x"}},
		{"csrf_token": {token}, "id": {"x"}, "scope": {"global"}, "comment": {"x"}},
	} {
		if r := anna.post("/translate/shop/ui/de/comment/", bad); r.Status != http.StatusBadRequest {
			t.Errorf("comment %v = %d, want 400", bad, r.Status)
		}
	}
	otto := newBrowser(t, srv.URL)
	ottoToken := otto.signIn("otto", "correct horse")
	if r := otto.post("/translate/shop/ui/de/comment/", url.Values{"csrf_token": {ottoToken}, "id": {id},
		"scope": {"global"}, "comment": {"x"}}); r.Status != http.StatusForbidden {
		t.Errorf("comment without the right = %d", r.Status)
	}
	if body := string(otto.get("/translate/shop/ui/de/").Body); strings.Contains(body, `class="add-comment"`) {
		t.Error("the editor offers otto a comment form")
	}
}

// TestEditorLabels: a string's labels show next to its source.
func TestEditorLabels(t *testing.T) {
	srv, db := shopServer(t)
	ctx := context.Background()
	tr, err := db.FindTranslation(ctx, "shop", "ui", "de")
	if err != nil {
		t.Fatal(err)
	}
	l, err := db.CreateLabel(ctx, index.Label{ProjectID: tr.Component.ProjectID, Name: "<b>UI</b>", Color: "teal",
		Description: `Buttons "and" menus`}, func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{l.ID}
	if _, err := db.UpdateUnit(ctx, units[0].SourceUnitID, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Labels: &ids}, nil
	}); err != nil {
		t.Fatal(err)
	}
	body := string(newBrowser(t, srv.URL).get("/translate/shop/ui/de/").Body)
	if want := `<span class="label label-teal" title="Buttons &#34;and&#34; menus">&lt;b&gt;UI&lt;/b&gt;</span>`; !strings.Contains(body, want) {
		t.Errorf("editor lacks %s:\n%s", want, body)
	}
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
