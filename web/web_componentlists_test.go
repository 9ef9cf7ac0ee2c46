package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestComponentListPage renders a component list's dashboard: its
// components with their translated share and links, a private project's
// component only for who may see it, and a missing list's 404 page.
func TestComponentListPage(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	ctx := t.Context()
	secret := servertest.MustProject(t, db, index.Project{Name: "Secret", Slug: "secret", AccessControl: index.AccessPrivate})
	vault := index.DefaultComponent()
	vault.ProjectID, vault.Name, vault.Slug, vault.Repo = secret.ID, "Vault", "vault", "file:///nonexistent/vault.git"
	vault.Filemask, vault.Template = "locales/*.json", "locales/en.json"
	servertest.MustComponent(t, db, vault)
	l, err := db.CreateComponentList(ctx, index.ComponentList{Name: "Release board", Slug: "release", ShowDashboard: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range [][2]string{{"demo", "app"}, {"secret", "vault"}} {
		comp, err := db.FindComponent(ctx, ref[0], ref[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := db.LinkComponentList(ctx, l.ID, comp.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	translated := servertest.ExpectStats(servertest.DemoUnits["app/en"], servertest.DemoUnits["app/de"])["translated_percent"].(string) + "%"
	body := servertest.GetPage(t, srv.URL+"/component-lists/release/", http.StatusOK)
	for _, want := range []string{"<h1>Release board</h1>", "Demo / App", href(srv.URL + "/projects/demo/app/"), translated,
		href(srv.URL + "/api/component-lists/release/")} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "Vault") || strings.Contains(body, "/secret/") {
		t.Errorf("an anonymous reader sees the private component:\n%s", body)
	}
	servertest.GetPage(t, srv.URL+"/component-lists/nothing/", http.StatusNotFound)
}
