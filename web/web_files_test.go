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

var uploadActionRE = regexp.MustCompile(`<form method="post" action="([^"]+)" enctype="multipart/form-data"`)

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
	if r := formUpload(t, nobody, "/projects/demo/app/de/upload/?csrf_token="+nobodyToken); r.Status != http.StatusForbidden {
		t.Errorf("upload by nobody = %d %s", r.Status, r.Body)
	}
	page = string(anna.get("/projects/demo/app/de/").Body)
	m := uploadActionRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("anna is offered no upload:\n%s", page)
	}
	action := strings.TrimPrefix(html.UnescapeString(m[1]), e.Srv.URL)
	for _, method := range []string{"translate", "approve", "suggest", "fuzzy", "replace", "source", "add"} {
		if !strings.Contains(page, "<option>"+method+"</option>") {
			t.Errorf("upload form lacks method %s", method)
		}
	}
	upload := func(path string) servertest.Response { return formUpload(t, anna, path) }
	if r := upload(strings.Split(action, "?")[0]); r.Status != http.StatusForbidden {
		t.Errorf("upload without CSRF = %d", r.Status)
	}
	r := upload(action)
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

// formUpload posts deUpload from browser b to path.
func formUpload(t *testing.T, b *browser, path string) servertest.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("method", "translate")
	w, _ := mw.CreateFormFile("file", "de.json")
	io.WriteString(w, servertest.DeUpload)
	mw.Close()
	return b.send("POST", path, http.Header{"Content-Type": {mw.FormDataContentType()}}, &body)
}
