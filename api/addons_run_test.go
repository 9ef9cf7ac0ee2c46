package api_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// addonClient is the demo with the real sync service, a superuser's
// Authorization header and a way to send JSON bodies as them.
func addonClient(t *testing.T) (*crudEnv, string, func(method, path, body string) servertest.Response) {
	t.Helper()
	e := mustCrudEnv(t)
	admin := servertest.MustUser(t, e.db, "admin", true)
	hdr := http.Header{"Authorization": {admin}, "Content-Type": {"application/json"}}
	return e, admin, func(method, path, body string) servertest.Response {
		return servertest.DoBody(t, method, e.srv.URL+path, hdr, strings.NewReader(body))
	}
}

// TestLanguagesAddonThroughAPI: weblate.consistency.languages installs
// with no configuration (whatever is posted as one is ignored, as the
// reference's empty form); installing it gives every component the
// project's languages, and a translation added through the API later
// reaches the other components (the reference's post_add).
func TestLanguagesAddonThroughAPI(t *testing.T) {
	e, admin, do := addonClient(t)
	languages := func(comp string) []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := e.sync.WaitAddons(ctx); err != nil {
			t.Fatal(err)
		}
		list := servertest.GetObjectAs(t, e.srv.URL+"/api/components/demo/"+comp+"/translations/", admin)
		var out []string
		for _, r := range list["results"].([]any) {
			out = append(out, servertest.Obj(t, r)["language_code"].(string))
		}
		slices.Sort(out)
		return out
	}
	wantResponse(t, "add cs", do("POST", "/api/components/demo/app/translations/", `{"language_code":"cs"}`), 201, "")
	if got := languages("glossary"); !slices.Equal(got, []string{"de", "en"}) {
		t.Fatalf("glossary without the add-on: %v", got)
	}
	wantResponse(t, "configuration not an object", do("POST", "/api/projects/demo/addons/",
		`{"name":"weblate.consistency.languages","configuration":[]}`), 400, "")
	r := do("POST", "/api/projects/demo/addons/", `{"name":"weblate.consistency.languages","configuration":{"ignored":1}}`)
	wantResponse(t, "install", r, 201, "")
	if got := servertest.Decode(t, r.Body); got["name"] != "weblate.consistency.languages" ||
		len(servertest.Obj(t, got["configuration"])) != 0 {
		t.Errorf("installed = %v, want no configuration", got)
	}
	if got := languages("glossary"); !slices.Equal(got, []string{"cs", "de", "en"}) {
		t.Errorf("glossary after the install: %v, want cs added", got)
	}
	wantResponse(t, "add fr", do("POST", "/api/components/demo/glossary/translations/", `{"language_code":"fr"}`), 201, "")
	if got := languages("app"); !slices.Equal(got, []string{"cs", "de", "en", "fr"}) {
		t.Errorf("app after glossary's fr: %v", got)
	}
}

// TestCleanupAddonsThroughAPI: the cleanup add-ons install with no
// configuration on a component with a template; one without is refused
// with a 400 on name, nothing installed.
func TestCleanupAddonsThroughAPI(t *testing.T) {
	e, admin, do := addonClient(t)
	for _, name := range []string{"weblate.cleanup.generic", "weblate.cleanup.blank"} {
		wantResponse(t, name+" on a glossary", do("POST", "/api/components/demo/glossary/addons/",
			`{"name":"`+name+`","configuration":{}}`), 400, invalid([3]string{"name", "invalid",
			"This add-on can not be installed on this component: it needs a monolingual base file (template)."}))
		r := do("POST", "/api/components/demo/app/addons/", `{"name":"`+name+`","configuration":{}}`)
		wantResponse(t, name, r, 201, "")
		if got := servertest.Decode(t, r.Body); got["name"] != name || len(servertest.Obj(t, got["configuration"])) != 0 {
			t.Errorf("%s = %v", name, got)
		}
	}
	if n := servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/addons/", admin)["count"]); n != "2" {
		t.Errorf("%s add-ons, want the 2 on app", n)
	}
}

// TestJSONCustomizeAddonThroughAPI: weblate.json.customize installs with
// the reference's fields and initial values (sort_keys false, indent 4,
// style spaces); wrong types and values are 400s on
// configuration.<field>, nothing installed; PATCH replaces the whole
// configuration.
func TestJSONCustomizeAddonThroughAPI(t *testing.T) {
	e, admin, do := addonClient(t)
	const name = `"name":"weblate.json.customize"`
	for _, tc := range []struct{ name, body, want string }{
		{"indent not a number", `{` + name + `,"configuration":{"indent":"wide"}}`,
			invalid([3]string{"configuration.indent", "invalid", "A valid integer is required."})},
		{"indent negative", `{` + name + `,"configuration":{"indent":-1}}`,
			invalid([3]string{"configuration.indent", "min_value", "Ensure this value is greater than or equal to 0."})},
		{"indent huge", `{` + name + `,"configuration":{"indent":1000000000}}`,
			invalid([3]string{"configuration.indent", "max_value", "Ensure this value is less than or equal to 16."})},
		{"style not a choice", `{` + name + `,"configuration":{"style":"dots"}}`,
			invalid([3]string{"configuration.style", "invalid_choice", `"dots" is not a valid choice.`})},
		{"sort_keys not a bool", `{` + name + `,"configuration":{"sort_keys":"maybe"}}`,
			invalid([3]string{"configuration.sort_keys", "invalid", "Must be a valid boolean."})},
	} {
		wantResponse(t, tc.name, do("POST", "/api/components/demo/app/addons/", tc.body), 400, tc.want)
	}
	if n := servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/addons/", admin)["count"]); n != "0" {
		t.Fatalf("%s add-ons after refusals, want none", n)
	}
	r := do("POST", "/api/components/demo/app/addons/", `{`+name+`,"configuration":{}}`)
	wantResponse(t, "create", r, 201, "")
	created := servertest.Decode(t, r.Body)
	config := servertest.Obj(t, created["configuration"])
	if config["sort_keys"] != false || servertest.Num(config["indent"]) != "4" || config["style"] != "spaces" {
		t.Errorf("defaults = %v", config)
	}
	path := strings.TrimPrefix(created["url"].(string), e.srv.URL)
	r = do("PATCH", path, `{"configuration":{"sort_keys":true,"indent":"0","style":"tabs"}}`)
	wantResponse(t, "patch", r, 200, "")
	config = servertest.Obj(t, servertest.GetObjectAs(t, created["url"].(string), admin)["configuration"])
	if config["sort_keys"] != true || servertest.Num(config["indent"]) != "0" || config["style"] != "tabs" {
		t.Errorf("after PATCH = %v", config)
	}
}

// TestPseudolocaleAddonThroughAPI: weblate.generate.pseudolocale takes
// the reference's fields; source and target must be translations of the
// component (the target not its source translation), the multiplier a
// number within bounds, the add-on a component's: 400s naming the field,
// nothing installed. Installed, it fills the target in the background.
func TestPseudolocaleAddonThroughAPI(t *testing.T) {
	e, admin, do := addonClient(t)
	id := func(lang string) string {
		return servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/translations/demo/app/"+lang+"/", admin)["id"])
	}
	en, de := id("en"), id("de")
	const name = `"name":"weblate.generate.pseudolocale"`
	for _, tc := range []struct{ name, path, body, want string }{
		{"on a project", "/api/projects/demo/addons/", `{` + name + `,"configuration":{"source":` + en + `,"target":` + de + `}}`,
			invalid([3]string{"name", "invalid", "This add-on can only be installed on a component."})},
		{"no source", "/api/components/demo/app/addons/", `{` + name + `,"configuration":{"target":` + de + `}}`,
			invalid([3]string{"configuration.source", "required", "This field is required."})},
		{"source of no component's", "/api/components/demo/app/addons/", `{` + name + `,"configuration":{"source":999999,"target":` + de + `}}`,
			invalid([3]string{"configuration.source", "invalid_choice", "Select a valid choice. 999999 is not one of the available choices."})},
		{"target the source", "/api/components/demo/app/addons/", `{` + name + `,"configuration":{"source":` + en + `,"target":` + en + `}}`,
			invalid([3]string{"configuration.target", "invalid_choice", "Select a valid choice. " + en + " is not one of the available choices."})},
		{"multiplier not a number", "/api/components/demo/app/addons/", `{` + name + `,"configuration":{"source":` + en + `,"target":` + de + `,"var_multiplier":"lots"}}`,
			invalid([3]string{"configuration.var_multiplier", "invalid", "A valid number is required."})},
		{"multiplier huge", "/api/components/demo/app/addons/", `{` + name + `,"configuration":{"source":` + en + `,"target":` + de + `,"var_multiplier":1e9}}`,
			invalid([3]string{"configuration.var_multiplier", "max_value", "Ensure this value is less than or equal to 10."})},
		{"prefix not a string", "/api/components/demo/app/addons/", `{` + name + `,"configuration":{"source":` + en + `,"target":` + de + `,"prefix":["["]}}`,
			invalid([3]string{"configuration.prefix", "invalid", "Not a valid string."})},
		{"include_readonly not a bool", "/api/components/demo/app/addons/", `{` + name + `,"configuration":{"source":` + en + `,"target":` + de + `,"include_readonly":"all"}}`,
			invalid([3]string{"configuration.include_readonly", "invalid", "Must be a valid boolean."})},
	} {
		wantResponse(t, tc.name, do("POST", tc.path, tc.body), 400, tc.want)
	}
	if n := servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/addons/", admin)["count"]); n != "0" {
		t.Fatalf("%s add-ons after refusals, want none", n)
	}
	r := do("POST", "/api/components/demo/app/addons/", `{`+name+`,"configuration":{"source":`+en+`,"target":`+de+`,"prefix":"[","suffix":"]"}}`)
	wantResponse(t, "install", r, 201, "")
	config := servertest.Obj(t, servertest.Decode(t, r.Body)["configuration"])
	if servertest.Num(config["source"]) != en || config["prefix"] != "[" || servertest.Num(config["var_multiplier"]) != "0.1" ||
		config["include_readonly"] != false || config["var_prefix"] != "" {
		t.Errorf("configuration = %v", config)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.sync.WaitAddons(ctx); err != nil {
		t.Fatal(err)
	}
	units := servertest.GetObjectAs(t, e.srv.URL+"/api/translations/demo/app/de/units/", admin)["results"].([]any)
	filled := 0
	for _, u := range units {
		unit := servertest.Obj(t, u)
		if servertest.Num(unit["state"]) == "30" {
			continue // approved: the add-on leaves it, as the reference's
		}
		filled++
		target := unit["target"].([]any)
		if s, _ := target[0].(string); !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
			t.Errorf("de unit after the install: %v", target)
		}
	}
	if filled == 0 {
		t.Error("no de unit was filled")
	}
}

// TestTriggerAddon: POST /api/addons/<id>/trigger/ runs the language
// consistency add-on as a task (202 with its task_url), whose result
// counts the translations it added; an add-on that acts only on its
// events is a 400, an unknown or malformed id a 404.
func TestTriggerAddon(t *testing.T) {
	e, admin, do := addonClient(t)
	r := do("POST", "/api/projects/demo/addons/", `{"name":"weblate.consistency.languages","configuration":{}}`)
	wantResponse(t, "install", r, 201, "")
	addon := strings.TrimPrefix(servertest.Decode(t, r.Body)["url"].(string), e.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.sync.WaitAddons(ctx); err != nil {
		t.Fatal(err)
	}
	// A translation the add-on did not hear of (added behind the API).
	app, err := e.db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.CreateTranslation(ctx, app.ID, "it", "locales/it.json", index.Actor{}); err != nil {
		t.Fatal(err)
	}
	r = do("POST", addon+"trigger/", "")
	wantResponse(t, "trigger", r, 202, "")
	taskURL, _ := servertest.Decode(t, r.Body)["task_url"].(string)
	if !strings.Contains(taskURL, "/api/tasks/") {
		t.Fatalf("trigger answer %s, want a task_url", r.Body)
	}
	var task map[string]any
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		task = servertest.GetObjectAs(t, taskURL, admin)
		if task["completed"] == true || time.Now().After(deadline) {
			break
		}
	}
	if result := servertest.Obj(t, task["result"]); task["completed"] != true || servertest.Num(result["added"]) != "1" {
		t.Errorf("task = %v, want completed with 1 added", task)
	}
	list := servertest.GetObjectAs(t, e.srv.URL+"/api/translations/demo/glossary/it/", admin)
	if list["language_code"] != "it" {
		t.Errorf("glossary's it: %v", list)
	}
	r = do("POST", "/api/components/demo/app/addons/", `{"name":"weblate.git.squash","configuration":{}}`)
	wantResponse(t, "squash", r, 201, "")
	squash := strings.TrimPrefix(servertest.Decode(t, r.Body)["url"].(string), e.srv.URL)
	wantResponse(t, "trigger squash", do("POST", squash+"trigger/", ""), 400, "")
	for _, path := range []string{"/api/addons/999999/trigger/", "/api/addons/abc/trigger/", "/api/addons/-1/trigger/"} {
		if r := do("POST", path, ""); r.Status != http.StatusNotFound {
			t.Errorf("POST %s = %d %s, want 404", path, r.Status, r.Body)
		}
	}
}

// TestDiscoveryAddonThroughAPI: weblate.discovery.discovery checks its
// match (the component and language groups) and templates; without
// confirm the answer is the preview, a 400 on configuration.confirm
// listing what it found, nothing installed or created; with confirm it
// installs and creates the components it found, linked to its own.
func TestDiscoveryAddonThroughAPI(t *testing.T) {
	e, admin, do := addonClient(t)
	r := servertest.DoJSON(t, "POST", e.srv.URL+"/api/projects/demo/components/", admin, map[string]any{
		"name": "Main", "slug": "main", "repo": appRepo(t), "filemask": "locales/*.json", "template": "locales/en.json",
		"file_format": "json", "source_language": map[string]any{"code": "en"}})
	wantResponse(t, "create main", r, 201, "")
	waitTask(t, servertest.Decode(t, r.Body)["task_url"].(string))
	const name = `"name":"weblate.discovery.discovery"`
	config := func(extra string) string {
		return `{` + name + `,"configuration":{"match":"(?P<component>[a-z]+)/(?P<language>[^/.]+)\\.json",` +
			`"file_format":"json","base_file_template":"{{ component }}/en.json"` + extra + `}}`
	}
	for _, tc := range []struct{ name, body, want string }{
		{"no match", `{` + name + `,"configuration":{"file_format":"json","confirm":true}}`,
			invalid([3]string{"configuration.match", "required", "This field is required."})},
		{"match without groups", `{` + name + `,"configuration":{"match":"[a-z]+\\.json","file_format":"json","confirm":true}}`,
			invalid([3]string{"configuration.match", "invalid", "The regular expression needs the named groups component and language."})},
		{"match not a regex", `{` + name + `,"configuration":{"match":"(?P<component>","file_format":"json","confirm":true}}`, ""},
		{"unknown format", config(`,"file_format":"word","confirm":true`),
			invalid([3]string{"configuration.file_format", "invalid_choice", `"word" is not a valid choice.`})},
		{"template with an unknown variable", config(`,"name_template":"{{ nom }}","confirm":true`),
			invalid([3]string{"configuration.name_template", "invalid", `unknown variable "nom": the match has no such group`})},
		{"confirm not a bool", config(`,"confirm":"perhaps"`),
			invalid([3]string{"configuration.confirm", "invalid", "Must be a valid boolean."})},
		{"remove not a bool", config(`,"remove":"sometimes","confirm":true`),
			invalid([3]string{"configuration.remove", "invalid", "Must be a valid boolean."})},
		{"preview", config(``), invalid([3]string{"configuration.confirm", "required",
			"Please review and confirm the matched components (2): locales (locales, locales/*.json; 3 languages; exists as app);" +
				" other (other, other/*.json; 2 languages; new)"})},
	} {
		r := do("POST", "/api/components/demo/main/addons/", tc.body)
		wantResponse(t, tc.name, r, 400, tc.want)
		if tc.want == "" && !strings.Contains(string(r.Body), `"attr":"configuration.match"`) {
			t.Errorf("%s: %s, want a 400 on configuration.match", tc.name, r.Body)
		}
	}
	wantResponse(t, "on a project", do("POST", "/api/projects/demo/addons/", config(`,"confirm":true`)), 400,
		invalid([3]string{"name", "invalid", "This add-on can only be installed on a component."}))
	if n := servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/addons/", admin)["count"]); n != "0" {
		t.Fatalf("%s add-ons after refusals, want none", n)
	}
	if r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/components/demo/other/", admin, nil); r.Status != 404 {
		t.Fatalf("the preview created other: %d", r.Status)
	}
	r = do("POST", "/api/components/demo/main/addons/", config(`,"confirm":true`))
	wantResponse(t, "install", r, 201, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.sync.WaitAddons(ctx); err != nil {
		t.Fatal(err)
	}
	other := servertest.GetObjectAs(t, e.srv.URL+"/api/components/demo/other/", admin)
	if other["repo"] != "weblate://demo/main" || other["filemask"] != "other/*.json" || other["template"] != "other/en.json" {
		t.Errorf("other = repo %v filemask %v template %v", other["repo"], other["filemask"], other["template"])
	}
}
