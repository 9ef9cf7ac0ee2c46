package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// peopleEnv is privateEnv after real writes by two users: ana, a member
// of the private project, and bo, who holds no role.
type peopleEnv struct {
	*privateEnv
	ana, bo         index.User
	anaAuth, boAuth string
}

func mustPeopleEnv(tb testing.TB) *peopleEnv {
	tb.Helper()
	ctx := context.Background()
	e := &peopleEnv{privateEnv: mustPrivateEnv(tb)}
	e.anaAuth = servertest.MustUser(tb, e.db, "ana", false, [2]string{"Translate", "secret"})
	e.boAuth = servertest.MustUser(tb, e.db, "bo", false)
	var err error
	if e.ana, err = e.db.FindUser(ctx, "ana"); err != nil {
		tb.Fatal(err)
	}
	if e.bo, err = e.db.FindUser(ctx, "bo"); err != nil {
		tb.Fatal(err)
	}
	unit := func(project, lang, key string) int64 {
		tr, err := e.db.FindTranslation(ctx, project, map[string]string{"demo": "app", "secret": "vault"}[project], lang)
		if err != nil {
			tb.Fatal(err)
		}
		id, err := e.db.FindUnitIDByHash(ctx, tr.ID, index.IDHash(true, nil, key))
		if err != nil {
			tb.Fatal(err)
		}
		return id
	}
	edit := func(u index.User, id int64, target string) {
		tb.Helper()
		if _, err := e.db.UpdateUnit(ctx, id, index.UserActor(&u), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
		}); err != nil {
			tb.Fatal(err)
		}
	}
	comment := func(u index.User, id int64, text string) {
		tb.Helper()
		if _, err := e.db.AddComment(ctx, id, index.UserActor(&u), index.NewComment{Scope: index.ScopeTranslation,
			Comment: text}, func(index.Unit, index.Translation) (int64, error) { return id, nil }); err != nil {
			tb.Fatal(err)
		}
	}
	// ana: two edits in the private project (German and French), one in
	// the demo, a suggestion and an upload there, a comment in private.
	edit(e.ana, unit("secret", "de", "plan"), "Geheimplan")
	edit(e.ana, unit("secret", "fr", "plan"), "Plan secret")
	edit(e.ana, unit("demo", "de", "save"), "Alles speichern")
	if _, err := e.db.AddSuggestion(ctx, unit("demo", "de", "about"), index.NewSuggestion{Target: []string{"Über"},
		UserID: e.ana.ID}, func(index.Unit, index.Translation) (index.SuggestionRights, error) {
		return index.SuggestionRights{}, nil
	}); err != nil {
		tb.Fatal(err)
	}
	tr, err := e.db.FindTranslation(ctx, "demo", "app", "de")
	if err != nil {
		tb.Fatal(err)
	}
	res, err := e.db.ApplyUpload(ctx, tr.ID, index.Upload{Method: index.UploadTranslate, UserID: e.ana.ID,
		Units: []index.ImportUnit{{Context: "quit", Target: []string{"Beenden"}, State: index.StateTranslated}}})
	if err != nil || res.Accepted != 1 {
		tb.Fatalf("upload: %+v, %v", res, err)
	}
	comment(e.ana, unit("secret", "de", "code"), "Keep it")
	// bo: one edit in the demo, twice the same unit, and a comment there.
	edit(e.bo, unit("demo", "de", "open"), "Öffnen")
	edit(e.bo, unit("demo", "de", "open"), "Datei öffnen")
	comment(e.bo, unit("demo", "de", "open"), "Better?")
	return e
}

// TestUserStatistics checks each field of a user's statistics after
// real writes, as readers who see the private project and as readers who
// do not, on both engines.
func TestUserStatistics(t *testing.T) {
	e := mustPeopleEnv(t)
	type stats struct{ Translated, Suggested, Uploaded, Commented, Languages int }
	// ana: private edits de+fr, demo edit, demo upload (one unit) count as
	// translated; languages are de and fr, French only in private.
	anaAll := stats{Translated: 4, Suggested: 1, Uploaded: 1, Commented: 1, Languages: 2}
	anaPublic := stats{Translated: 2, Suggested: 1, Uploaded: 1, Commented: 0, Languages: 1}
	bo := stats{Translated: 2, Commented: 1, Languages: 1}
	for _, reader := range e.readers() {
		for _, tc := range []struct {
			user string
			want stats
		}{{"ana", anaPublic}, {"bo", bo}} {
			if tc.user == "ana" && reader.sees {
				tc.want = anaAll
			}
			r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/users/"+tc.user+"/statistics/", reader.auth, nil)
			if r.Status != http.StatusOK {
				t.Errorf("%s: %s's statistics = %d %s", reader.name, tc.user, r.Status, r.Body)
				continue
			}
			servertest.CheckShape(t, "user statistics", servertest.Decode(t, r.Body), servertest.Shape{
				"translated": "int", "suggested": "int", "uploaded": "int", "commented": "int", "languages": "int"})
			var got stats
			if err := json.Unmarshal(r.Body, &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("%s: %s's statistics = %+v, want %+v", reader.name, tc.user, got, tc.want)
			}
		}
	}
	// A user who never acted is not shown to anonymous readers (as
	// GET /api/users/U/); a signed-in reader sees zeros.
	if r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/users/stranger/statistics/", "", nil); r.Status != http.StatusNotFound {
		t.Errorf("anonymous: inactive user's statistics = %d %s, want 404", r.Status, r.Body)
	}
	r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/users/stranger/statistics/", e.boAuth, nil)
	if r.Status != http.StatusOK || string(r.Body) != `{"translated":0,"suggested":0,"uploaded":0,"commented":0,"languages":0}` {
		t.Errorf("stranger's statistics = %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/users/nobody/statistics/", e.root, nil); r.Status != http.StatusNotFound {
		t.Errorf("missing user's statistics = %d", r.Status)
	}
}

// TestUserContributions: the translations a user edited, paginated, the
// private ones only to readers who see them.
func TestUserContributions(t *testing.T) {
	e := mustPeopleEnv(t)
	for _, reader := range e.readers() {
		want := []string{"demo/app/de"}
		if reader.sees {
			want = []string{"secret/vault/de", "secret/vault/fr"}
			want = append([]string{"demo/app/de"}, want...)
		}
		list := servertest.GetObjectAs(t, e.srv.URL+"/api/users/ana/contributions/", reader.auth)
		var got []string
		for _, tr := range servertest.Results(t, list) {
			comp := servertest.Obj(t, tr["component"])
			got = append(got, fmt.Sprint(servertest.Obj(t, comp["project"])["slug"], "/", comp["slug"], "/",
				servertest.Obj(t, tr["language"])["code"]))
		}
		if servertest.Num(list["count"]) != fmt.Sprint(len(want)) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ana's contributions = %s %v, want %v", reader.name, servertest.Num(list["count"]), got, want)
		}
	}
	// The links of the full user body lead here.
	user := servertest.GetObjectAs(t, e.srv.URL+"/api/users/ana/", e.root)
	for _, link := range []string{"statistics_url", "contributions_url"} {
		if r := servertest.DoJSON(t, "GET", fmt.Sprint(user[link]), e.root, nil); r.Status != http.StatusOK {
			t.Errorf("%s %v = %d", link, user[link], r.Status)
		}
	}
	// Paginated as every list: page_size 1 has a next page.
	list := servertest.GetObjectAs(t, e.srv.URL+"/api/users/ana/contributions/?page_size=1", e.root)
	if len(servertest.Results(t, list)) != 1 || list["next"] == nil {
		t.Errorf("page of one: %v", list)
	}
}

// TestCredits checks the credits of each scope: the reference's shape,
// counts of content changes by author and language in the time range,
// everyone's to project editors and only one's own to others.
func TestCredits(t *testing.T) {
	e := mustPeopleEnv(t)
	const rng = "?start=2000-01-01&end=2100-01-01T00:00:00Z"
	type credit struct {
		Email       string `json:"email"`
		FullName    string `json:"full_name"`
		ChangeCount int    `json:"change_count"`
	}
	get := func(path, auth string) (int, []map[string][]credit, string) {
		r := servertest.DoJSON(t, "GET", e.srv.URL+path, auth, nil)
		var out []map[string][]credit
		if r.Status == http.StatusOK {
			if err := json.Unmarshal(r.Body, &out); err != nil {
				t.Fatalf("%s: %v: %s", path, err, r.Body)
			}
		}
		return r.Status, out, string(r.Body)
	}
	ana := credit{"ana@example.com", "ana Example", 2} // the demo edit and the uploaded unit
	bo := credit{"bo@example.com", "bo Example", 2}
	for _, tc := range []struct {
		name, path, auth string
		want             []map[string][]credit
	}{
		{"root, project", "/api/projects/demo/credits/" + rng, e.root,
			[]map[string][]credit{{"German": {ana, bo}}}},
		{"root, component", "/api/components/demo/app/credits/" + rng, e.root,
			[]map[string][]credit{{"German": {ana, bo}}}},
		{"root, translation", "/api/translations/demo/app/de/credits/" + rng, e.root,
			[]map[string][]credit{{"German": {ana, bo}}}},
		{"bo sees only his own", "/api/projects/demo/credits/" + rng, e.boAuth,
			[]map[string][]credit{{"German": {bo}}}},
		{"member, private project, by language", "/api/projects/secret/credits/" + rng, e.anaAuth,
			[]map[string][]credit{{"French": {{"ana@example.com", "ana Example", 1}}},
				{"German": {{"ana@example.com", "ana Example", 1}}}}},
		{"lang filter", "/api/projects/secret/credits/" + rng + "&lang=fr", e.root,
			[]map[string][]credit{{"French": {{"ana@example.com", "ana Example", 1}}}}},
		{"range before everything", "/api/projects/demo/credits/?start=2000-01-01&end=2000-01-02", e.root,
			[]map[string][]credit{}},
	} {
		status, got, body := get(tc.path, tc.auth)
		if status != http.StatusOK || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %d %s, want %v", tc.name, status, body, tc.want)
		}
	}
	// Anonymous readers must sign in; bad or missing bounds name their
	// field; a private project is missing to who may not see it.
	if status, _, body := get("/api/projects/demo/credits/"+rng, ""); status != http.StatusUnauthorized {
		t.Errorf("anonymous: %d %s, want 401", status, body)
	}
	for _, tc := range []struct{ query, field string }{
		{"", "start"}, {"?start=2000-01-01", "end"}, {"?start=yesterday&end=2000-01-01", "start"},
		{"?start=2000-01-01&end=2000-13-01", "end"},
	} {
		r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/projects/demo/credits/"+tc.query, e.root, nil)
		if r.Status != http.StatusBadRequest || !json.Valid(r.Body) || !containsField(r.Body, tc.field) {
			t.Errorf("credits%s = %d %s, want 400 naming %s", tc.query, r.Status, r.Body, tc.field)
		}
	}
	if status, _, _ := get("/api/projects/secret/credits/"+rng, e.boAuth); status != http.StatusNotFound {
		t.Errorf("stranger: private credits = %d, want 404", status)
	}
}

// containsField reports whether an error body names field.
func containsField(body []byte, field string) bool {
	var v struct {
		Errors []struct {
			Attr string `json:"attr"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	for _, e := range v.Errors {
		if e.Attr == field {
			return true
		}
	}
	return false
}

// TestPeopleBadInput sends the people endpoints hostile usernames, pages
// and dates as a superuser: each a JSON 4xx in the reference's envelope
// (a 400 naming the date field), and nothing logged as an error.
func TestPeopleBadInput(t *testing.T) {
	e := mustPeopleEnv(t)
	long := strings.Repeat("9", 5000)
	cases := []struct {
		path   string
		status int
		field  string
	}{
		{"/api/users/" + strings.Repeat("x", 10000) + "/statistics/", http.StatusNotFound, ""},
		{"/api/users/ana%00/statistics/", http.StatusNotFound, ""},
		{"/api/users/%2e%2e/statistics/", http.StatusNotFound, ""},
		{"/api/users/%C3%A1na/contributions/", http.StatusNotFound, ""},
		{"/api/users/ana/contributions/?page=0", http.StatusNotFound, ""},
		{"/api/users/ana/contributions/?page=99999999999999999999", http.StatusNotFound, ""},
		{"/api/users/ana/contributions/?page=9", http.StatusNotFound, ""},
		{"/api/projects/demo/credits/?start=" + long + "&end=2100-01-01", http.StatusBadRequest, "start"},
		{"/api/projects/demo/credits/?start=2000-01-01&end=%00", http.StatusBadRequest, "end"},
		{"/api/projects/demo/credits/?start=2026-02-30&end=2100-01-01", http.StatusBadRequest, "start"},
		{"/api/projects/demo/credits/?start=2026-01-01T25:00&end=2100-01-01", http.StatusBadRequest, "start"},
		{"/api/projects/demo/credits/?start=99999-01-01&end=2100-01-01", http.StatusBadRequest, "start"},
		{"/api/projects/demo/credits/?start=2000-01-01&end=-2100-01-01", http.StatusBadRequest, "end"},
		{"/api/components/demo/app/credits/?start[]=1&end=2100-01-01", http.StatusBadRequest, "start"},
		{"/api/translations/demo/app/de/credits/?start=2000-01-01&end=2100-01-01&lang=" + long, http.StatusOK, ""},
		{"/api/translations/demo/app/de/credits/?start=2000-01-01&end=2100-01-01&lang=%00", http.StatusBadRequest, "lang"},
		{"/api/translations/demo/app/de/credits/?start=2000-01-01&end=2100-01-01&lang=%ff", http.StatusBadRequest, "lang"},
		{"/api/projects/" + long + "/credits/?start=2000-01-01&end=2100-01-01", http.StatusNotFound, ""},
	}
	for _, tc := range cases {
		r := servertest.DoJSON(t, "GET", e.srv.URL+tc.path, e.root, nil)
		name := tc.path
		if len(name) > 80 {
			name = name[:80] + "..."
		}
		if r.Status != tc.status {
			t.Errorf("GET %s = %d %.200s, want %d", name, r.Status, r.Body, tc.status)
			continue
		}
		if tc.status == http.StatusOK {
			if string(r.Body) != "[]" {
				t.Errorf("GET %s = %s, want no credits", name, r.Body)
			}
			continue
		}
		checkErrorEnvelope(t, name, r)
		if tc.field != "" && !containsField(r.Body, tc.field) {
			t.Errorf("GET %s = %s, want the error on %s", name, r.Body, tc.field)
		}
	}
	if logs := e.srv.Logs.String(); strings.Contains(logs, `"level":"ERROR"`) || strings.Contains(logs, "panic") {
		t.Errorf("log: %.2000s", logs)
	}
}
