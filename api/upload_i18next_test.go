package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// i18nextV3Files are the files of a project on i18next JSON v3: English
// and German plurals as "key"/"key_plural", Russian as "key_0"… but for
// "files", still in the two-form shape.
var i18nextV3Files = map[string]string{
	"legacy/en.json": "{\n  \"title\": \"Inbox\",\n  \"files\": \"{{count}} file\",\n  \"files_plural\": \"{{count}} files\",\n" +
		"  \"days\": \"{{count}} day ago\",\n  \"days_plural\": \"{{count}} days ago\"\n}\n",
	"legacy/de.json": "{\n  \"title\": \"Posteingang\",\n  \"files\": \"{{count}} Datei\",\n  \"files_plural\": \"{{count}} Dateien\"\n}\n",
	"legacy/ru.json": "{\n    \"title\": \"Входящие\",\n    \"files\": \"{{count}} файл\",\n    \"files_plural\": \"{{count}} файлов\",\n" +
		"    \"days_0\": \"{{count}} день назад\",\n    \"days_1\": \"{{count}} дня назад\",\n    \"days_2\": \"{{count}} дней назад\"\n}\n",
}

// TestI18nextV3Component creates a component of file_format "i18next"
// through the API, reads its plurals, and uploads and downloads German
// and Russian files: the upload's plural is written under the keys
// i18next v3 looks up for the language ("key"/"key_plural" in German,
// "key_0"… in Russian, replacing the two-form keys), every other byte
// of the committed file stays, and what sync commits and pushes is the
// download.
func TestI18nextV3Component(t *testing.T) {
	env := servertest.New(t, servertest.WithAllLanguages(), servertest.WithDemo(), servertest.WithComponents(), servertest.WithRealClock(),
		servertest.WithOptions(func(o *servertest.Options) { o.FileFormats = servertest.FileFormats() }))
	admin := servertest.MustUser(t, env.DB, "ada", true)
	up := servertest.MustUpstream(t, "app")
	if err := os.MkdirAll(filepath.Join(up.Work, "legacy"), 0o755); err != nil {
		t.Fatal(err)
	}
	up.Commit(t, i18nextV3Files, "i18next v3 files")
	r := servertest.DoJSON(t, "POST", env.Running.URL+"/api/projects/demo/components/", admin, map[string]any{
		"name": "Legacy", "slug": "legacy", "repo": up.URL, "filemask": "legacy/*.json",
		"template": "legacy/en.json", "file_format": "i18next", "source_language": "en"})
	if r.Status != http.StatusCreated {
		t.Fatalf("create = %d %s", r.Status, r.Body)
	}
	comp := servertest.Decode(t, r.Body)
	if comp["file_format"] != "i18next" {
		t.Errorf("file_format = %v", comp["file_format"])
	}
	taskURL, _ := comp["task_url"].(string)
	if task := waitTask(t, taskURL); task["result"] == nil {
		t.Fatalf("import task = %v", task)
	}
	base := env.Running.URL + "/api/translations/demo/legacy/"

	// Form i of the file is form i of the language: Russian "files" has
	// its two forms and an empty third.
	targets := map[string][]string{}
	for _, u := range servertest.Results(t, servertest.GetObjectAs(t, base+"ru/units/", admin)) {
		var target []string
		for _, s := range u["target"].([]any) {
			target = append(target, s.(string))
		}
		targets[u["context"].(string)] = target
	}
	if want := map[string][]string{
		"title": {"Входящие"},
		"files": {"{{count}} файл", "{{count}} файлов", ""},
		"days":  {"{{count}} день назад", "{{count}} дня назад", "{{count}} дней назад"},
	}; !reflect.DeepEqual(targets, want) {
		t.Errorf("ru units = %q, want %q", targets, want)
	}

	wants := map[string]string{}
	for _, tc := range []struct {
		lang, upload string
		old, new     string // the download: the committed file with this replacement
	}{
		{"de", `{"days": "vor {{count}} Tag", "days_plural": "vor {{count}} Tagen"}`,
			"\"{{count}} Dateien\"\n}", "\"{{count}} Dateien\",\n  \"days\": \"vor {{count}} Tag\",\n  \"days_plural\": \"vor {{count}} Tagen\"\n}"},
		{"ru", `{"files_0": "{{count}} файл", "files_1": "{{count}} файла", "files_2": "{{count}} файлов"}`,
			"    \"files\": \"{{count}} файл\",\n    \"files_plural\": \"{{count}} файлов\",\n    \"days_0\": \"{{count}} день назад\",\n    \"days_1\": \"{{count}} дня назад\",\n    \"days_2\": \"{{count}} дней назад\"\n}",
			"    \"days_0\": \"{{count}} день назад\",\n    \"days_1\": \"{{count}} дня назад\",\n    \"days_2\": \"{{count}} дней назад\",\n" +
				"    \"files_0\": \"{{count}} файл\",\n    \"files_1\": \"{{count}} файла\",\n    \"files_2\": \"{{count}} файлов\"\n}"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			url := base + tc.lang + "/file/"
			// Russian "files" counts as translated (its first form is), so
			// the upload replaces it.
			r := doUpload(t, "POST", url, admin, tc.upload, "conflicts", "replace-translated")
			var got struct{ Accepted, NotFound int }
			if r.Status != http.StatusOK || json.Unmarshal(r.Body, &got) != nil || got.Accepted != 1 || got.NotFound != 0 {
				t.Fatalf("upload = %d %s, want one string accepted", r.Status, r.Body)
			}
			committed := i18nextV3Files["legacy/"+tc.lang+".json"]
			if !strings.Contains(committed, tc.old) {
				t.Fatalf("fixture lacks %q", tc.old)
			}
			want := strings.Replace(committed, tc.old, tc.new, 1)
			wants["legacy/"+tc.lang+".json"] = want
			r = servertest.Do(t, "GET", url, http.Header{"Authorization": {admin}})
			if r.Status != http.StatusOK || string(r.Body) != want {
				t.Errorf("download = %d\n%s\nwant\n%s", r.Status, r.Body, want)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}

	// Committed and pushed, the files upstream are the downloads.
	ctx := context.Background()
	c, err := env.DB.FindComponent(ctx, "demo", "legacy")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Sync.Commit(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync.Push(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	servertest.RunGit(t, up.Work, "pull", "--quiet", "origin", "main")
	for path, want := range wants {
		if got := string(up.Blob(t, path)); got != want {
			t.Errorf("%s upstream =\n%s\nwant\n%s", path, got, want)
		}
	}
}
