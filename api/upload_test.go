package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/servertest"
)

const deURL = "/api/translations/demo/app/de/file/"

// doUpload sends file as the multipart part "file" (named file.json, as
// wlc names it) with the given form fields, name and value in turn.
func doUpload(tb testing.TB, method, url, auth, file string, fields ...string) servertest.Response {
	tb.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for i := 0; i+1 < len(fields); i += 2 {
		if err := mw.WriteField(fields[i], fields[i+1]); err != nil {
			tb.Fatal(err)
		}
	}
	w, err := mw.CreateFormFile("file", "file.json")
	if err == nil {
		_, err = io.WriteString(w, file)
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		tb.Fatal(err)
	}
	h := http.Header{"Content-Type": {mw.FormDataContentType()}}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	return servertest.DoBody(tb, method, url, h, &body)
}

// wantUploaded checks a 200 upload answer's counts (not_found, skipped,
// accepted, total) and its compatibility fields.
func wantUploaded(tb testing.TB, r servertest.Response, notFound, skipped, accepted, total int) {
	tb.Helper()
	want := fmt.Sprintf(`{"not_found":%d,"skipped":%d,"accepted":%d,"total":%d,"result":%t,"count":%d}`,
		notFound, skipped, accepted, total, accepted > 0, total)
	if r.Status != http.StatusOK || string(r.Body) != want {
		tb.Fatalf("upload = %d %s, want 200 %s", r.Status, r.Body, want)
	}
}

// wantError checks an error answer's status and its one entry, whose
// code is the one its status has ("invalid" for a 400).
func wantError(tb testing.TB, r servertest.Response, status int, attr, detail string) {
	tb.Helper()
	code := map[int]string{400: "invalid", 401: "not_authenticated", 403: "permission_denied", 404: "not_found"}[status]
	wantErrorCode(tb, r, status, code, attr, detail)
}

func wantErrorCode(tb testing.TB, r servertest.Response, status int, code, attr, detail string) {
	tb.Helper()
	typ := "client_error"
	if status == http.StatusBadRequest {
		typ = "validation_error"
	}
	a := "null"
	if attr != "" {
		a = `"` + attr + `"`
	}
	want := fmt.Sprintf(`{"type":%q,"errors":[{"code":%q,"detail":%q,"attr":%s}]}`, typ, code, detail, a)
	if r.Status != status || string(r.Body) != want {
		tb.Errorf("got %d %s\nwant %d %s", r.Status, r.Body, status, want)
	}
}

// TestUploadTranslate uploads with the default method and checks the
// reference's counts, the units written and their changes (one 9 per
// unit, one 78 with the counts, 45 for a first contribution), the
// statistics at every level, and that a second upload of the same file
// accepts nothing and still answers 200.
func TestUploadTranslate(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	statsURLs := []string{"/api/projects/demo/statistics/", "/api/languages/de/statistics/"}
	var before []map[string]any
	for _, u := range statsURLs {
		before = append(before, servertest.GetObject(t, e.Srv.URL+u))
	}
	r := doUpload(t, "POST", e.Srv.URL+deURL, e.Anna, servertest.DeUpload, "method", "translate")
	// total: 6 units; considered: the 5 translated; greeting and menu.file
	// are translated already (conflicts ignored): skipped.
	wantUploaded(t, r, 1, 2, 2, 6)

	units := e.Units(t, "app", "de")
	for ctx, want := range map[string]string{"farewell": "Auf Wiedersehen", "menu.view": "Ansicht",
		"greeting": "Hallo, {name}!", "menu.help": ""} {
		if u := units[ctx]; u.Target[0] != want {
			t.Errorf("%s = %q, want %q", ctx, u.Target[0], want)
		}
	}
	if u := units["farewell"]; u.State != index.StateTranslated || !u.Pending {
		t.Errorf("farewell state %d pending %v, want 20 and pending", u.State, u.Pending)
	}
	if u := units["greeting"]; u.Pending {
		t.Error("greeting was skipped but is pending")
	}

	actions, upload := e.ActionsBy(t, "app", "de", "anna")
	if fmt.Sprint(actions) != "[9 45 9 78]" {
		t.Errorf("changes by anna = %v, want [9 45 9 78]", actions)
	}
	if upload.AuthorName != "anna" || upload.UnitID != 0 ||
		upload.Details != `{"method":"translate","not_found":1,"skipped":2,"accepted":2,"total":6}` {
		t.Errorf("file upload change = %+v", upload)
	}

	tr := servertest.GetObject(t, e.Srv.URL+"/api/translations/demo/app/de/")
	if servertest.Num(tr["translated"]) != "6" || tr["last_author"] != "anna Example" {
		t.Errorf("translation translated = %v, last_author = %v; want 6 and anna", tr["translated"], tr["last_author"])
	}
	for i, u := range statsURLs {
		after := servertest.GetObject(t, e.Srv.URL+u)
		if b, a := servertest.Num(before[i]["translated"]), servertest.Num(after["translated"]); fmt.Sprint(mustAtoi(t, b)+2) != a {
			t.Errorf("%s translated %s → %s, want +2", u, b, a)
		}
	}

	r = doUpload(t, "PUT", e.Srv.URL+deURL, e.Anna, servertest.DeUpload)
	wantUploaded(t, r, 1, 4, 0, 6)
	if actions, _ := e.ActionsBy(t, "app", "de", "anna"); fmt.Sprint(actions) != "[9 45 9 78 78]" {
		t.Errorf("after an upload accepting nothing, changes by anna = %v, want one more 78", actions)
	}
}

func mustAtoi(tb testing.TB, s string) int {
	tb.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		tb.Fatalf("%q is not a number", s)
	}
	return n
}

// TestUploadDownloadRoundTrip uploads translations and downloads the file
// before any commit: it holds the uploaded values, the key the committed
// file lacked inserted in its style, and every other byte as committed;
// the component's zip holds the same file.
func TestUploadDownloadRoundTrip(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	wantUploaded(t, doUpload(t, "POST", e.Srv.URL+deURL, e.Anna, servertest.DeUpload), 1, 2, 2, 6)
	r := servertest.Do(t, "GET", e.Srv.URL+deURL, nil)
	original := string(e.App.Blob(t, "locales/de.json"))
	want := strings.Replace(original, `"edit": "Bearbeiten"`, `"edit": "Bearbeiten",
        "view": "Ansicht"`, 1)
	want = strings.Replace(want, "\n    }\n}", "\n    },\n    \"farewell\": \"Auf Wiedersehen\"\n}", 1)
	if r.Status != http.StatusOK || string(r.Body) != want {
		t.Fatalf("download = %d\n%s\nwant\n%s", r.Status, r.Body, want)
	}

	r = servertest.Do(t, "GET", e.Srv.URL+"/api/components/demo/app/file/", nil)
	zr, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
	if err != nil {
		t.Fatalf("component zip: %v (%d %s)", err, r.Status, r.Body)
	}
	found := false
	for _, f := range zr.File {
		if f.Name != "demo/app/locales/de.json" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		found = string(got) == want
	}
	if !found {
		t.Error("the component zip does not hold the German file with the upload applied")
	}

	// A glossary upload changes only the term it translates.
	gURL := "/api/translations/demo/glossary/de/file/"
	tbx := `<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX" xml:lang="en"><text><body>
<termEntry><langSet xml:lang="en"><tig><term>repository</term></tig></langSet>
<langSet xml:lang="de"><tig><term>Repositorium</term></tig></langSet></termEntry>
<termEntry><langSet xml:lang="en"><tig><term>branch</term></tig></langSet>
<langSet xml:lang="de"><tig><term>Zweig</term></tig></langSet></termEntry>
</body></text></martif>`
	wantUploaded(t, doUpload(t, "POST", e.Srv.URL+gURL, e.Anna, tbx), 1, 0, 1, 2)
	r = servertest.Do(t, "GET", e.Srv.URL+gURL, nil)
	want = strings.Replace(string(e.Glossary.Blob(t, "de.tbx")), "<term/>", "<term>Repositorium</term>", 1)
	if string(r.Body) != want {
		t.Errorf("glossary download =\n%s\nwant\n%s", r.Body, want)
	}
}

// TestUploadConflictsAndReview checks which translated and approved
// strings an upload may overwrite, and who may ask for it.
func TestUploadConflictsAndReview(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	url := e.Srv.URL + deURL
	file := `{"greeting": "Servus, {name}!", "app.title": "Tolk-Vorführung"}`
	// Translators may overwrite translated strings, as the reference's
	// Translate role may (upload.overwrite).
	wantUploaded(t, doUpload(t, "POST", url, e.Anna, file, "conflicts", "replace-translated"), 0, 0, 2, 2)
	wantError(t, doUpload(t, "POST", url, e.Rita, file, "method", "approve"),
		400, "method", "This method is not available here. Translation reviews are turned off.")
	wantError(t, doUpload(t, "POST", url, e.Rita, file, "conflicts", "replace-approved"),
		400, "conflicts", "Translation reviews are turned off.")

	p := e.Translation(t, "app", "de").Component.Project
	p.TranslationReview = true
	if _, _, err := e.DB.SaveProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	wantError(t, doUpload(t, "POST", url, e.Anna, file, "method", "approve"),
		400, "method", "This method is not available here. Insufficient privileges for approving translations.")
	// "ignore" is the default spelled out: translated strings stay.
	wantUploaded(t, doUpload(t, "POST", url, e.Rita, file, "method", "approve", "conflicts", "ignore"), 0, 2, 0, 2)
	// Older clients say overwrite=yes for replace-translated: what is
	// there already is skipped, and approving overwrites it.
	wantUploaded(t, doUpload(t, "POST", url, e.Anna, file, "overwrite", "yes"), 0, 2, 0, 2)
	wantUploaded(t, doUpload(t, "POST", url, e.Rita, file, "method", "approve", "overwrite", "yes"), 0, 0, 2, 2)
	if u := e.Units(t, "app", "de")["greeting"]; u.State != index.StateApproved || u.Target[0] != "Servus, {name}!" {
		t.Errorf("greeting = %q state %d, want approved upload", u.Target[0], u.State)
	}
	// Approved strings need replace-approved, and that needs a reviewer.
	file = `{"greeting": "Grüß Gott, {name}!"}`
	wantUploaded(t, doUpload(t, "POST", url, e.Rita, file, "conflicts", "replace-translated"), 0, 1, 0, 1)
	wantError(t, doUpload(t, "POST", url, e.Anna, file, "conflicts", "replace-approved"),
		400, "conflicts", "Insufficient privileges for approving translations.")
	wantUploaded(t, doUpload(t, "POST", url, e.Rita, file, "conflicts", "replace-approved"), 0, 0, 1, 1)
	if actions, _ := e.ActionsBy(t, "app", "de", "rita"); fmt.Sprint(actions) != "[78 9 45 9 78 78 9 78]" {
		t.Errorf("changes by rita = %v", actions)
	}

	// method=fuzzy marks what it writes as needing editing.
	wantUploaded(t, doUpload(t, "POST", url, e.Anna, `{"farewell": "Tschüss"}`, "method", "fuzzy", "fuzzy", "process"), 0, 0, 1, 1)
	if u := e.Units(t, "app", "de")["farewell"]; u.State != index.StateFuzzy {
		t.Errorf("farewell state = %d, want 10", u.State)
	}
	tr := servertest.GetObject(t, e.Srv.URL+"/api/translations/demo/app/de/")
	if servertest.Num(tr["fuzzy"]) != "1" {
		t.Errorf("translation fuzzy = %v, want 1", tr["fuzzy"])
	}
	indextest.CheckCounts(t, e.DB)

	// Reviews turned off: approved strings stay approved, and an upload
	// still skips them, since replacing them needs a review nobody may
	// give now.
	wantUploaded(t, doUpload(t, "POST", url, e.Rita, `{"greeting": "Grüß Gott, {name}!"}`, "method", "approve",
		"conflicts", "replace-approved"), 0, 0, 1, 1)
	p.TranslationReview = false
	if _, _, err := e.DB.SaveProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if u := e.Units(t, "app", "de")["greeting"]; u.State != index.StateApproved {
		t.Errorf("greeting after reviews were turned off: state %d, want 30", u.State)
	}
	file = `{"greeting": "Moin, {name}!"}`
	wantUploaded(t, doUpload(t, "POST", url, e.Anna, file, "conflicts", "replace-translated"), 0, 1, 0, 1)
	wantError(t, doUpload(t, "POST", url, e.Rita, file, "conflicts", "replace-approved"),
		400, "conflicts", "Translation reviews are turned off.")
	if u := e.Units(t, "app", "de")["greeting"]; u.State != index.StateApproved || u.Target[0] != "Grüß Gott, {name}!" {
		t.Errorf("greeting = %q state %d, want the approved text kept", u.Target[0], u.State)
	}
	indextest.CheckCounts(t, e.DB)
}

// TestUploadPermissions checks the layers in the reference's order: 401
// for anonymous callers and bad tokens, 404 for a private project the
// caller cannot see, 403 from upload.perform, then 400 on method from the
// method's own permission.
func TestUploadPermissions(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	expired := servertest.MustScopedUser(t, e.DB, "old", true, index.Token{Scope: index.ScopeAdmin,
		Expires: time.Now().Add(-time.Hour)})
	readOnly := servertest.MustScopedUser(t, e.DB, "reader", false, index.Token{Scope: index.ScopeRead},
		[2]string{"Translate", "demo"})
	file := `{"farewell": "Tschüss"}`
	notAvailable := "This method is not available here. "
	for _, tc := range []struct {
		name, auth, path, method string
		status                   int
		attr, detail             string
	}{
		{"anonymous", "", deURL, "translate", 401, "", "Authentication credentials were not provided."},
		{"no role", e.Nobody, deURL, "translate", 403, "", "Insufficient privileges for saving translations."},
		{"read-only token", readOnly, deURL, "translate", 403, "", "Insufficient privileges for saving translations."},
		{"source language", e.Anna, "/api/translations/demo/app/en/file/", "translate", 403, "",
			"Insufficient privileges for editing source strings."},
		{"glossary source", e.Root, "/api/translations/demo/glossary/en/file/", "translate", 403, "",
			"The file format does not support updating source strings."},
		{"no such translation", e.Root, "/api/translations/demo/app/xx/file/", "translate", 404, "", "Not found."},
		{"suggest without the right", e.Nobody, deURL, "suggest", 403, "",
			"Insufficient privileges for saving translations."},
		{"replace, translator", e.Anna, deURL, "replace", 400, "method",
			notAvailable + "Insufficient privileges for replacing the file."},
		{"source on a translation", e.Root, deURL, "source", 400, "method",
			"Source upload is supported only on source language."},
		{"source on the template", e.Root, "/api/translations/demo/app/en/file/", "source", 400, "method",
			notAvailable + "The file format does not support updating source strings."},
		{"add to a translation", e.Adam, deURL, "add", 400, "method",
			notAvailable + "Add the string to the source language instead."},
		{"add without managing strings", e.Root, "/api/translations/demo/app/en/file/", "add", 400, "method",
			notAvailable + "Adding strings is disabled in the component configuration."},
		{"add to a glossary", e.Root, "/api/translations/demo/glossary/de/file/", "add", 400, "method",
			notAvailable + "Adding strings is disabled in the component configuration."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := doUpload(t, "POST", e.Srv.URL+tc.path, tc.auth, file, "method", tc.method)
			wantError(t, r, tc.status, tc.attr, tc.detail)
		})
	}
	r := doUpload(t, "POST", e.Srv.URL+deURL, expired, file)
	if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "authentication_failed") {
		t.Errorf("expired token: %d %s, want 401 authentication_failed", r.Status, r.Body)
	}

	// A private project is not there for whoever may not see it.
	p := e.Translation(t, "app", "de").Component.Project
	p.AccessControl = index.AccessPrivate
	if _, _, err := e.DB.SaveProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	wantError(t, doUpload(t, "POST", e.Srv.URL+deURL, e.Nobody, file), 404, "", "Not found.")
	wantUploaded(t, doUpload(t, "POST", e.Srv.URL+deURL, e.Anna, file), 0, 0, 1, 1)
	if n := len(e.Changes(t, "app", "de")); n == 0 {
		t.Error("no changes recorded")
	}
}

// TestUploadForm checks the form's validation: a body that is not
// multipart or lacks the file part, a file sent as a plain field, an
// empty file, bad choices and a bad e-mail, each a 400 on its field.
func TestUploadForm(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	url := e.Srv.URL + deURL
	wantErrorCode(t, servertest.DoJSON(t, "POST", url, e.Anna, map[string]string{"file": "{}"}), 400, "required", "file",
		"No file was submitted.")

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("file", `{"farewell": "Tschüss"}`)
	mw.Close()
	r := servertest.DoBody(t, "POST", url, http.Header{"Content-Type": {mw.FormDataContentType()}, "Authorization": {e.Anna}}, &body)
	wantError(t, r, 400, "file", "The submitted data was not a file. Check the encoding type on the form.")

	wantErrorCode(t, doUpload(t, "POST", url, e.Anna, ""), 400, "empty", "file", "The submitted file is empty.")
	r = doUpload(t, "POST", url, e.Anna, "{}", "method", "merge", "conflicts", "all", "fuzzy", "yes",
		"author_email", "not an address")
	want := `{"type":"validation_error","errors":[` +
		`{"code":"invalid","detail":"Enter a valid email address.","attr":"author_email"},` +
		`{"code":"invalid_choice","detail":"\"all\" is not a valid choice.","attr":"conflicts"},` +
		`{"code":"invalid_choice","detail":"\"yes\" is not a valid choice.","attr":"fuzzy"},` +
		`{"code":"invalid_choice","detail":"\"merge\" is not a valid choice.","attr":"method"}]}`
	if r.Status != 400 || string(r.Body) != want {
		t.Errorf("bad fields: %d %s\nwant %s", r.Status, r.Body, want)
	}
}

// TestUploadMalformedAndTooBig checks that a file that does not parse is
// a 400 naming the line and column, that a file over the limit is a 400
// whether the limit is met in the file part or in the body, and that
// neither stores anything.
func TestUploadMalformedAndTooBig(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	srv := servertest.Serve(t, e.DB, servertest.Options{Repositories: e.Svc, Files: e.Svc, MaxUploadBytes: 64})
	before := len(e.Changes(t, "app", "de"))
	r := doUpload(t, "POST", srv.URL+deURL, e.Anna, "{\"farewell\": \"Tschüss\",\n  \"quit\": }")
	body := servertest.Decode(t, r.Body)
	detail, _ := servertest.Obj(t, body["errors"].([]any)[0])["detail"].(string)
	if r.Status != 400 || !strings.HasPrefix(detail, "Could not parse uploaded file: line 2, column 11: ") ||
		!strings.Contains(string(r.Body), `"attr":"file"`) {
		t.Errorf("malformed file: %d %s", r.Status, r.Body)
	}
	wantError(t, doUpload(t, "POST", srv.URL+deURL, e.Anna, `{"farewell": "`+strings.Repeat("x", 64)+`"}`),
		400, "file", "Uploaded translation file is too big.")
	// A body far over the limit is cut off before it is read.
	wantError(t, doUpload(t, "POST", srv.URL+deURL, e.Anna, "{}", "author_name", strings.Repeat("x", 2<<20)),
		400, "file", "Uploaded translation file is too big.")
	if after := len(e.Changes(t, "app", "de")); after != before {
		t.Errorf("changes %d → %d: a refused upload recorded something", before, after)
	}
	if u := e.Units(t, "app", "de")["farewell"]; u.Pending || u.Target[0] != "" {
		t.Errorf("farewell = %q pending %v after refused uploads", u.Target[0], u.Pending)
	}
	// A byte order mark is not part of the JSON.
	wantUploaded(t, doUpload(t, "POST", srv.URL+deURL, e.Anna, "\ufeff{\"farewell\": \"Tschüss\"}"), 0, 0, 1, 1)
}

// TestUploadAuthorship checks that the author fields credit another
// person only for a user with upload.authorship: an unknown address
// becomes an inactive user who cannot sign in, a known one is reused, and
// without the permission the fields are ignored.
func TestUploadAuthorship(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	url := e.Srv.URL + deURL
	wantUploaded(t, doUpload(t, "POST", url, e.Adam, `{"farewell": "Tschüss"}`,
		"author_name", "Erika Muster", "author_email", "erika@example.org"), 0, 0, 1, 1)
	erika, err := e.DB.FindUser(context.Background(), "erika@example.org")
	if err != nil || erika.IsActive || erika.FullName != "Erika Muster" || erika.Email != "erika@example.org" {
		t.Fatalf("author = %+v, %v; want an inactive user for the address", erika, err)
	}
	_, last := e.ActionsBy(t, "app", "de", "adam")
	if last.Action != index.ActionFileUpload || last.AuthorName != "erika@example.org" {
		t.Errorf("last change by adam = %+v, want 78 authored by erika", last)
	}
	if tr := servertest.GetObject(t, e.Srv.URL+"/api/translations/demo/app/de/"); tr["last_author"] != "Erika Muster" {
		t.Errorf("last_author = %v, want Erika Muster", tr["last_author"])
	}
	// The same address again: the same user. anna's address: anna.
	wantUploaded(t, doUpload(t, "POST", url, e.Adam, `{"menu.view": "Ansicht"}`,
		"author_email", "ERIKA@example.org"), 0, 0, 1, 1)
	wantUploaded(t, doUpload(t, "POST", url, e.Adam, `{"menu.help": "Hilfe"}`,
		"author_email", "anna@example.com"), 0, 0, 1, 1)
	authors := map[string]string{}
	for _, ch := range e.Changes(t, "app", "de") {
		if ch.Action == index.ActionUpload {
			authors[ch.Target] = ch.AuthorName
		}
	}
	if authors["Ansicht"] != "erika@example.org" || authors["Hilfe"] != "anna" {
		t.Errorf("authors by target = %v", authors)
	}
	// Without upload.authorship the fields are ignored, not refused.
	wantUploaded(t, doUpload(t, "POST", url, e.Anna, `{"items.count": "{count} Artikel"}`,
		"author_name", "Someone", "author_email", "someone@example.org"), 0, 0, 1, 1)
	if _, last := e.ActionsBy(t, "app", "de", "anna"); last.AuthorName != "anna" {
		t.Errorf("author without the permission = %s, want anna", last.AuthorName)
	}
	if _, err := e.DB.FindUser(context.Background(), "someone@example.org"); err == nil {
		t.Error("an author was created for a user without upload.authorship")
	}
}

// TestUploadAdd adds strings by uploading the template: new keys become
// source strings of every translation, existing ones are skipped, each
// new unit records 31 and the upload 78, and the template download gains
// the keys in its nested style.
func TestUploadAdd(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	c := e.Component(t, "app")
	c.ManageUnits, c.EditTemplate = true, true
	if _, _, err := e.DB.SaveComponent(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	g := e.Component(t, "glossary")
	g.ManageUnits = true
	if _, _, err := e.DB.SaveComponent(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	wantError(t, doUpload(t, "POST", e.Srv.URL+"/api/translations/demo/glossary/de/file/", e.Adam, "<martif/>", "method", "add"),
		400, "method", "This method is not available here. The file format does not support this.")
	wantError(t, doUpload(t, "POST", e.Srv.URL+"/api/translations/demo/app/en/file/", e.Rita, "{}", "method", "add"),
		403, "", "Insufficient privileges for editing source strings.")

	before := e.Units(t, "app", "de")
	file := `{"greeting": "Hello, {name}!", "menu": {"quit": "Quit"}, "status.ok": "All good", "greeting": "again"}`
	r := doUpload(t, "POST", e.Srv.URL+"/api/translations/demo/app/en/file/", e.Adam, file, "method", "add")
	wantUploaded(t, r, 0, 1, 2, 3)

	for _, lang := range []string{"en", "de", "fr", "pt_BR"} {
		units := e.Units(t, "app", lang)
		q, s := units["menu.quit"], units["status.ok"]
		if q.ID == 0 || s.ID == 0 || q.Source[0] != "Quit" || s.Source[0] != "All good" {
			t.Errorf("%s: added units %+v %+v", lang, q, s)
			continue
		}
		if lang == "en" {
			if q.State != index.StateReadOnly || !q.Pending || q.SourceUnitID != q.ID {
				t.Errorf("en: menu.quit state %d pending %v source %d", q.State, q.Pending, q.SourceUnitID)
			}
		} else if q.State != index.StateEmpty || q.Pending || q.Target[0] != "" {
			t.Errorf("%s: menu.quit state %d pending %v target %q", lang, q.State, q.Pending, q.Target[0])
		}
	}
	if tr := servertest.GetObject(t, e.Srv.URL+"/api/translations/demo/app/de/"); servertest.Num(tr["total"]) != fmt.Sprint(len(before)+2) {
		t.Errorf("de total = %v, want %d", tr["total"], len(before)+2)
	}
	if actions, _ := e.ActionsBy(t, "app", "de", "adam"); fmt.Sprint(actions) != "[31 31]" {
		t.Errorf("de changes by adam = %v, want two 31", actions)
	}
	if actions, _ := e.ActionsBy(t, "app", "en", "adam"); fmt.Sprint(actions) != "[31 31 78]" {
		t.Errorf("en changes by adam = %v, want [31 31 78]", actions)
	}

	r = servertest.Do(t, "GET", e.Srv.URL+"/api/translations/demo/app/en/file/", nil)
	original := string(e.App.Blob(t, "locales/en.json"))
	want := strings.Replace(original, `"help": "Help"`, `"help": "Help",
        "quit": "Quit"`, 1)
	want = strings.Replace(want, "\"Language\"\n}", "\"Language\",\n    \"status\": {\n        \"ok\": \"All good\"\n    }\n}", 1)
	if string(r.Body) != want {
		t.Errorf("template download =\n%s\nwant\n%s", r.Body, want)
	}
	// The German file lacks the new keys: they are untranslated.
	if r := servertest.Do(t, "GET", e.Srv.URL+deURL, nil); string(r.Body) != string(e.App.Blob(t, "locales/de.json")) {
		t.Errorf("German download changed by an add:\n%s", r.Body)
	}
}

// TestUploadReplace: the translation takes what the file holds, strings
// the file lacks become untranslated, and the next commit (here: the
// download, which renders pending edits) writes it in the file's shape.
func TestUploadReplace(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	file := `{"greeting": "Servus, {name}!", "menu": {"file": "Datei"}, "nope": "x"}`
	wantError(t, doUpload(t, "POST", e.Srv.URL+deURL, e.Anna, file, "method", "replace"), 400, "method",
		"This method is not available here. Insufficient privileges for replacing the file.")
	// greeting changes, menu.file is kept, nope is not found; app.title
	// and menu.edit are not in the file.
	wantUploaded(t, doUpload(t, "POST", e.Srv.URL+deURL, e.Adam, file, "method", "replace"), 1, 0, 2, 3)

	units := e.Units(t, "app", "de")
	for ctx, want := range map[string]struct {
		target  string
		state   index.State
		pending bool
	}{
		"greeting":  {"Servus, {name}!", index.StateTranslated, true},
		"menu.file": {"Datei", index.StateTranslated, false},
		"app.title": {"", index.StateEmpty, true},
		"menu.edit": {"", index.StateEmpty, true},
		"farewell":  {"", index.StateEmpty, false},
	} {
		u := units[ctx]
		if u.Target[0] != want.target || u.State != want.state || u.Pending != want.pending {
			t.Errorf("%s = %q state %d pending %v, want %+v", ctx, u.Target[0], u.State, u.Pending, want)
		}
	}
	if actions, _ := e.ActionsBy(t, "app", "de", "adam"); fmt.Sprint(actions) != "[9 45 9 9 54 78]" {
		t.Errorf("changes by adam = %v, want [9 45 9 9 54 78]", actions)
	}
	if tr := servertest.GetObject(t, e.Srv.URL+"/api/translations/demo/app/de/"); servertest.Num(tr["translated"]) != "2" {
		t.Errorf("translated = %v, want 2", tr["translated"])
	}
	r := servertest.DoJSON(t, "GET", e.Srv.URL+deURL, e.Adam, nil)
	if r.Status != 200 || !bytes.Contains(r.Body, []byte(`"greeting": "Servus, {name}!"`)) ||
		!bytes.Contains(r.Body, []byte(`"file": "Datei"`)) || bytes.Contains(r.Body, []byte("Bearbeiten")) ||
		bytes.Contains(r.Body, []byte("nope")) {
		t.Errorf("download after replace = %d %s", r.Status, r.Body)
	}
	// Replacing again with the same file changes nothing more.
	wantUploaded(t, doUpload(t, "POST", e.Srv.URL+deURL, e.Adam, file, "method", "replace"), 1, 0, 2, 3)
	if actions, _ := e.ActionsBy(t, "app", "de", "adam"); fmt.Sprint(actions) != "[9 45 9 9 54 78 54 78]" {
		t.Errorf("changes by adam after a second replace = %v", actions)
	}
}
