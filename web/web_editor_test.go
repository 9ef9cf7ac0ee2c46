package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// seedShop adds project "shop": a monolingual component "ui" in German
// and Arabic with placeholders and a plural, and a glossary.
func seedShop(tb testing.TB, db *sqlstore.DB) {
	tb.Helper()
	ar, _ := langdata.Default().Get("ar")
	if err := db.SeedLanguages(context.Background(), []index.Language{ar}); err != nil {
		tb.Fatal(err)
	}
	p := servertest.MustProject(tb, db, index.Project{Name: "Shop", Slug: "shop"})
	ui := index.DefaultComponent()
	ui.ProjectID, ui.Name, ui.Slug, ui.Filemask, ui.Template = p.ID, "UI", "ui", "*.json", "en.json"
	ui = servertest.MustComponent(tb, db, ui)
	plural := index.ImportUnit{Context: "apples", Source: []string{"One apple", "{count} apples"}}
	src := []index.ImportUnit{
		servertest.Unit("greet", "Hello {name}, have an apple", "", index.StateReadOnly),
		servertest.Unit("pears", "%d pears in the basket", "", index.StateReadOnly),
		servertest.Unit("bye", "Good bye", "", index.StateReadOnly), plural,
	}
	for i := range src {
		src[i].Target, src[i].State = src[i].Source, index.StateReadOnly
	}
	srcID := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: ui.ID, LanguageCode: "en", Filename: "en.json",
		Revision: "s1", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
	plural.Target, plural.State = []string{"", ""}, index.StateEmpty
	servertest.MustImport(tb, db, index.TranslationImport{ComponentID: ui.ID, LanguageCode: "de", Filename: "de.json",
		Revision: "d1,s1", Monolingual: true, SourceTranslationID: srcID, Units: []index.ImportUnit{
			servertest.Unit("greet", "Hello {name}, have an apple", "Hallo, nimm einen Apfel", index.StateFuzzy),
			servertest.Unit("pears", "%d pears in the basket", "", index.StateEmpty),
			servertest.Unit("bye", "Good bye", "", index.StateEmpty), plural}})
	servertest.MustImport(tb, db, index.TranslationImport{ComponentID: ui.ID, LanguageCode: "ar", Filename: "ar.json",
		Revision: "a1,s1", Monolingual: true, SourceTranslationID: srcID, Units: []index.ImportUnit{
			servertest.Unit("greet", "Hello {name}, have an apple", "مرحبا {name}", index.StateTranslated)}})

	g := index.DefaultComponent()
	g.ProjectID, g.Name, g.Slug, g.IsGlossary, g.Filemask, g.FileFormat = p.ID, "Terms", "terms", true, "*.tbx", "tbx"
	g = servertest.MustComponent(tb, db, g)
	gsrc := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: g.ID, LanguageCode: "en", Filename: "en.tbx",
		Revision: "g1", IsSource: true, Units: []index.ImportUnit{servertest.Unit("", "apple", "apple", index.StateReadOnly),
			servertest.Unit("", "pear", "pear", index.StateReadOnly), servertest.Unit("", "basket", "basket", index.StateReadOnly)}})
	servertest.MustImport(tb, db, index.TranslationImport{ComponentID: g.ID, LanguageCode: "de", Filename: "de.tbx",
		Revision: "g2", SourceTranslationID: gsrc, Units: []index.ImportUnit{servertest.Unit("", "apple", "Apfel", index.StateTranslated),
			servertest.Unit("", "pear", "Birne", index.StateTranslated), servertest.Unit("", "basket", "Korb", index.StateTranslated)}})
}

func shopServer(t *testing.T) (*servertest.Running, *sqlstore.DB) {
	t.Helper()
	db := servertest.MustOpenDB(t)
	seedShop(t, db)
	servertest.MustUser(t, db, "anna", false, [2]string{"Translate", "shop"})
	mustPassword(t, db, "anna", "correct horse")
	servertest.MustUser(t, db, "otto", false)
	mustPassword(t, db, "otto", "correct horse")
	return servertest.Serve(t, db, servertest.Options{}), db
}

func TestEditorPage(t *testing.T) {
	srv, _ := shopServer(t)
	cases := []struct {
		name, path string
		want, not  []string
	}{
		{"first string", "/translate/shop/ui/de/", []string{
			`<mark class="ph" data-insert="{name}" title="Click to insert">{name}</mark>`, `<dt>apple</dt><dd lang="de" dir="ltr">Apfel</dd>`,
			`Missing placeholders: <span>{name}</span>`, `String <strong>1</strong> of <strong>4</strong>`,
			`<textarea name="target" lang="de" dir="ltr"`, "Needs editing", `Sign in</a> to translate`,
		}, []string{`<dt>pear</dt>`, `id="save"`, `id="prev"`}},
		// Whole words only: "pears" is not the term "pear".
		{"placeholders and terms", "/translate/shop/ui/de/?offset=2", []string{
			`<mark class="ph" data-insert="%d" title="Click to insert">%d</mark>`, `<dt>basket</dt><dd lang="de" dir="ltr">Korb</dd>`, `id="prev"`, `id="next"`,
		}, []string{`<dt>pear</dt>`, `<p class="missing" id="missing">`}},
		{"plural", "/translate/shop/ui/de/?offset=4", []string{
			`<p class="form">One apple</p><p class="form"><mark class="ph" data-insert="{count}" title="Click to insert">{count}</mark> apples</p>`,
			"<span>one — 1</span>", "<span>other — 0, 2, 3, 4, …</span>",
		}, []string{`id="next"`}},
		{"filter", "/translate/shop/ui/de/?q=state:empty", []string{
			`String <strong>1</strong> of <strong>3</strong>`, `<code>pears</code>`,
			`<a href="` + srv.URL + `/translate/shop/ui/de/?q=state%3Aempty" data-nav class="current" aria-current="page">Untranslated</a>`,
		}, []string{`<code>greet</code>`}},
		{"search", "/translate/shop/ui/de/?q=basket", []string{`of <strong>1</strong>`, "%d pears"}, nil},
		{"next after an id", "/translate/shop/ui/de/?q=state:empty&after=2", []string{`<code>bye</code>`}, nil},
		{"nothing matches", "/translate/shop/ui/de/?q=zebra", []string{"No strings match."}, []string{"<textarea"}},
		{"right to left", "/translate/shop/ui/ar/", []string{`<textarea name="target" lang="ar" dir="rtl"`,
			`<div class="source" lang="en" dir="ltr">`}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := servertest.GetPage(t, srv.URL+tc.path, http.StatusOK)
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q:\n%s", w, body)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("page holds %q", n)
				}
			}
		})
	}
	// A bad search is the API's 400, on a page.
	if body := servertest.GetPage(t, srv.URL+"/translate/shop/ui/de/?q=a+OR", http.StatusBadRequest); !strings.Contains(body, "missing term at character 5.") {
		t.Errorf("bad search page:\n%s", body)
	}
	// The script swaps in the main part only.
	r := servertest.Do(t, "GET", srv.URL+"/translate/shop/ui/de/?offset=2", http.Header{"X-Tolk-Partial": {"1"}})
	if r.Status != http.StatusOK || strings.Contains(string(r.Body), "<html") || !strings.Contains(string(r.Body), "%d pears") {
		t.Errorf("partial = %d %s", r.Status, r.Body)
	}
}

var (
	idRE      = regexp.MustCompile(`name="id" value="(\d+)"`)
	versionRE = regexp.MustCompile(`name="version" value="([0-9a-f]+)"`)
)

// editorState is what the editor page of a browser shows: the unit's id
// and version and the session's CSRF token.
func editorState(t *testing.T, b *browser, path string) (id, version, token string) {
	t.Helper()
	r := b.get(path)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, r.Status, r.Body)
	}
	id, version = string(idRE.FindSubmatch(r.Body)[1]), string(versionRE.FindSubmatch(r.Body)[1])
	return id, version, csrf(t, r.Body)
}

func saveJSON(b *browser, token string, body map[string]any) servertest.Response {
	data, _ := json.Marshal(body)
	h := http.Header{"Content-Type": {"application/json"}}
	if token != "" {
		h.Set("X-CSRF-Token", token)
	}
	return b.send("POST", "/translate/shop/ui/de/save/", h, strings.NewReader(string(data)))
}

// TestEditorSaveFixups: the editor's save gets the API's autofixes and
// says which ran, for the editor's notice.
func TestEditorSaveFixups(t *testing.T) {
	srv, _ := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, token := editorState(t, anna, "/translate/shop/ui/de/?q=state:empty")
	r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "q": "state:empty",
		"target": []string{"%d Birnen im Korb  "}})
	got := decodeJSON(t, r.Body)
	if r.Status != http.StatusOK || fmt.Sprint(got["fixups"]) != "[Trailing and leading whitespace]" {
		t.Fatalf("save = %d %s, want the whitespace fixup named", r.Status, r.Body)
	}
	if unit := servertest.GetObject(t, srv.URL+"/api/units/"+id+"/"); unit["target"].([]any)[0] != "%d Birnen im Korb" {
		t.Errorf("stored target %q", unit["target"])
	}
}

func TestEditorSave(t *testing.T) {
	srv, _ := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, token := editorState(t, anna, "/translate/shop/ui/de/?q=state:empty")
	save := map[string]any{"id": json.Number(id), "version": version, "q": "state:empty",
		"target": []string{"%d Birnen im Korb"}}

	if r := saveJSON(anna, "", save); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "CSRF") {
		t.Errorf("save without CSRF = %d %s", r.Status, r.Body)
	}
	if r := saveJSON(newBrowser(t, srv.URL), token, save); r.Status != http.StatusForbidden {
		t.Errorf("save from another browser with the token = %d %s", r.Status, r.Body)
	}
	r := saveJSON(anna, token, save)
	next := srv.URL + "/translate/shop/ui/de/?after=" + id + "&q=state%3Aempty"
	if r.Status != http.StatusOK || decodeJSON(t, r.Body)["next"] != next {
		t.Fatalf("save = %d %s, want next %s", r.Status, r.Body, next)
	}
	// The API shows the edit, by anna, and the statistics moved.
	unit := servertest.GetObject(t, srv.URL+"/api/units/"+id+"/")
	if unit["target"].([]any)[0] != "%d Birnen im Korb" || servertest.Num(unit["state"]) != "20" {
		t.Errorf("unit after save = %v", unit)
	}
	ch := servertest.Results(t, servertest.GetObject(t, srv.URL+"/api/changes/?user=anna"))
	if len(ch) == 0 || !strings.HasSuffix(ch[0]["author"].(string), "/api/users/anna/") ||
		!strings.HasSuffix(ch[0]["unit"].(string), "/api/units/"+id+"/") {
		t.Errorf("anna's changes = %v", ch)
	}
	if st := servertest.GetObject(t, srv.URL+"/api/translations/shop/ui/de/statistics/"); servertest.Num(st["translated"]) != "1" {
		t.Errorf("translated after save = %v", st["translated"])
	}
	// The next untranslated string follows; the list has shrunk.
	if body := anna.get(strings.TrimPrefix(next, srv.URL)).Body; !strings.Contains(string(body), `<code>bye</code>`) ||
		!strings.Contains(string(body), `of <strong>2</strong>`) {
		t.Errorf("next page:\n%s", body)
	}

	// A save over what someone else saved since is refused, both texts
	// shown, nothing overwritten.
	save["target"] = []string{"Meine Birnen"}
	r = saveJSON(anna, token, save)
	got := decodeJSON(t, r.Body)
	if r.Status != http.StatusConflict || got["theirs"].([]any)[0] != "%d Birnen im Korb" || got["yours"].([]any)[0] != "Meine Birnen" {
		t.Errorf("stale save = %d %s", r.Status, r.Body)
	}
	if u := servertest.GetObject(t, srv.URL+"/api/units/"+id+"/"); u["target"].([]any)[0] != "%d Birnen im Korb" {
		t.Errorf("stale save overwrote: %v", u["target"])
	}
	// Without JavaScript: a form post, and the conflict page.
	form := url.Values{"csrf_token": {token}, "id": {id}, "version": {version}, "target": {"Meine Birnen"}}
	if r := anna.post("/translate/shop/ui/de/save/", form); r.Status != http.StatusConflict ||
		!strings.Contains(string(r.Body), "<q>%d Birnen im Korb</q>") || !strings.Contains(string(r.Body), "<q>Meine Birnen</q>") {
		t.Errorf("stale form save = %d %s", r.Status, r.Body)
	}
	_, version, _ = editorState(t, anna, "/translate/shop/ui/de/?q=id:"+id)
	form.Set("version", version)
	form.Set("fuzzy", "1")
	if r := anna.post("/translate/shop/ui/de/save/", form); r.Status != http.StatusSeeOther ||
		r.Header.Get("Location") != srv.URL+"/translate/shop/ui/de/?after="+id {
		t.Errorf("form save = %d %v %s", r.Status, r.Header, r.Body)
	}
	if u := servertest.GetObject(t, srv.URL+"/api/units/"+id+"/"); u["target"].([]any)[0] != "Meine Birnen" || servertest.Num(u["state"]) != "10" {
		t.Errorf("after the form save: %v %v", u["target"], u["state"])
	}

	// Anonymous and users without the right are refused as the API
	// refuses them.
	anon := newBrowser(t, srv.URL)
	anonToken := csrf(t, anon.get("/accounts/login/").Body)
	if r := saveJSON(anon, anonToken, save); r.Status != http.StatusUnauthorized {
		t.Errorf("anonymous save = %d %s", r.Status, r.Body)
	}
	otto := newBrowser(t, srv.URL)
	ottoToken := otto.signIn("otto", "correct horse")
	_, version, _ = editorState(t, otto, "/translate/shop/ui/de/?q=id:"+id)
	save["version"] = version
	if r := saveJSON(otto, ottoToken, save); r.Status != http.StatusForbidden {
		t.Errorf("save without the right = %d %s", r.Status, r.Body)
	}
	if body := otto.get("/translate/shop/ui/de/").Body; !strings.Contains(string(body), "You may not translate this project.") ||
		strings.Contains(string(body), `id="save"`) {
		t.Errorf("otto's editor offers saving:\n%s", body)
	}
	// A unit of another translation is not saved through this one.
	save["id"], save["version"] = json.Number("1"), "0"
	if r := saveJSON(anna, token, save); r.Status != http.StatusNotFound {
		t.Errorf("save of a unit elsewhere = %d %s", r.Status, r.Body)
	}
}

// TestEditorLocked: a locked component's editor offers no saving, and a
// save posted anyway is the API's refusal.
func TestEditorLocked(t *testing.T) {
	srv, db := shopServer(t)
	ctx := context.Background()
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, token := editorState(t, anna, "/translate/shop/ui/de/?q=key:bye")
	comp, err := db.FindComponent(ctx, "shop", "ui")
	if err == nil {
		_, err = db.SetComponentLock(ctx, comp.ID, true, index.Actor{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if body := string(anna.get("/translate/shop/ui/de/?q=key:bye").Body); strings.Contains(body, `id="save"`) ||
		!strings.Contains(body, "This component is locked") {
		t.Errorf("locked editor:\n%s", body)
	}
	if r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "target": []string{"Tschüss"}}); r.Status != http.StatusForbidden {
		t.Errorf("save into a locked component = %d %s", r.Status, r.Body)
	}
}

// TestEditorReview: the approved state is offered to reviewers where
// the project reviews translations, and saved as approved.
func TestEditorReview(t *testing.T) {
	srv, db := shopServer(t)
	ctx := context.Background()
	servertest.MustUser(t, db, "rita", false, [2]string{"Review strings", "shop"})
	mustPassword(t, db, "rita", "correct horse")
	rita := newBrowser(t, srv.URL)
	rita.signIn("rita", "correct horse")
	if body := rita.get("/translate/shop/ui/de/").Body; strings.Contains(string(body), `name="approved"`) {
		t.Errorf("approval offered without review on")
	}
	p, err := db.FindProject(ctx, "shop")
	if err == nil {
		_, _, err = db.UpdateProject(ctx, p.ID, func(p *index.Project) error { p.TranslationReview = true; return nil })
	}
	if err != nil {
		t.Fatal(err)
	}
	id, version, token := editorState(t, rita, "/translate/shop/ui/de/?q=key:bye")
	if body := rita.get("/translate/shop/ui/de/?q=key:bye").Body; !strings.Contains(string(body), `name="approved"`) {
		t.Fatalf("approval not offered to a reviewer:\n%s", body)
	}
	r := saveJSON(rita, token, map[string]any{"id": json.Number(id), "version": version, "target": []string{"Tschüss"}, "approved": true})
	if u := servertest.GetObject(t, srv.URL+"/api/units/"+id+"/"); r.Status != http.StatusOK || servertest.Num(u["state"]) != "30" {
		t.Errorf("approved save = %d %s; state %v", r.Status, r.Body, u["state"])
	}
	// A translator's approval is the API's refusal, in its words.
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, token = editorState(t, anna, "/translate/shop/ui/de/?q=key:pears")
	if r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "target": []string{"%d Birnen"}, "approved": true}); r.Status != http.StatusBadRequest ||
		!strings.Contains(string(r.Body), "Insufficient privileges for approving translations.") {
		t.Errorf("translator's approval = %d %s", r.Status, r.Body)
	}
	// With reviews on, a translated string waits for review; one a
	// source change left needing rewriting (11) is shown so, with the
	// needs-editing box ticked: a save keeps it for review.
	pearsID, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	setPears := func(state index.State) {
		t.Helper()
		if _, err := db.UpdateUnit(ctx, pearsID, index.Actor{}, func(u index.Unit, _ index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"%d Birnen im Korb"}, State: state}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	setPears(index.StateTranslated)
	if page := string(anna.get("/translate/shop/ui/de/").Body); !strings.Contains(page, "<td>Waiting for review</td>") ||
		strings.Contains(page, "<td>Translated</td>") {
		t.Errorf("reviews on: a translated string is not shown as waiting for review")
	}
	setPears(index.StateNeedsRewriting)
	page := string(anna.get("/translate/shop/ui/de/?q=key:pears").Body)
	if !strings.Contains(page, `<dd class="state">Needs rewriting</dd>`) ||
		!regexp.MustCompile(`name="fuzzy" value="1" checked`).MatchString(page) {
		t.Errorf("a string needing rewriting: state label or ticked box missing")
	}
	// The approve box is the reviewers'; an approved string is theirs
	// too: the translator sees why instead of a box that fails on save.
	page = string(anna.get("/translate/shop/ui/de/?q=key:bye").Body)
	if strings.Contains(page, `name="approved"`) || strings.Contains(page, `id="save"`) ||
		!strings.Contains(page, "Only reviewers can change approved strings. Please add a suggestion") {
		t.Errorf("translator on an approved string: approve box, save button or no reason:\n%s", page)
	}
	id, version, token = editorState(t, anna, "/translate/shop/ui/de/?q=key:bye")
	if r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "target": []string{"Ciao"}}); r.Status != http.StatusForbidden ||
		!strings.Contains(string(r.Body), "Only reviewers can change approved strings.") {
		t.Errorf("translator's save of an approved string = %d %s", r.Status, r.Body)
	}
	// Without suggestions, nobody is told to add one.
	c, err := db.FindComponent(ctx, "shop", "ui")
	if err != nil {
		t.Fatal(err)
	}
	c.EnableSuggestions = false
	if _, _, err := db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	page = string(anna.get("/translate/shop/ui/de/?q=key:bye").Body)
	if !strings.Contains(page, "Only reviewers can change approved strings.") || strings.Contains(page, "add a suggestion") {
		t.Errorf("suggestions off: the editor still tells translators to add one")
	}
	// Turning reviews off keeps the string approved, drops the rule.
	if _, _, err := db.UpdateProject(ctx, p.ID, func(p *index.Project) error { p.TranslationReview = false; return nil }); err != nil {
		t.Fatal(err)
	}
	page = string(anna.get("/translate/shop/ui/de/?q=key:bye").Body)
	if !strings.Contains(page, `id="save"`) || strings.Contains(page, `name="approved"`) {
		t.Errorf("reviews off: the translator cannot edit the approved string, or is offered approval")
	}
}

func TestEditorPrivate(t *testing.T) {
	srv, db := shopServer(t)
	ctx := context.Background()
	p, err := db.FindProject(ctx, "shop")
	if err == nil {
		_, _, err = db.UpdateProject(ctx, p.ID, func(p *index.Project) error { p.AccessControl = index.AccessPrivate; return nil })
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/projects/shop/", "/translate/shop/ui/de/", "/projects/shop/ui/de/"} {
		servertest.GetPage(t, srv.URL+path, http.StatusNotFound)
	}
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	for _, path := range []string{"/projects/shop/", "/translate/shop/ui/de/", "/projects/shop/ui/de/", "/"} {
		if r := anna.get(path); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Shop") {
			t.Errorf("anna: GET %s = %d", path, r.Status)
		}
	}
	for _, path := range []string{"/", "/languages/de/"} {
		if body := servertest.GetPage(t, srv.URL+path, http.StatusOK); strings.Contains(body, "Shop") {
			t.Errorf("%s shows a private project to everyone:\n%s", path, body)
		}
	}
	if r := anna.get("/languages/de/"); !strings.Contains(string(r.Body), `<a href="`+srv.URL+`/engage/shop/-/de/">Shop</a>`) {
		t.Errorf("anna's language page lacks Shop:\n%s", r.Body)
	}
}

// firstGermanUnit is the first unit of shop/ui in German.
func firstGermanUnit(t *testing.T, db *sqlstore.DB) index.Unit {
	t.Helper()
	ctx := context.Background()
	tr, err := db.FindTranslation(ctx, "shop", "ui", "de")
	if err != nil {
		t.Fatal(err)
	}
	units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 1}})
	if err != nil || len(units) != 1 {
		t.Fatalf("units: %v %v", units, err)
	}
	return units[0]
}

// TestEditorShowsNewestChanges: a string with more changes than a page
// of them shows its newest five.
func TestEditorShowsNewestChanges(t *testing.T) {
	srv, db := shopServer(t)
	ctx := context.Background()
	units := []index.Unit{firstGermanUnit(t, db)}
	for i := 1; i <= 57; i++ {
		if _, err := db.UpdateUnit(ctx, units[0].ID, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{fmt.Sprintf("edit %d.", i)}, State: index.StateTranslated}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	body := servertest.GetPage(t, srv.URL+"/translate/shop/ui/de/", http.StatusOK)
	for _, want := range []string{"edit 53.", "edit 56."} {
		if !strings.Contains(body, want) {
			t.Errorf("the editor lacks the recent change %q", want)
		}
	}
	if strings.Contains(body, "edit 52.") || strings.Contains(body, "edit 50.") {
		t.Error("the editor shows changes older than the newest five")
	}
}

// TestEditorSaveBadInput: a save that does not parse, names no string
// or is too big is a 400 with its reason, and saves nothing.
func TestEditorSaveBadInput(t *testing.T) {
	srv, _ := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, token := editorState(t, anna, "/translate/shop/ui/de/?q=state:empty")
	jsonHeader := http.Header{"Content-Type": {"application/json"}, "X-CSRF-Token": {token}}
	formHeader := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-CSRF-Token": {token}}
	huge := `{"id": ` + id + `, "target": ["` + strings.Repeat("x", 1<<20) + `"]}`
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
		want   string
	}{
		{"malformed JSON", jsonHeader, `{"id": `, "The save does not parse"},
		{"id not a number", jsonHeader, `{"id": "seven", "target": ["x"]}`, "The save does not parse"},
		{"over 1 MiB", jsonHeader, huge, "The save does not parse"},
		{"form without id", formHeader, url.Values{"target": {"x"}, "version": {version}}.Encode(), "The save names no string."},
		{"form with a bad id", formHeader, url.Values{"id": {"x1"}, "target": {"x"}}.Encode(), "The save names no string."},
	} {
		r := anna.send("POST", "/translate/shop/ui/de/save/", tc.header, strings.NewReader(tc.body))
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), tc.want) {
			t.Errorf("%s: %d %.300s, want 400 with %q", tc.name, r.Status, r.Body, tc.want)
		}
	}
	// Nothing was saved: the string is still the one to translate first.
	if again, _, _ := editorState(t, anna, "/translate/shop/ui/de/?q=state:empty"); again != id {
		t.Errorf("after the bad saves the first untranslated string is %s, was %s", again, id)
	}
}

// TestEditorSaveCheckText: the editor's save refuses what every unit
// write refuses (index.CheckText): a NUL, a text too long for its source
// and, from a form, bytes that are not UTF-8; nothing is saved.
func TestEditorSaveCheckText(t *testing.T) {
	srv, _ := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, token := editorState(t, anna, "/translate/shop/ui/de/?q=state:empty")
	// The first untranslated string is "%d pears in the basket": 220
	// characters at most.
	for _, tc := range []struct{ name, text, want string }{
		{"a NUL", "a\x00b", "Null characters are not allowed."},
		{"too long for its source", strings.Repeat("x", 221), "Translation text too long!"},
	} {
		r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "target": []string{tc.text}})
		if r.Status != http.StatusBadRequest || decodeJSON(t, r.Body)["error"] != tc.want {
			t.Errorf("%s: %d %.300s, want 400 %q", tc.name, r.Status, r.Body, tc.want)
		}
	}
	form := "csrf_token=" + url.QueryEscape(token) + "&id=" + id + "&version=" + version + "&target=a%FFb"
	r := anna.send("POST", "/translate/shop/ui/de/save/", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		strings.NewReader(form))
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "The text is not valid UTF-8.") {
		t.Errorf("a form save not in UTF-8: %d %.300s", r.Status, r.Body)
	}
	if again, _, _ := editorState(t, anna, "/translate/shop/ui/de/?q=state:empty"); again != id {
		t.Errorf("after the refused saves the first untranslated string is %s, was %s", again, id)
	}
}

// TestEditorHistoryTruncatesLongTexts: a long text in a string's
// history (older data, or an import) is shown by its start, with a link
// to the change holding the whole text, and the page stays small.
func TestEditorHistoryTruncatesLongTexts(t *testing.T) {
	srv, db := shopServer(t)
	ctx := context.Background()
	units := []index.Unit{firstGermanUnit(t, db)}
	long := strings.Repeat("x", 1<<20)
	for _, text := range []string{long, "short again"} {
		if _, err := db.UpdateUnit(ctx, units[0].ID, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{text}, State: index.StateTranslated}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	body := servertest.GetPage(t, srv.URL+"/translate/shop/ui/de/?q=id:"+fmt.Sprint(units[0].ID), http.StatusOK)
	if len(body) > 64<<10 {
		t.Fatalf("the editor is %d bytes: the history's long text is not truncated", len(body))
	}
	changes, _, err := db.FindChanges(ctx, index.ChangeFilter{UnitID: units[0].ID, Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		t.Fatal(err)
	}
	var longID int64
	for _, ch := range changes {
		if ch.Target == long {
			longID = ch.ID
		}
	}
	link := fmt.Sprintf(`href="%s/api/changes/%d/"`, srv.URL, longID)
	if !strings.Contains(body, fmt.Sprintf("… [truncated: %d bytes]", len(long))) || !strings.Contains(body, link) {
		t.Errorf("the editor's history lacks the marker or the link %s", link)
	}
}

// leavingStore holds the editor's list query until the request's
// context ends, as a slow query does when its client goes away, and
// then fails with the context's error.
type leavingStore struct {
	*sqlstore.DB
	entered chan struct{}
}

func (s leavingStore) FindUnits(ctx context.Context, f index.UnitFilter) ([]index.Unit, int, error) {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, 0, fmt.Errorf("find units: %w", ctx.Err())
}

// TestEditorClientGoneIsNotServerError: an editor request whose client
// leaves while its query runs is logged as the request log documents
// it, 499 at WARN, and nothing of it at ERROR (the cancelled query used
// to be logged as a server error).
func TestEditorClientGoneIsNotServerError(t *testing.T) {
	db := servertest.MustOpenDB(t)
	seedShop(t, db)
	store := leavingStore{DB: db, entered: make(chan struct{}, 1)}
	srv := servertest.Serve(t, store, servertest.Options{})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /translate/shop/ui/de/ HTTP/1.1\r\nHost: %s\r\n\r\n", srv.Listener.Addr())
	select {
	case <-store.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the editor never queried its units")
	}
	conn.Close()
	var logs string
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if logs = srv.Logs.String(); strings.Contains(logs, `"msg":"request"`) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the request was never logged:\n%s", logs)
		}
	}
	if strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("a client that left is logged as a server error:\n%s", logs)
	}
	if !strings.Contains(logs, `"level":"WARN","msg":"request"`) || !strings.Contains(logs, `"status":499`) {
		t.Errorf("the request of a client that left is not logged as 499 at WARN:\n%s", logs)
	}
}

// TestEditorSaveHintsTarget: the editor's save passes the store the
// target it saves (UpdateUnitExpecting), as the API's PATCH does; a
// save without a target passes none.
func TestEditorSaveHintsTarget(t *testing.T) {
	db := servertest.MustOpenDB(t)
	seedShop(t, db)
	servertest.MustUser(t, db, "anna", false, [2]string{"Translate", "shop"})
	mustPassword(t, db, "anna", "correct horse")
	hints := &servertest.EditHints{Store: db}
	srv := servertest.Serve(t, hints, servertest.Options{})
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, token := editorState(t, anna, "/translate/shop/ui/de/?q=state:empty")
	unit, _ := strconv.ParseInt(id, 10, 64)
	hints.Take()
	if r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version,
		"target": []string{"%d Birnen"}}); r.Status != http.StatusOK {
		t.Fatalf("save = %d %s", r.Status, r.Body)
	}
	if got := hints.Take(); len(got) != 1 || got[0].Unit != unit || !got[0].Ok || len(got[0].Target) != 1 || got[0].Target[0] != "%d Birnen" {
		t.Errorf("save hinted %+v, want [%%d Birnen] for unit %d", got, unit)
	}
	_, version, _ = editorState(t, anna, "/translate/shop/ui/de/?q=id:"+id)
	saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version})
	if got := hints.Take(); len(got) != 1 || got[0].Ok {
		t.Errorf("a save without a target hinted %+v, want one write without a hint", got)
	}
}
