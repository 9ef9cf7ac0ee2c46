package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestSquashAddonThroughAPI: weblate.git.squash installs with the
// reference's configuration fields and defaults; values of the wrong
// type or outside the choices are 400s naming the field, with nothing
// installed; PATCH replaces the configuration.
func TestSquashAddonThroughAPI(t *testing.T) {
	e := mustCrudEnv(t)
	admin := servertest.MustUser(t, e.db, "admin", true)
	hdr := http.Header{"Authorization": {admin}, "Content-Type": {"application/json"}}
	do := func(method, path, body string) servertest.Response {
		return servertest.DoBody(t, method, e.srv.URL+path, hdr, strings.NewReader(body))
	}
	for _, tc := range []struct{ name, body, want string }{
		{"mode not a choice", `{"name":"weblate.git.squash","configuration":{"squash":"branch"}}`,
			invalid([3]string{"configuration.squash", "invalid_choice", `"branch" is not a valid choice.`})},
		{"trailers not a bool", `{"name":"weblate.git.squash","configuration":{"append_trailers":"often"}}`,
			invalid([3]string{"configuration.append_trailers", "invalid", "Must be a valid boolean."})},
		{"message not a string", `{"name":"weblate.git.squash","configuration":{"commit_message":[1]}}`,
			invalid([3]string{"configuration.commit_message", "invalid", "Not a valid string."})},
		{"message that does not render", `{"name":"weblate.git.squash","configuration":{"commit_message":"{% if x %}"}}`, ""},
	} {
		r := do("POST", "/api/components/demo/app/addons/", tc.body)
		wantResponse(t, tc.name, r, 400, tc.want)
		if tc.want == "" && !strings.Contains(string(r.Body), `"attr":"configuration.commit_message"`) {
			t.Errorf("%s: %s, want a 400 on configuration.commit_message", tc.name, r.Body)
		}
	}
	if n := servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/addons/", admin)["count"]); n != "0" {
		t.Fatalf("%s add-ons after refusals, want none", n)
	}
	r := do("POST", "/api/components/demo/app/addons/", `{"name":"weblate.git.squash","configuration":{}}`)
	wantResponse(t, "create", r, 201, "")
	created := servertest.Decode(t, r.Body)
	config := servertest.Obj(t, created["configuration"])
	if config["squash"] != "all" || config["append_trailers"] != true || config["commit_message"] != "" {
		t.Errorf("defaults = %v, want the reference's: all, trailers, no message", config)
	}
	comp := servertest.GetObjectAs(t, e.srv.URL+"/api/components/demo/app/", admin)
	if addons, _ := comp["addons"].([]any); len(addons) != 1 || addons[0] != created["url"] {
		t.Errorf("component's addons = %v, want the squash add-on", comp["addons"])
	}
	path := strings.TrimPrefix(created["url"].(string), e.srv.URL)
	r = do("PATCH", path, `{"configuration":{"squash":"language","append_trailers":false,"commit_message":"Squashed {{ language_name }}"}}`)
	wantResponse(t, "patch", r, 200, "")
	config = servertest.Obj(t, servertest.Decode(t, r.Body)["configuration"])
	if config["squash"] != "language" || config["append_trailers"] != false || config["commit_message"] != "Squashed {{ language_name }}" {
		t.Errorf("patched = %v", config)
	}
	wantResponse(t, "patch wrong type", do("PATCH", path, `{"configuration":{"squash":3}}`), 400, "")
	if got := servertest.Obj(t, servertest.GetObjectAs(t, created["url"].(string), admin)["configuration"]); got["squash"] != "language" {
		t.Errorf("after a refused PATCH: %v", got)
	}
	// The flag add-ons have no configuration.
	r = do("POST", "/api/projects/demo/addons/", `{"name":"weblate.flags.same_edit","configuration":{}}`)
	wantResponse(t, "flags", r, 201, "")
	if got := servertest.Decode(t, r.Body); got["name"] != "weblate.flags.same_edit" || len(servertest.Obj(t, got["configuration"])) != 0 {
		t.Errorf("flag add-on = %v", got)
	}
}
