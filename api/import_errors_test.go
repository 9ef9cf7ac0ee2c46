package api_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
	tolksync "github.com/tolk-project/tolk/sync"
)

// TestImportErrorsVisible imports a component whose repository holds a
// file that does not parse, a symbolic link inside the repository, one
// leaving it and an odd file name, and one whose clone fails; the API
// says what went wrong with each.
func TestImportErrorsVisible(t *testing.T) {
	ctx := context.Background()
	db, svc := servertest.MustIndexAndService(t)
	up := servertest.MustUpstream(t, "app")
	for name, target := range map[string]string{"de_AT.json": "de.json", "evil.json": "/etc/hostname"} {
		if err := os.Symlink(target, filepath.Join(up.Work, "locales", name)); err != nil {
			t.Fatal(err)
		}
	}
	up.Commit(t, map[string]string{"locales/fr.json": "{\n  \"greeting\": ", "locales/t\tab.json": "{}"}, "hostile")
	app := index.DefaultComponent()
	app.Name, app.Slug, app.Repo, app.Branch = "App", "app", up.URL, "main"
	app.Filemask, app.Template = "locales/*.json", "locales/en.json"
	gone := app
	gone.Name, gone.Slug, gone.Repo = "Gone", "gone", "file://"+filepath.Join(t.TempDir(), "missing.git")
	spec := []tolksync.ProjectSpec{{Project: index.Project{Name: "Demo", Slug: "demo"},
		Components: []index.Component{app, gone}}}
	if err := svc.Reconcile(ctx, spec); err == nil || !strings.Contains(err.Error(), "demo/gone") {
		t.Fatalf("Reconcile = %v, want the failure of demo/gone", err)
	}
	srv := servertest.Serve(t, db, servertest.Options{Repositories: svc, Files: svc})
	base := srv.URL + "/api/"

	comp := servertest.GetObject(t, base+"components/demo/app/")
	if comp["import_error"] != nil {
		t.Errorf("app import_error = %v, want null", comp["import_error"])
	}
	skipped := map[string]string{}
	for _, v := range comp["skipped_files"].([]any) {
		f := servertest.Obj(t, v)
		skipped[f["filename"].(string)] = f["reason"].(string)
	}
	if len(skipped) != 2 || !strings.Contains(skipped["locales/evil.json"], "leaves the repository") ||
		!strings.Contains(skipped["locales/t\tab.json"], "control character") {
		t.Errorf("app skipped_files = %q, want evil.json (leaves the repository) and t\\tab.json (control character)", skipped)
	}

	gc := servertest.GetObject(t, base+"components/demo/gone/")
	if msg, _ := gc["import_error"].(string); !strings.Contains(msg, "not found") {
		t.Errorf("gone import_error = %#v, want the clone's failure", gc["import_error"])
	}

	fr := servertest.GetObject(t, base+"translations/demo/app/fr/")
	frErr, _ := fr["import_error"].(string)
	if !strings.Contains(frErr, "locales/fr.json") || !strings.Contains(frErr, "line 2") {
		t.Errorf("fr import_error = %#v, want the file with its line", fr["import_error"])
	}
	changes := servertest.Results(t, servertest.GetObject(t, base+"translations/demo/app/fr/changes/?action=24"))
	if len(changes) != 1 || changes[0]["target"] != frErr {
		t.Errorf("fr changes 24 = %v, want one whose target is %q", changes, frErr)
	}
	if de := servertest.GetObject(t, base+"translations/demo/app/de/"); de["import_error"] != nil {
		t.Errorf("de import_error = %v, want null", de["import_error"])
	}
	deAT := servertest.GetObject(t, base+"translations/demo/app/de_AT/")
	if deAT["filename"] != "locales/de_AT.json" || servertest.Num(deAT["translated"]) == "0" {
		t.Errorf("de_AT (a link to de.json) = %v %v, want its file translated", deAT["filename"], deAT["translated"])
	}

	// The HTML pages say the same.
	page := servertest.GetPage(t, srv.URL+"/projects/demo/app/", http.StatusOK)
	for _, want := range []string{"Import problems", "Skipped &#34;locales/evil.json&#34;: symbolic link",
		"French does not parse: locales/fr.json: line 2"} {
		if !strings.Contains(page, want) {
			t.Errorf("component page lacks %q:\n%s", want, page)
		}
	}
	if page := servertest.GetPage(t, srv.URL+"/projects/demo/gone/", http.StatusOK); !strings.Contains(page, "The last import failed: clone") {
		t.Errorf("gone page lacks the clone failure:\n%s", page)
	}
	if page := servertest.GetPage(t, srv.URL+"/projects/demo/app/fr/", http.StatusOK); !strings.Contains(page, "The file does not parse: locales/fr.json") {
		t.Errorf("fr page lacks the parse error:\n%s", page)
	}

	// Repaired upstream, the next update clears what it no longer finds.
	if err := os.Remove(filepath.Join(up.Work, "locales", "evil.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(up.Work, "locales", "t\tab.json")); err != nil {
		t.Fatal(err)
	}
	up.Commit(t, map[string]string{"locales/fr.json": `{"greeting": "Bonjour"}`}, "repair")
	c, err := db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ImportComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	comp = servertest.GetObject(t, base+"components/demo/app/")
	if files := comp["skipped_files"].([]any); len(files) != 0 || comp["import_error"] != nil {
		t.Errorf("after repair: skipped_files %v, import_error %v; want none", files, comp["import_error"])
	}
	if fr := servertest.GetObject(t, base+"translations/demo/app/fr/"); fr["import_error"] != nil {
		t.Errorf("fr after repair: import_error %v, want null", fr["import_error"])
	}
	if r := servertest.Do(t, http.MethodGet, base+"components/demo/gone/translations/", nil); r.Status != http.StatusOK {
		t.Errorf("gone translations: %d", r.Status)
	}
}
