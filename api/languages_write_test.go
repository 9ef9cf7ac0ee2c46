package api_test

import (
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

func TestLanguageWrites(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	url := srv.URL + "/api/languages/"
	root := servertest.MustUser(t, db, "root", true)
	admin := servertest.MustUser(t, db, "ada", false, [2]string{"Administration", "demo"})
	tlh := map[string]any{"code": "tlh", "name": "Klingon", "direction": "ltr", "population": 12,
		"plural": map[string]any{"number": 2, "formula": "n != 1"}}

	wantResponse(t, "anonymous", servertest.DoJSON(t, "POST", url, "", tlh), 401, notSignedIn)
	wantResponse(t, "project admin", servertest.DoJSON(t, "POST", url, admin, tlh), 403, denied("Can not manage languages"))
	wantResponse(t, "empty", servertest.DoJSON(t, "POST", url, root, map[string]any{}), 400,
		invalid(required("code"), required("name"), required("plural")))
	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"code with a space", map[string]any{"code": "new lang"}, invalid([3]string{"code", "invalid", "Enter a valid language code."})},
		{"variant alone", map[string]any{"code": "@variant"}, invalid([3]string{"code", "invalid", "Enter a valid language code."})},
		{"empty variant", map[string]any{"code": "new@"}, invalid([3]string{"code", "invalid", "Enter a valid language code."})},
		{"bad direction", map[string]any{"direction": "up"}, invalid([3]string{"direction", "invalid_choice", `"up" is not a valid choice.`})},
		{"division by zero", map[string]any{"plural": map[string]any{"number": 2, "formula": "n/0"}}, invalid([3]string{
			"plural.formula", "invalid", "Could not evaluate plural formula: langdata: invalid plural formula: divides by zero for n = 0"})},
		{"form out of range", map[string]any{"plural": map[string]any{"number": 2, "formula": "2"}}, invalid([3]string{
			"plural.formula", "invalid", "Could not evaluate plural formula: langdata: invalid plural formula: gives form 2 for n = 0, outside 0..1"})},
		{"not an expression", map[string]any{"plural": map[string]any{"number": 2, "formula": "n ?"}}, invalid([3]string{
			"plural.formula", "invalid", `Could not evaluate plural formula: langdata: invalid plural formula: at offset 3: unexpected end`})},
		{"plural without number", map[string]any{"plural": map[string]any{"formula": "n != 1"}}, invalid(required("plural.number"))},
		{"taken", map[string]any{"code": "de"}, invalid([3]string{"code", "unique", "Language with this Language code already exists."})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{}
			for k, v := range tlh {
				body[k] = v
			}
			for k, v := range tc.body {
				body[k] = v
			}
			wantResponse(t, "POST", servertest.DoJSON(t, "POST", url, root, body), 400, tc.want)
		})
	}

	r := servertest.DoJSON(t, "POST", url, root, tlh)
	wantResponse(t, "create", r, 201, "")
	l := servertest.Decode(t, r.Body)
	servertest.CheckShape(t, "created language", l, languageShape)
	plural := servertest.Obj(t, l["plural"])
	if l["url"] != url+"tlh/" || l["population"] != jsonNum(12) || plural["type"] != jsonNum(1) || plural["formula"] != "n != 1" {
		t.Errorf("created = %v", l)
	}
	if got := servertest.GetObject(t, url+"tlh/"); got["name"] != "Klingon" {
		t.Errorf("GET = %v", got)
	}
	// wlc's own request: code, name, direction and a plural.
	wantResponse(t, "wlc", servertest.DoJSON(t, "POST", url, root, map[string]any{"code": "new_lang@variant", "name": "New",
		"direction": "rtl", "plural": map[string]any{"number": 2, "formula": "n != 1"}}), 201, "")

	r = servertest.DoJSON(t, "PATCH", url+"tlh/", root, map[string]any{"name": "tlhIngan Hol", "plural": map[string]any{"number": 1, "formula": "0"}})
	wantResponse(t, "PATCH", r, 200, "")
	if got := servertest.Decode(t, r.Body); got["name"] != "tlhIngan Hol" || servertest.Obj(t, got["plural"])["number"] != jsonNum(1) {
		t.Errorf("patched = %v", got)
	}
	wantResponse(t, "PATCH one form too few", servertest.DoJSON(t, "PATCH", url+"tlh/", root,
		map[string]any{"plural": map[string]any{"formula": "n != 1"}}), 400, invalid([3]string{"plural.formula", "invalid",
		"Could not evaluate plural formula: langdata: invalid plural formula: gives form 1 for n = 0, outside 0..0"}))
	wantResponse(t, "PUT without plural", servertest.DoJSON(t, "PUT", url+"tlh/", root, map[string]any{"code": "tlh", "name": "K"}),
		400, invalid(required("plural")))
	wantResponse(t, "PUT", servertest.DoJSON(t, "PUT", url+"tlh/", root, tlh), 200, "")
	wantResponse(t, "unknown", servertest.DoJSON(t, "PATCH", url+"xx/", root, map[string]any{"name": "X"}), 404, "")

	wantResponse(t, "delete in use", servertest.DoJSON(t, "DELETE", url+"de/", root, nil), 400,
		`{"type":"validation_error","errors":[{"code":"invalid","detail":"The language de is used by 2 translations or components; remove them first.","attr":null}]}`)
	wantResponse(t, "project admin deletes", servertest.DoJSON(t, "DELETE", url+"tlh/", admin, nil), 403, denied("Can not manage languages"))
	wantResponse(t, "delete", servertest.DoJSON(t, "DELETE", url+"tlh/", root, nil), 204, "")
	wantResponse(t, "after", servertest.Do(t, "GET", url+"tlh/", nil), 404, "")
}
