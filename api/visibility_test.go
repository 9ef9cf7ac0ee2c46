package api_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// privateEnv is the demo (public) beside project "secret" (private), with
// a component "vault" translated into German and French; French is used
// nowhere else. Four readers: anonymous, a stranger with a token, a
// member of the private project and a superuser.
type privateEnv struct {
	srv                    *servertest.Running
	db                     *sqlstore.DB
	secret                 index.Project
	units, changes         []int64 // ids of the private project's units and changes
	comment                int64   // a comment on its first unit
	category               int64   // a category of the private project, holding vault
	stranger, member, root string
	suggestions            []int64 // one on the private project's last unit, then one on the demo's
}

// readers are the four kinds of reader, each with whether it sees the
// private project.
func (e *privateEnv) readers() []struct {
	name, auth string
	sees       bool
} {
	return []struct {
		name, auth string
		sees       bool
	}{{"anonymous", "", false}, {"stranger", e.stranger, false}, {"member", e.member, true}, {"superuser", e.root, true}}
}

func mustPrivateEnv(tb testing.TB) *privateEnv {
	tb.Helper()
	ctx := context.Background()
	db := servertest.MustOpenDB(tb)
	fr, _ := langdata.Default().Get("fr")
	if err := db.SeedLanguages(ctx, []index.Language{fr}); err != nil {
		tb.Fatal(err)
	}
	servertest.SeedDemo(tb, db)
	e := &privateEnv{db: db}
	e.secret = seedPrivate(tb, db, "secret")
	// A category in each project, the private one holding vault.
	shelf, err := db.CreateCategory(ctx, index.Category{ProjectID: e.secret.ID, Name: "Vault shelf", Slug: "shelf"})
	if err != nil {
		tb.Fatal(err)
	}
	e.category = shelf.ID
	vault, err := db.FindComponent(ctx, "secret", "vault")
	if err != nil {
		tb.Fatal(err)
	}
	if _, _, err := db.UpdateComponent(ctx, vault.ID, func(c *index.Component) error {
		c.CategoryID = shelf.ID
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	demo, err := db.FindProject(ctx, "demo")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.CreateCategory(ctx, index.Category{ProjectID: demo.ID, Name: "Public", Slug: "public"}); err != nil {
		tb.Fatal(err)
	}
	units, _, err := db.FindUnits(ctx, index.UnitFilter{Page: index.Page{Number: 1, Size: 1000}})
	if err != nil {
		tb.Fatal(err)
	}
	for _, u := range units {
		t, err := db.FindTranslationByID(ctx, u.TranslationID)
		if err != nil {
			tb.Fatal(err)
		}
		if t.Component.ProjectID == e.secret.ID {
			e.units = append(e.units, u.ID)
		}
	}
	// A suggestion on each project, for the suggestion endpoints.
	for i, id := range []int64{e.units[len(e.units)-1], demoUnitID(tb, db)} {
		target := []string{"Vault suggestion", "Vorschlag"}[i : i+1]
		out, err := db.AddSuggestion(ctx, id, index.NewSuggestion{Target: target},
			func(index.Unit, index.Translation) (index.SuggestionRights, error) {
				return index.SuggestionRights{}, nil
			})
		if err != nil {
			tb.Fatal(err)
		}
		e.suggestions = append(e.suggestions, out.Suggestion.ID)
	}
	c, err := db.AddComment(ctx, e.units[0], index.Actor{}, index.NewComment{Scope: index.ScopeTranslation,
		Comment: "Top secret"}, func(index.Unit, index.Translation) (int64, error) { return e.units[0], nil })
	if err != nil {
		tb.Fatal(err)
	}
	e.comment = c.ID
	changes, _, err := db.FindChanges(ctx, index.ChangeFilter{ProjectID: e.secret.ID, Page: index.Page{Number: 1, Size: 1000}})
	if err != nil {
		tb.Fatal(err)
	}
	for _, ch := range changes {
		e.changes = append(e.changes, ch.ID)
	}
	if len(e.units) == 0 || len(e.changes) == 0 {
		tb.Fatalf("the private project has %d units and %d changes", len(e.units), len(e.changes))
	}
	e.stranger = servertest.MustUser(tb, db, "stranger", false)
	e.member = servertest.MustUser(tb, db, "member", false, [2]string{"Translate", "secret"})
	e.root = servertest.MustUser(tb, db, "root", true)
	e.srv = servertest.Serve(tb, db, servertest.Options{})
	return e
}

// demoUnitID is the id of the demo app's German "save".
func demoUnitID(tb testing.TB, db *sqlstore.DB) int64 {
	tb.Helper()
	tr, err := db.FindTranslation(context.Background(), "demo", "app", "de")
	if err != nil {
		tb.Fatal(err)
	}
	id, err := db.FindUnitIDByHash(context.Background(), tr.ID, index.IDHash(true, nil, "save"))
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// seedPrivate adds a private project with component "vault": English
// source, German and French translations.
func seedPrivate(tb testing.TB, db *sqlstore.DB, slug string) index.Project {
	tb.Helper()
	p := servertest.MustProject(tb, db, index.Project{Name: "Secret", Slug: slug, AccessControl: index.AccessPrivate})
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, "Vault", "vault", "*.json", "en.json"
	c = servertest.MustComponent(tb, db, c)
	src := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en", Filename: "en.json",
		Revision: "s1", IsSource: true, IsTemplate: true, Monolingual: true, Units: []index.ImportUnit{
			servertest.Unit("code", "Launch code", "Launch code", index.StateReadOnly),
			servertest.Unit("plan", "Hidden plan", "Hidden plan", index.StateReadOnly)}})
	for _, lang := range []string{"de", "fr"} {
		servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang, Filename: lang + ".json",
			Revision: "t1", Monolingual: true, SourceTranslationID: src, Units: []index.ImportUnit{
				servertest.Unit("code", "Launch code", "Startcode "+lang, index.StateTranslated),
				servertest.Unit("plan", "Hidden plan", "", index.StateEmpty)}})
	}
	return p
}

// TestPrivateObjects: every URL under a private project is a 404 to
// whoever may not see it, exactly as a missing object, and answers as
// usual to whoever may.
func TestPrivateObjects(t *testing.T) {
	e := mustPrivateEnv(t)
	paths := []string{
		"/api/projects/secret/", "/api/projects/secret/components/", "/api/projects/secret/statistics/",
		"/api/projects/secret/languages/", "/api/projects/secret/changes/",
		"/api/components/secret/vault/", "/api/components/secret/vault/translations/",
		"/api/components/secret/vault/statistics/", "/api/components/secret/vault/changes/",
		"/api/components/secret/vault/lock/", "/api/components/secret/vault/links/",
		"/api/translations/secret/vault/de/", "/api/translations/secret/vault/de/units/",
		"/api/translations/secret/vault/de/changes/", "/api/translations/secret/vault/de/statistics/",
		"/api/units/" + strconv.FormatInt(e.units[0], 10) + "/",
		"/api/units/" + strconv.FormatInt(e.units[0], 10) + "/checks/", "/api/components/secret/vault/checks/",
		"/api/units/" + strconv.FormatInt(e.units[len(e.units)-1], 10) + "/suggestions/",
		"/api/suggestions/" + strconv.FormatInt(e.suggestions[0], 10) + "/",
		"/api/units/" + strconv.FormatInt(e.units[0], 10) + "/comments/",
		"/api/comments/" + strconv.FormatInt(e.comment, 10) + "/", "/api/projects/secret/labels/",
		"/api/categories/" + strconv.FormatInt(e.category, 10) + "/",
		"/api/categories/" + strconv.FormatInt(e.category, 10) + "/statistics/", "/api/projects/secret/categories/",
		"/api/changes/" + strconv.FormatInt(e.changes[len(e.changes)-1], 10) + "/",
		"/api/projects/secret/credits/?start=2000-01-01&end=2100-01-01",
		"/api/components/secret/vault/credits/?start=2000-01-01&end=2100-01-01",
		"/api/translations/secret/vault/de/credits/?start=2000-01-01&end=2100-01-01",
		"/projects/secret/", "/projects/secret/vault/", "/projects/secret/vault/de/",
		"/translate/secret/vault/de/", "/engage/secret/-/de/", "/zen/secret/vault/de/",
		privateTeamPath(t, e.db, "secret"),
	}
	missing := servertest.Do(t, "GET", e.srv.URL+"/api/projects/nothing/", nil)
	missingPage := servertest.Do(t, "GET", e.srv.URL+"/projects/nothing/", nil)
	for _, reader := range e.readers() {
		for _, path := range paths {
			r := servertest.DoJSON(t, "GET", e.srv.URL+path, reader.auth, nil)
			want := missing
			if !strings.HasPrefix(path, "/api/") {
				want = missingPage
			}
			switch {
			case reader.sees && r.Status != http.StatusOK:
				t.Errorf("%s: GET %s = %d %s, want 200", reader.name, path, r.Status, r.Body)
			case !reader.sees && (r.Status != http.StatusNotFound || withoutNext(r.Body) != withoutNext(want.Body)):
				t.Errorf("%s: GET %s = %d %s, want the 404 of a missing object %s", reader.name, path, r.Status, r.Body, want.Body)
			}
		}
		// The public project is everyone's.
		if r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/translations/demo/app/de/", reader.auth, nil); r.Status != 200 {
			t.Errorf("%s: public translation = %d", reader.name, r.Status)
		}
	}
	// A token for another project does not see the private one, even a
	// superuser's; a member's token scoped to read still does.
	p := servertest.MustProject(t, e.db, index.Project{Name: "Other", Slug: "other"})
	for name, c := range map[string]struct {
		auth string
		want int
	}{
		"superuser token for another project": {servertest.MustScopedUser(t, e.db, "root2", true,
			index.Token{Scope: index.ScopeAdmin, ProjectID: p.ID}), 404},
		"member's read token": {servertest.MustScopedUser(t, e.db, "member2", false, index.Token{Scope: index.ScopeRead},
			[2]string{"Translate", "secret"}), 200},
	} {
		if r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/projects/secret/", c.auth, nil); r.Status != c.want {
			t.Errorf("%s: GET = %d, want %d", name, r.Status, c.want)
		}
	}
}

// walkList GETs every page of a list as auth and returns its count, the
// URLs of its results and the bodies, checking that the pages add up to
// the count.
func walkList(tb testing.TB, url, auth string) (count int, items []string, body string) {
	tb.Helper()
	for next := url; next != ""; {
		page := servertest.GetObjectAs(tb, next, auth)
		n, _ := strconv.Atoi(servertest.Num(page["count"]))
		count = n
		for _, item := range servertest.Results(tb, page) {
			id := fmt.Sprint(item["url"], item["code"])
			items = append(items, id)
			body += fmt.Sprint(item)
		}
		next, _ = page["next"].(string)
	}
	if len(items) != count {
		tb.Errorf("%s: pages hold %d items, count says %d", url, len(items), count)
	}
	return count, items, body
}

// TestPrivateLists: no list shows anything of a private project to
// whoever may not see it, and counts and pages agree with what is shown.
func TestPrivateLists(t *testing.T) {
	e := mustPrivateEnv(t)
	lists := []struct {
		path          string
		hidden, shown int // items without and with the private project
	}{
		{"/api/projects/?page_size=1", 1, 2},
		{"/api/components/?page_size=1", 2, 3},
		{"/api/translations/?page_size=2", 4, 7},
		{"/api/units/?page_size=4", 18, 24},
		{"/api/units/?page_size=4&q=is:translated", 13, 17},
		{"/api/changes/?page_size=3", -1, -1}, // counted below
		{"/api/changes/?page_size=3&action=5&action=59&action=0", -1, -1},
		{"/api/languages/?page_size=1", 2, 3},
		{"/api/suggestions/?page_size=1", 1, 2},
		{"/api/categories/?page_size=1", 1, 2},
	}
	for _, l := range lists {
		counts := map[bool]int{}
		for _, reader := range e.readers() {
			count, _, body := walkList(t, e.srv.URL+l.path, reader.auth)
			leaks := strings.Contains(body, "/secret/") || strings.Contains(body, "Vault") ||
				(strings.HasPrefix(l.path, "/api/languages/") && strings.Contains(body, "/api/languages/fr/"))
			if leaks != reader.sees {
				t.Errorf("%s: %s shows the private project: %v, want %v", reader.name, l.path, leaks, reader.sees)
			}
			if prev, ok := counts[reader.sees]; ok && prev != count {
				t.Errorf("%s: %s count %d, another reader alike got %d", reader.name, l.path, count, prev)
			}
			counts[reader.sees] = count
		}
		if l.hidden >= 0 && (counts[false] != l.hidden || counts[true] != l.shown) {
			t.Errorf("%s: counts %d hidden, %d shown; want %d and %d", l.path, counts[false], counts[true], l.hidden, l.shown)
		}
		if l.hidden < 0 && counts[true]-counts[false] <= 0 {
			t.Errorf("%s: counts %d hidden, %d shown; want fewer hidden", l.path, counts[false], counts[true])
		}
	}
	// The changes list leaves out exactly the private project's changes.
	all, _, _ := walkList(t, e.srv.URL+"/api/changes/", e.root)
	anon, _, _ := walkList(t, e.srv.URL+"/api/changes/", "")
	if all-anon != len(e.changes) {
		t.Errorf("changes: %d for the superuser, %d anonymous; the private project has %d", all, anon, len(e.changes))
	}
}

// TestPrivateLanguageStats: a language's statistics are summed over the
// projects the reader may see, so a private project's numbers never
// reach those who may not see it, not even as a difference.
func TestPrivateLanguageStats(t *testing.T) {
	e := mustPrivateEnv(t)
	for _, reader := range e.readers() {
		for code, totals := range map[string][2]string{"de": {"9", "11"}, "fr": {"0", "2"}} {
			st := servertest.GetObjectAs(t, e.srv.URL+"/api/languages/"+code+"/statistics/", reader.auth)
			want := map[string]any{"total": totals[0]}
			if reader.sees {
				want["total"] = totals[1]
			}
			if code == "fr" && !reader.sees {
				want["translated"], want["last_change"], want["recent_changes"] = "0", nil, "0"
			}
			checkValues(t, reader.name+" "+code, st, want)
			page := servertest.DoJSON(t, "GET", e.srv.URL+"/languages/"+code+"/", reader.auth, nil)
			if page.Status != 200 || !strings.Contains(string(page.Body), "<th>Strings</th><td>"+want["total"].(string)+"</td>") {
				t.Errorf("%s: language page %s = %d, want %v strings", reader.name, code, page.Status, want["total"])
			}
		}
	}
	// The public numbers are the demo's own, summed the slow way or
	// read from the language's row.
	demoOnly := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, demoOnly)
	want := servertest.GetObject(t, servertest.Serve(t, demoOnly, servertest.Options{}).URL+"/api/languages/de/statistics/")
	got := servertest.GetObject(t, e.srv.URL+"/api/languages/de/statistics/")
	for _, k := range []string{"total", "total_words", "translated", "translated_words", "fuzzy", "approved",
		"translated_percent", "last_author"} {
		if fmt.Sprint(got[k]) != fmt.Sprint(want[k]) {
			t.Errorf("anonymous de %s = %v, the demo alone has %v", k, got[k], want[k])
		}
	}
}

// withoutNext drops the sign-in link's return address from a page, the
// one part of a 404 page that names the path asked for.
func withoutNext(body []byte) string {
	return regexp.MustCompile(`\?next=[^"]*`).ReplaceAllString(string(body), "")
}

// TestPrivateMachinerySettings: a private project's machinery settings
// are a 404 to whoever may not see the project, as a missing project's,
// for every method; a member without project.edit is refused, the
// superuser reads them.
func TestPrivateMachinerySettings(t *testing.T) {
	e := mustPrivateEnv(t)
	const path = "/api/projects/secret/machinery_settings/"
	for _, method := range []string{"GET", "POST", "PATCH", "PUT"} {
		body := map[string]any{"service": "weblate"}
		missing := servertest.DoJSON(t, method, e.srv.URL+"/api/projects/nothing/machinery_settings/", e.stranger, body)
		r := servertest.DoJSON(t, method, e.srv.URL+path, e.stranger, body)
		if r.Status != http.StatusNotFound || string(r.Body) != string(missing.Body) {
			t.Errorf("stranger: %s = %d %s, want the missing project's %s", method, r.Status, r.Body, missing.Body)
		}
		if r := servertest.DoJSON(t, method, e.srv.URL+path, e.member, body); r.Status != http.StatusForbidden {
			t.Errorf("member: %s = %d %s, want 403", method, r.Status, r.Body)
		}
	}
	if r := servertest.DoJSON(t, "GET", e.srv.URL+path, e.root, nil); r.Status != http.StatusOK || string(r.Body) != "{}" {
		t.Errorf("root: GET = %d %s, want 200 {}", r.Status, r.Body)
	}
}

// TestPrivateMemory: a private project's strings never reach another
// project's memory lookups, nor the memory lists, entries and exports of
// whoever may not see the project; its members find them in its own
// lookups only (a private project never feeds the shared pool).
func TestPrivateMemory(t *testing.T) {
	e := mustPrivateEnv(t)
	const pair = "source_language=en&target_language=de"
	for _, reader := range e.readers() {
		if reader.auth == "" {
			continue // the memory is for signed-in users only
		}
		for _, q := range []string{pair, pair + "&project=demo"} {
			if got := lookup(t, e.srv.URL, reader.auth, q, "Launch code", "Launch codes"); !same(got, []string{"-", "-"}) {
				t.Errorf("%s: lookup %s = %q: the private project leaked", reader.name, q, got)
			}
		}
		in := servertest.DoJSON(t, "POST", e.srv.URL+"/api/memory/lookup/?"+pair+"&project=secret", reader.auth,
			map[string]any{"strings": []string{"Launch code"}})
		missing := servertest.DoJSON(t, "POST", e.srv.URL+"/api/memory/lookup/?"+pair+"&project=nothing", reader.auth,
			map[string]any{"strings": []string{"Launch code"}})
		switch {
		case reader.sees && (in.Status != http.StatusOK || !strings.Contains(string(in.Body), `"target":"Startcode de"`)):
			t.Errorf("%s: lookup in the private project = %d %s", reader.name, in.Status, in.Body)
		case !reader.sees && (in.Status != missing.Status || string(in.Body) != string(missing.Body)):
			t.Errorf("%s: lookup in the private project = %d %s, want the answer for a missing one %s",
				reader.name, in.Status, in.Body, missing.Body)
		}

		var list, export strings.Builder
		var privateID string
		for _, m := range memoryList(t, e.srv.URL, reader.auth, "") {
			fmt.Fprintln(&list, m)
			if m["target"] == "Startcode de" {
				privateID = servertest.Num(m["id"])
			}
		}
		for _, format := range []string{"json", "tmx"} {
			r := servertest.Do(t, "GET", e.srv.URL+"/api/memory/export/?format="+format, http.Header{"Authorization": {reader.auth}})
			export.Write(r.Body)
		}
		for what, body := range map[string]string{"list": list.String(), "export": export.String()} {
			if leaks := strings.Contains(body, "Startcode"); leaks != reader.sees {
				t.Errorf("%s: the memory %s shows the private project: %v, want %v", reader.name, what, leaks, reader.sees)
			}
		}
		if reader.sees && privateID == "" {
			t.Errorf("%s: no private entry listed", reader.name)
		}
	}
	// An entry of the private project is missing to a stranger.
	entries := memoryList(t, e.srv.URL, e.root, "project=secret")
	if len(entries) == 0 {
		t.Fatal("the private project has no memory")
	}
	id := servertest.Num(entries[0]["id"])
	got := servertest.DoJSON(t, "GET", e.srv.URL+"/api/memory/"+id+"/", e.stranger, nil)
	missing := servertest.DoJSON(t, "GET", e.srv.URL+"/api/memory/999999999/", e.stranger, nil)
	if got.Status != http.StatusNotFound || string(got.Body) != string(missing.Body) {
		t.Errorf("stranger: GET a private entry = %d %s, want %s", got.Status, got.Body, missing.Body)
	}
	if r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/memory/"+id+"/", e.member, nil); r.Status != http.StatusOK {
		t.Errorf("member: GET a private entry = %d %s", r.Status, r.Body)
	}
	// The project filter is an invalid choice for a project one may not
	// see, as for a missing one.
	a := servertest.DoJSON(t, "GET", e.srv.URL+"/api/memory/?project=secret", e.stranger, nil)
	b := servertest.DoJSON(t, "GET", e.srv.URL+"/api/memory/?project=nothing", e.stranger, nil)
	if a.Status != http.StatusBadRequest || string(a.Body) != string(b.Body) {
		t.Errorf("stranger: project=secret = %d %s, want %s", a.Status, a.Body, b.Body)
	}
}
