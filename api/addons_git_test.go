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

// TestAutoTranslateAddonThroughAPI: weblate.autotranslate.autotranslate
// installs on a component and on a project with the reference's
// configuration fields, shown back in its shape with its defaults; the
// older filter_type is read as the matching query; values of the wrong
// type are 400s naming configuration.<field>, with nothing installed.
func TestAutoTranslateAddonThroughAPI(t *testing.T) {
	e := mustCrudEnv(t)
	admin := servertest.MustUser(t, e.db, "admin", true)
	hdr := http.Header{"Authorization": {admin}, "Content-Type": {"application/json"}}
	do := func(method, path, body string) servertest.Response {
		return servertest.DoBody(t, method, e.srv.URL+path, hdr, strings.NewReader(body))
	}
	const name = `"name":"weblate.autotranslate.autotranslate"`
	for _, tc := range []struct{ name, body, want string }{
		{"mode not a choice", `{` + name + `,"configuration":{"mode":"guess"}}`,
			invalid([3]string{"configuration.mode", "invalid_choice", `"guess" is not a valid choice.`})},
		{"mode not a string", `{` + name + `,"configuration":{"mode":["suggest"]}}`,
			invalid([3]string{"configuration.mode", "invalid", "Not a valid string."})},
		{"threshold not a number", `{` + name + `,"configuration":{"threshold":"high"}}`,
			invalid([3]string{"configuration.threshold", "invalid", "Ensure this value is between 1 and 100."})},
		{"threshold out of range", `{` + name + `,"configuration":{"threshold":101}}`,
			invalid([3]string{"configuration.threshold", "invalid", "Ensure this value is between 1 and 100."})},
		{"engines not a list", `{` + name + `,"configuration":{"auto_source":"mt","engines":"deepl"}}`,
			invalid([3]string{"configuration.engines", "invalid", "Expected a list of items."})},
		{"mt without engines", `{` + name + `,"configuration":{"auto_source":"mt"}}`,
			invalid([3]string{"configuration.engines", "required", "This field is required."})},
		{"source not a choice", `{` + name + `,"configuration":{"auto_source":"tm"}}`,
			invalid([3]string{"configuration.auto_source", "invalid_choice", `"tm" is not a valid choice.`})},
		{"filter not a choice", `{` + name + `,"configuration":{"filter_type":"some"}}`,
			invalid([3]string{"configuration.filter_type", "invalid_choice", `"some" is not a valid choice.`})},
		{"component not a string", `{` + name + `,"configuration":{"component":{"slug":"web"}}}`,
			invalid([3]string{"configuration.component", "invalid", "Not a valid string."})},
		{"configuration not an object", `{` + name + `,"configuration":"translate"}`, ""},
	} {
		r := do("POST", "/api/components/demo/app/addons/", tc.body)
		wantResponse(t, tc.name, r, 400, tc.want)
	}
	if n := servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/addons/", admin)["count"]); n != "0" {
		t.Fatalf("%s add-ons after refusals, want none", n)
	}
	r := do("POST", "/api/components/demo/app/addons/", `{`+name+`,"configuration":{}}`)
	wantResponse(t, "create with defaults", r, 201, "")
	created := servertest.Decode(t, r.Body)
	config := servertest.Obj(t, created["configuration"])
	if config["mode"] != "suggest" || config["q"] != "state:<translated" || config["auto_source"] != "others" ||
		config["component"] != "" || servertest.Num(config["threshold"]) != "80" {
		t.Errorf("defaults = %v, want suggest, state:<translated, others, no component, 80", config)
	}
	if engines, ok := config["engines"].([]any); !ok || len(engines) != 0 {
		t.Errorf("engines = %#v, want []", config["engines"])
	}
	path := strings.TrimPrefix(created["url"].(string), e.srv.URL)
	r = do("PATCH", path, `{"configuration":{"mode":"fuzzy","filter_type":"nottranslated","component":"demo/web","threshold":"90"}}`)
	wantResponse(t, "patch", r, 200, "")
	config = servertest.Obj(t, servertest.Decode(t, r.Body)["configuration"])
	if config["mode"] != "fuzzy" || config["q"] != "state:empty" || config["component"] != "demo/web" ||
		servertest.Num(config["threshold"]) != "90" {
		t.Errorf("patched = %v, want fuzzy, state:empty (filter_type nottranslated), demo/web, 90", config)
	}
	wantResponse(t, "patch wrong type", do("PATCH", path, `{"configuration":{"threshold":[90]}}`), 400, "")
	got := servertest.Obj(t, servertest.GetObjectAs(t, created["url"].(string), admin)["configuration"])
	if got["mode"] != "fuzzy" || servertest.Num(got["threshold"]) != "90" {
		t.Errorf("read back after a refused PATCH: %v", got)
	}
	// A project's add-on, with the fields the reference's form posts.
	r = do("POST", "/api/projects/demo/addons/", `{`+name+`,"configuration":{"mode":"translate","q":"state:empty",`+
		`"auto_source":"others","component":"","engines":[],"threshold":75}}`)
	wantResponse(t, "project add-on", r, 201, "")
	got = servertest.Decode(t, r.Body)
	if got["component"] != nil || servertest.Obj(t, got["configuration"])["mode"] != "translate" {
		t.Errorf("project add-on = %v", got)
	}
	if n := servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/addons/", admin)["count"]); n != "2" {
		t.Errorf("%s add-ons, want 2", n)
	}
}
