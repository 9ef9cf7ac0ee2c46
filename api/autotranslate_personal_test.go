package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/machinery"
)

// TestAutoTranslateNarrowedTokenNoPersonalMemory: automatic translation
// from the memory asked through the API finds what its user translated
// in another project (their personal scope, neither project sharing its
// memory) with their full token, and not with a token narrowed to the
// project it runs in, which reads no other project's strings
// (AutoTranslateParams.Personal, set by the route).
func TestAutoTranslateNarrowedTokenNoPersonalMemory(t *testing.T) {
	e := autoEnv(t, 0, servertest.WithOptions(func(o *servertest.Options) {
		o.Machinery.Site = map[string]machinery.Config{"weblate-translation-memory": {}}
	}))
	ctx := context.Background()
	demo, err := e.DB.FindProject(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	other := servertest.MustProject(t, e.DB, index.Project{Name: "Other", Slug: "other"})
	for _, id := range []int64{demo.ID, other.ID} {
		if err := e.DB.SetProjectMemorySharing(ctx, id, false, false); err != nil {
			t.Fatal(err)
		}
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = other.ID, "Site", "site", "*.json", "en.json"
	c = servertest.MustComponent(t, e.DB, c)
	src := servertest.MustImport(t, e.DB, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: "en.json", Revision: "s1", IsSource: true, IsTemplate: true, Monolingual: true,
		Units: []index.ImportUnit{servertest.Unit("about", "About this app", "About this app", index.StateReadOnly)}})
	de := servertest.MustImport(t, e.DB, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
		Filename: "de.json", Revision: "t1", Monolingual: true, SourceTranslationID: src,
		Units: []index.ImportUnit{servertest.Unit("about", "About this app", "", index.StateEmpty)}})
	auto, err := e.DB.FindUser(ctx, "auto")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.DB.AddGrant(ctx, index.Grant{UserID: auto.ID, Role: "Translate", ProjectID: other.ID}); err != nil {
		t.Fatal(err)
	}
	units, _, err := e.DB.FindUnits(ctx, index.UnitFilter{TranslationID: de, Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(units) != 1 {
		t.Fatalf("other/site/de units = %v, %v", units, err)
	}
	if _, err := e.DB.UpdateUnit(ctx, units[0].ID, index.UserActor(&auto), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Über diese App"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	secret := index.NewToken(index.UserTokenPrefix)
	if _, err := e.DB.CreateToken(ctx, index.Token{UserID: auto.ID, Hash: index.HashToken(secret),
		Prefix: index.UserTokenPrefix, Scope: index.ScopeAdmin, ProjectID: demo.ID}); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"mode": "suggest", "auto_source": "mt", "engines": []string{"weblate-translation-memory"},
		"threshold": 80}
	personal := func() bool {
		t.Helper()
		r := servertest.DoJSON(t, "GET", e.URL+"/api/suggestions/", e.Auth["admin"], nil)
		if r.Status != http.StatusOK {
			t.Fatalf("suggestions = %d %s", r.Status, r.Body)
		}
		return strings.Contains(string(r.Body), `"target":["Über diese App"]`)
	}
	// The project's own memory (the web component's German) answers
	// either way; the personal scope only with the full token.
	r := servertest.DoJSON(t, "POST", e.URL+autoPath, "Token "+secret, body)
	if r.Status != http.StatusOK || personal() {
		t.Errorf("narrowed token = %d %s: the personal memory answered", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["auto"], body)
	if r.Status != http.StatusOK || !personal() {
		t.Errorf("full token = %d %s: no suggestion from the personal memory", r.Status, r.Body)
	}
	indextest.CheckCounts(t, e.DB)
}
