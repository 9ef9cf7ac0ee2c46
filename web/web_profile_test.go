package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestProfileSecondaryLanguages: a translator sets secondary languages
// on the profile page, and the editor lists a string in them first among
// its other languages; bad codes come back named, and the page wants a
// session and its CSRF token.
func TestProfileSecondaryLanguages(t *testing.T) {
	srv, db := shopServer(t)
	ctx := context.Background()
	var langs []index.Language
	for _, c := range []string{"de", "fr"} {
		l, _ := langdata.Default().Get(c)
		langs = append(langs, l)
	}
	if err := db.SeedLanguages(ctx, langs); err != nil {
		t.Fatal(err)
	}
	tr, err := db.FindTranslation(ctx, "shop", "ui", "en")
	if err != nil {
		t.Fatal(err)
	}
	servertest.MustImport(t, db, index.TranslationImport{ComponentID: tr.Component.ID, LanguageCode: "fr", Filename: "fr.json",
		Revision: "f1,s1", Monolingual: true, SourceTranslationID: tr.ID, Units: []index.ImportUnit{
			servertest.Unit("greet", "Hello {name}, have an apple", "Bonjour {name}", index.StateTranslated)}})

	if r := newBrowser(t, srv.URL).get("/accounts/profile/"); r.Status != http.StatusSeeOther ||
		!strings.Contains(r.Header.Get("Location"), "/accounts/login/") {
		t.Errorf("anonymous profile = %d %v", r.Status, r.Header)
	}
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	other := func() string {
		body := string(anna.get("/translate/shop/ui/de/?q=key:greet").Body)
		i := strings.Index(body, `<h2 id="languages">`)
		if i < 0 {
			t.Fatalf("no other languages in:\n%s", body)
		}
		return body[i:min(len(body), i+800)]
	}
	if got := other(); strings.Index(got, "Arabic") > strings.Index(got, "French") || strings.Contains(got, "yours") {
		t.Errorf("by code, Arabic leads and nothing is marked:\n%s", got)
	}
	page := anna.get("/accounts/profile/")
	token := csrf(t, page.Body)
	if r := anna.post("/accounts/profile/", url.Values{"secondary_languages": {"fr"}}); r.Status != http.StatusForbidden {
		t.Errorf("save without CSRF = %d", r.Status)
	}
	r := anna.post("/accounts/profile/", url.Values{"csrf_token": {token}, "secondary_languages": {"fr, xx-nope"}})
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "Unknown language: &#34;xx-nope&#34;") {
		t.Errorf("unknown code = %d %s", r.Status, r.Body)
	}
	r = anna.post("/accounts/profile/", url.Values{"csrf_token": {token}, "secondary_languages": {"fr de"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("save = %d %s", r.Status, r.Body)
	}
	if body := string(anna.get("/accounts/profile/?saved=1").Body); !strings.Contains(body, `value="fr, de"`) {
		t.Errorf("profile after the save:\n%s", body)
	}
	if got := other(); strings.Index(got, "French") > strings.Index(got, "Arabic") || !strings.Contains(got, `French</a> <span class="badge">yours</span>`) {
		t.Errorf("French, a secondary language, does not lead:\n%s", got)
	}
	if u, err := db.FindUser(ctx, "anna"); err != nil || strings.Join(u.SecondaryLanguages, ",") != "fr,de" {
		t.Errorf("stored: %v %v", u.SecondaryLanguages, err)
	}
}
