package api_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

func TestCreateProject(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	url := srv.URL + "/api/projects/"
	creator := servertest.MustUser(t, db, "cara", false, [2]string{"Add projects", ""})
	translator := servertest.MustUser(t, db, "tom", false, [2]string{"Translate", "demo"})
	body := map[string]any{"name": "Shop", "slug": "shop", "web": "https://shop.example/",
		"source_language": map[string]any{"code": "en", "name": "English"}} // wlc sends it; ignored

	wantResponse(t, "anonymous", servertest.DoJSON(t, "POST", url, "", body), 401, notSignedIn)
	wantResponse(t, "translator", servertest.DoJSON(t, "POST", url, translator, body), 403, denied("Can not create projects"))
	wantResponse(t, "empty", servertest.DoJSON(t, "POST", url, creator, map[string]any{}), 400,
		invalid(required("name"), required("slug"), required("web")))
	wantResponse(t, "bad values", servertest.DoJSON(t, "POST", url, creator, map[string]any{"name": "", "slug": "a b",
		"web": "ftp:/x", "access_control": 200, "enable_hooks": "maybe"}), 400, invalid(
		[3]string{"access_control", "invalid_choice", `"200" is not a valid choice.`},
		[3]string{"enable_hooks", "invalid", "Must be a valid boolean."},
		[3]string{"name", "blank", "This field may not be blank."},
		[3]string{"slug", "invalid", "Enter a valid “slug” consisting of letters, numbers, underscores or hyphens."},
		[3]string{"web", "invalid", "Enter a valid URL."}))
	wantResponse(t, "not JSON", servertest.DoJSON(t, "POST", url, creator, []byte(`{"name": `)), 400,
		`{"type":"client_error","errors":[{"code":"parse_error","detail":"JSON parse error - unexpected EOF","attr":null}]}`)
	wantResponse(t, "taken", servertest.DoJSON(t, "POST", url, creator, map[string]any{"name": "Demo", "slug": "demo",
		"web": "https://x.example/"}), 400, invalid(
		[3]string{"name", "unique", "Project with this Project name already exists."},
		[3]string{"slug", "unique", "Project with this URL slug already exists."}))

	r := servertest.DoJSON(t, "POST", url, creator, body)
	wantResponse(t, "create", r, 201, "")
	p := servertest.Decode(t, r.Body)
	servertest.CheckShape(t, "created project", p, projectShape)
	if p["slug"] != "shop" || p["web"] != "https://shop.example/" || p["url"] != srv.URL+"/api/projects/shop/" ||
		p["set_language_team"] != true || p["enable_hooks"] != true {
		t.Errorf("created project = %v", p)
	}
	if got := servertest.GetObject(t, srv.URL+"/api/projects/shop/"); got["name"] != "Shop" {
		t.Errorf("GET after create = %v", got)
	}
	// The creator administers it now: they may change it.
	wantResponse(t, "creator edits", servertest.DoJSON(t, "PATCH", srv.URL+"/api/projects/shop/", creator,
		map[string]any{"instructions": "Be nice."}), 200, "")
	if got := changeActions(t, srv.URL+"/api/projects/shop/changes/"); !slices.Equal(got, []string{"50 by cara"}) {
		t.Errorf("changes = %v, want the creation by cara", got)
	}

	// The reference also parses forms, and answers other bodies with 400s.
	form := servertest.DoBody(t, "POST", url, http.Header{"Authorization": {creator},
		"Content-Type": {"application/x-www-form-urlencoded"}},
		strings.NewReader("name=Blog&slug=blog&web=https%3A%2F%2Fblog.example%2F&source_review=true"))
	wantResponse(t, "form", form, 201, "")
	if p := servertest.Decode(t, form.Body); p["slug"] != "blog" || p["source_review"] != true {
		t.Errorf("created from a form = %v", p)
	}
	wantResponse(t, "array", servertest.DoJSON(t, "POST", url, creator, []byte(`[1]`)), 400,
		invalid([3]string{"non_field_errors", "invalid", "Invalid data. Expected a dictionary, but got list."}))
	wantResponse(t, "XML", servertest.DoBody(t, "POST", url, http.Header{"Authorization": {creator},
		"Content-Type": {"application/xml"}}, strings.NewReader("<a/>")), 415,
		`{"type":"client_error","errors":[{"code":"unsupported_media_type","detail":"Unsupported media type \"application/xml\" in request.","attr":null}]}`)
}

func TestUpdateAndDeleteProject(t *testing.T) {
	e := mustCrudEnv(t)
	srv, db := e.srv, e.db
	url := srv.URL + "/api/projects/demo/"
	admin := servertest.MustUser(t, db, "ada", false, [2]string{"Administration", "demo"})
	translator := servertest.MustUser(t, db, "tom", false, [2]string{"Translate", "demo"})
	stranger := servertest.MustUser(t, db, "sam", false)

	wantResponse(t, "anonymous", servertest.DoJSON(t, "PATCH", url, "", map[string]any{"name": "X"}), 401, notSignedIn)
	wantResponse(t, "translator", servertest.DoJSON(t, "PATCH", url, translator, map[string]any{"name": "X"}), 403,
		denied("Can not edit project"))
	wantResponse(t, "PUT without web", servertest.DoJSON(t, "PUT", url, admin, map[string]any{"name": "Demo", "slug": "demo"}),
		400, invalid(required("web")))

	r := servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"name": "Demo shop", "translation_review": true,
		"access_control": 100})
	wantResponse(t, "PATCH", r, 200, "")
	if p := servertest.Decode(t, r.Body); p["name"] != "Demo shop" || p["translation_review"] != true || p["web"] != "https://example.com/" {
		t.Errorf("patched = %v", p)
	}
	// Private now: whoever has no role in it cannot tell it exists.
	wantResponse(t, "stranger on a private project", servertest.DoJSON(t, "PATCH", url, stranger, map[string]any{"name": "X"}),
		404, `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`)

	// A new slug moves the components' checkouts along.
	mustDemoRepoComponent(t, e)
	r = servertest.DoJSON(t, "PUT", url, admin, map[string]any{"name": "Demo shop", "slug": "shop", "web": "https://shop.example/"})
	wantResponse(t, "PUT", r, 200, "")
	if p := servertest.Decode(t, r.Body); p["url"] != srv.URL+"/api/projects/shop/" || p["translation_review"] != true {
		t.Errorf("PUT = %v (fields it does not name keep their values)", p)
	}
	servertest.GetObjectAs(t, srv.URL+"/api/components/shop/app/", admin) // still private
	if _, err := os.Stat(filepath.Join(e.data, "repos", "shop", "app", ".git")); err != nil {
		t.Errorf("checkout after the rename: %v", err)
	}

	wantResponse(t, "translator deletes", servertest.DoJSON(t, "DELETE", srv.URL+"/api/projects/shop/", translator, nil), 403,
		denied("Can not delete project"))
	wantResponse(t, "delete", servertest.DoJSON(t, "DELETE", srv.URL+"/api/projects/shop/", admin, nil), 204, "")
	wantResponse(t, "after delete", servertest.Do(t, "GET", srv.URL+"/api/projects/shop/", nil), 404, "")
	wantResponse(t, "its component", servertest.Do(t, "GET", srv.URL+"/api/components/shop/app/", nil), 404, "")
	if _, err := os.Stat(filepath.Join(e.data, "repos", "shop")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checkouts after the removal: %v", err)
	}
	if l, _ := db.LanguageStats(context.Background(), "en"); l.Total != 0 {
		t.Errorf("English total after the removal = %d", l.Total)
	}
	u, err := db.FindUser(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := db.FindGrants(context.Background(), u.ID); len(g) != 0 {
		t.Errorf("grants in the removed project remain: %v", g)
	}
}

// mustDemoRepoComponent points the demo's app component at a real
// repository and imports it, so that it has a checkout on disk.
func mustDemoRepoComponent(tb testing.TB, e *crudEnv) index.Component {
	tb.Helper()
	ctx := context.Background()
	c, err := e.db.FindComponent(ctx, "demo", "app")
	if err != nil {
		tb.Fatal(err)
	}
	c.Repo = mustBareRepo(tb, map[string]string{"locales/en.json": `{"hello": "Hello"}`})
	if c, _, err = e.db.SaveComponent(ctx, c); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.sync.ImportComponent(ctx, c); err != nil {
		tb.Fatal(err)
	}
	return c
}
