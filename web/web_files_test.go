package web_test

import (
	"bytes"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// uploadFormRE finds the upload form: its action and the CSRF token,
// which must be its first field so the upload reads it before the file.
var uploadFormRE = regexp.MustCompile(`<form method="post" action="([^"]+)" enctype="multipart/form-data" class="upload">\s*<input type="hidden" name="csrf_token" value="([0-9a-f]+)">`)

// TestTranslationPageFiles: the translation page downloads the file
// through the API with the session, and uploads through the API's upload
// with the session's CSRF token, showing the counts.
func TestTranslationPageFiles(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	mustPassword(t, e.DB, "anna", "correct horse")
	mustPassword(t, e.DB, "nobody", "correct horse")
	anon := newBrowser(t, e.Srv.URL)
	page := string(anon.get("/projects/demo/app/de/").Body)
	for _, want := range []string{`href="` + e.Srv.URL + `/api/translations/demo/app/de/file/" download`,
		`/translate/demo/app/de/?q=state%3Aempty">Untranslated strings (`, `Strings needing editing (`, `All strings (`} {
		if !strings.Contains(page, want) {
			t.Errorf("translation page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "multipart/form-data") {
		t.Errorf("anonymous is offered an upload")
	}
	// Someone without the right is not offered one either.
	nobody := newBrowser(t, e.Srv.URL)
	nobody.signIn("nobody", "correct horse")
	if strings.Contains(string(nobody.get("/projects/demo/app/de/").Body), "multipart/form-data") {
		t.Errorf("nobody is offered an upload")
	}

	anna := newBrowser(t, e.Srv.URL)
	anna.signIn("anna", "correct horse")
	// Posting the form anyway is the API's refusal.
	nobodyToken := csrf(t, nobody.get("/projects/demo/").Body)
	if r := formUpload(t, nobody, "/projects/demo/app/de/upload/", uploadField{csrf: nobodyToken}); r.Status != http.StatusForbidden {
		t.Errorf("upload by nobody = %d %s", r.Status, r.Body)
	}
	page = string(anna.get("/projects/demo/app/de/").Body)
	m := uploadFormRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("anna is offered no upload, or its form does not start with the CSRF token:\n%s", page)
	}
	action, token := strings.TrimPrefix(html.UnescapeString(m[1]), e.Srv.URL), m[2]
	// The token travels in the body, where no access log records it.
	if strings.Contains(action, "?") || strings.Contains(action, token) {
		t.Errorf("upload form's action %q carries a query", action)
	}
	for _, method := range []string{"translate", "approve", "suggest", "fuzzy", "replace", "source", "add"} {
		if !strings.Contains(page, "<option>"+method+"</option>") {
			t.Errorf("upload form lacks method %s", method)
		}
	}
	for _, tc := range []struct {
		name  string
		path  string
		field uploadField
	}{
		{"no token", action, uploadField{}},
		{"wrong token", action, uploadField{csrf: strings.Repeat("0", len(token))}},
		{"token in the query", action + "?csrf_token=" + token, uploadField{}},
		{"token after the file", action, uploadField{csrf: token, last: true}},
		{"token in a huge field", action, uploadField{csrf: token + strings.Repeat("0", 1<<20)}},
		{"token in a file part", action, uploadField{csrf: token, asFile: true}},
	} {
		if r := formUpload(t, anna, tc.path, tc.field); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "CSRF") {
			t.Errorf("upload, %s = %d %s", tc.name, r.Status, r.Body)
		}
	}
	if u := e.Units(t, "app", "de")["farewell"]; u.Target[0] == "Auf Wiedersehen" {
		t.Fatalf("an upload without the token was applied")
	}
	r := formUpload(t, anna, action, uploadField{csrf: token})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Upload (translate): 2 accepted, 2 skipped, 1 not found, 6 in the file.") {
		t.Fatalf("upload = %d %s", r.Status, r.Body)
	}
	if u := e.Units(t, "app", "de")["farewell"]; u.Target[0] != "Auf Wiedersehen" {
		t.Errorf("farewell after the upload = %q", u.Target)
	}
	// The download is the API's, with the session for a reader.
	if r := anna.get("/api/translations/demo/app/de/file/"); r.Status != http.StatusOK ||
		!strings.Contains(string(r.Body), "Auf Wiedersehen") {
		t.Errorf("download = %d %s", r.Status, r.Body)
	}
}

// uploadField is where formUpload puts the CSRF token: none when csrf
// is "", else the first part, or the last with last, or a file part
// with asFile.
type uploadField struct {
	csrf         string
	last, asFile bool
}

// formUpload posts deUpload from browser b to path, as the page's form
// does: the CSRF token first, then the method and the file.
func formUpload(t *testing.T, b *browser, path string, f uploadField) servertest.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	token := func() {
		switch {
		case f.csrf == "":
		case f.asFile:
			w, _ := mw.CreateFormFile("csrf_token", "token.txt")
			io.WriteString(w, f.csrf)
		default:
			mw.WriteField("csrf_token", f.csrf)
		}
	}
	if !f.last {
		token()
	}
	mw.WriteField("method", "translate")
	w, _ := mw.CreateFormFile("file", "de.json")
	io.WriteString(w, servertest.DeUpload)
	if f.last {
		token()
	}
	mw.Close()
	return b.send("POST", path, http.Header{"Content-Type": {mw.FormDataContentType()}}, &body)
}
