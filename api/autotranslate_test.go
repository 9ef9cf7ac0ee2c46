package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/autotranslate"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/apytest"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/machinery"
)

// withAutoTranslate runs automatic translations in the test server over
// its index and machinery, waiting wait for them (0: the default).
func withAutoTranslate(tb testing.TB, wait time.Duration) servertest.Option {
	return servertest.WithOptions(func(o *servertest.Options) {
		o.AutoTranslateWait = wait
		o.AutoTranslate = func(store servertest.Store, b *machinery.Broker) api.AutoTranslator {
			r := autotranslate.New(store.(autotranslate.Store), autotranslate.Options{Machinery: b, BatchSize: 2})
			tb.Cleanup(r.Close)
			return r
		}
	})
}

// autoEnv is the demo with a second component "web" whose German file
// translates two of the app's untranslated sources, and users: admin, a
// translator, and "auto" who translates and may run automatic
// translations but not review.
func autoEnv(tb testing.TB, wait time.Duration, opts ...servertest.Option) *servertest.Env {
	tb.Helper()
	opts = append(opts, servertest.WithDemo(), servertest.WithUser("admin", true),
		servertest.WithUser("translator", false, [2]string{"Translate", "demo"}),
		servertest.WithUser("auto", false, [2]string{"Translate", "demo"}, [2]string{"Automatic translation", "demo"}),
		withAutoTranslate(tb, wait))
	e := servertest.New(tb, opts...)
	addDemoComponent(tb, e, "web", [][3]string{{"save", "Save all files", "Alle Dateien speichern"},
		{"quit", "Quit", "Beenden"}, {"about", "About this app", ""}})
	return e
}

// addDemoComponent adds a monolingual component to the demo project with
// English sources and German targets (key, source, target; "" empty).
func addDemoComponent(tb testing.TB, e *servertest.Env, slug string, strs [][3]string) {
	tb.Helper()
	app, err := e.DB.FindComponent(context.Background(), "demo", "app")
	if err != nil {
		tb.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template = app.ProjectID, slug, slug, slug+"/en.json"
	c.Repo, c.Branch, c.Filemask = "file:///srv/repos/"+slug+".git", "main", slug+"/*.json"
	c = servertest.MustComponent(tb, e.DB, c)
	var src, de []index.ImportUnit
	for _, s := range strs {
		state := index.StateTranslated
		if s[2] == "" {
			state = index.StateEmpty
		}
		src = append(src, servertest.Unit(s[0], s[1], s[1], index.StateReadOnly))
		de = append(de, servertest.Unit(s[0], s[1], s[2], state))
	}
	id := servertest.MustImport(tb, e.DB, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: slug + "/en.json", Revision: "1", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
	servertest.MustImport(tb, e.DB, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
		Filename: slug + "/de.json", Revision: "2", Monolingual: true, SourceTranslationID: id, Units: de})
}

const autoPath = "/api/translations/demo/app/de/autotranslate/"

// appUnit returns the demo app's German unit with the source text.
func appUnit(tb testing.TB, e *servertest.Env, source string) map[string]any {
	tb.Helper()
	r := servertest.DoJSON(tb, "GET", e.URL+"/api/translations/demo/app/de/units/?q=source:%22"+
		strings.ReplaceAll(source, " ", "%20")+"%22", e.Auth["admin"], nil)
	units := servertest.Results(tb, servertest.Decode(tb, r.Body))
	for _, u := range units {
		var src []string
		servertest.Strs(u["source"], &src)
		if len(src) == 1 && src[0] == source {
			return u
		}
	}
	tb.Fatalf("no unit %q in %s", source, r.Body)
	return nil
}

// TestAutoTranslateOthers: the reference's call and answer, copying the
// other component's translations as change 6 with
// automatically_translated, counted once; a second run updates nothing.
func TestAutoTranslateOthers(t *testing.T) {
	e := autoEnv(t, 0)
	r := servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["admin"], map[string]any{"mode": "translate",
		"filter_type": "todo", "auto_source": "others", "component": "", "engines": []string{}, "threshold": "80"})
	if r.Status != http.StatusOK || string(r.Body) != `{"details":"Automatic translation completed, 2 strings were updated."}` {
		t.Fatalf("autotranslate = %d %s", r.Status, r.Body)
	}
	u := appUnit(t, e, "Save all files")
	var target []string
	servertest.Strs(u["target"], &target)
	if len(target) != 1 || target[0] != "Alle Dateien speichern" || servertest.Num(u["state"]) != "20" ||
		u["automatically_translated"] != true {
		t.Errorf("unit after = %v", u)
	}
	if u := appUnit(t, e, "About this app"); u["automatically_translated"] != false || servertest.Num(u["state"]) != "0" {
		t.Errorf("untouched unit = %v", u)
	}
	r = servertest.DoJSON(t, "GET", e.URL+"/api/translations/demo/app/de/changes/?action=6", e.Auth["admin"], nil)
	if n := servertest.Num(servertest.Decode(t, r.Body)["count"]); n != "2" {
		t.Errorf("changes 6: %s", r.Body)
	}
	r = servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["admin"], map[string]any{"mode": "translate"})
	if r.Status != http.StatusOK || string(r.Body) != `{"details":"Automatic translation completed, no strings were updated."}` {
		t.Errorf("second run = %d %s", r.Status, r.Body)
	}
	// Suggest mode on a restricted component: the app's own strings are
	// no source for themselves, and the glossary has none of these.
	r = servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["admin"], map[string]any{"mode": "suggest",
		"component": "demo/glossary"})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "no strings were updated") {
		t.Errorf("suggest from the glossary = %d %s", r.Status, r.Body)
	}
	indextest.CheckCounts(t, e.DB)
}

// TestAutoTranslateRights: translation.auto is needed (the reference's
// message); approved is a choice for reviewers only.
func TestAutoTranslateRights(t *testing.T) {
	e := autoEnv(t, 0)
	r := servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["translator"], map[string]any{"mode": "suggest"})
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "Can not auto translate") {
		t.Errorf("translator = %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", e.URL+autoPath, "", map[string]any{"mode": "suggest"})
	if r.Status != http.StatusUnauthorized {
		t.Errorf("anonymous = %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["auto"], map[string]any{"mode": "approved"})
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"attr":"mode"`) {
		t.Errorf("approved without review = %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["auto"], map[string]any{"mode": "fuzzy"})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "2 strings were updated") {
		t.Errorf("fuzzy = %d %s", r.Status, r.Body)
	}
	if u := appUnit(t, e, "Quit"); servertest.Num(u["state"]) != "10" {
		t.Errorf("fuzzy mode: state %v", u["state"])
	}
}

// TestAutoTranslateBadInput: each bad field is a 400 naming it, and
// nothing runs.
func TestAutoTranslateBadInput(t *testing.T) {
	e := autoEnv(t, 0)
	for _, c := range []struct {
		body map[string]any
		attr string
	}{
		{map[string]any{}, "mode"},
		{map[string]any{"mode": "everything"}, "mode"},
		{map[string]any{"mode": "suggest", "threshold": 0}, "threshold"},
		{map[string]any{"mode": "suggest", "threshold": "high"}, "threshold"},
		{map[string]any{"mode": "suggest", "q": "state:<<"}, "q"},
		{map[string]any{"mode": "suggest", "filter_type": "bogus"}, "filter_type"},
		{map[string]any{"mode": "suggest", "auto_source": "elsewhere"}, "auto_source"},
		{map[string]any{"mode": "suggest", "auto_source": "mt"}, "engines"},
		{map[string]any{"mode": "suggest", "auto_source": "mt", "engines": []string{"deepl"}}, "engines"},
		{map[string]any{"mode": "suggest", "auto_source": "mt", "engines": "weblate"}, "engines"},
		{map[string]any{"mode": "suggest", "component": "nope"}, "component"},
		{map[string]any{"mode": "suggest", "component": "app"}, "component"},
	} {
		r := servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["admin"], c.body)
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"attr":"`+c.attr+`"`) {
			t.Errorf("%v = %d %s, want a 400 on %s", c.body, r.Status, r.Body, c.attr)
		}
	}
	jobs, err := e.DB.AutoTranslateJobs(context.Background(), false)
	if err != nil || len(jobs) != 0 {
		t.Errorf("jobs after bad requests: %v, %v", jobs, err)
	}
}

// TestAutoTranslateTask: a run longer than the API waits answers 202
// with its task, whose progress and result /api/tasks/ shows.
func TestAutoTranslateTask(t *testing.T) {
	e := autoEnv(t, time.Nanosecond)
	r := servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["admin"], map[string]any{"mode": "translate"})
	if !strings.Contains(string(r.Body), `"task_url":"`+e.URL+"/api/tasks/") {
		t.Errorf("long run = %d %s", r.Status, r.Body)
	}
	task := waitAutoTask(t, e, r, e.Auth["admin"])
	if task["completed"] != true || servertest.Num(task["progress"]) != "100" ||
		fmt.Sprint(task["result"]) != "map[total:4 updated:2]" {
		t.Errorf("task = %v", task)
	}
	// A task of an unknown id is 404.
	if r := servertest.DoJSON(t, "GET", e.URL+"/api/tasks/00000000-0000-4000-8000-000000000000/", e.Auth["admin"], nil); r.Status != http.StatusNotFound {
		t.Errorf("unknown task = %d", r.Status)
	}
	list := servertest.GetObjectAs(t, e.URL+"/api/tasks/", e.Auth["admin"])
	if servertest.Num(list["count"]) != "1" {
		t.Errorf("task list = %v", list)
	}
	// A second run lists first: newest first, whatever the ids.
	var tasks []string
	for range 2 {
		r := servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["admin"], map[string]any{"mode": "translate"})
		waitAutoTask(t, e, r, e.Auth["admin"])
		var accepted struct {
			TaskURL string `json:"task_url"`
		}
		if err := json.Unmarshal(r.Body, &accepted); err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, accepted.TaskURL)
	}
	list = servertest.GetObjectAs(t, e.URL+"/api/tasks/", e.Auth["admin"])
	results, _ := list["results"].([]any)
	var urls []string
	for _, r := range results {
		urls = append(urls, fmt.Sprint(r.(map[string]any)["url"]))
	}
	if len(urls) != 3 || urls[0] != tasks[1] || urls[1] != tasks[0] {
		t.Errorf("task list = %v; want %s, then %s, then the first run's", urls, tasks[1], tasks[0])
	}
}

// TestAutoTranslateApertium: machine translation through the project's
// real Apertium APy (English→Spanish), as the reference's mt source.
func TestAutoTranslateApertium(t *testing.T) {
	apy := apytest.Start(t)
	e := autoEnv(t, 0, servertest.WithAllLanguages(),
		servertest.WithOptions(func(o *servertest.Options) { o.Machinery.AllowPrivate = true }))
	ctx := context.Background()
	app, err := e.DB.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	src, err := e.DB.FindTranslation(ctx, "demo", "app", "en")
	if err != nil {
		t.Fatal(err)
	}
	servertest.MustImport(t, e.DB, index.TranslationImport{ComponentID: app.ID, LanguageCode: "es",
		Filename: "locales/es.json", Revision: "e1", Monolingual: true, SourceTranslationID: src.ID,
		Units: servertest.AppUnits(false)[3:]})
	r := servertest.DoJSON(t, "POST", e.URL+"/api/projects/demo/machinery_settings/", e.Auth["admin"],
		map[string]any{"service": "apertium-apy", "configuration": map[string]any{"url": apy}})
	if r.Status != http.StatusCreated {
		t.Fatalf("install APy: %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", e.URL+"/api/translations/demo/app/es/autotranslate/", e.Auth["admin"],
		map[string]any{"mode": "suggest", "auto_source": "mt", "engines": []string{"apertium-apy"}, "threshold": 80})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "strings were updated") ||
		strings.Contains(string(r.Body), "no strings") {
		t.Fatalf("mt = %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "GET", e.URL+"/api/translations/demo/app/es/units/?q=has:suggestion", e.Auth["admin"], nil)
	if n := servertest.Num(servertest.Decode(t, r.Body)["count"]); n != "3" {
		t.Errorf("units with a suggestion: %s", r.Body)
	}
	r = servertest.DoJSON(t, "GET", e.URL+"/api/suggestions/", e.Auth["admin"], nil)
	// APy's Spanish for the app's "About this app".
	if !strings.Contains(string(r.Body), `"target":["Sobre esta aplicación"]`) {
		t.Errorf("suggestions: %s", r.Body)
	}
}

// TestPrivateAutoTranslate: a private project's translation is a 404 to
// whoever may not see it, as a missing one; its strings never reach
// another project's automatic translation; its tasks are invisible to
// those who may not see it.
func TestPrivateAutoTranslate(t *testing.T) {
	e := autoEnv(t, time.Nanosecond, servertest.WithUser("stranger", false))
	seedPrivate(t, e.DB, "secret")
	// A demo string with the private project's source text.
	addDemoComponent(t, e, "launch", [][3]string{{"code", "Launch code", ""}})

	body := map[string]any{"mode": "translate"}
	missing := servertest.DoJSON(t, "POST", e.URL+"/api/translations/nothing/vault/de/autotranslate/", e.Auth["stranger"], body)
	r := servertest.DoJSON(t, "POST", e.URL+"/api/translations/secret/vault/de/autotranslate/", e.Auth["stranger"], body)
	if r.Status != http.StatusNotFound || string(r.Body) != string(missing.Body) {
		t.Errorf("stranger = %d %s, want the missing translation's %s", r.Status, r.Body, missing.Body)
	}
	r = servertest.DoJSON(t, "POST", e.URL+"/api/translations/demo/launch/de/autotranslate/", e.Auth["admin"], body)
	task := waitAutoTask(t, e, r, e.Auth["admin"])
	if fmt.Sprint(task["result"]) != "map[total:1 updated:0]" {
		t.Errorf("demo from others = %v: the private project's string leaked", task)
	}
	// A task of the private project.
	r = servertest.DoJSON(t, "POST", e.URL+"/api/translations/secret/vault/de/autotranslate/", e.Auth["admin"], body)
	secretTask := waitAutoTask(t, e, r, e.Auth["admin"])
	if secretTask["completed"] != true {
		t.Fatalf("secret task = %v", secretTask)
	}
	var url string
	_ = json.Unmarshal(r.Body, &struct {
		TaskURL *string `json:"task_url"`
	}{&url})
	if r := servertest.DoJSON(t, "GET", url, e.Auth["stranger"], nil); r.Status != http.StatusNotFound {
		t.Errorf("stranger reads the private task: %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "DELETE", url, e.Auth["stranger"], nil); r.Status != http.StatusNotFound {
		t.Errorf("stranger cancels the private task: %d %s", r.Status, r.Body)
	}
	for who, want := range map[string]string{"stranger": "1", "admin": "2"} {
		if list := servertest.GetObjectAs(t, e.URL+"/api/tasks/", e.Auth[who]); servertest.Num(list["count"]) != want {
			t.Errorf("%s: task list = %v, want %s tasks", who, list, want)
		}
	}
}

// waitAutoTask reads the task of a 202 answer until it completes.
func waitAutoTask(tb testing.TB, e *servertest.Env, r servertest.Response, auth string) map[string]any {
	tb.Helper()
	var accepted struct {
		TaskURL string `json:"task_url"`
	}
	if err := json.Unmarshal(r.Body, &accepted); err != nil || r.Status != http.StatusAccepted {
		tb.Fatalf("autotranslate = %d %s, want 202 with a task", r.Status, r.Body)
	}
	var task map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		task = servertest.GetObjectAs(tb, accepted.TaskURL, auth)
		if task["completed"] == true || time.Now().After(deadline) {
			return task
		}
	}
}
