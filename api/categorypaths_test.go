package api_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestCategoryPaths reaches a component inside nested categories through
// the reference's URL shapes (the full slug in one segment, its slashes
// encoded), checks that the bodies carry that form, that every old URL
// still answers and that stray paths are refused.
func TestCategoryPaths(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	base := srv.URL
	ctx := context.Background()
	admin := servertest.MustUser(t, db, "ada", false, [2]string{"Administration", "demo"})
	project := base + "/api/projects/demo/"
	top := postCategory(t, base, admin, map[string]any{"name": "main", "slug": "main", "project": project})
	sub := postCategory(t, base, admin, map[string]any{"name": "docs", "slug": "docs", "project": project,
		"category": top["url"]})
	app, err := db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	subID, _ := strconv.ParseInt(servertest.Num(sub["id"]), 10, 64)
	_, moved, err := db.UpdateComponent(ctx, app.ID, func(c *index.Component) error {
		c.CategoryID = subID
		return nil
	})
	if err != nil || moved.CategoryPath != "main/docs" || moved.FullSlug() != "main/docs/app" {
		t.Fatalf("moved = %q %q, %v", moved.CategoryPath, moved.FullSlug(), err)
	}

	// A category and a component at one level cannot share a slug: the
	// pages give both a segment.
	wantResponse(t, "category slug of a component", servertest.DoJSON(t, "POST", base+"/api/categories/", admin,
		map[string]any{"name": "Glossaries", "slug": "glossary", "project": project}), 400, invalid(
		[3]string{"slug", "unique", "Component or category with the same URL slug already exists at this level."}))

	compURL := base + "/api/components/demo/main%2Fdocs%2Fapp/"
	comp := servertest.GetObject(t, compURL)
	if comp["url"] != compURL || comp["slug"] != "app" || comp["category"] != sub["url"] ||
		comp["translations_url"] != compURL+"translations/" || comp["statistics_url"] != compURL+"statistics/" ||
		comp["credits_url"] != compURL+"credits/" ||
		comp["web_url"] != base+"/projects/demo/main/docs/app/" {
		t.Errorf("component = %v", comp)
	}
	// The bare slug keeps working (Tolk's slugs are unique in a project).
	if old := servertest.GetObject(t, base+"/api/components/demo/app/"); old["url"] != compURL {
		t.Errorf("by bare slug: url %v", old["url"])
	}
	trURL := base + "/api/translations/demo/main%2Fdocs%2Fapp/de/"
	tr := servertest.GetObject(t, trURL)
	if tr["url"] != trURL || tr["units_list_url"] != trURL+"units/" ||
		tr["web_url"] != base+"/projects/demo/main/docs/app/de/" || tr["translate_url"] != base+"/translate/demo/main/docs/app/de/" {
		t.Errorf("translation = %v %v %v %v", tr["url"], tr["units_list_url"], tr["web_url"], tr["translate_url"])
	}
	units := servertest.Results(t, servertest.GetObject(t, trURL+"units/"))
	if len(units) == 0 || units[0]["translation"] != trURL ||
		!strings.HasPrefix(units[0]["web_url"].(string), base+"/translate/demo/main/docs/app/de/?checksum=") {
		t.Fatalf("units = %v", units)
	}
	if u := servertest.GetObject(t, units[0]["url"].(string)); u["translation"] != trURL {
		t.Errorf("unit translation = %v", u["translation"])
	}
	var found bool
	for _, ch := range servertest.Results(t, servertest.GetObject(t, compURL+"changes/")) {
		if ch["component"] != compURL {
			t.Errorf("change component = %v", ch["component"])
		}
		found = true
	}
	if !found {
		t.Error("no changes on the component")
	}
	for _, item := range servertest.Results(t, servertest.GetObject(t, compURL+"translations/")) {
		if !strings.HasPrefix(item["url"].(string), base+"/api/translations/demo/main%2Fdocs%2Fapp/") {
			t.Errorf("listed translation url = %v", item["url"])
		}
	}
	// A write through the encoded path.
	wantResponse(t, "lock", servertest.DoJSON(t, "POST", compURL+"lock/", admin, map[string]any{"lock": true}), 200, "")
	if c, _ := db.FindComponent(ctx, "demo", "app"); !c.Locked {
		t.Error("the lock did not reach the component")
	}

	for _, path := range []string{
		"docs%2Fapp", "main%2Fapp", "main%2Fdocs%2Fglossary", "..%2Fapp", "main%2F..%2Fapp", "%2Fapp",
		"main%2Fdocs%2Fapp%2F", "main%2F%2Fapp", ".%2Fapp", "a%2Fb%2Fc%2Fd%2Fapp", "main%252Fdocs%252Fapp",
	} {
		for _, u := range []string{"/api/components/demo/" + path + "/", "/api/translations/demo/" + path + "/de/"} {
			if r := servertest.Do(t, "GET", base+u, nil); r.Status != http.StatusNotFound {
				t.Errorf("GET %s = %d %s, want 404", u, r.Status, r.Body)
			}
		}
	}
	for _, u := range []string{"/api/projects/demo%2Fx/", "/api/translations/demo/app/de%2Fx/",
		"/api/components/demo%2Fmain/docs%2Fapp/"} {
		if r := servertest.Do(t, "GET", base+u, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", u, r.Status)
		}
	}
	// Static segments match however they are encoded, as they did on the
	// decoded path.
	for _, u := range []string{"/api/%70rojects/demo/", "/api/projects/de%6Do/", "/api/components/demo/gl%6Fssary/"} {
		if r := servertest.Do(t, "GET", base+u, nil); r.Status != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", u, r.Status)
		}
	}
	// 405 names the resource's methods; a missing slash is redirected
	// with the encoding kept.
	r := servertest.Do(t, "POST", compURL+"statistics/", nil)
	if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("POST statistics = %d Allow %q", r.Status, r.Header.Get("Allow"))
	}
	r = servertest.Do(t, "GET", strings.TrimSuffix(compURL, "/"), nil)
	if r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != "/api/components/demo/main%2Fdocs%2Fapp/" {
		t.Errorf("no slash = %d Location %q", r.Status, r.Header.Get("Location"))
	}
}

// TestRawPathPlus: a '+' in a parameter stays a '+' when another part of
// the path is escaped (gin unescapes raw parameters as a query would).
func TestRawPathPlus(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	admin := servertest.MustUser(t, db, "root", true)
	servertest.MustUser(t, db, "a+b", false)
	for _, u := range []string{"/api/users/a+b/", "/api/%75sers/a+b/", "/api/users/a%2Bb/"} {
		got := servertest.GetObjectAs(t, srv.URL+u, admin)
		if got["username"] != "a+b" {
			t.Errorf("GET %s = %v", u, got)
		}
	}
}
