package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/vcs"
)

// pluralFiles are an i18next v4 app in English (the template), Japanese
// (1 form), German (2), Czech (3, lacking one plural key and the
// "days" unit) and Arabic (6), the same app on i18next v3, and a
// go-i18n v2 app and a WebExtension in English and Czech.
var pluralFiles = map[string]string{
	"i18n/en.json": `{
  "title": "Inbox",
  "unread_one": "{{count}} unread message",
  "unread_other": "{{count}} unread messages",
  "days_one": "{{count}} day ago",
  "days_other": "{{count}} days ago"
}
`,
	"i18n/ja.json": "{\n  \"title\": \"受信トレイ\",\n  \"unread_other\": \"未読{{count}}件\"\n}\n",
	"i18n/de.json": "{\n  \"title\": \"Posteingang\",\n  \"unread_one\": \"{{count}} ungelesene Nachricht\",\n  \"unread_other\": \"{{count}} ungelesene Nachrichten\"\n}\n",
	"i18n/cs.json": "{\n  \"title\": \"Doručená pošta\",\n  \"unread_one\": \"{{count}} nepřečtená zpráva\",\n  \"unread_other\": \"{{count}} nepřečtených zpráv\"\n}\n",
	"i18n/ar.json": `{
  "unread_zero": "لا رسائل",
  "unread_one": "رسالة واحدة",
  "unread_two": "رسالتان",
  "unread_few": "{{count}} رسائل",
  "unread_many": "{{count}} رسالة",
  "unread_other": "{{count}} رسالة"
}
`,
	// i18next v3: "key"/"key_plural" in English and German, "key_0"…
	// in Japanese and Arabic; German lacks "days".
	"v3/en.json": "{\n  \"title\": \"Inbox\",\n  \"unread\": \"{{count}} unread message\",\n  \"unread_plural\": \"{{count}} unread messages\",\n" +
		"  \"days\": \"{{count}} day ago\",\n  \"days_plural\": \"{{count}} days ago\"\n}\n",
	"v3/de.json": "{\n  \"unread\": \"{{count}} ungelesene Nachricht\",\n  \"unread_plural\": \"{{count}} ungelesene Nachrichten\"\n}\n",
	"v3/ja.json": "{\n  \"unread_0\": \"未読{{count}}件\"\n}\n",
	"v3/ar.json": "{\n  \"unread_0\": \"لا رسائل\",\n  \"unread_1\": \"رسالة واحدة\",\n  \"unread_2\": \"رسالتان\",\n" +
		"  \"unread_3\": \"{{count}} رسائل\",\n  \"unread_4\": \"{{count}} رسالة\",\n  \"unread_5\": \"{{count}} رسالة\"\n}\n",
	"goi18n/en.json":                "{\n  \"Hello\": \"Hello\",\n  \"Emails\": {\n    \"description\": \"Unread emails\",\n    \"one\": \"{{.Count}} email\",\n    \"other\": \"{{.Count}} emails\"\n  }\n}\n",
	"goi18n/cs.json":                "{\n  \"Emails\": {\n    \"one\": \"{{.Count}} e-mail\",\n    \"few\": \"{{.Count}} e-maily\",\n    \"other\": \"{{.Count}} e-mailů\"\n  }\n}\n",
	"ext/_locales/en/messages.json": "{\n  \"name\": {\n    \"message\": \"Counter\",\n    \"description\": \"Extension name\"\n  }\n}\n",
	"ext/_locales/cs/messages.json": "{\n  \"name\": {\n    \"message\": \"Počítadlo\"\n  }\n}\n",
}

type pluralUnit struct {
	ID      int64    `json:"id"`
	Context string   `json:"context"`
	Source  []string `json:"source"`
	Target  []string `json:"target"`
	Note    string   `json:"note"`
}

// TestPluralDialects runs the server on a setup file with components in
// file_format i18nextv4, i18next, go-i18n-json and webextension, and checks
// through the API that plural units have one target form per plural form
// of each language (1, 2, 3 and 6), forms the file lacks empty; that a
// PATCH with the wrong number of forms is the reference's 400; and that
// the download of an edited translation changes only the edited form and
// adds the missing one in the file's style.
func TestPluralDialects(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "remote", "app.git")
	files := map[string][]byte{}
	for name, body := range pluralFiles {
		files[name] = []byte(body)
	}
	if err := vcs.CreateBare(context.Background(), repo, "main", files, "initial"); err != nil {
		t.Fatal(err)
	}
	component := func(slug, format, mask, template string) string {
		return "      - name: " + slug + "\n        slug: " + slug + "\n        repo: file://" + repo + "\n" +
			"        file_format: " + format + "\n        filemask: " + mask + "\n        template: " + template + "\n" +
			"        source_language: en\n"
	}
	config := filepath.Join(dir, "tolk.yaml")
	body := "projects:\n  - name: Plurals\n    slug: p\n    components:\n" +
		component("i18n", "i18nextv4", "i18n/*.json", "i18n/en.json") +
		component("goi18n", "go-i18n-json", "goi18n/*.json", "goi18n/en.json") +
		component("ext", "webextension", "ext/_locales/*/messages.json", "ext/_locales/en/messages.json") +
		component("v3", "i18next", "v3/*.json", "v3/en.json")
	if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen = data, "127.0.0.1:0"
	cfg = withSetupFile(t, cfg, config)
	m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
	openMain(t, m)
	defer m.Close()
	mustCLI(t, "user", "add", "root", "--admin", "--data", data)
	token := strings.TrimSpace(mustCLI(t, "token", "create", "root", "--data", data))
	base := "http://" + m.Addr().String() + "/api/"

	units := func(comp, lang string) map[string]pluralUnit {
		t.Helper()
		resp := getAs(t, base+"translations/p/"+comp+"/"+lang+"/units/", "Token "+token)
		defer resp.Body.Close()
		var page struct{ Results []pluralUnit }
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("units of %s/%s: %d %v", comp, lang, resp.StatusCode, err)
		}
		out := map[string]pluralUnit{}
		for _, u := range page.Results {
			out[u.Context] = u
		}
		return out
	}
	en := []string{"{{count}} unread message", "{{count}} unread messages"}
	for _, tc := range []struct {
		lang         string
		unread, days []string
	}{
		{"en", en, []string{"{{count}} day ago", "{{count}} days ago"}},
		{"ja", []string{"未読{{count}}件"}, []string{""}},
		{"de", []string{"{{count}} ungelesene Nachricht", "{{count}} ungelesene Nachrichten"}, []string{"", ""}},
		{"cs", []string{"{{count}} nepřečtená zpráva", "", "{{count}} nepřečtených zpráv"}, []string{"", "", ""}},
		{"ar", []string{"لا رسائل", "رسالة واحدة", "رسالتان", "{{count}} رسائل", "{{count}} رسالة", "{{count}} رسالة"},
			[]string{"", "", "", "", "", ""}},
	} {
		got := units("i18n", tc.lang)
		if u := got["unread"]; !reflect.DeepEqual(u.Source, en) || !reflect.DeepEqual(u.Target, tc.unread) {
			t.Errorf("%s unread: source %q target %q, want target %q", tc.lang, u.Source, u.Target, tc.unread)
		}
		if u := got["days"]; !reflect.DeepEqual(u.Target, tc.days) {
			t.Errorf("%s days: target %q, want %q", tc.lang, u.Target, tc.days)
		}
		if u := got["title"]; len(u.Target) != 1 {
			t.Errorf("%s title: target %q, want one form", tc.lang, u.Target)
		}
	}
	for _, tc := range []struct {
		lang         string
		unread, days []string
	}{
		{"en", en, []string{"{{count}} day ago", "{{count}} days ago"}},
		{"de", []string{"{{count}} ungelesene Nachricht", "{{count}} ungelesene Nachrichten"}, []string{"", ""}},
		{"ja", []string{"未読{{count}}件"}, []string{""}},
		{"ar", []string{"لا رسائل", "رسالة واحدة", "رسالتان", "{{count}} رسائل", "{{count}} رسالة", "{{count}} رسالة"},
			[]string{"", "", "", "", "", ""}},
	} {
		got := units("v3", tc.lang)
		if u := got["unread"]; !reflect.DeepEqual(u.Source, en) || !reflect.DeepEqual(u.Target, tc.unread) {
			t.Errorf("v3 %s unread: source %q target %q, want target %q", tc.lang, u.Source, u.Target, tc.unread)
		}
		if u := got["days"]; !reflect.DeepEqual(u.Target, tc.days) {
			t.Errorf("v3 %s days: target %q, want %q", tc.lang, u.Target, tc.days)
		}
	}
	if u := units("goi18n", "cs")["Emails"]; !reflect.DeepEqual(u.Target, []string{"{{.Count}} e-mail", "{{.Count}} e-maily", "{{.Count}} e-mailů"}) ||
		len(u.Source) != 2 {
		t.Errorf("go-i18n cs Emails: source %q target %q", u.Source, u.Target)
	}
	if u := units("goi18n", "en")["Emails"]; u.Note != "Unread emails" {
		t.Errorf("go-i18n en Emails: note %q", u.Note)
	}
	if u := units("ext", "cs")["name"]; !reflect.DeepEqual(u.Target, []string{"Počítadlo"}) {
		t.Errorf("webextension cs name: target %q", u.Target)
	}
	if u := units("ext", "en")["name"]; u.Note != "Extension name" {
		t.Errorf("webextension en name: note %q", u.Note)
	}

	cs := units("i18n", "cs")["unread"]
	patch := func(target []string) (int, map[string]any) {
		return send(t, http.MethodPatch, base+"units/"+strconv.FormatInt(cs.ID, 10)+"/", token,
			map[string]any{"target": target, "state": 20})
	}
	code, errBody := patch([]string{"a", "b"})
	want := map[string]any{"type": "validation_error", "errors": []any{map[string]any{
		"code": "invalid", "detail": "Number of plurals does not match", "attr": "target"}}}
	if code != http.StatusBadRequest || !reflect.DeepEqual(errBody, want) {
		t.Errorf("PATCH with 2 of 3 forms: %d %v, want 400 %v", code, errBody, want)
	}
	if code, body := patch([]string{"{{count}} nepřečtená zpráva", "{{count}} nepřečtené zprávy", "{{count}} nepřečtených zpráv"}); code != http.StatusOK {
		t.Fatalf("PATCH with 3 forms: %d %v", code, body)
	}
	resp := getAs(t, base+"translations/p/i18n/cs/file/", "Token "+token)
	file, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantFile := "{\n  \"title\": \"Doručená pošta\",\n  \"unread_one\": \"{{count}} nepřečtená zpráva\",\n" +
		"  \"unread_other\": \"{{count}} nepřečtených zpráv\",\n  \"unread_few\": \"{{count}} nepřečtené zprávy\"\n}\n"
	if string(file) != wantFile {
		t.Errorf("cs file after the edit:\n%s\nwant\n%s", file, wantFile)
	}

	// A v3 edit in Arabic changes the one numbered key it changes.
	ar := units("v3", "ar")["unread"]
	arForms := []string{"لا رسائل", "رسالة واحدة", "رسالتان", "{{count}} رسائل جديدة", "{{count}} رسالة", "{{count}} رسالة"}
	if code, body := send(t, http.MethodPatch, base+"units/"+strconv.FormatInt(ar.ID, 10)+"/", token,
		map[string]any{"target": arForms, "state": 20}); code != http.StatusOK {
		t.Fatalf("PATCH v3 ar: %d %v", code, body)
	}
	resp = getAs(t, base+"translations/p/v3/ar/file/", "Token "+token)
	file, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := strings.Replace(pluralFiles["v3/ar.json"], "{{count}} رسائل", "{{count}} رسائل جديدة", 1); string(file) != want {
		t.Errorf("v3 ar file after the edit:\n%s\nwant\n%s", file, want)
	}

	// An upload of the Czech file reads its plural keys with the same
	// parser: the one form it changes is accepted, three forms and all.
	var up bytes.Buffer
	mw := multipart.NewWriter(&up)
	w, _ := mw.CreateFormFile("file", "cs.json")
	io.WriteString(w, strings.Replace(wantFile, "nepřečtených zpráv", "nepřečtených zpráviček", 1))
	mw.WriteField("conflicts", "replace-translated")
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, base+"translations/p/i18n/cs/file/", &up)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Token "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	upBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(upBody), `"accepted":1`) {
		t.Fatalf("upload: %d %s", resp.StatusCode, upBody)
	}
	if got := units("i18n", "cs")["unread"].Target; !reflect.DeepEqual(got, []string{"{{count}} nepřečtená zpráva",
		"{{count}} nepřečtené zprávy", "{{count}} nepřečtených zpráviček"}) {
		t.Errorf("cs unread after the upload: %q", got)
	}
}
