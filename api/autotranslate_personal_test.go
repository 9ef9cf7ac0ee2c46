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
	if err := e.DB.SetProjectMemorySharing(ctx, demo.ID, false, false); err != nil {
		t.Fatal(err)
	}
	auto, err := e.DB.FindUser(ctx, "auto")
	if err != nil {
		t.Fatal(err)
	}
	other := servertest.MustPersonalTranslation(t, e.DB, "other", "de", "about", "About this app", "Über diese App", auto)
	if err := e.DB.AddGrant(ctx, index.Grant{UserID: auto.ID, Role: "Translate", ProjectID: other.ID}); err != nil {
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
