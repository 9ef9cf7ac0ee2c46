package api_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// categoryShape is the reference's Category object (CategorySerializer).
var categoryShape = servertest.Shape{
	"id": "int", "name": "string", "slug": "string", "project": "url", "category": "url|null",
	"url": "url", "statistics_url": "url",
}

// postCategory creates a category and returns its object.
func postCategory(tb testing.TB, base, auth string, body map[string]any) map[string]any {
	tb.Helper()
	r := servertest.DoJSON(tb, "POST", base+"/api/categories/", auth, body)
	if r.Status != http.StatusCreated {
		tb.Fatalf("POST category %v = %d %s", body, r.Status, r.Body)
	}
	k := servertest.Decode(tb, r.Body)
	if r.Header.Get("Location") != k["url"] {
		tb.Errorf("Location %q, url %v", r.Header.Get("Location"), k["url"])
	}
	return k
}

func TestCategoriesCRUD(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	base := srv.URL
	admin := servertest.MustUser(t, db, "ada", false, [2]string{"Administration", "demo"})
	translator := servertest.MustUser(t, db, "tom", false, [2]string{"Translate", "demo"})
	project := base + "/api/projects/demo/"
	body := map[string]any{"name": "Release 1", "slug": "release-1", "project": project}

	wantResponse(t, "anonymous", servertest.DoJSON(t, "POST", base+"/api/categories/", "", body), 401, notSignedIn)
	// As the reference: the project field accepts only projects the
	// caller may edit, so a translator's is "Object does not exist".
	wantResponse(t, "translator", servertest.DoJSON(t, "POST", base+"/api/categories/", translator, body), 400,
		invalid([3]string{"project", "does_not_exist", "Invalid hyperlink - Object does not exist."}))
	wantResponse(t, "empty", servertest.DoJSON(t, "POST", base+"/api/categories/", admin, map[string]any{}), 400,
		invalid(required("name"), required("project"), required("slug")))
	wantResponse(t, "bad values", servertest.DoJSON(t, "POST", base+"/api/categories/", admin, map[string]any{
		"name": "", "slug": "a b", "project": 7, "category": base + "/api/units/1/"}), 400, invalid(
		[3]string{"category", "no_match", "Invalid hyperlink - No URL match."},
		[3]string{"name", "blank", "This field may not be blank."},
		[3]string{"project", "incorrect_type", "Incorrect type. Expected URL string, received int."},
		[3]string{"slug", "invalid", "Enter a valid “slug” consisting of letters, numbers, underscores or hyphens."}))
	wantResponse(t, "no such project", servertest.DoJSON(t, "POST", base+"/api/categories/", admin, map[string]any{
		"name": "X", "slug": "x", "project": base + "/api/projects/nope/"}), 400,
		invalid([3]string{"project", "does_not_exist", "Invalid hyperlink - Object does not exist."}))

	top := postCategory(t, base, admin, body)
	servertest.CheckShape(t, "created category", top, categoryShape)
	topURL := top["url"].(string)
	if top["name"] != "Release 1" || top["slug"] != "release-1" || top["project"] != project ||
		top["category"] != nil || top["statistics_url"] != topURL+"statistics/" {
		t.Errorf("created = %v", top)
	}
	wantResponse(t, "taken", servertest.DoJSON(t, "POST", base+"/api/categories/", admin, body), 400, invalid(
		[3]string{"name", "unique", "Component or category with the same name already exists at this level."},
		[3]string{"slug", "unique", "Component or category with the same URL slug already exists at this level."}))

	// Nesting: the same slug below another parent is free; depth 3 is
	// the limit.
	mid := postCategory(t, base, admin, map[string]any{"name": "Release 1", "slug": "release-1", "project": project, "category": topURL})
	if mid["category"] != topURL {
		t.Errorf("nested = %v", mid)
	}
	leaf := postCategory(t, base, admin, map[string]any{"name": "Leaf", "slug": "leaf", "project": project, "category": mid["url"]})
	wantResponse(t, "too deep", servertest.DoJSON(t, "POST", base+"/api/categories/", admin, map[string]any{
		"name": "Deeper", "slug": "deeper", "project": project, "category": leaf["url"]}), 400,
		invalid([3]string{"category", "invalid", "Too deep nesting of categories!"}))

	// Reads: the item, the lists, the project's list.
	got := servertest.GetObject(t, topURL)
	if got["id"] != top["id"] || got["name"] != "Release 1" {
		t.Errorf("GET = %v", got)
	}
	for _, u := range []string{base + "/api/categories/", project + "categories/"} {
		list := servertest.GetObject(t, u)
		if list["count"] != jsonNum(3) {
			t.Errorf("%s count = %v", u, list["count"])
		}
		for _, k := range servertest.Results(t, list) {
			servertest.CheckShape(t, u, k, categoryShape)
		}
	}

	// Writes need project.edit; a PATCH keeps the parent it does not name.
	wantResponse(t, "translator PATCH", servertest.DoJSON(t, "PATCH", leaf["url"].(string), translator,
		map[string]any{"name": "L"}), 403, denied("Can not edit category"))
	r := servertest.DoJSON(t, "PATCH", leaf["url"].(string), admin, map[string]any{"name": "Leaf two"})
	wantResponse(t, "PATCH", r, 200, "")
	if k := servertest.Decode(t, r.Body); k["name"] != "Leaf two" || k["category"] != mid["url"] {
		t.Errorf("PATCHed = %v", k)
	}
	// Moving a category under itself or its own child is refused (the
	// reference checks the depth first and so may loop on a cycle
	// shallow enough; Tolk walks the parents first), and so is a move
	// that makes the tree too deep.
	wantResponse(t, "cycle", servertest.DoJSON(t, "PATCH", topURL, admin, map[string]any{"category": leaf["url"]}), 400,
		invalid([3]string{"category", "invalid", "Parent category has to be different!"}))
	wantResponse(t, "deep move", servertest.DoJSON(t, "PATCH", leaf["url"].(string), admin, map[string]any{"category": nil}), 200, "")
	leafChild := postCategory(t, base, admin, map[string]any{"name": "Child", "slug": "child", "project": project, "category": leaf["url"]})
	// top (with mid below it) under leafChild would be four levels.
	wantResponse(t, "too deep move", servertest.DoJSON(t, "PATCH", topURL, admin, map[string]any{"category": leafChild["url"]}), 400,
		invalid([3]string{"category", "invalid", "Too deep nesting of categories!"}))
	wantResponse(t, "self", servertest.DoJSON(t, "PATCH", topURL, admin, map[string]any{"category": topURL}), 400,
		invalid([3]string{"category", "invalid", "Parent category has to be different!"}))
	wantResponse(t, "PUT without required", servertest.DoJSON(t, "PUT", topURL, admin, map[string]any{"name": "R"}), 400,
		invalid(required("project"), required("slug")))
	r = servertest.DoJSON(t, "PUT", leaf["url"].(string), admin, map[string]any{"name": "Leaf", "slug": "leaf",
		"project": project, "category": nil})
	wantResponse(t, "PUT to top", r, 200, "")
	if k := servertest.Decode(t, r.Body); k["category"] != nil {
		t.Errorf("PUT to the top level = %v", k)
	}

	wantResponse(t, "translator DELETE", servertest.DoJSON(t, "DELETE", topURL, translator, nil), 403,
		denied("Can not delete category"))
	wantResponse(t, "DELETE", servertest.DoJSON(t, "DELETE", topURL, admin, nil), 204, "")
	wantResponse(t, "gone", servertest.Do(t, "GET", topURL, nil), 404, "")
	wantResponse(t, "child gone", servertest.Do(t, "GET", mid["url"].(string), nil), 404, "")
	if list := servertest.GetObject(t, project+"categories/"); list["count"] != jsonNum(2) {
		t.Errorf("after delete, count = %v", list["count"])
	}
	for _, path := range []string{"/api/categories/0/", "/api/categories/x/", "/api/categories/99999/",
		"/api/categories/99999/statistics/", "/api/projects/nope/categories/"} {
		wantResponse(t, path, servertest.Do(t, "GET", base+path, nil), 404, "")
	}
}

// TestCategoryComponentsAndStatistics follows the sync tool: read the
// project's categories, create one, create a component in it, list it
// back; then the category's statistics are its components' and the
// category's removal takes its components.
func TestCategoryComponentsAndStatistics(t *testing.T) {
	e := mustCrudEnv(t)
	base := e.srv.URL
	admin := servertest.MustUser(t, e.db, "ada", false, [2]string{"Administration", "demo"})
	project := base + "/api/projects/demo/"

	if list := servertest.GetObject(t, project+"categories/"); list["count"] != jsonNum(0) {
		t.Fatalf("categories before = %v", list)
	}
	branch := postCategory(t, base, admin, map[string]any{"name": "main", "slug": "main", "project": project})
	sub := postCategory(t, base, admin, map[string]any{"name": "docs", "slug": "docs", "project": project,
		"category": branch["url"]})

	r := servertest.DoJSON(t, "POST", project+"components/", admin, map[string]any{"name": "Web", "slug": "web",
		"repo": appRepo(t), "filemask": "locales/*.json", "template": "locales/en.json", "file_format": "json",
		"source_language": "en", "category": sub["url"]})
	wantResponse(t, "create in category", r, 201, "")
	comp := servertest.Decode(t, r.Body)
	if comp["category"] != sub["url"] {
		t.Errorf("created component category = %v, want %v", comp["category"], sub["url"])
	}
	waitTask(t, comp["task_url"].(string))
	if got := servertest.GetObject(t, base+"/api/components/demo/web/"); got["category"] != sub["url"] {
		t.Errorf("GET component category = %v", got["category"])
	}
	var inSub int
	for _, c := range servertest.Results(t, servertest.GetObject(t, project+"components/")) {
		if c["category"] == sub["url"] {
			inSub++
		} else if c["category"] != nil {
			t.Errorf("component %v in category %v", c["slug"], c["category"])
		}
	}
	if inSub != 1 {
		t.Errorf("%d components listed in the category, want 1", inSub)
	}

	// Statistics: the branch sums its subcategory's component; the
	// component's own statistics are the sum.
	want := servertest.GetObject(t, base+"/api/components/demo/web/statistics/")
	total, translated := sumField(t, want, "total"), sumField(t, want, "translated")
	st := servertest.GetObject(t, branch["statistics_url"].(string))
	servertest.CheckShape(t, "category statistics", st, projectStatsShape)
	if total == "0" || servertest.Num(st["total"]) != total || servertest.Num(st["translated"]) != translated || st["name"] != "main" ||
		st["url"] != base+"/projects/demo/main/" {
		t.Errorf("category statistics = %v, want total %v translated %v", st, total, translated)
	}
	if st := servertest.GetObject(t, sub["statistics_url"].(string)); servertest.Num(st["total"]) != total ||
		st["url"] != base+"/projects/demo/main/docs/" {
		t.Errorf("subcategory statistics = %v", st)
	}

	// Into another category and out, by PATCH.
	r = servertest.DoJSON(t, "PATCH", base+"/api/components/demo/web/", admin, map[string]any{"category": branch["url"]})
	wantResponse(t, "PATCH category", r, 200, "")
	if c := servertest.Decode(t, r.Body); c["category"] != branch["url"] {
		t.Errorf("PATCHed component category = %v", c["category"])
	}
	r = servertest.DoJSON(t, "PATCH", base+"/api/components/demo/app/", admin, map[string]any{"category": base + "/api/categories/99999/"})
	wantResponse(t, "PATCH unknown category", r, 400,
		invalid([3]string{"category", "does_not_exist", "Invalid hyperlink - Object does not exist."}))
	// A category of another project is refused.
	other := servertest.MustUser(t, e.db, "root", true)
	wantResponse(t, "other project", servertest.DoJSON(t, "POST", base+"/api/projects/", other,
		map[string]any{"name": "Other", "slug": "other", "web": "https://other.example/"}), 201, "")
	foreign := postCategory(t, base, other, map[string]any{"name": "x", "slug": "x", "project": base + "/api/projects/other/"})
	wantResponse(t, "foreign category", servertest.DoJSON(t, "PATCH", base+"/api/components/demo/app/", admin,
		map[string]any{"category": foreign["url"]}), 400,
		invalid([3]string{"category", "invalid", "Category does not belong to this project."}))

	// Deleting the branch removes its subcategory and the component.
	wantResponse(t, "DELETE", servertest.DoJSON(t, "DELETE", branch["url"].(string), admin, nil), 204, "")
	wantResponse(t, "component gone", servertest.Do(t, "GET", base+"/api/components/demo/web/", nil), 404, "")
	if got := servertest.GetObject(t, base+"/api/components/demo/app/"); got["category"] != nil {
		t.Errorf("app moved: %v", got["category"])
	}
	after := servertest.GetObject(t, project+"statistics/")
	app := servertest.GetObject(t, base+"/api/components/demo/app/statistics/")
	glossary := servertest.GetObject(t, base+"/api/components/demo/glossary/statistics/")
	a, _ := strconv.Atoi(sumField(t, app, "total"))
	g, _ := strconv.Atoi(sumField(t, glossary, "total"))
	if appTotal := strconv.Itoa(a + g); servertest.Num(after["total"]) != appTotal {
		t.Errorf("project total after the removal = %v, want %v", after["total"], appTotal)
	}
}

// sumField sums a number field over a statistics list's results.
func sumField(tb testing.TB, list map[string]any, field string) string {
	tb.Helper()
	n := 0
	for _, s := range servertest.Results(tb, list) {
		v, err := strconv.Atoi(servertest.Num(s[field]))
		if err != nil {
			tb.Fatalf("%s = %v", field, s[field])
		}
		n += v
	}
	return strconv.Itoa(n)
}
