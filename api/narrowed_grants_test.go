package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestAutoTranslateNarrowedGrant: a team's grant narrowed to one
// language, then to one component, lets its member run automatic
// translation there and nowhere else (edge.AuthorizeTranslation): it
// fails if the check reads project-wide grants only (the narrowed team
// would be refused everywhere) or ignores the narrowing (allowed
// everywhere).
func TestAutoTranslateNarrowedGrant(t *testing.T) {
	e := autoEnv(t, 0, servertest.WithUser("nina", false), servertest.WithAllLanguages())
	base, root, nina := e.URL, e.Auth["admin"], e.Auth["nina"]
	app, err := e.DB.FindComponent(t.Context(), "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	src, err := e.DB.FindTranslation(t.Context(), "demo", "app", "en")
	if err != nil {
		t.Fatal(err)
	}
	servertest.MustImport(t, e.DB, index.TranslationImport{ComponentID: app.ID, LanguageCode: "es",
		Filename: "locales/es.json", Revision: "e1", Monolingual: true, SourceTranslationID: src.ID,
		Units: servertest.AppUnits(false)[3:]})
	demo, err := e.DB.FindProject(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	web, err := e.DB.FindComponent(t.Context(), "demo", "web")
	if err != nil {
		t.Fatal(err)
	}
	run := func(path string) servertest.Response {
		return servertest.DoJSON(t, "POST", base+path, nina, map[string]any{"mode": "translate",
			"filter_type": "todo", "auto_source": "others"})
	}
	refused := func(what, path string) {
		t.Helper()
		if r := run(path); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "Can not auto translate") {
			t.Errorf("%s: %s = %d %s", what, path, r.Status, r.Body)
		}
	}
	team := func(name string) string {
		g := wantStatus(t, "create "+name, servertest.DoJSON(t, "POST", base+"/api/groups/", root, map[string]any{
			"name": name, "project_selection": 0, "language_selection": 0}), 201)
		u := g["url"].(string)
		for _, role := range []string{"Translate", "Automatic translation"} {
			wantStatus(t, "role", servertest.DoJSON(t, "POST", u+"roles/", root, map[string]any{"role_id": roleID(t, base, root, role)}), 200)
		}
		wantStatus(t, "join", servertest.DoJSON(t, "POST", base+"/api/users/nina/groups/", root, map[string]any{"group_id": g["id"]}), 200)
		return u
	}
	refused("no team", autoPath)

	// German translators of demo.
	de := team("German")
	wantStatus(t, "project", servertest.DoJSON(t, "POST", de+"projects/", root, map[string]any{"project_id": demo.ID}), 200)
	wantStatus(t, "language", servertest.DoJSON(t, "POST", de+"languages/", root, map[string]any{"language_code": "de"}), 200)
	if r := run(autoPath); r.Status != http.StatusOK {
		t.Errorf("German team, German translation = %d %s", r.Status, r.Body)
	}
	refused("German team, Spanish translation", "/api/translations/demo/app/es/autotranslate/")
	wantStatus(t, "leave", servertest.DoJSON(t, "DELETE", de, root, nil), 204)
	refused("team gone", autoPath)

	// Translators of the web component only, every language.
	wc := team("Web")
	wantStatus(t, "all languages", servertest.DoJSON(t, "PATCH", wc, root, map[string]any{"language_selection": 1}), 200)
	wantStatus(t, "component", servertest.DoJSON(t, "POST", wc+"components/", root, map[string]any{"component_id": web.ID}), 200)
	if r := run("/api/translations/demo/web/de/autotranslate/"); r.Status != http.StatusOK {
		t.Errorf("web team, web component = %d %s", r.Status, r.Body)
	}
	refused("web team, app component", autoPath)
	indextest.CheckCounts(t, e.DB)
}
