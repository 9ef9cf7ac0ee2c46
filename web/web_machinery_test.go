package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/apytest"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/machinery"
)

// seedSpanish adds project "tienda": components "ui" and "web" with
// English sources and Spanish translations. "web" has "Save" translated,
// which the weblate service offers to "ui"; "ui" has "The page was not
// found." untranslated, for Apertium.
func seedSpanish(tb testing.TB, db *sqlstore.DB, access int) (index.Project, map[string]int64) {
	tb.Helper()
	es, _ := langdata.Default().Get("es")
	if err := db.SeedLanguages(context.Background(), []index.Language{es}); err != nil {
		tb.Fatal(err)
	}
	p := servertest.MustProject(tb, db, index.Project{Name: "Tienda", Slug: "tienda", AccessControl: access})
	units := map[string]int64{}
	for _, comp := range []struct {
		slug   string
		source map[string]string
		es     map[string]string
	}{
		{"ui", map[string]string{"missing": "The page was not found.", "save": "Save"}, map[string]string{}},
		{"web", map[string]string{"save": "Save", "hello": "Hello world"}, map[string]string{"save": "Guardar"}},
	} {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, strings.ToUpper(comp.slug), comp.slug, "*.json", "en.json"
		c = servertest.MustComponent(tb, db, c)
		var src, tr []index.ImportUnit
		for _, key := range []string{"hello", "missing", "save"} {
			text, ok := comp.source[key]
			if !ok {
				continue
			}
			src = append(src, servertest.Unit(key, text, text, index.StateReadOnly))
			state := index.StateEmpty
			if comp.es[key] != "" {
				state = index.StateTranslated
			}
			tr = append(tr, servertest.Unit(key, text, comp.es[key], state))
		}
		srcID := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
			Filename: "en.json", Revision: "s1", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
		trID := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "es",
			Filename: "es.json", Revision: "e1,s1", Monolingual: true, SourceTranslationID: srcID, Units: tr})
		found, _, err := db.FindUnits(context.Background(), index.UnitFilter{TranslationID: trID, Page: index.Page{Number: 1, Size: 10}})
		if err != nil {
			tb.Fatal(err)
		}
		for _, u := range found {
			units[comp.slug+"/"+u.Context] = u.ID
		}
	}
	return p, units
}

// machineryEnv is a server over the tienda project with a translator
// (anna), a user without a role (nora) and the project's admin (adam).
type machineryEnv struct {
	*servertest.Env
	units map[string]int64
}

func mustMachineryEnv(t *testing.T, access int, o func(*servertest.Options)) *machineryEnv {
	t.Helper()
	var units map[string]int64
	env := servertest.New(t, servertest.WithOptions(func(opts *servertest.Options) {
		if o != nil {
			o(opts)
		}
	}))
	_, units = seedSpanish(t, env.DB, access)
	env.Auth["anna"] = servertest.MustUser(t, env.DB, "anna", false, [2]string{"Translate", "tienda"})
	env.Auth["nora"] = servertest.MustUser(t, env.DB, "nora", false)
	env.Auth["adam"] = servertest.MustUser(t, env.DB, "adam", false, [2]string{"Administration", "tienda"})
	return &machineryEnv{Env: env, units: units}
}

// suggest asks the editor's endpoint as auth.
func (e *machineryEnv) suggest(t *testing.T, service, unit, auth string) (servertest.Response, map[string]any) {
	t.Helper()
	r := servertest.DoJSON(t, http.MethodPost,
		e.URL+"/js/translate/"+service+"/"+strconv.FormatInt(e.units[unit], 10)+"/", auth, nil)
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("POST %s for %s = %d %s: not JSON", service, unit, r.Status, r.Body)
	}
	return r, body
}

func (e *machineryEnv) settings(t *testing.T, method string, body any) servertest.Response {
	t.Helper()
	return servertest.DoJSON(t, method, e.URL+"/api/projects/tienda/machinery_settings/", e.Auth["adam"], body)
}

// TestMachineryApertium: English to Spanish through a real Apertium APy,
// configured in the project's machinery settings over the API, asked
// for by the editor's endpoint; the weblate service beside it finds the
// other component's translation.
func TestMachineryApertium(t *testing.T) {
	apy := apytest.Start(t)
	// Without --machinery-allow-private a project may not point at
	// loopback, where this APy listens.
	strict := mustMachineryEnv(t, index.AccessPublic, nil)
	r := strict.settings(t, http.MethodPost, map[string]any{"service": "apertium-apy", "configuration": map[string]any{"url": apy}})
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"attr":"configuration.url"`) ||
		!strings.Contains(string(r.Body), "private or local address") {
		t.Errorf("loopback URL without allow-private = %d %s, want a 400 on configuration.url", r.Status, r.Body)
	}

	e := mustMachineryEnv(t, index.AccessPublic, func(o *servertest.Options) { o.Machinery.AllowPrivate = true })
	for _, step := range []struct {
		method string
		body   any
		status int
		want   string
	}{
		{"POST", map[string]any{"service": "apertium-apy", "configuration": map[string]any{"url": apy}}, 201,
			`{"message":"Service installed: Apertium APy"}`},
		{"POST", map[string]any{"service": "apertium-apy", "configuration": map[string]any{"url": apy}}, 400,
			`{"type":"validation_error","errors":[{"code":"invalid","detail":"Service already exists","attr":"service"}]}`},
		{"POST", map[string]any{"service": "weblate"}, 201, `{"message":"Service installed: Weblate"}`},
		{"POST", map[string]any{"configuration": map[string]any{}}, 400,
			`{"type":"validation_error","errors":[{"code":"required","detail":"This field is required.","attr":"service"}]}`},
		{"PATCH", map[string]any{"service": "deepl", "configuration": map[string]any{"key": "k"}}, 200,
			`{"message":"Service updated: DeepL"}`},
		{"PATCH", map[string]any{"service": "deepl", "configuration": map[string]any{}}, 200,
			`{"message":"Service removed: DeepL"}`},
	} {
		if r := e.settings(t, step.method, step.body); r.Status != step.status || string(r.Body) != step.want {
			t.Errorf("%s %v = %d %s, want %d %s", step.method, step.body, r.Status, r.Body, step.status, step.want)
		}
	}
	got := servertest.GetObjectAs(t, e.URL+"/api/projects/tienda/machinery_settings/", e.Auth["adam"])
	if fmt.Sprint(got) != fmt.Sprintf("map[apertium-apy:map[url:%s] weblate:map[]]", apy) {
		t.Errorf("GET settings = %v", got)
	}
	// A translator may use the services, not read their settings.
	if r := servertest.DoJSON(t, "GET", e.URL+"/api/projects/tienda/machinery_settings/", e.Auth["anna"], nil); r.Status != 403 ||
		!strings.Contains(string(r.Body), "Can not retrieve/edit machinery configuration") {
		t.Errorf("translator GET settings = %d %s", r.Status, r.Body)
	}

	r, body := e.suggest(t, "apertium-apy", "ui/missing", e.Auth["anna"])
	want := `map[lang:es responseDetails: responseStatus:200 service:Apertium APy translations:[map[origin:<nil> plural_form:0 quality:88 service:Apertium APy show_quality:false source:The page was not found. text:La página no fue encontrada.]]]`
	if r.Status != 200 || fmt.Sprint(withoutDir(body)) != want {
		t.Errorf("apertium = %d %v\nwant %s", r.Status, withoutDir(body), want)
	}
	r, body = e.suggest(t, "weblate", "ui/save", e.Auth["anna"])
	want = `map[lang:es responseDetails: responseStatus:200 service:Weblate translations:[map[origin:WEB plural_form:0 quality:100 service:Weblate show_quality:true source:Save text:Guardar]]]`
	if r.Status != 200 || fmt.Sprint(withoutDir(body)) != want {
		t.Errorf("weblate = %d %v\nwant %s", r.Status, withoutDir(body), want)
	}
	// A service the project lacks answers as the reference does; one
	// that does not exist is a 404.
	if _, body := e.suggest(t, "deepl", "ui/save", e.Auth["anna"]); body["responseStatus"] != 500.0 ||
		body["responseDetails"] != "Service is currently not available." {
		t.Errorf("unconfigured = %v", body)
	}
	if r, body := e.suggest(t, "nope", "ui/save", e.Auth["anna"]); r.Status != 404 || body["responseDetails"] != "Invalid service specified" {
		t.Errorf("unknown service = %d %v", r.Status, body)
	}
	// machinery.view: the translate roles have it, nobody else.
	if r, _ := e.suggest(t, "weblate", "ui/save", e.Auth["nora"]); r.Status != 403 {
		t.Errorf("no role = %d %s", r.Status, r.Body)
	}
	if r, _ := e.suggest(t, "weblate", "ui/save", ""); r.Status != 401 {
		t.Errorf("anonymous = %d %s", r.Status, r.Body)
	}
	// A browser's session needs the page's CSRF token.
	anna := newBrowser(t, e.URL)
	mustPassword(t, e.DB, "anna", "correct horse")
	anna.signIn("anna", "correct horse")
	path := "/js/translate/weblate/" + strconv.FormatInt(e.units["ui/save"], 10) + "/"
	if r := anna.send("POST", path, nil, nil); r.Status != 403 {
		t.Errorf("session without CSRF token = %d %s", r.Status, r.Body)
	}
	page := anna.get("/translate/tienda/ui/es/")
	if r := anna.send("POST", path, http.Header{edge.CSRFHeader: {csrf(t, page.Body)}}, nil); r.Status != 200 ||
		!strings.Contains(string(r.Body), `"text":"Guardar"`) {
		t.Errorf("session with CSRF token = %d %s", r.Status, r.Body)
	}
}

// withoutDir drops the language's direction, which the language table
// gives.
func withoutDir(body map[string]any) map[string]any {
	delete(body, "dir")
	return body
}

// TestMachineryPrivate: a private project's unit is a 404 to whoever may
// not see it, as a missing unit, and its strings never reach another
// project's weblate service.
func TestMachineryPrivate(t *testing.T) {
	e := mustMachineryEnv(t, index.AccessPrivate, nil)
	stranger := servertest.MustUser(t, e.DB, "stranger", false)
	missing := servertest.DoJSON(t, "POST", e.URL+"/js/translate/weblate/999999/", stranger, nil)
	r, _ := e.suggest(t, "weblate", "ui/save", stranger)
	if r.Status != 404 || string(r.Body) != string(missing.Body) {
		t.Errorf("stranger = %d %s, want the missing unit's %d %s", r.Status, r.Body, missing.Status, missing.Body)
	}
}

// TestMachinerySiteWide: the setup file's services may name loopback
// without --machinery-allow-private and serve every project; a hanging
// engine answers within its timeout, naming itself; the per-user limit
// stops engine calls with a 429.
func TestMachinerySiteWide(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/languages" {
			fmt.Fprint(w, `[{"code":"en","targets":["es"]}]`)
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	e := mustMachineryEnv(t, index.AccessPublic, func(o *servertest.Options) {
		o.Machinery = machinery.Options{Timeout: 300 * time.Millisecond,
			Site: map[string]machinery.Config{"libretranslate": {"url": hang.URL}, "weblate": {}}}
		o.MachineryRateLimit = edge.RateLimit{Requests: 3, Period: time.Hour}
	})
	start := time.Now()
	r, body := e.suggest(t, "libretranslate", "ui/save", e.Auth["anna"])
	if took := time.Since(start); r.Status != 200 || body["responseStatus"] != 500.0 ||
		body["responseDetails"] != "LibreTranslate: no answer within 300ms" || took > 2*time.Second {
		t.Errorf("hanging engine = %d %v after %v", r.Status, body, took)
	}
	for i := 0; i < 2; i++ {
		if r, body := e.suggest(t, "weblate", "ui/save", e.Auth["anna"]); r.Status != 200 || body["responseStatus"] != 200.0 {
			t.Errorf("call %d = %d %v", i+2, r.Status, body)
		}
	}
	if r, body := e.suggest(t, "weblate", "ui/save", e.Auth["anna"]); r.Status != 429 || r.Header.Get("Retry-After") == "" ||
		body["responseStatus"] != 429.0 {
		t.Errorf("past the limit = %d %v", r.Status, body)
	}
	// The editor shows a box per service to who may use them, each
	// asking the endpoint; not to others.
	page := func(auth string) string {
		r := servertest.DoJSON(t, "GET", e.URL+"/translate/tienda/ui/es/?q=key:save", auth, nil)
		if r.Status != 200 {
			t.Fatalf("editor = %d", r.Status)
		}
		return string(r.Body)
	}
	box := `data-url="` + e.URL + "/js/translate/weblate/" + strconv.FormatInt(e.units["ui/save"], 10) + `/"`
	if p := page(e.Auth["anna"]); !strings.Contains(p, "Automatic suggestions") || !strings.Contains(p, box) ||
		!strings.Contains(p, "<h3>LibreTranslate</h3>") || strings.Index(p, "<h3>Weblate</h3>") > strings.Index(p, "<h3>LibreTranslate</h3>") {
		t.Errorf("translator's editor lacks the machinery boxes, weblate first:\n%s", p)
	}
	if p := page(e.Auth["nora"]); strings.Contains(p, "Automatic suggestions") {
		t.Errorf("no role: the editor shows machinery")
	}
	// Another user has a window of their own.
	if r, _ := e.suggest(t, "weblate", "ui/save", e.Auth["adam"]); r.Status != 200 {
		t.Errorf("adam = %d %s", r.Status, r.Body)
	}
}

// TestMachineryMemory: the "weblate-translation-memory" service answers
// from the memory (the project's translated strings): the other
// component's "Save" is a 100 match for ui's "Save", a near source
// ("Save!") a fuzzy one, and a string is never its own suggestion.
func TestMachineryMemory(t *testing.T) {
	e := mustMachineryEnv(t, index.AccessPublic, nil)
	if r := e.settings(t, "POST", map[string]any{"service": "weblate-translation-memory"}); r.Status != 201 ||
		string(r.Body) != `{"message":"Service installed: Weblate Translation Memory"}` {
		t.Fatalf("install the memory = %d %s", r.Status, r.Body)
	}
	r, body := e.suggest(t, "weblate-translation-memory", "ui/save", e.Auth["anna"])
	want := `map[lang:es responseDetails: responseStatus:200 service:Weblate Translation Memory translations:[map[origin:Project: tienda/web plural_form:0 quality:100 service:Weblate Translation Memory show_quality:true source:Save text:Guardar]]]`
	if r.Status != 200 || fmt.Sprint(withoutDir(body)) != want {
		t.Errorf("memory for ui/save = %d %v\nwant %s", r.Status, withoutDir(body), want)
	}
	// web's own "Save" is translated: the memory offers nothing for it
	// but itself, which it leaves out.
	if r, body := e.suggest(t, "weblate-translation-memory", "web/save", e.Auth["anna"]); r.Status != 200 ||
		fmt.Sprint(body["translations"]) != "[]" {
		t.Errorf("memory for web/save = %d %v, want no translations", r.Status, body)
	}

	// The personal scope: anna's own translation in another project that
	// shares nothing answers her, named as the reference names it, and
	// not adam.
	ctx := context.Background()
	anna, err := e.DB.FindUser(ctx, "anna")
	if err != nil {
		t.Fatal(err)
	}
	servertest.MustPersonalTranslation(t, e.DB, "otra", "es", "nf", "The page was not found.", "No se encontró la página.", anna)
	r, body = e.suggest(t, "weblate-translation-memory", "ui/missing", e.Auth["anna"])
	if list, _ := body["translations"].([]any); r.Status != 200 || len(list) != 1 ||
		list[0].(map[string]any)["origin"] != "Personal: otra/app" || list[0].(map[string]any)["text"] != "No se encontró la página." {
		t.Errorf("anna's personal memory for ui/missing = %d %v", r.Status, body)
	}
	if r, body := e.suggest(t, "weblate-translation-memory", "ui/missing", e.Auth["adam"]); r.Status != 200 ||
		fmt.Sprint(body["translations"]) != "[]" {
		t.Errorf("adam found anna's personal memory: %d %v", r.Status, body)
	}
}
