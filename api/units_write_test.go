package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// writeEnv is the demo served with a user of each role in project demo.
type writeEnv struct {
	srv *servertest.Running
	db  *sqlstore.DB
	// Authorization headers: translator, reviewer, string manager,
	// repository manager, project administrator, superuser, no role.
	anna, rita, sam, rob, adam, root, nobody string
}

func newWriteEnv(t *testing.T) *writeEnv {
	t.Helper()
	e := servertest.New(t, servertest.WithDemo(),
		servertest.WithUser("anna", false, [2]string{"Translate", "demo"}),
		servertest.WithUser("rita", false, [2]string{"Review strings", "demo"}),
		servertest.WithUser("sam", false, [2]string{"Manage strings", "demo"}, [2]string{"Translate", "demo"}),
		servertest.WithUser("rob", false, [2]string{"Manage repository", "demo"}),
		servertest.WithUser("adam", false, [2]string{"Administration", "demo"}),
		servertest.WithUser("root", true),
		servertest.WithUser("nobody", false))
	a := e.Auth
	return &writeEnv{srv: e.Running, db: e.DB, anna: a["anna"], rita: a["rita"], sam: a["sam"], rob: a["rob"],
		adam: a["adam"], root: a["root"], nobody: a["nobody"]}
}

// unitURL is the API URL of the unit of component comp (in project demo)
// in language lang with the given key (monolingual) or source
// (bilingual).
func (e *writeEnv) unitURL(t *testing.T, comp, lang, key string) string {
	t.Helper()
	return fmt.Sprintf("%s/api/units/%d/", e.srv.URL, e.unitID(t, comp, lang, key))
}

func (e *writeEnv) unitID(t testing.TB, comp, lang, key string) int64 {
	t.Helper()
	ctx := context.Background()
	tr, err := e.db.FindTranslation(ctx, "demo", comp, lang)
	if err != nil {
		t.Fatal(err)
	}
	hash := index.IDHash(true, nil, key)
	if !tr.Component.IsMonolingual() {
		hash = index.IDHash(false, []string{key}, "")
	}
	id, err := e.db.FindUnitIDByHash(ctx, tr.ID, hash)
	if err != nil {
		t.Fatalf("unit %s/%s %q: %v", comp, lang, key, err)
	}
	return id
}

// setComponent changes a demo component's settings.
func (e *writeEnv) setComponent(t testing.TB, slug string, change func(*index.Component)) {
	t.Helper()
	c, err := e.db.FindComponent(context.Background(), "demo", slug)
	if err != nil {
		t.Fatal(err)
	}
	change(&c)
	if _, _, err := e.db.SaveComponent(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// setProject changes project demo.
func (e *writeEnv) setProject(t testing.TB, change func(*index.Project)) {
	t.Helper()
	p, err := e.db.FindProject(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	change(&p)
	if _, _, err := e.db.SaveProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// errJSON is an error body in the reference's envelope; each entry is
// a code, a detail and an attr ("" for null).
func errJSON(typ string, entries ...[3]string) string {
	type entry struct {
		Code   string  `json:"code"`
		Detail string  `json:"detail"`
		Attr   *string `json:"attr"`
	}
	body := struct {
		Type   string  `json:"type"`
		Errors []entry `json:"errors"`
	}{Type: typ}
	for _, e := range entries {
		en := entry{Code: e[0], Detail: e[1]}
		if e[2] != "" {
			en.Attr = &e[2]
		}
		body.Errors = append(body.Errors, en)
	}
	b, _ := json.Marshal(body)
	return string(b)
}

// denied is a 403 body with the given detail.
func denied(detail string) string {
	return errJSON("client_error", [3]string{"permission_denied", detail, ""})
}

// invalidField is a 400 body naming one field.
func invalidField(attr, detail string) string {
	return errJSON("validation_error", [3]string{"invalid", detail, attr})
}

// unitChanges returns the changes of a translation (by language of a demo
// component) in order.
func (e *writeEnv) changes(t *testing.T, f index.ChangeFilter) []index.Change {
	t.Helper()
	f.Page = index.Page{Number: 1, Size: 100000}
	ch, _, err := e.db.FindChanges(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// countsOf keeps the counts of s, dropping what is not a count of units.
func countsOf(s index.Stats) index.Stats {
	s.LastChange, s.LastAuthor, s.RecentChanges = time.Time{}, "", 0
	return s
}

// checkStatsRecount compares the statistics stored for every translation,
// component, project and language with a recount of the units, as the
// API reads them, and every counter of the index with a recount of its
// rows (indextest.CheckCounts).
func checkStatsRecount(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	indextest.CheckCounts(t, db)
	ctx := context.Background()
	trs, _, err := db.FindTranslationPage(ctx, 0, index.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) == 0 {
		t.Fatal("no translations to recount")
	}
	comps, projects, langs := map[int64]*index.Stats{}, map[int64]*index.Stats{}, map[string]*index.Stats{}
	add := func(s *index.Stats, o index.Stats) *index.Stats {
		if s == nil {
			s = &index.Stats{}
		}
		s.Add(o, 1)
		return s
	}
	for _, tr := range trs {
		units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		var want index.Stats
		for i := range units {
			want.Count(&units[i])
		}
		if got := countsOf(tr.Stats); got != want {
			t.Errorf("translation %s/%s: stored %+v, recount %+v", tr.Component.Slug, tr.LanguageCode, got, want)
		}
		comps[tr.ComponentID] = add(comps[tr.ComponentID], want)
		projects[tr.Component.ProjectID] = add(projects[tr.Component.ProjectID], want)
		langs[tr.LanguageCode] = add(langs[tr.LanguageCode], want)
	}
	check := func(what string, want *index.Stats, got index.Stats, err error) {
		if err != nil {
			t.Fatal(err)
		}
		if countsOf(got) != *want {
			t.Errorf("%s: stored %+v, recount %+v", what, countsOf(got), *want)
		}
	}
	for id, want := range comps {
		got, err := db.ComponentStats(ctx, id)
		check(fmt.Sprintf("component %d", id), want, got, err)
	}
	for id, want := range projects {
		got, err := db.ProjectStats(ctx, id)
		check(fmt.Sprintf("project %d", id), want, got, err)
	}
	for code, want := range langs {
		got, err := db.LanguageStats(ctx, code)
		check("language "+code, want, got, err)
	}
}

// TestPatchUnitRefusals sends every refused unit write the reference
// describes (weblate-writes.md §1.1, checks 0–10) and checks the exact
// answer, then that none of them stored anything.
func TestPatchUnitRefusals(t *testing.T) {
	e := newWriteEnv(t)
	bye := e.unitURL(t, "app", "de", "bye")          // needs editing
	hello := e.unitURL(t, "app", "de", "hello")      // approved
	template := e.unitURL(t, "app", "en", "hello")   // a template's source string
	apple := e.unitURL(t, "glossary", "en", "apple") // a bilingual source string
	before := len(e.changes(t, index.ChangeFilter{}))
	const both = "Please provide both state and target for a partial update"

	cases := []struct {
		name, auth, url, method string
		body                    any
		status                  int
		want                    string
	}{
		{"anonymous", "", bye, "PATCH", map[string]any{"target": []string{"x"}}, 401,
			errJSON("client_error", [3]string{"not_authenticated", "Authentication credentials were not provided.", ""})},
		{"unknown unit", e.anna, e.srv.URL + "/api/units/99999/", "PATCH", map[string]any{"target": []string{"x"}}, 404,
			errJSON("client_error", [3]string{"not_found", "Not found.", ""})},
		{"malformed JSON", e.anna, bye, "PATCH", []byte(`{"target": [`), 400, ""},
		{"not an object", e.anna, bye, "PATCH", []byte(`["x"]`), 400,
			invalidField("non_field_errors", "Invalid data. Expected a dictionary, but got list.")},
		{"bad state", e.anna, bye, "PATCH", map[string]any{"target": []string{"x"}, "state": 5}, 400,
			errJSON("validation_error", [3]string{"invalid_choice", `"5" is not a valid choice.`, "state"})},
		{"state null", e.anna, bye, "PATCH", map[string]any{"target": []string{"x"}, "state": nil}, 400,
			errJSON("validation_error", [3]string{"null", "This field may not be null.", "state"})},
		{"target not a list", e.anna, bye, "PATCH", map[string]any{"target": map[string]int{"a": 1}, "state": 20}, 400,
			errJSON("validation_error", [3]string{"not_a_list", `Expected a list of items but got type "dict".`, "target"})},
		{"blank form", e.anna, bye, "PATCH", map[string]any{"target": []string{""}, "state": 20}, 400,
			errJSON("validation_error", [3]string{"blank", "This field may not be blank.", "target.0"})},
		{"null form and bad state together", e.anna, bye, "PATCH", map[string]any{"target": []any{nil}, "state": "x"}, 400,
			errJSON("validation_error", [3]string{"invalid_choice", `"x" is not a valid choice.`, "state"},
				[3]string{"null", "This field may not be null.", "target.0"})},
		{"a label", e.anna, bye, "PATCH", map[string]any{"target": []string{"x"}, "labels": []int{3}}, 400,
			errJSON("validation_error", [3]string{"does_not_exist", "Label with this ID was not found in this project.", "labels"})},
		{"PUT without target", e.anna, bye, "PUT", map[string]any{"state": 20}, 400,
			errJSON("validation_error", [3]string{"required", "This field is required.", "target"})},
		{"explanation on a translation", e.adam, bye, "PATCH", map[string]any{"explanation": "x"}, 403,
			denied("Source strings properties can be set only on source strings")},
		{"extra flags without source.edit", e.anna, apple, "PATCH", map[string]any{"extra_flags": "x"}, 403,
			denied("Source strings properties can be set only on source strings")},
		{"plurals", e.anna, bye, "PATCH", map[string]any{"target": []string{"a", "b"}, "state": 20}, 400,
			invalidField("target", "Number of plurals does not match")},
		{"empty target list", e.anna, bye, "PATCH", map[string]any{"target": []string{}, "state": 20}, 400,
			invalidField("target", "Number of plurals does not match")},
		{"bilingual source", e.root, apple, "PATCH", map[string]any{"target": []string{"x"}, "state": 20}, 403,
			denied("The string is read-only.")},
		{"template while edit_template is off", e.root, template, "PATCH", map[string]any{"target": []string{"x"}}, 403,
			denied("The string is read-only.")},
		{"state alone", e.anna, bye, "PATCH", map[string]any{"state": 20}, 400,
			errJSON("validation_error", [3]string{"invalid", both, "state"}, [3]string{"invalid", both, "target"})},
		{"needs checking", e.anna, bye, "PATCH", map[string]any{"target": []string{"x"}, "state": 12}, 400,
			invalidField("state", "This state cannot be set manually.")},
		{"read-only", e.anna, bye, "PATCH", map[string]any{"target": []string{"x"}, "state": "100"}, 400,
			invalidField("state", "Invalid state")},
		{"empty state with text", e.anna, bye, "PATCH", map[string]any{"target": []string{"x"}, "state": 0}, 400,
			invalidField("state", "Can not use empty state with non empty target")},
		{"no role", e.nobody, bye, "PATCH", map[string]any{"target": []string{"x"}, "state": 20}, 403,
			denied("Insufficient privileges for saving translations.")},
		{"repository manager", e.rob, bye, "PATCH", map[string]any{"target": []string{"x"}, "state": 20}, 403,
			denied("Insufficient privileges for saving translations.")},
		{"approve without review", e.root, bye, "PATCH", map[string]any{"target": []string{"x"}, "state": 30}, 400,
			invalidField("state", "Translation reviews are turned off.")},
		{"unsupported media type", e.anna, bye, "PATCH", nil, 415,
			errJSON("client_error", [3]string{"unsupported_media_type", `Unsupported media type "text/plain" in request.`, ""})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r servertest.Response
			if tc.status == 415 {
				r = servertest.DoBody(t, tc.method, tc.url, http.Header{"Authorization": {tc.auth},
					"Content-Type": {"text/plain"}}, strings.NewReader("target=x"))
			} else {
				r = servertest.DoJSON(t, tc.method, tc.url, tc.auth, tc.body)
			}
			if r.Status != tc.status || (tc.want != "" && string(r.Body) != tc.want) {
				t.Fatalf("%s %s = %d %s\nwant %d %s", tc.method, tc.url, r.Status, r.Body, tc.status, tc.want)
			}
			checkErrorEnvelope(t, tc.name, r)
		})
	}

	// Reviews on: an approved string is the reviewers', and approving
	// needs review rights (a 400 on state, as the reference).
	e.setProject(t, func(p *index.Project) { p.TranslationReview = true })
	for _, tc := range []struct {
		name, auth, url string
		state           int
		status          int
		want            string
	}{
		{"approved, translator", e.anna, hello, 20, 403, denied("Only reviewers can change approved strings. " +
			"Please add a suggestion if you think the string should be changed.")},
		{"approve, translator", e.anna, bye, 30, 400, invalidField("state", "Insufficient privileges for approving translations.")},
	} {
		r := servertest.DoJSON(t, "PATCH", tc.url, tc.auth, map[string]any{"target": []string{"x"}, "state": tc.state})
		if r.Status != tc.status || string(r.Body) != tc.want {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Body, tc.status, tc.want)
		}
	}

	// A private project is not there for whoever may not see it.
	e.setProject(t, func(p *index.Project) { p.AccessControl = index.AccessPrivate })
	if r := servertest.DoJSON(t, "PATCH", bye, e.nobody, map[string]any{"target": []string{"x"}}); r.Status != 404 {
		t.Errorf("private project, no role: %d %s, want 404", r.Status, r.Body)
	}
	// ... whatever it was sent: not a 400 that tells the unit exists.
	if r := servertest.DoJSON(t, "PATCH", bye, e.nobody, map[string]any{"state": 99}); r.Status != 404 {
		t.Errorf("private project, no role, bad state: %d %s, want 404", r.Status, r.Body)
	}

	if after := len(e.changes(t, index.ChangeFilter{})); after != before {
		t.Errorf("refused writes recorded %d changes", after-before)
	}
	u := servertest.GetObjectAs(t, bye, e.root) // the project is private now
	if u["target"].([]any)[0] != "Tschüss" || servertest.Num(u["state"]) != "10" || u["pending"] != false {
		t.Errorf("refused writes changed the unit: %v", u)
	}
	checkStatsRecount(t, e.db)
}

// TestPatchUnit edits strings the ways clients do and checks what is
// stored: the write serializer's answer, the unit (pending), the change
// with its action, user, author and previous text, New contributor once,
// the translation's last author and change, and statistics everywhere.
func TestPatchUnit(t *testing.T) {
	e := newWriteEnv(t)
	ctx := context.Background()
	save := e.unitURL(t, "app", "de", "save")
	saveID := e.unitID(t, "app", "de", "save")
	de, err := e.db.FindTranslation(ctx, "demo", "app", "de")
	if err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name   string
		auth   string
		body   any
		form   url.Values
		want   string // the answer's body
		action index.Action
	}{
		// wlc's edit-unit: a target without a state means translated.
		{"wlc edit-unit", e.anna, map[string]any{"target": []string{"Alles speichern"}}, nil,
			`{"target":["Alles speichern"],"state":20,"explanation":"","extra_flags":"","labels":[]}`, index.ActionNew},
		{"a bare string", e.anna, map[string]any{"target": "Alle speichern", "state": 20}, nil,
			`{"target":["Alle speichern"],"state":20,"explanation":"","extra_flags":"","labels":[]}`, index.ActionChange},
		{"needs editing, form-encoded", e.anna, nil, url.Values{"target": {"Alle sichern"}, "state": {"10"}},
			`{"target":["Alle sichern"],"state":10,"explanation":"","extra_flags":"","labels":[]}`, index.ActionMarkedEdit},
		{"the same again", e.anna, map[string]any{"target": []string{"Alle sichern"}, "state": 10}, nil,
			`{"target":["Alle sichern"],"state":10,"explanation":"","extra_flags":"","labels":[]}`, 0},
		{"PUT with the labels read back", e.rita, map[string]any{"target": []string{"Alles sichern"}, "state": 20, "labels": []int{}}, nil,
			`{"target":["Alles sichern"],"state":20,"explanation":"","extra_flags":"","labels":[]}`, index.ActionChange},
		{"emptied", e.rita, map[string]any{"target": []string{""}}, nil,
			`{"target":[""],"state":0,"explanation":"","extra_flags":"","labels":[]}`, index.ActionChange},
	}
	wantOld := ""
	for i, st := range steps {
		before := e.changes(t, index.ChangeFilter{UnitID: saveID})
		method := "PATCH"
		if strings.HasPrefix(st.name, "PUT") {
			method = "PUT"
		}
		var r servertest.Response
		if st.form != nil {
			r = servertest.DoBody(t, method, save, http.Header{"Authorization": {st.auth},
				"Content-Type": {"application/x-www-form-urlencoded"}}, strings.NewReader(st.form.Encode()))
		} else {
			r = servertest.DoJSON(t, method, save, st.auth, st.body)
		}
		if r.Status != 200 || string(r.Body) != st.want {
			t.Fatalf("%s: %d %s\nwant 200 %s", st.name, r.Status, r.Body, st.want)
		}
		var written struct {
			Target []string `json:"target"`
		}
		json.Unmarshal(r.Body, &written)
		after := e.changes(t, index.ChangeFilter{UnitID: saveID})
		var fresh []index.Change
		for _, ch := range after[len(before):] {
			if ch.Action != index.ActionNewContributor {
				fresh = append(fresh, ch)
			}
		}
		if st.action == 0 {
			if len(after) != len(before) {
				t.Errorf("%s: a write that changes nothing recorded %+v", st.name, after[len(before):])
			}
			continue
		}
		if len(fresh) != 1 || fresh[0].Action != st.action || fresh[0].Target != written.Target[0] {
			t.Fatalf("%s: changes %+v, want one %d with target %q", st.name, fresh, st.action, written.Target[0])
		}
		var details struct{ Old string }
		json.Unmarshal([]byte(fresh[0].Details), &details)
		if details.Old != wantOld {
			t.Errorf("%s: old = %q, want %q", st.name, details.Old, wantOld)
		}
		wantOld = written.Target[0]
		user := map[bool]string{true: "anna", false: "rita"}[st.auth == e.anna]
		if fresh[0].UserName != user || fresh[0].AuthorName != user {
			t.Errorf("step %d: user %q author %q, want %s", i, fresh[0].UserName, fresh[0].AuthorName, user)
		}
		u := servertest.GetObject(t, save)
		if u["pending"] != true || u["target"].([]any)[0] != written.Target[0] {
			t.Errorf("%s: unit %v", st.name, u)
		}
	}

	// New contributor once per author and translation.
	var contributors []string
	for _, ch := range e.changes(t, index.ChangeFilter{TranslationID: de.ID}) {
		if ch.Action == index.ActionNewContributor {
			contributors = append(contributors, ch.AuthorName)
		}
	}
	if !slices.Equal(contributors, []string{"anna", "rita"}) {
		t.Errorf("new contributors = %v, want anna, rita", contributors)
	}

	// The change's user and author resolve, and the translation shows
	// its last author and change.
	list := servertest.Results(t, servertest.GetObject(t, e.srv.URL+"/api/translations/demo/app/de/changes/"))
	last := list[len(list)-1]
	for _, k := range []string{"user", "author"} {
		link, _ := last[k].(string)
		if r := servertest.DoJSON(t, "GET", link, e.rita, nil); r.Status != 200 || !strings.Contains(string(r.Body), `"username":"rita"`) {
			t.Errorf("%s %q: %d %s", k, link, r.Status, r.Body)
		}
	}
	tr := servertest.GetObject(t, e.srv.URL+"/api/translations/demo/app/de/")
	if tr["last_author"] != "rita Example" || tr["last_change"] != last["timestamp"] {
		t.Errorf("translation last_author %v last_change %v, want rita Example at %v",
			tr["last_author"], tr["last_change"], last["timestamp"])
	}

	// A reviewer approves once reviews are on.
	e.setProject(t, func(p *index.Project) { p.TranslationReview = true })
	open := e.unitURL(t, "app", "de", "open")
	r := servertest.DoJSON(t, "PATCH", open, e.rita, map[string]any{"target": []string{"Datei öffnen…"}, "state": 30})
	if r.Status != 200 || !strings.Contains(string(r.Body), `"state":30`) {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	if ch := e.changes(t, index.ChangeFilter{UnitID: e.unitID(t, "app", "de", "open")}); ch[len(ch)-1].Action != index.ActionApprove {
		t.Errorf("approve recorded %+v", ch[len(ch)-1])
	}
	stats := servertest.GetObject(t, e.srv.URL+"/api/translations/demo/app/de/statistics/")
	if servertest.Num(stats["approved"]) != "2" || servertest.Num(stats["translated"]) != "2" {
		t.Errorf("statistics after the edits: %v", stats)
	}
	checkStatsRecount(t, e.db)
}

// TestPatchTemplate edits a template's source string: every translation
// follows, translated ones go back to needing editing.
func TestPatchTemplate(t *testing.T) {
	e := newWriteEnv(t)
	open := e.unitURL(t, "app", "en", "open")
	body := map[string]any{"target": []string{"Open a file"}, "state": 20}
	e.setComponent(t, "app", func(c *index.Component) { c.EditTemplate = true })
	if r := servertest.DoJSON(t, "PATCH", open, e.anna, body); r.Status != 403 ||
		string(r.Body) != denied("Insufficient privileges for editing source strings.") {
		t.Fatalf("translator: %d %s", r.Status, r.Body)
	}
	r := servertest.DoJSON(t, "PATCH", open, e.sam, body)
	if want := `{"target":["Open a file"],"state":100,"explanation":"","extra_flags":"","labels":[]}`; r.Status != 200 || string(r.Body) != want {
		t.Fatalf("string manager: %d %s, want %s", r.Status, r.Body, want)
	}
	src := servertest.GetObject(t, open)
	if src["source"].([]any)[0] != "Open a file" || src["pending"] != true || servertest.Num(src["num_words"]) != "3" {
		t.Errorf("template unit: %v", src)
	}
	deID := e.unitID(t, "app", "de", "open")
	de := servertest.GetObject(t, fmt.Sprintf("%s/api/units/%d/", e.srv.URL, deID))
	if de["source"].([]any)[0] != "Open a file" || servertest.Num(de["state"]) != "11" || de["fuzzy"] != true || de["previous_source"] != "Open file" ||
		de["target"].([]any)[0] != "Datei öffnen…" || de["pending"] != false {
		t.Errorf("translation unit: %v", de)
	}
	ch := e.changes(t, index.ChangeFilter{UnitID: deID})
	if last := ch[len(ch)-1]; last.Action != index.ActionSourceChange || last.Target != "Open a file" || last.UserName != "sam" {
		t.Errorf("translation unit's change: %+v", last)
	}
	checkStatsRecount(t, e.db)
}

// TestPatchSourceProperties sets an explanation on a glossary term.
func TestPatchSourceProperties(t *testing.T) {
	e := newWriteEnv(t)
	apple := e.unitURL(t, "glossary", "en", "apple")
	r := servertest.DoJSON(t, "PATCH", apple, e.sam, map[string]any{"explanation": "A fruit.", "extra_flags": "terminology"})
	if want := `{"target":["apple"],"state":100,"explanation":"A fruit.","extra_flags":"terminology","labels":[]}`; r.Status != 200 || string(r.Body) != want {
		t.Fatalf("%d %s, want %s", r.Status, r.Body, want)
	}
	if de := servertest.GetObject(t, e.unitURL(t, "glossary", "de", "apple")); de["explanation"] != "A fruit." {
		t.Errorf("the translation's unit has explanation %q", de["explanation"])
	}
	var actions []index.Action
	for _, ch := range e.changes(t, index.ChangeFilter{UnitID: e.unitID(t, "glossary", "en", "apple")}) {
		actions = append(actions, ch.Action)
	}
	if !slices.Equal(actions, []index.Action{index.ActionExplanation, index.ActionExtraFlags}) {
		t.Errorf("changes %v", actions)
	}
}

// TestConcurrentPatches has 32 clients edit one unit, and others the
// units of one translation, at once: every 200 is one change whose "old"
// is what the write before it left, no update is lost, and the statistics
// end equal to a recount.
func TestConcurrentPatches(t *testing.T) {
	e := newWriteEnv(t)
	const clients, rounds = 32, 4
	keys := []string{"save", "quit", "about", "bye", "open"}
	ids := map[string]int64{}
	for _, k := range keys {
		ids[k] = e.unitID(t, "app", "de", k)
	}
	auths := []string{e.anna, e.rita, e.sam, e.adam, e.root}
	var wg sync.WaitGroup
	var mu sync.Mutex
	oks := map[int64]int{}
	errs := make(chan string, clients*rounds)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := keys[0] // half the clients share one unit
			if c%2 == 1 {
				key = keys[c/2%len(keys)]
			}
			for r := range rounds {
				target := fmt.Sprintf("client %d round %d", c, r)
				body := map[string]any{"target": []string{target}}
				if r%2 == 1 {
					body["state"] = 10
				}
				resp := servertest.DoJSON(t, "PATCH", fmt.Sprintf("%s/api/units/%d/", e.srv.URL, ids[key]), auths[c%len(auths)], body)
				if resp.Status != 200 {
					errs <- fmt.Sprintf("client %d: %d %s", c, resp.Status, resp.Body)
					continue
				}
				mu.Lock()
				oks[ids[key]]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, k := range keys {
		id := ids[k]
		var edits []index.Change
		for _, ch := range e.changes(t, index.ChangeFilter{UnitID: id}) {
			if ch.Action != index.ActionNewContributor && ch.Action != index.ActionStringRepoUpdate {
				edits = append(edits, ch)
			}
		}
		if len(edits) != oks[id] {
			t.Errorf("%s: %d changes for %d successful writes", k, len(edits), oks[id])
			continue
		}
		u, err := e.db.FindUnitByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		// Each change's old is its predecessor's target: the chain
		// starts at the seeded target and ends at the stored one.
		prev := map[string]string{"save": "", "quit": "", "about": "", "bye": "Tschüss", "open": "Datei öffnen…"}[k]
		for _, ch := range edits {
			var details struct{ Old string }
			if err := json.Unmarshal([]byte(ch.Details), &details); err != nil || details.Old != prev {
				t.Errorf("%s: change %d has old %q, want %q", k, ch.ID, details.Old, prev)
			}
			prev = ch.Target
		}
		if len(edits) > 0 && u.Target[0] != prev {
			t.Errorf("%s: stored %q, last change %q", k, u.Target[0], prev)
		}
	}
	if oks[ids["save"]] < clients/2*rounds {
		t.Errorf("shared unit: %d successful writes, want %d", oks[ids["save"]], clients/2*rounds)
	}
	checkStatsRecount(t, e.db)
}

// TestUnitWritesAdvertised: the unit instance still advertises what the
// reference's does, now that its writes have handlers.
func TestUnitWritesAdvertised(t *testing.T) {
	srv := servertest.Serve(t, servertest.MustOpenDB(t), servertest.Options{})
	r := servertest.Do(t, "OPTIONS", srv.URL+"/api/units/1/", nil)
	if allow := r.Header.Get("Allow"); allow != "GET, PUT, PATCH, DELETE, HEAD, OPTIONS" {
		t.Errorf("Allow = %q", allow)
	}
}

// baseFileDisabled refuses adding or removing a string of a monolingual
// component whose manage_units is on but edit_template off. The
// reference answers "Adding strings is disabled in the component
// configuration." for both settings, which sends an administrator to
// manage_units, already on; Tolk names the one that is off.
var baseFileDisabled = denied("Editing the base file is disabled in the component configuration.")

// TestAddUnit adds strings to the monolingual app (through its template,
// fanning out to every translation) and to the bilingual glossary.
func TestAddUnit(t *testing.T) {
	e := newWriteEnv(t)
	ctx := context.Background()
	units := func(comp, lang string) string {
		return fmt.Sprintf("%s/api/translations/demo/%s/%s/units/", e.srv.URL, comp, lang)
	}
	mono := map[string]any{"key": "print", "value": []string{"Print"}}
	disabled := denied("Adding strings is disabled in the component configuration.")
	for _, tc := range []struct {
		name, auth, url string
		body            any
		status          int
		want            string
	}{
		{"manage_units off", e.root, units("app", "en"), mono, 403, disabled},
		{"a translation of a monolingual component", e.root, units("app", "de"), mono, 403,
			denied("Add the string to the source language instead.")},
	} {
		if r := servertest.DoJSON(t, "POST", tc.url, tc.auth, tc.body); r.Status != tc.status || string(r.Body) != tc.want {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Body, tc.status, tc.want)
		}
	}
	// With manage_units on, the answer names the setting that is off.
	e.setComponent(t, "app", func(c *index.Component) { c.ManageUnits = true })
	if r := servertest.DoJSON(t, "POST", units("app", "en"), e.root, mono); r.Status != 403 || string(r.Body) != baseFileDisabled {
		t.Errorf("edit_template off: %d %s, want 403 %s", r.Status, r.Body, baseFileDisabled)
	}
	e.setComponent(t, "app", func(c *index.Component) { c.ManageUnits, c.EditTemplate = true, true })
	for _, tc := range []struct {
		name, auth string
		body       any
		status     int
		want       string
	}{
		// The permission comes first, then the payload.
		{"translator", e.anna, []byte(`{"key":`), 403, denied("Insufficient privileges for saving translations.")},
		{"malformed", e.sam, []byte(`{"key":`), 400, ""},
		{"no key", e.sam, map[string]any{"value": []string{"x"}}, 400,
			errJSON("validation_error", [3]string{"required", "This field is required.", "key"})},
		{"blank key, value not a list", e.sam, map[string]any{"key": "", "value": 3}, 400,
			errJSON("validation_error", [3]string{"blank", "This field may not be blank.", "key"},
				[3]string{"not_a_list", `Expected a list of items but got type "int".`, "value"})},
		{"empty state", e.sam, map[string]any{"key": "k", "value": []string{"x"}, "state": 0}, 400,
			invalidField("non_field_errors", "Empty state is supported for blank strings only.")},
		{"read-only state", e.sam, map[string]any{"key": "k", "value": []string{"x"}, "state": 100}, 400,
			errJSON("validation_error", [3]string{"invalid_choice", `"100" is not a valid choice.`, "state"})},
		{"an existing key", e.sam, map[string]any{"key": "hello", "value": []string{"Hi"}}, 400,
			invalidField("non_field_errors", "This string seems to already exist.")},
	} {
		if r := servertest.DoJSON(t, "POST", units("app", "en"), tc.auth, tc.body); r.Status != tc.status ||
			(tc.want != "" && string(r.Body) != tc.want) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Body, tc.status, tc.want)
		}
	}

	// wlc's add_source_string.
	r := servertest.DoJSON(t, "POST", units("app", "en"), e.sam, mono)
	if r.Status != 200 {
		t.Fatalf("add: %d %s", r.Status, r.Body)
	}
	added := servertest.Decode(t, r.Body)
	servertest.CheckShape(t, "added unit", added, unitShape)
	if got := servertest.GetObject(t, added["url"].(string)); fmt.Sprint(got) != fmt.Sprint(added) {
		t.Errorf("the answer %v differs from the unit %v", added, got)
	}
	if added["source"].([]any)[0] != "Print" || servertest.Num(added["state"]) != "100" || added["pending"] != true ||
		added["source_unit"] != added["url"] || servertest.Num(added["position"]) != "7" || added["context"] != "print" {
		t.Errorf("added source unit: %v", added)
	}
	deList := servertest.Results(t, servertest.GetObject(t, units("app", "de")+"?q=key:print"))
	if len(deList) != 1 {
		t.Fatalf("German units with key print: %v", deList)
	}
	// Untranslated, the German file needs no change: not pending.
	if de := deList[0]; de["source_unit"] != added["url"] || servertest.Num(de["state"]) != "0" || de["pending"] != false ||
		de["target"].([]any)[0] != "" || de["id_hash"] != added["id_hash"] {
		t.Errorf("the German unit: %v", de)
	}
	for _, lang := range []string{"en", "de"} {
		tr, err := e.db.FindTranslation(ctx, "demo", "app", lang)
		if err != nil {
			t.Fatal(err)
		}
		ch := e.changes(t, index.ChangeFilter{TranslationID: tr.ID})
		if last := ch[len(ch)-1]; last.Action != index.ActionNewSource || last.Target != "Print" || last.UserName != "sam" ||
			last.AuthorName != "sam" || last.UnitID == 0 {
			t.Errorf("%s: last change %+v", lang, last)
		}
		list := servertest.GetObject(t, units("app", lang))
		if servertest.Num(list["count"]) != "7" || tr.Stats.Total != 7 {
			t.Errorf("%s: %s units, total %d, want 7", lang, servertest.Num(list["count"]), tr.Stats.Total)
		}
	}

	// The glossary is bilingual: a term added to German brings its
	// source string; one added to English goes to every language.
	e.setComponent(t, "glossary", func(c *index.Component) { c.ManageUnits = true })
	r = servertest.DoJSON(t, "POST", units("glossary", "de"), e.sam, map[string]any{"source": []string{"cherry"}, "target": []string{"Kirsche"}})
	if r.Status != 200 {
		t.Fatalf("add a German term: %d %s", r.Status, r.Body)
	}
	if got := servertest.Decode(t, r.Body); servertest.Num(got["state"]) != "20" || got["target"].([]any)[0] != "Kirsche" || got["source_unit"] == got["url"] {
		t.Errorf("German term: %v", got)
	}
	if src := servertest.GetObject(t, e.unitURL(t, "glossary", "en", "cherry")); servertest.Num(src["state"]) != "100" || src["target"].([]any)[0] != "cherry" {
		t.Errorf("its source string: %v", src)
	}
	if r := servertest.DoJSON(t, "POST", units("glossary", "de"), e.sam, map[string]any{"source": []string{"cherry"}, "target": []string{"Kirsche"}}); r.Status != 400 {
		t.Errorf("the same term again: %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "POST", units("glossary", "de"), e.sam, map[string]any{"source": []string{"fig"}}); r.Status != 400 ||
		string(r.Body) != errJSON("validation_error", [3]string{"required", "This field is required.", "target"}) {
		t.Errorf("a German term without target: %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", units("glossary", "en"), e.sam, map[string]any{"source": []string{"banana"}})
	if r.Status != 200 {
		t.Fatalf("add an English term: %d %s", r.Status, r.Body)
	}
	if de := servertest.GetObject(t, e.unitURL(t, "glossary", "de", "banana")); servertest.Num(de["state"]) != "0" {
		t.Errorf("the English term in German: %v", de)
	}
	checkStatsRecount(t, e.db)
}

// TestDeleteUnit removes strings: a template's from every translation, a
// glossary translation's term alone.
func TestDeleteUnit(t *testing.T) {
	e := newWriteEnv(t)
	ctx := context.Background()
	quitEN, quitDE := e.unitURL(t, "app", "en", "quit"), e.unitURL(t, "app", "de", "quit")
	for _, tc := range []struct {
		name, auth, url string
		status          int
		want            string
	}{
		{"anonymous", "", quitEN, 401, ""},
		{"manage_units off", e.root, quitEN, 403, denied("Adding strings is disabled in the component configuration.")},
	} {
		if r := servertest.DoJSON(t, "DELETE", tc.url, tc.auth, nil); r.Status != tc.status || (tc.want != "" && string(r.Body) != tc.want) {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
		}
	}
	e.setComponent(t, "app", func(c *index.Component) { c.ManageUnits = true })
	if r := servertest.DoJSON(t, "DELETE", quitEN, e.root, nil); r.Status != 403 || string(r.Body) != baseFileDisabled {
		t.Errorf("edit_template off: %d %s, want 403 %s", r.Status, r.Body, baseFileDisabled)
	}
	e.setComponent(t, "app", func(c *index.Component) { c.ManageUnits, c.EditTemplate = true, true })
	for _, tc := range []struct {
		name, auth, url string
		status          int
		want            string
	}{
		{"a translation's unit, even for a superuser", e.root, quitDE, 403, denied("Add the string to the source language instead.")},
		{"translator", e.anna, quitEN, 403, denied("Insufficient privileges for saving translations.")},
		{"unknown", e.root, e.srv.URL + "/api/units/424242/", 404, ""},
	} {
		if r := servertest.DoJSON(t, "DELETE", tc.url, tc.auth, nil); r.Status != tc.status || (tc.want != "" && string(r.Body) != tc.want) {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
		}
	}
	r := servertest.DoJSON(t, "DELETE", quitEN, e.sam, nil)
	if r.Status != 204 || len(r.Body) != 0 {
		t.Fatalf("delete: %d %q", r.Status, r.Body)
	}
	for _, u := range []string{quitEN, quitDE} {
		if r := servertest.Do(t, "GET", u, nil); r.Status != 404 {
			t.Errorf("GET %s after delete: %d", u, r.Status)
		}
	}
	for _, lang := range []string{"en", "de"} {
		tr, err := e.db.FindTranslation(ctx, "demo", "app", lang)
		if err != nil {
			t.Fatal(err)
		}
		ch := e.changes(t, index.ChangeFilter{TranslationID: tr.ID})
		last := ch[len(ch)-1]
		var details map[string]string
		json.Unmarshal([]byte(last.Details), &details)
		if last.Action != index.ActionStringRemove || last.UnitID != 0 || last.UserName != "sam" ||
			details["source"] != "Quit" || details["context"] != "quit" {
			t.Errorf("%s: last change %+v", lang, last)
		}
		removed, err := e.db.RemovedUnits(ctx, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(removed) != 1 || removed[0].Context != "quit" || removed[0].IDHash != index.IDHash(true, nil, "quit") {
			t.Errorf("%s: removed units %+v", lang, removed)
		}
		if tr.Stats.Total != 5 {
			t.Errorf("%s: total %d after delete, want 5", lang, tr.Stats.Total)
		}
	}

	e.setComponent(t, "glossary", func(c *index.Component) { c.ManageUnits = true })
	if r := servertest.DoJSON(t, "DELETE", e.unitURL(t, "glossary", "de", "plum"), e.adam, nil); r.Status != 204 {
		t.Fatalf("delete a German term: %d %s", r.Status, r.Body)
	}
	if r := servertest.Do(t, "GET", e.unitURL(t, "glossary", "en", "plum"), nil); r.Status != 200 {
		t.Errorf("the term's source string: %d", r.Status)
	}
	checkStatsRecount(t, e.db)
}

// TestUnitWritesBadInput throws malformed and hostile bodies at every
// write of this file: each is a 4xx in the reference's envelope, never a
// server error, and nothing is stored.
func TestUnitWritesBadInput(t *testing.T) {
	e := newWriteEnv(t)
	e.setComponent(t, "app", func(c *index.Component) { c.ManageUnits, c.EditTemplate = true, true })
	before := len(e.changes(t, index.ChangeFilter{}))
	bodies := []string{
		``, `null`, `[]`, `"x"`, `42`, `{`, `{"target":`, `{"target": [1, true]}`, `{"target": [[]]}`,
		`{"target": ["x"], "state": 99999999999999999999}`, `{"target": ["x"], "state": -1}`,
		`{"target": ["x"], "state": [20]}`, `{"target": ["x"], "state": {"a": 1}}`, `{"state": ""}`,
		`{"target": ["` + strings.Repeat("a", 2<<20) + `"]}`, `{"target": ["x","y","z","w","v","u","t"], "state": 20}`,
		`{"key": "a\u0000b", "value": ["x"]}`, `{"key": ["k"], "value": "x", "state": "20"}`,
		`{"key": "k", "value": [null]}`, `{"lock": [true]}`, `{"lock": "2"}`, `{"explanation": 5, "extra_flags": []}`,
		`{"labels": "x"}`, `{"labels": ["a"]}`, `{"source": {}, "target": 3, "context": false}`,
	}
	anna := e.unitURL(t, "app", "de", "quit")
	targets := []struct{ method, url, auth string }{
		{"PATCH", anna, e.anna}, {"PUT", anna, e.anna},
		{"POST", e.srv.URL + "/api/translations/demo/app/en/units/", e.sam},
		{"POST", e.srv.URL + "/api/translations/demo/glossary/de/units/", e.root},
		{"POST", e.srv.URL + "/api/components/demo/app/lock/", e.rob},
	}
	for _, tg := range targets {
		for _, b := range bodies {
			r := servertest.DoJSON(t, tg.method, tg.url, tg.auth, []byte(b))
			name := tg.method + " " + tg.url + " " + b
			if len(name) > 120 {
				name = name[:120]
			}
			// Fields a write does not know are ignored, as the
			// reference's serializers do: such a PATCH is a 200 doing
			// nothing (the changes are checked below).
			if r.Status == 200 && tg.method == "PATCH" {
				continue
			}
			if r.Status < 400 || r.Status >= 500 {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
				continue
			}
			checkErrorEnvelope(t, name, r)
		}
	}
	if after := len(e.changes(t, index.ChangeFilter{})); after != before {
		t.Errorf("bad input recorded %d changes", after-before)
	}
	if strings.Contains(e.srv.Logs.String(), `"level":"ERROR"`) {
		t.Errorf("server errors logged: %s", e.srv.Logs.String())
	}
}

// TestPatchHintsTarget: a PATCH with a target passes the store the
// target it expects to save (UpdateUnitExpecting: the store may send
// its lookups on it ahead); one without a target (explanation, labels)
// passes none.
func TestPatchHintsTarget(t *testing.T) {
	var hints *servertest.EditHints
	env := servertest.New(t, servertest.WithDemo(),
		servertest.WithUser("anna", false, [2]string{"Translate", "demo"}),
		servertest.WithUser("root", true),
		servertest.WithStore(func(db *sqlstore.DB) servertest.Store {
			hints = &servertest.EditHints{Store: db}
			return hints
		}))
	e := &writeEnv{srv: env.Running, db: env.DB, anna: env.Auth["anna"], root: env.Auth["root"]}
	bye := e.unitID(t, "app", "de", "bye")
	url := fmt.Sprintf("%s/api/units/%d/", e.srv.URL, bye)
	if r := servertest.DoJSON(t, "PATCH", url, e.anna, map[string]any{"target": []string{"Tschüss"}, "state": 20}); r.Status != http.StatusOK {
		t.Fatalf("PATCH target = %d %s", r.Status, r.Body)
	}
	if got := hints.Take(); len(got) != 1 || got[0].Unit != bye || !got[0].Ok || !slices.Equal(got[0].Target, []string{"Tschüss"}) {
		t.Errorf("PATCH with a target hinted %+v, want [Tschüss] for unit %d", got, bye)
	}
	src := e.unitID(t, "app", "en", "bye")
	url = fmt.Sprintf("%s/api/units/%d/", e.srv.URL, src)
	if r := servertest.DoJSON(t, "PATCH", url, e.root, map[string]any{"explanation": "a farewell"}); r.Status != http.StatusOK {
		t.Fatalf("PATCH explanation = %d %s", r.Status, r.Body)
	}
	if got := hints.Take(); len(got) != 1 || got[0].Ok {
		t.Errorf("PATCH without a target hinted %+v, want one write without a hint", got)
	}
}
