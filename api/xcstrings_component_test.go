package api_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// catalogFile is a String Catalog in Xcode's style: "hello" in English
// and German, nothing in French.
const catalogFile = `{
  "sourceLanguage" : "en",
  "strings" : {
    "hello" : {
      "localizations" : {
        "de" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Hallo"
          }
        },
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Hello"
          }
        }
      }
    }
  },
  "version" : "1.0"
}`

// TestStringCatalogComponent creates an Apple String Catalog component
// through the API (its filemask is the one file, without *), adds French
// through the API, translates it and commits: the French localization
// lands in the shared catalog, every other byte stays, and the French
// translation survives the re-import though the catalog held no French
// before.
func TestStringCatalogComponent(t *testing.T) {
	env := servertest.New(t, servertest.WithAllLanguages(), servertest.WithDemo(), servertest.WithComponents(), servertest.WithRealClock(),
		servertest.WithOptions(func(o *servertest.Options) { o.FileFormats = servertest.FileFormats() }))
	admin := servertest.MustUser(t, env.DB, "ada", true)
	up := servertest.MustUpstream(t, "app")
	if err := os.MkdirAll(filepath.Join(up.Work, "ios"), 0o755); err != nil {
		t.Fatal(err)
	}
	up.Commit(t, map[string]string{"ios/Localizable.xcstrings": catalogFile}, "a String Catalog")
	create := func(slug, mask string) servertest.Response {
		return servertest.DoJSON(t, "POST", env.Running.URL+"/api/projects/demo/components/", admin, map[string]any{
			"name": slug, "slug": slug, "repo": up.URL, "filemask": mask, "file_format": "xcstrings", "source_language": "en"})
	}
	wantResponse(t, "a mask with *", create("star", "ios/*.xcstrings"), 400,
		`{"type":"validation_error","errors":[{"code":"invalid","detail":"This file format keeps every language in one file: `+
			`the file mask is that file's path, without *.","attr":"filemask"}]}`)
	r := create("catalog", "ios/Localizable.xcstrings")
	if r.Status != http.StatusCreated {
		t.Fatalf("create = %d %s", r.Status, r.Body)
	}
	comp := servertest.Decode(t, r.Body)
	if task := waitTask(t, comp["task_url"].(string)); task["result"] == nil {
		t.Fatalf("import task = %v", task)
	}
	base := env.Running.URL + "/api/translations/demo/catalog/"
	if de := servertest.GetObject(t, base+"de/"); de["filename"] != "ios/Localizable.xcstrings" || de["translated"] != jsonNum(1) {
		t.Errorf("de = %v", de)
	}

	r = servertest.DoJSON(t, "POST", env.Running.URL+"/api/components/demo/catalog/translations/", admin,
		map[string]any{"language_code": "fr"})
	if r.Status != http.StatusCreated {
		t.Fatalf("add fr = %d %s", r.Status, r.Body)
	}
	units := servertest.GetObject(t, base+"fr/units/")["results"].([]any)
	if len(units) != 1 {
		t.Fatalf("fr units = %v", units)
	}
	id := units[0].(map[string]any)["id"]
	r = servertest.DoJSON(t, "PATCH", fmt.Sprintf("%s/api/units/%v/", env.Running.URL, id), admin,
		map[string]any{"target": []string{`Bonjour "monde" & <toi>`}, "state": 20})
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH = %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", env.Running.URL+"/api/components/demo/catalog/repository/", admin,
		map[string]any{"operation": "commit"})
	if r.Status != http.StatusOK {
		t.Fatalf("commit = %d %s", r.Status, r.Body)
	}
	r = servertest.Do(t, "GET", base+"fr/file/", nil)
	// Xcode's order: fr after en.
	enEnd := "\"value\" : \"Hello\"\n          }\n        }"
	want := strings.Replace(catalogFile, enEnd, enEnd+`,
        "fr" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Bonjour \"monde\" & <toi>"
          }
        }`, 1)
	if r.Status != http.StatusOK || string(r.Body) != want {
		t.Errorf("fr download = %d\n%s\nwant\n%s", r.Status, r.Body, want)
	}
	// A re-import keeps French and German, each still in the one file.
	r = servertest.DoJSON(t, "POST", env.Running.URL+"/api/components/demo/catalog/repository/", admin,
		map[string]any{"operation": "pull"})
	if r.Status != http.StatusOK {
		t.Fatalf("pull = %d %s", r.Status, r.Body)
	}
	list := servertest.GetObject(t, env.Running.URL+"/api/components/demo/catalog/translations/")
	if list["count"] != jsonNum(3) {
		t.Errorf("translations after the pull: %v", list)
	}
}
