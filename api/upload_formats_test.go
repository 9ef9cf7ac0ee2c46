package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
	tolksync "github.com/tolk-project/tolk/sync"
)

// TestUploadDownloadFormats uploads a gettext PO file and an Android
// resource file through the file endpoint and downloads them back: the
// upload's new value is in the download, served with the format's
// content type and extension, and the rest of the committed file is
// byte for byte as it was.
func TestUploadDownloadFormats(t *testing.T) {
	env := servertest.New(t, servertest.WithAllLanguages(), servertest.WithSync(), servertest.WithRealClock(),
		servertest.WithOptions(func(o *servertest.Options) { o.FileFormats = servertest.FileFormats() }))
	up := servertest.MustUpstream(t, "app")
	files := map[string]string{
		"po/de.po": `msgid ""
msgstr ""
"Project-Id-Version: demo\n"
"Language: de\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#. A greeting
msgid "Hello"
msgstr ""

msgid "Bye"
msgstr "Tschüss"
`,
		"res/values/strings.xml": `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="hello">Hello</string>
    <string name="bye">Bye</string>
</resources>
`,
		"res/values-de/strings.xml": `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="bye">Tschüss</string>
</resources>
`,
	}
	for p := range files {
		if err := os.MkdirAll(filepath.Join(up.Work, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	up.Commit(t, files, "PO and Android files")
	po := index.DefaultComponent()
	po.Name, po.Slug, po.Repo, po.Branch = "PO", "po", up.URL, "main"
	po.Filemask, po.FileFormat = "po/*.po", "po"
	android := index.DefaultComponent()
	android.Name, android.Slug, android.Repo, android.Branch = "Android", "android", up.URL, "main"
	android.Filemask, android.Template, android.FileFormat = "res/values-*/strings.xml", "res/values/strings.xml", "aresource"
	if err := env.Sync.Reconcile(context.Background(), []tolksync.ProjectSpec{{
		Project: index.Project{Name: "Demo", Slug: "demo"}, Components: []index.Component{po, android}}}); err != nil {
		t.Fatal(err)
	}
	anna := servertest.MustUser(t, env.DB, "anna", false, [2]string{"Translate", "demo"})

	for _, tc := range []struct {
		component, file, upload string
		contentType, ext        string
		want                    string // the download: the committed file with this replacement
		old, new                string
	}{
		{component: "po", file: "po/de.po", contentType: "text/x-gettext-catalog", ext: ".po",
			upload: "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n" +
				"msgid \"Hello\"\nmsgstr \"Hallo & <Welt>\"\n\nmsgid \"Bye\"\nmsgstr \"Tschüss\"\n",
			old: "msgid \"Hello\"\nmsgstr \"\"", new: "msgid \"Hello\"\nmsgstr \"Hallo & <Welt>\""},
		{component: "android", file: "res/values-de/strings.xml", contentType: "application/xml", ext: ".xml",
			upload: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n" +
				"    <string name=\"hello\">Hallo &amp; \\'Welt\\'</string>\n    <string name=\"bye\">Tschüss</string>\n</resources>\n",
			old: "    <string name=\"bye\">Tschüss</string>\n",
			new: "    <string name=\"bye\">Tschüss</string>\n    <string name=\"hello\">Hallo &amp; \\'Welt\\'</string>\n"},
	} {
		t.Run(tc.component, func(t *testing.T) {
			url := env.Running.URL + "/api/translations/demo/" + tc.component + "/de/file/"
			r := doUpload(t, "POST", url, anna, tc.upload)
			var got struct{ Accepted, Skipped, NotFound int }
			if r.Status != http.StatusOK || json.Unmarshal(r.Body, &got) != nil || got.Accepted != 1 || got.NotFound != 0 {
				t.Fatalf("upload = %d %s, want one string accepted", r.Status, r.Body)
			}
			r = servertest.Do(t, "GET", url, nil)
			committed := string(up.Blob(t, tc.file))
			if !strings.Contains(committed, tc.old) {
				t.Fatalf("fixture %s lacks %q", tc.file, tc.old)
			}
			want := strings.Replace(committed, tc.old, tc.new, 1)
			body := string(r.Body)
			if tc.component == "po" {
				// The header records the change; every other line stays.
				body = dropHeaderFields(body, "PO-Revision-Date", "Last-Translator", "X-Generator")
			}
			if r.Status != http.StatusOK || body != want {
				t.Errorf("download = %d\n%s\nwant\n%s", r.Status, r.Body, want)
			}
			if ct := r.Header.Get("Content-Type"); ct != tc.contentType {
				t.Errorf("Content-Type = %q, want %q", ct, tc.contentType)
			}
			if cd := r.Header.Get("Content-Disposition"); !strings.HasSuffix(cd, "demo-"+tc.component+"-de"+tc.ext) {
				t.Errorf("Content-Disposition = %q, want a %s file", cd, tc.ext)
			}
		})
	}
}

// dropHeaderFields removes the PO header lines of the named fields.
func dropHeaderFields(po string, names ...string) string {
	lines := strings.SplitAfter(po, "\n")
	out := lines[:0]
	for _, l := range lines {
		drop := false
		for _, n := range names {
			drop = drop || strings.HasPrefix(l, "\""+n+": ")
		}
		if !drop {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
