package web_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestCategoryPages: a component inside nested categories is reached on
// the reference's page paths (/projects/p/cat/sub/c/, its translation,
// editor and zen below it); a category's page lists its subcategories
// and components with their statistics and the breadcrumbs of its
// parents; the project page links its top-level categories; a private
// project's category is a 404 to who may not see it; the old encoded and
// bare-slug paths keep working.
func TestCategoryPages(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	ctx := t.Context()
	demo, err := db.FindProject(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	main, err := db.CreateCategory(ctx, index.Category{ProjectID: demo.ID, Name: "Main branch", Slug: "main"})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := db.CreateCategory(ctx, index.Category{ProjectID: demo.ID, CategoryID: main.ID, Name: "Docs", Slug: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.UpdateComponent(ctx, app.ID, func(c *index.Component) error { c.CategoryID = docs.ID; return nil }); err != nil {
		t.Fatal(err)
	}
	base := srv.URL

	project := servertest.GetPage(t, base+"/projects/demo/", http.StatusOK)
	for _, want := range []string{href(base + "/projects/demo/main/"), "Category: Main branch", href(base + "/projects/demo/main/docs/app/")} {
		if !strings.Contains(project, want) {
			t.Errorf("project page lacks %q", want)
		}
	}
	top := servertest.GetPage(t, base+"/projects/demo/main/", http.StatusOK)
	for _, want := range []string{"<h1>Main branch</h1>", "Docs", href(base + "/projects/demo/main/docs/"), href(base + "/projects/demo/")} {
		if !strings.Contains(top, want) {
			t.Errorf("category page lacks %q:\n%s", want, top)
		}
	}
	sub := servertest.GetPage(t, base+"/projects/demo/main/docs/", http.StatusOK)
	translated := servertest.ExpectStats(servertest.DemoUnits["app/en"], servertest.DemoUnits["app/de"])["translated_percent"].(string) + "%"
	for _, want := range []string{"<h1>Docs</h1>", "App", href(base + "/projects/demo/main/docs/app/"), translated,
		href(base + "/projects/demo/main/"), href(base + "/api/categories/" + strconv.FormatInt(docs.ID, 10) + "/")} {
		if !strings.Contains(sub, want) {
			t.Errorf("subcategory page lacks %q:\n%s", want, sub)
		}
	}
	comp := servertest.GetPage(t, base+"/projects/demo/main/docs/app/", http.StatusOK)
	for _, want := range []string{"<h1>App</h1>", href(base + "/projects/demo/main/docs/app/de/"), href(base + "/projects/demo/main/docs/"),
		href(base + "/api/components/demo/main%2Fdocs%2Fapp/")} {
		if !strings.Contains(comp, want) {
			t.Errorf("component page lacks %q:\n%s", want, comp)
		}
	}
	tr := servertest.GetPage(t, base+"/projects/demo/main/docs/app/de/", http.StatusOK)
	if !strings.Contains(tr, href(base+"/translate/demo/main/docs/app/de/")) {
		t.Errorf("translation page lacks its editor link:\n%s", tr)
	}
	servertest.GetPage(t, base+"/translate/demo/main/docs/app/de/", http.StatusOK)
	servertest.GetPage(t, base+"/zen/demo/main/docs/app/de/", http.StatusOK)
	// The paths that worked before, and the API's encoded form, still do.
	for _, path := range []string{"/projects/demo/app/", "/projects/demo/app/de/", "/translate/demo/app/de/",
		"/projects/demo/main%2Fdocs%2Fapp/", "/projects/demo/glossary/de/"} {
		servertest.GetPage(t, base+path, http.StatusOK)
	}
	for _, path := range []string{"/projects/demo/docs/", "/projects/demo/main/app/", "/projects/demo/main/docs/nope/",
		"/projects/demo/main/docs/app/xx/", "/projects/demo/main/../app/"} {
		servertest.GetPage(t, base+path, http.StatusNotFound)
	}

	// A private project's category is not found by who may not see it.
	secret := servertest.MustProject(t, db, index.Project{Name: "Secret", Slug: "secret", AccessControl: index.AccessPrivate})
	if _, err := db.CreateCategory(ctx, index.Category{ProjectID: secret.ID, Name: "Hidden", Slug: "hidden"}); err != nil {
		t.Fatal(err)
	}
	if body := servertest.GetPage(t, base+"/projects/secret/hidden/", http.StatusNotFound); strings.Contains(body, "Hidden") {
		t.Errorf("the private category shows:\n%s", body)
	}
}
