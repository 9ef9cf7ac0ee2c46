package api_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

var (
	taskShape     = servertest.Shape{"completed": "bool", "progress": "int", "result": "object|string|null", "log": "string"}
	taskListShape = func() servertest.Shape {
		s := servertest.Shape{"id": "string", "url": "url"}
		for k, v := range taskShape {
			s[k] = v
		}
		return s
	}()
	// withTaskURL is a component as a write that starts a task answers it.
	withTaskURL = func() servertest.Shape {
		s := servertest.Shape{}
		for k, v := range componentShape {
			s[k] = v
		}
		s["task_url"] = "url"
		return s
	}()
)

// appRepo is a repository of a monolingual JSON component with a nested
// source, two translations (cs_CZ names Czech by its default country)
// and, under other/, a second set of files for a filemask change.
func appRepo(tb testing.TB) string {
	tb.Helper()
	return mustBareRepo(tb, map[string]string{
		"locales/en.json":    `{"hello": "Hello", "menu": {"file": "File", "quit": "Quit"}}`,
		"locales/de.json":    `{"hello": "Hallo", "menu": {"file": "Datei"}}`,
		"locales/cs_CZ.json": `{"hello": "Ahoj"}`,
		"other/en.json":      `{"hello": "Hello"}`,
		"other/fr.json":      `{"hello": "Bonjour"}`,
	})
}

func TestCreateComponentImportsInBackground(t *testing.T) {
	e := mustCrudEnv(t)
	url := e.srv.URL + "/api/projects/demo/components/"
	admin := servertest.MustUser(t, e.db, "ada", false, [2]string{"Administration", "demo"})
	translator := servertest.MustUser(t, e.db, "tom", false, [2]string{"Translate", "demo"})
	repo := appRepo(t)
	body := map[string]any{"name": "Web", "slug": "web", "repo": repo, "filemask": "locales/*.json",
		"template": "locales/en.json", "file_format": "json", "source_language": map[string]any{"code": "en"}}

	wantResponse(t, "anonymous", servertest.DoJSON(t, "POST", url, "", body), 401, notSignedIn)
	wantResponse(t, "translator", servertest.DoJSON(t, "POST", url, translator, body), 403, denied("Can not create components"))

	r := servertest.DoJSON(t, "POST", url, admin, body)
	wantResponse(t, "create", r, 201, "")
	comp := servertest.Decode(t, r.Body)
	servertest.CheckShape(t, "created component", comp, withTaskURL)
	taskURL, _ := comp["task_url"].(string)
	if r.Header.Get("Location") != e.srv.URL+"/api/components/demo/web/" || comp["branch"] != "main" ||
		comp["manage_units"] != true || !strings.HasPrefix(taskURL, e.srv.URL+"/api/tasks/") {
		t.Errorf("created = Location %q, %v", r.Header.Get("Location"), comp)
	}
	task := waitTask(t, taskURL)
	servertest.CheckShape(t, "task", task, taskShape)
	result, _ := task["result"].(map[string]any)
	if task["progress"] != jsonNum(100) || result == nil || result["files"] != jsonNum(3) ||
		!strings.Contains(task["log"].(string), "3 files match the file mask") {
		t.Errorf("task = %v", task)
	}
	list := servertest.GetObject(t, e.srv.URL+"/api/components/demo/web/translations/")
	var codes []string
	for _, tr := range servertest.Results(t, list) {
		codes = append(codes, tr["language_code"].(string))
	}
	slices.Sort(codes)
	if !slices.Equal(codes, []string{"cs", "de", "en"}) {
		t.Errorf("translations = %v, want cs, de, en", codes)
	}
	de := servertest.GetObject(t, e.srv.URL+"/api/translations/demo/web/de/")
	if de["total"] != jsonNum(3) || de["translated"] != jsonNum(2) {
		t.Errorf("de = %v of %v translated, want 2 of 3 (menu.file nested)", de["translated"], de["total"])
	}
	if got := changeActions(t, e.srv.URL+"/api/components/demo/web/changes/"); len(got) == 0 || got[0] != "51 by ada" {
		t.Errorf("changes = %v, want to start with the creation by ada", got)
	}
	tasks := servertest.GetObject(t, e.srv.URL+"/api/tasks/")
	servertest.CheckShape(t, "tasks", tasks, listShape)
	servertest.CheckShape(t, "listed task", servertest.Results(t, tasks)[0], taskListShape)
	if items := servertest.Results(t, tasks); len(items) != 1 || items[0]["url"] != taskURL {
		t.Errorf("tasks list = %v", tasks)
	}

	wantResponse(t, "taken", servertest.DoJSON(t, "POST", url, admin, body), 400, invalid(
		[3]string{"name", "unique", "Component with this name already exists in the project."},
		[3]string{"slug", "unique", "Component with this URL slug already exists in the project."}))
}

func TestCreateGlossaryComponent(t *testing.T) {
	e := mustCrudEnv(t)
	files := map[string]string{}
	entries, err := fs.ReadDir(tolk.DemoFiles, "testdata/demo/glossary")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range entries {
		data, err := fs.ReadFile(tolk.DemoFiles, "testdata/demo/glossary/"+f.Name())
		if err != nil {
			t.Fatal(err)
		}
		files["terms/"+f.Name()] = string(data)
	}
	root := servertest.MustUser(t, e.db, "root", true)
	r := servertest.DoJSON(t, "POST", e.srv.URL+"/api/projects/demo/components/", root, map[string]any{"name": "Terms",
		"slug": "terms", "repo": mustBareRepo(t, files), "filemask": "terms/*.tbx", "file_format": "tbx",
		"is_glossary": true, "source_language": "en"})
	wantResponse(t, "create", r, 201, "")
	comp := servertest.Decode(t, r.Body)
	if comp["is_glossary"] != true || comp["manage_units"] != false || comp["template"] != "" {
		t.Errorf("glossary = %v", comp)
	}
	if task := waitTask(t, comp["task_url"].(string)); task["result"].(map[string]any)["failed"] != jsonNum(0) {
		t.Errorf("task = %v", task)
	}
	list := servertest.GetObject(t, e.srv.URL+"/api/components/demo/terms/translations/")
	// One per file, and the source the files' entries make up.
	if list["count"] != jsonNum(len(entries)+1) {
		t.Errorf("%v translations from %d files, want one more for the source", list["count"], len(entries))
	}
}

func TestCreateComponentValidation(t *testing.T) {
	e := mustCrudEnv(t)
	url := e.srv.URL + "/api/projects/demo/components/"
	admin := servertest.MustUser(t, e.db, "ada", true)
	repo := appRepo(t)
	with := func(changes map[string]any) map[string]any {
		body := map[string]any{"name": "Web", "slug": "web", "repo": repo, "filemask": "locales/*.json",
			"template": "locales/en.json", "file_format": "json", "source_language": "en"}
		for k, v := range changes {
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
		}
		return body
	}
	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"empty", map[string]any{}, invalid(required("file_format"), required("filemask"), required("name"),
			required("repo"), required("slug"))},
		{"unknown format", with(map[string]any{"file_format": "po"}), invalid([3]string{"file_format", "invalid_choice",
			`"po" is not a valid choice. Supported formats: json, tbx.`})},
		{"unknown source language", with(map[string]any{"source_language": map[string]any{"code": "xx"}}),
			invalid([3]string{"source_language.code", "invalid", "Language with this language code was not found."})},
		{"source language object without code", with(map[string]any{"source_language": map[string]any{"name": "English"}}),
			invalid(required("source_language.code"))},
		{"monolingual without template", with(map[string]any{"template": nil}), invalid(
			[3]string{"template", "invalid", "You can not use a monolingual translation without a base file."})},
		{"no placeholder", with(map[string]any{"filemask": "locales/en.json"}), invalid(
			[3]string{"filemask", "invalid", "File mask does not contain * as a language placeholder!"})},
		{"local path", with(map[string]any{"repo": strings.TrimPrefix(repo, "file://")}), invalid(
			[3]string{"repo", "invalid", "Enter a repository URL: https://, http://, ssh:// or user@host:path."})},
		{"git protocol", with(map[string]any{"repo": "git://example.com/x.git"}), invalid([3]string{"repo", "invalid",
			`Unsupported repository URL scheme "git": use https://, http://, ssh:// or user@host:path.`})},
		{"missing branch", with(map[string]any{"branch": "nope"}), invalid(
			[3]string{"branch", "invalid", `Could not update repository: the branch "nope" does not exist.`})},
		{"filemask matching nothing", with(map[string]any{"filemask": "po/*.json", "template": "po/en.json"}),
			invalid([3]string{"filemask", "invalid", "The file mask did not match any files."})},
		{"template missing", with(map[string]any{"template": "locales/fr.json"}),
			invalid([3]string{"template", "invalid", "File does not exist."})},
		{"commit message that does not parse", with(map[string]any{"commit_message": "Translated\n{% if stats.all %}"}),
			invalid([3]string{"commit_message", "invalid", "Failed to render template: line 2: {% if %} is not closed: " +
				"expected {% elif %} or {% else %} or {% endif %}"})},
		{"zip upload", with(map[string]any{"zipfile": "x"}), invalid(
			[3]string{"zipfile", "invalid", "This field is not supported by Tolk: give a repository instead."})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantResponse(t, "POST", servertest.DoJSON(t, "POST", url, admin, tc.body), 400, tc.want)
		})
	}

	// An unreachable repository is a 400 on repo whose text never holds
	// the credentials of the URL.
	r := servertest.DoJSON(t, "POST", url, admin, with(map[string]any{"repo": "https://bob:s3cret@127.0.0.1:1/x.git"}))
	if r.Status != 400 || !strings.Contains(string(r.Body), `"attr":"repo"`) || strings.Contains(string(r.Body), "s3cret") {
		t.Errorf("unreachable = %d %s", r.Status, r.Body)
	}
	if strings.Contains(e.srv.Logs.String(), "s3cret") {
		t.Errorf("the log holds the password: %s", e.srv.Logs.String())
	}
	if got := servertest.GetObject(t, e.srv.URL+"/api/projects/demo/components/"); got["count"] != jsonNum(2) {
		t.Errorf("components after refusals = %v, want the demo's two", got["count"])
	}

	// file:// reads the server's disk: only where the deployment allows it.
	strict := servertest.Serve(t, e.db, servertest.Options{Components: e.sync})
	wantResponse(t, "file:// refused", servertest.DoJSON(t, "POST", strict.URL+"/api/projects/demo/components/", admin, with(nil)),
		400, invalid([3]string{"repo", "invalid", "Local repositories are not allowed on this server."}))
}

func TestComponentRepoCredentialsHidden(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	ctx := context.Background()
	c, err := db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	c.Repo, c.Push = "https://bob:s3cret@git.example/app.git", "ssh://git@git.example/app.git"
	if _, _, err := db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	got := servertest.GetObject(t, srv.URL+"/api/components/demo/app/")
	if got["repo"] != "https://git.example/app.git" || got["push"] != "ssh://git.example/app.git" {
		t.Errorf("repo %v, push %v: want them without credentials", got["repo"], got["push"])
	}
}

func TestUpdateComponent(t *testing.T) {
	e := mustCrudEnv(t)
	admin := servertest.MustUser(t, e.db, "ada", false, [2]string{"Administration", "demo"})
	translator := servertest.MustUser(t, e.db, "tom", false, [2]string{"Translate", "demo"})
	r := servertest.DoJSON(t, "POST", e.srv.URL+"/api/projects/demo/components/", admin, map[string]any{"name": "Web",
		"slug": "web", "repo": appRepo(t), "filemask": "locales/*.json", "template": "locales/en.json", "file_format": "json"})
	wantResponse(t, "create", r, 201, "")
	waitTask(t, servertest.Decode(t, r.Body)["task_url"].(string))
	url := e.srv.URL + "/api/components/demo/web/"

	wantResponse(t, "translator", servertest.DoJSON(t, "PATCH", url, translator, map[string]any{"name": "X"}), 403,
		denied("Can not edit component"))
	wantResponse(t, "source language", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"source_language": "de"}), 400,
		invalid([3]string{"source_language", "invalid", "Source language can not be changed, please recreate the component instead."}))
	wantResponse(t, "PUT without repo", servertest.DoJSON(t, "PUT", url, admin, map[string]any{"name": "Web", "slug": "web",
		"filemask": "locales/*.json", "file_format": "json"}), 400, invalid(required("repo")))
	wantResponse(t, "bad filemask", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"filemask": "po/*.json",
		"template": "po/en.json"}), 400, invalid([3]string{"filemask", "invalid", "The file mask did not match any files."}))

	// A setting the import does not read starts no task.
	r = servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"name": "Website", "source_language": "en", "priority": 50})
	wantResponse(t, "rename", r, 200, "")
	if got := servertest.Decode(t, r.Body); got["name"] != "Website" || got["priority"] != jsonNum(50) || got["task_url"] != nil {
		t.Errorf("renamed = %v", got)
	}

	// A new filemask imports again: other/ holds English and French.
	r = servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"filemask": "other/*.json", "template": "other/en.json"})
	wantResponse(t, "new filemask", r, 200, "")
	taskURL, _ := servertest.Decode(t, r.Body)["task_url"].(string)
	if taskURL == "" {
		t.Fatalf("new filemask started no task: %s", r.Body)
	}
	if task := waitTask(t, taskURL); task["result"].(map[string]any)["translations_removed"] != jsonNum(2) {
		t.Errorf("re-import = %v, want cs and de removed", task)
	}
	var codes []string
	for _, tr := range servertest.Results(t, servertest.GetObject(t, url+"translations/")) {
		codes = append(codes, tr["language_code"].(string))
	}
	slices.Sort(codes)
	if !slices.Equal(codes, []string{"en", "fr"}) {
		t.Errorf("translations after the filemask change = %v, want en, fr", codes)
	}

	// A new slug moves the checkout; removal takes it off the disk.
	wantResponse(t, "new slug", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"slug": "site"}), 200, "")
	checkout := filepath.Join(e.data, "repos", "demo", "site")
	if _, err := os.Stat(filepath.Join(checkout, ".git")); err != nil {
		t.Errorf("checkout after the new slug: %v", err)
	}
	url = e.srv.URL + "/api/components/demo/site/"
	wantResponse(t, "translator deletes", servertest.DoJSON(t, "DELETE", url, translator, nil), 403, denied("Can not delete component"))
	wantResponse(t, "delete", servertest.DoJSON(t, "DELETE", url, admin, nil), 204, "")
	wantResponse(t, "after delete", servertest.Do(t, "GET", url, nil), 404, "")
	if _, err := os.Stat(checkout); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checkout after the removal: %v", err)
	}
	if got := changeActions(t, e.srv.URL+"/api/projects/demo/changes/"); got[len(got)-1] != "38 by ada" {
		t.Errorf("project changes end with %v, want the removal by ada", got[len(got)-1])
	}
}

// TestComponentMessageTemplates: a message template that does not render
// is refused when saved, on its field, so that no commit fails on it.
func TestComponentMessageTemplates(t *testing.T) {
	e := mustCrudEnv(t)
	admin := servertest.MustUser(t, e.db, "ada", true)
	url := e.srv.URL + "/api/components/demo/app/"

	wantResponse(t, "bad templates", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{
		"add_message": "Added {{ language_name", "pull_message": "{% for c in x %}{% endif %}",
		"commit_message": "{{ author|shout }}",
	}), 400, invalid(
		[3]string{"add_message", "invalid", "Failed to render template: line 1: {{ is not closed by }} on the same line"},
		[3]string{"commit_message", "invalid", `Failed to render template: line 1: unknown filter "shout": message templates ` +
			"support add, capfirst, cut, default, default_if_none, escape, first, floatformat, join, last, length, lower, safe, title, upper, yesno"},
		[3]string{"pull_message", "invalid", "Failed to render template: line 1: unexpected {% endif %}: expected {% empty %} or {% endfor %} (block opened on line 1)"}))
	if got := servertest.GetObject(t, url); got["add_message"] != index.DefaultAddMessage {
		t.Errorf("add_message after the refusal = %q, want the default", got["add_message"])
	}

	custom := "{{ language_name }}: {{ stats.translated_percent|floatformat:0 }}%" +
		"{% for c in component_linked_childs %}\nAlso: {{ c.project_name }}/{{ c.name }}{% endfor %}"
	r := servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"commit_message": custom})
	wantResponse(t, "good template", r, 200, "")
	if got := servertest.Decode(t, r.Body); got["commit_message"] != custom {
		t.Errorf("commit_message = %q, want %q", got["commit_message"], custom)
	}

	// A template stored before it was checked does not stop a write of
	// other settings; the writer of the template answers for it.
	ctx := context.Background()
	c, err := e.db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	c.MergeMessage = "{% if %}"
	if _, _, err := e.db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	wantResponse(t, "other setting", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"priority": 90}), 200, "")
	wantResponse(t, "same bad template again", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"merge_message": "{% if %}"}), 200, "")
	wantResponse(t, "blank", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"commit_message": "  "}), 400,
		invalid([3]string{"commit_message", "blank", "This field may not be blank."}))
	wantResponse(t, "typo", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"delete_message": "Deleted {{ langage_name }}"}), 400,
		invalid([3]string{"delete_message", "invalid", `Failed to render template: line 1: undefined variable "langage_name"`}))
	wantResponse(t, "another bad template", servertest.DoJSON(t, "PATCH", url, admin, map[string]any{"merge_message": "{% if %}x"}), 400,
		invalid([3]string{"merge_message", "invalid", "Failed to render template: line 1: {% if %} needs a condition"}))
}

func TestTasks(t *testing.T) {
	e := mustCrudEnv(t)
	admin := servertest.MustUser(t, e.db, "ada", false, [2]string{"Administration", "demo"})
	translator := servertest.MustUser(t, e.db, "tom", false, [2]string{"Translate", "demo"})
	const unknown = `{"type":"client_error","errors":[{"code":"not_found","detail":"Invalid task","attr":null}]}`
	wantResponse(t, "unknown", servertest.Do(t, "GET", e.srv.URL+"/api/tasks/nope/", nil), 404, unknown)

	c, err := e.db.FindComponent(context.Background(), "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	c.Repo = appRepo(t)
	task := e.sync.StartImport(c)
	url := e.srv.URL + "/api/tasks/" + task.ID + "/"
	wantResponse(t, "anonymous cancel", servertest.DoJSON(t, "DELETE", url, "", nil), 401, notSignedIn)
	wantResponse(t, "translator cancel", servertest.DoJSON(t, "DELETE", url, translator, nil), 403,
		denied("You do not have permission to perform this action."))
	wantResponse(t, "cancel", servertest.DoJSON(t, "DELETE", url, admin, nil), 204, "")
	done := waitTask(t, url)
	if done["completed"] != true {
		t.Errorf("cancelled task = %v", done)
	}

	// A private project's tasks are as unknown as missing ones.
	if _, _, err := e.db.UpdateProject(context.Background(), c.ProjectID, func(p *index.Project) error {
		p.AccessControl = index.AccessPrivate
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantResponse(t, "private, anonymous", servertest.Do(t, "GET", url, nil), 404, unknown)
	if got := servertest.GetObject(t, e.srv.URL+"/api/tasks/"); got["count"] != jsonNum(0) {
		t.Errorf("anonymous tasks list = %v", got)
	}
}
