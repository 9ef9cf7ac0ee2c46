package api_test

import (
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestLinkedComponentThroughAPI: a component created with repo
// weblate://demo/web imports from web's checkout (its task reads
// other/*.json there) and names web in linked_component; links to
// nothing, to a linked component, from a linked-to component (a cycle)
// and with a branch of their own are 400s naming the field, nothing
// created or changed.
func TestLinkedComponentThroughAPI(t *testing.T) {
	e := mustCrudEnv(t)
	url := e.srv.URL + "/api/projects/demo/components/"
	admin := servertest.MustUser(t, e.db, "ada", true)
	r := servertest.DoJSON(t, "POST", url, admin, map[string]any{"name": "Web", "slug": "web", "repo": appRepo(t),
		"filemask": "locales/*.json", "template": "locales/en.json", "file_format": "json", "source_language": "en"})
	wantResponse(t, "create web", r, 201, "")
	waitTask(t, servertest.Decode(t, r.Body)["task_url"].(string))

	link := func(slug, repo string, extra map[string]any) map[string]any {
		body := map[string]any{"name": slug, "slug": slug, "repo": repo, "filemask": "other/*.json",
			"template": "other/en.json", "file_format": "json", "source_language": "en"}
		for k, v := range extra {
			body[k] = v
		}
		return body
	}
	r = servertest.DoJSON(t, "POST", url, admin, link("other", "weblate://demo/web", nil))
	wantResponse(t, "create linked", r, 201, "")
	other := servertest.Decode(t, r.Body)
	servertest.CheckShape(t, "linked component", other, withTaskURL)
	if other["linked_component"] != e.srv.URL+"/api/components/demo/web/" || other["branch"] != "" {
		t.Errorf("linked component: linked_component %v, branch %v", other["linked_component"], other["branch"])
	}
	task := waitTask(t, other["task_url"].(string))
	if res, _ := task["result"].(map[string]any); res == nil || res["files"] != jsonNum(2) {
		t.Errorf("linked component's import = %v, want other/en.json and other/fr.json", task)
	}
	fr := servertest.GetObject(t, e.srv.URL+"/api/translations/demo/other/fr/")
	if fr["translated"] != jsonNum(1) {
		t.Errorf("other/fr = %v", fr)
	}
	if web := servertest.GetObject(t, e.srv.URL+"/api/components/demo/web/"); web["linked_component"] != nil {
		t.Errorf("web's linked_component = %v, want null", web["linked_component"])
	}
	wantResponse(t, "linked component's repository", servertest.DoJSON(t, "GET",
		e.srv.URL+"/api/components/demo/other/repository/", admin, nil), 200, "")

	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"missing target", link("x", "weblate://demo/nope", nil), invalid([3]string{"repo", "invalid", index.MsgLinkInvalid})},
		{"malformed", link("x", "weblate://demo", nil), invalid([3]string{"repo", "invalid", index.MsgLinkInvalid})},
		{"to a linked component", link("x", "weblate://demo/other", nil),
			invalid([3]string{"repo", "invalid", index.MsgLinkToLinked})},
		{"own branch", link("x", "weblate://demo/web", map[string]any{"branch": "main"}),
			invalid([3]string{"branch", "invalid", index.MsgLinkNotOption})},
	} {
		wantResponse(t, tc.name, servertest.DoJSON(t, "POST", url, admin, tc.body), 400, tc.want)
	}
	// Hostile links: each a 400 on repo, never a 500 or a half-made component.
	for _, repo := range []string{"weblate://demo/web/../web", "weblate://demo/" + strings.Repeat("x", 10000),
		"weblate://demo/web\x00", "weblate:///web", "weblate://%2e%2e/web", "WEBLATE://demo/web"} {
		r := servertest.DoJSON(t, "POST", url, admin, link("x", repo, nil))
		if r.Status != 400 || !strings.Contains(string(r.Body), `"attr":"repo"`) {
			t.Errorf("link %.40q = %d %.300s, want a 400 on repo", repo, r.Status, r.Body)
		}
	}
	// web linking to other, which links to web: the cycle.
	wantResponse(t, "cycle", servertest.DoJSON(t, "PATCH", e.srv.URL+"/api/components/demo/web/", admin,
		map[string]any{"repo": "weblate://demo/other"}), 400, invalid([3]string{"repo", "invalid", index.MsgLinkToLinked}))
	if got := servertest.GetObject(t, url); got["count"] != jsonNum(4) {
		t.Errorf("components after refusals = %v, want the demo's two, web and other", got["count"])
	}
	if web := servertest.GetObject(t, e.srv.URL+"/api/components/demo/web/"); !strings.HasPrefix(web["repo"].(string), "file://") {
		t.Errorf("web's repo after the refused cycle = %v", web["repo"])
	}

	// web moved into a category: other's link names the category path,
	// as the reference's links do, and linked_component its URL.
	r = servertest.DoJSON(t, "POST", e.srv.URL+"/api/categories/", admin, map[string]any{
		"name": "Main", "slug": "main", "project": e.srv.URL + "/api/projects/demo/"})
	wantResponse(t, "category", r, 201, "")
	wantResponse(t, "move web", servertest.DoJSON(t, "PATCH", e.srv.URL+"/api/components/demo/web/", admin,
		map[string]any{"category": servertest.Decode(t, r.Body)["url"]}), 200, "")
	other = servertest.GetObject(t, e.srv.URL+"/api/components/demo/other/")
	if other["repo"] != "weblate://demo/main/web" || other["linked_component"] != e.srv.URL+"/api/components/demo/main%2Fweb/" {
		t.Errorf("after web moved into main: repo %v, linked_component %v", other["repo"], other["linked_component"])
	}
}
