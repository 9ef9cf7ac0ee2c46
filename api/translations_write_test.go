package api_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

func TestAddTranslation(t *testing.T) {
	e := mustCrudEnv(t)
	ctx := context.Background()
	url := e.srv.URL + "/api/components/demo/app/translations/"
	admin := servertest.MustUser(t, e.db, "ada", false, [2]string{"Administration", "demo"})
	translator := servertest.MustUser(t, e.db, "tom", false, [2]string{"Translate", "demo"})

	wantResponse(t, "anonymous", servertest.DoJSON(t, "POST", url, "", map[string]any{"language_code": "fr"}), 401, notSignedIn)
	wantResponse(t, "translator", servertest.DoJSON(t, "POST", url, translator, map[string]any{"language_code": "fr"}), 403,
		denied("Can not create translation"))
	wantResponse(t, "no code", servertest.DoJSON(t, "POST", url, admin, map[string]any{}), 400, invalid(required("language_code")))
	wantResponse(t, "unknown", servertest.DoJSON(t, "POST", url, admin, map[string]any{"language_code": "xx"}), 400,
		invalid([3]string{"language_code", "invalid", "Could not add 'xx'!"}))
	wantResponse(t, "existing", servertest.DoJSON(t, "POST", url, admin, map[string]any{"language_code": "de"}), 400,
		invalid([3]string{"language_code", "invalid", "Translation for this language already exists."}))

	r := servertest.DoJSON(t, "POST", url, admin, map[string]any{"language_code": "fr"})
	wantResponse(t, "add", r, 201, "")
	data := servertest.Obj(t, servertest.Decode(t, r.Body)["data"])
	want := servertest.Shape{}
	for k, v := range translationShape {
		if k != "component" {
			want[k] = v
		}
	}
	servertest.CheckShape(t, "added translation", data, want)
	// The demo component names files posix_long: French is fr_FR.
	if data["filename"] != "locales/fr_FR.json" || data["total"] != jsonNum(6) || data["translated"] != jsonNum(0) ||
		data["url"] != e.srv.URL+"/api/translations/demo/app/fr/" {
		t.Errorf("added = %v", data)
	}
	units := servertest.GetObject(t, e.srv.URL+"/api/translations/demo/app/fr/units/")
	if first := servertest.Results(t, units)[0]; first["state"] != jsonNum(0) || first["source"].([]any)[0] != "Hello" {
		t.Errorf("first unit = %v", first)
	}
	if got := changeActions(t, e.srv.URL+"/api/translations/demo/app/fr/changes/"); !slices.Equal(got, []string{"48 by ada"}) {
		t.Errorf("changes = %v, want Language added by ada", got)
	}
	if lang := servertest.GetObject(t, e.srv.URL+"/api/languages/fr/statistics/"); lang["total"] != jsonNum(6) {
		t.Errorf("French statistics = %v", lang)
	}
	c, err := e.db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := e.db.FindPendingFiles(ctx, c.ID); len(files) != 1 || files[0].UserID == 0 ||
		files[0] != (index.PendingFile{Path: "locales/fr_FR.json", Operation: "add", LanguageCode: "fr", UserID: files[0].UserID}) {
		t.Errorf("pending files = %v, want fr_FR.json to add, by the user", files)
	}
	// A code as files spell it resolves to the language.
	wantResponse(t, "alias", servertest.DoJSON(t, "POST", url, admin, map[string]any{"language_code": "pt-br"}), 201, "")
	servertest.GetObject(t, e.srv.URL+"/api/translations/demo/app/pt_BR/")

	for _, tc := range []struct {
		name   string
		change func(*index.Component)
		detail string
	}{
		{"turned off", func(c *index.Component) { c.NewLang = "none" },
			"Adding new translations is turned off in the component configuration."},
		{"locked", func(c *index.Component) { c.Locked = true }, "This component is currently locked."},
	} {
		c, _ := e.db.FindComponent(ctx, "demo", "app")
		tc.change(&c)
		if _, _, err := e.db.SaveComponent(ctx, c); err != nil {
			t.Fatal(err)
		}
		e.setLocked(t, "demo", "app", c.Locked)
		wantResponse(t, tc.name, servertest.DoJSON(t, "POST", url, admin, map[string]any{"language_code": "it"}), 403, denied(tc.detail))
		c.NewLang = "add"
		if _, _, err := e.db.SaveComponent(ctx, c); err != nil {
			t.Fatal(err)
		}
		e.setLocked(t, "demo", "app", false)
	}
}

func TestDeleteTranslation(t *testing.T) {
	e := mustCrudEnv(t)
	admin := servertest.MustUser(t, e.db, "ada", false, [2]string{"Administration", "demo"})
	translator := servertest.MustUser(t, e.db, "tom", false, [2]string{"Translate", "demo"})
	url := e.srv.URL + "/api/translations/demo/app/de/"
	wantResponse(t, "anonymous", servertest.DoJSON(t, "DELETE", url, "", nil), 401, notSignedIn)
	wantResponse(t, "translator", servertest.DoJSON(t, "DELETE", url, translator, nil), 403, denied("Can not delete translation"))
	wantResponse(t, "source", servertest.DoJSON(t, "DELETE", e.srv.URL+"/api/translations/demo/app/en/", admin, nil), 403,
		denied("Can not delete translation"))
	wantResponse(t, "delete", servertest.DoJSON(t, "DELETE", url, admin, nil), 204, "")
	wantResponse(t, "after", servertest.Do(t, "GET", url, nil), 404, "")
	if got := changeActions(t, e.srv.URL+"/api/components/demo/app/changes/"); got[len(got)-1] != "25 by ada" {
		t.Errorf("component changes end with %v, want Translation removed by ada", got[len(got)-1])
	}
	if st := servertest.GetObject(t, e.srv.URL+"/api/projects/demo/statistics/"); st["total"] != jsonNum(12) {
		t.Errorf("project total = %v, want the 6 source and 6 glossary strings left", st["total"])
	}
}

// TestDeletedTranslationStaysDeleted: the file of a translation deleted
// through the API stays in the repository until the next commit; an
// import (a pull, a hook) must not bring the translation back.
func TestDeletedTranslationStaysDeleted(t *testing.T) {
	e := mustCrudEnv(t)
	ctx := context.Background()
	admin := servertest.MustUser(t, e.db, "ada", false, [2]string{"Administration", "demo"})
	c, err := e.db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	c.Repo = mustBareRepo(t, map[string]string{"locales/en.json": `{"hello": "Hello"}`,
		"locales/de.json": `{"hello": "Hallo"}`})
	if c, _, err = e.db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sync.ImportComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	url := e.srv.URL + "/api/translations/demo/app/de/"
	wantResponse(t, "delete", servertest.DoJSON(t, "DELETE", url, admin, nil), 204, "")
	if _, err := e.sync.ImportComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	wantResponse(t, "after an import", servertest.Do(t, "GET", url, nil), 404, "")
}
