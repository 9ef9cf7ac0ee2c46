package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// suggestionShape is the reference's SuggestionSerializer, field by
// field (reference workspace §2.4).
var suggestionShape = servertest.Shape{"id": "int", "unit": "url", "target": "array", "user": "url|null",
	"timestamp": "timestamp", "votes": "int"}

// suggest posts a suggestion of target to a unit's suggestions.
func suggest(t *testing.T, unitURL, auth string, target ...string) servertest.Response {
	t.Helper()
	return servertest.DoJSON(t, "POST", unitURL+"suggestions/", auth, map[string]any{"target": target})
}

// unitFlags reads a unit's has_suggestion, and its translation's
// have_suggestion and statistics' suggestions.
func suggestionCounts(t *testing.T, base, unitURL string) (bool, string, string) {
	t.Helper()
	u := servertest.GetObject(t, unitURL)
	tr := servertest.GetObject(t, base+"/api/translations/demo/app/de/")
	st := servertest.GetObject(t, base+"/api/translations/demo/app/de/statistics/")
	return u["has_suggestion"] == true, servertest.Num(tr["have_suggestion"]), servertest.Num(st["suggestions"])
}

// TestSuggestionsAPI: the whole life of a suggestion through the API,
// every answer field by field against the reference's: add (201), list,
// get, the refusals (similar, duplicate, plurals, too long, blank),
// accept (change 7, author the suggester), delete with a reason (change
// 26), and the unit's, translation's and statistics' counts after each.
func TestSuggestionsAPI(t *testing.T) {
	e := newWriteEnv(t)
	base := e.srv.URL
	save := e.unitURL(t, "app", "de", "save")

	r := suggest(t, save, e.anna, "Alle Dateien speichern")
	if r.Status != http.StatusCreated {
		t.Fatalf("POST suggestion: %d %s", r.Status, r.Body)
	}
	got := servertest.Decode(t, r.Body)
	servertest.CheckShape(t, "suggestion", got, suggestionShape)
	id := servertest.Num(got["id"])
	want := map[string]any{"id": got["id"], "unit": save, "target": []any{"Alle Dateien speichern"},
		"user": base + "/api/users/anna/", "timestamp": got["timestamp"], "votes": float64(0)}
	if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
		t.Errorf("suggestion:\n got %s\nwant %s", g, w)
	}
	if has, have, n := suggestionCounts(t, base, save); !has || have != "1" || n != "1" {
		t.Errorf("after adding: has_suggestion %v, have_suggestion %s, suggestions %s", has, have, n)
	}
	sugURL := base + "/api/suggestions/" + id + "/"
	if g := servertest.GetObject(t, sugURL); fmt.Sprint(g) != fmt.Sprint(got) {
		t.Errorf("GET suggestion: %v, want %v", g, got)
	}
	list := servertest.GetObject(t, save+"suggestions/")
	if res := servertest.Results(t, list); servertest.Num(list["count"]) != "1" || len(res) != 1 ||
		fmt.Sprint(res[0]) != fmt.Sprint(got) || list["next"] != nil || list["previous"] != nil {
		t.Errorf("unit's suggestions: %v", list)
	}

	// The refusals, in the reference's words.
	hello := e.unitURL(t, "app", "de", "hello")
	for _, tc := range []struct {
		name, url, auth string
		body            any
		status          int
		want            string
	}{
		{"duplicate", save, e.anna, map[string]any{"target": []string{"Alle Dateien speichern"}}, 400,
			invalidField("target", "Your suggestion already exists!")},
		{"similar", hello, e.anna, map[string]any{"target": []string{"Hallo"}}, 400,
			invalidField("target", "Your suggestion is similar to the current translation!")},
		{"plurals", save, e.anna, map[string]any{"target": []string{"a", "b"}}, 400,
			invalidField("target", "Number of plurals does not match")},
		{"too long", save, e.anna, map[string]any{"target": []string{strings.Repeat("x", 141)}}, 400,
			errJSON("validation_error", [3]string{"max_length", "Translation text too long!", "target.0"})},
		{"blank", save, e.anna, map[string]any{"target": []string{""}}, 400,
			errJSON("validation_error", [3]string{"blank", "This field may not be blank.", "target.0"})},
		{"missing", save, e.anna, map[string]any{}, 400,
			errJSON("validation_error", [3]string{"required", "This field is required.", "target"})},
		{"no role", save, e.nobody, map[string]any{"target": []string{"x"}}, 403,
			denied("You do not have permission to perform this action.")},
		{"anonymous off", save, "", map[string]any{"target": []string{"x"}}, 401,
			errJSON("client_error", [3]string{"not_authenticated", "Authentication credentials were not provided.", ""})},
		{"read-only source", e.unitURL(t, "app", "en", "save"), e.anna, map[string]any{"target": []string{"x"}}, 403,
			denied("The string is read-only.")},
	} {
		r := servertest.DoJSON(t, "POST", tc.url+"suggestions/", tc.auth, tc.body)
		if r.Status != tc.status || string(r.Body) != tc.want {
			t.Errorf("%s: %d %s\nwant %d %s", tc.name, r.Status, r.Body, tc.status, tc.want)
		}
	}
	e.setComponent(t, "app", func(c *index.Component) { c.EnableSuggestions = false })
	if r := suggest(t, save, e.anna, "x"); r.Status != 403 ||
		string(r.Body) != denied("Suggestions are turned off for this language. Ask a project administrator to enable them.") {
		t.Errorf("suggestions off: %d %s", r.Status, r.Body)
	}
	e.setComponent(t, "app", func(c *index.Component) { c.EnableSuggestions = true })

	// Accepting: the unit takes the text as translated, by the acceptor
	// with the suggester as author; the suggestion is gone.
	if r := servertest.DoJSON(t, "POST", sugURL+"accept/", e.nobody, map[string]any{}); r.Status != 403 {
		t.Errorf("accept without a role: %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "POST", sugURL+"accept/", e.anna, map[string]any{"approve": true}); r.Status != 403 {
		t.Errorf("approve by a translator: %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", sugURL+"accept/", e.rita, map[string]any{"approve": false})
	if r.Status != 200 || string(r.Body) != `{"result":"accepted"}` {
		t.Fatalf("accept: %d %s", r.Status, r.Body)
	}
	u := servertest.GetObject(t, save)
	if fmt.Sprint(u["target"]) != "[Alle Dateien speichern]" || servertest.Num(u["state"]) != "20" {
		t.Errorf("accepted unit: target %v state %v", u["target"], u["state"])
	}
	if r := servertest.DoJSON(t, "GET", sugURL, "", nil); r.Status != 404 {
		t.Errorf("accepted suggestion: %d %s", r.Status, r.Body)
	}
	if has, have, n := suggestionCounts(t, base, save); has || have != "0" || n != "0" {
		t.Errorf("after accepting: has_suggestion %v, have_suggestion %s, suggestions %s", has, have, n)
	}
	id64 := e.unitID(t, "app", "de", "save")
	chs := e.changes(t, index.ChangeFilter{UnitID: id64})
	var accepted *index.Change
	for i := range chs {
		if chs[i].Action == index.ActionSuggestionAccept {
			accepted = &chs[i]
		}
	}
	if accepted == nil || accepted.UserName != "rita" || accepted.AuthorName != "anna" ||
		accepted.Target != "Alle Dateien speichern" {
		t.Errorf("change 7: %+v", accepted)
	}
	if chs[0].Action != index.ActionSuggestion || chs[0].Target != "Alle Dateien speichern" || chs[0].UserName != "anna" {
		t.Errorf("change 4: %+v", chs[0])
	}

	// Deleting: the author may delete their own, another translator not;
	// the change keeps the reason and the unit's target as old.
	r = suggest(t, save, e.anna, "Speichern")
	sugURL = base + "/api/suggestions/" + servertest.Num(servertest.Decode(t, r.Body)["id"]) + "/"
	if r := servertest.DoJSON(t, "DELETE", sugURL, e.sam, nil); r.Status != 403 ||
		string(r.Body) != denied("You do not have permission to perform this action.") {
		t.Errorf("delete by another translator: %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "DELETE", sugURL, e.anna, map[string]any{"rejection_reason": "typo", "is_spam": false}); r.Status != 204 {
		t.Errorf("delete own: %d %s", r.Status, r.Body)
	}
	chs = e.changes(t, index.ChangeFilter{UnitID: id64})
	last := chs[len(chs)-1]
	var details map[string]string
	_ = json.Unmarshal([]byte(last.Details), &details)
	if last.Action != index.ActionSuggestionDelete || last.Target != "Speichern" || details["rejection_reason"] != "typo" ||
		details["old"] != "Alle Dateien speichern" || last.UserName != "anna" {
		t.Errorf("change 26: %+v", last)
	}
	if has, have, n := suggestionCounts(t, base, save); has || have != "0" || n != "0" {
		t.Errorf("after deleting: has_suggestion %v, have_suggestion %s, suggestions %s", has, have, n)
	}
	// A reviewer deletes anyone's.
	r = suggest(t, save, e.anna, "Speichern!")
	sugURL = base + "/api/suggestions/" + servertest.Num(servertest.Decode(t, r.Body)["id"]) + "/"
	if r := servertest.DoJSON(t, "DELETE", sugURL, e.rita, map[string]any{"is_spam": true}); r.Status != 204 {
		t.Errorf("delete by a reviewer: %d %s", r.Status, r.Body)
	}
	// Rejected as spam: the mark stays in the change's details (Tolk
	// reports to no antispam service); a plain rejection has none.
	chs = e.changes(t, index.ChangeFilter{UnitID: id64})
	if last := chs[len(chs)-1]; last.Action != index.ActionSuggestionDelete || !strings.Contains(last.Details, `"is_spam":true`) {
		t.Errorf("change 26 of a spam rejection: %+v", last)
	}
	if prev := chs[len(chs)-2]; strings.Contains(prev.Details, "is_spam") {
		t.Errorf("a plain rejection marked spam: %+v", prev)
	}
	if r := servertest.DoJSON(t, "DELETE", sugURL, e.rita, map[string]any{"is_spam": "yes"}); r.Status != 400 && r.Status != 404 {
		t.Errorf("is_spam of the wrong type: %d %s", r.Status, r.Body)
	}
	// Voting is off by default.
	r = suggest(t, save, e.anna, "Speichern?")
	sugURL = base + "/api/suggestions/" + servertest.Num(servertest.Decode(t, r.Body)["id"]) + "/"
	if r := servertest.DoJSON(t, "POST", sugURL+"vote/", e.sam, map[string]any{"value": 1}); r.Status != 403 ||
		string(r.Body) != denied("Suggestion voting is disabled.") {
		t.Errorf("vote with voting off: %d %s", r.Status, r.Body)
	}
	all := servertest.GetObject(t, base+"/api/suggestions/")
	if servertest.Num(all["count"]) != "1" || len(servertest.Results(t, all)) != 1 {
		t.Errorf("all suggestions: %v", all)
	}
	checkStatsRecount(t, e.db)
}

// TestSuggestionVoting: with voting on, suggesting counts the author's
// +1, the same text from another user is an upvote ("voted"), votes
// replace each other, and reaching suggestion_autoaccept accepts
// ("accepted", suggestion null). The direct-save rule: a translator's
// PATCH is refused, a reviewer's (unit.override) is not.
func TestSuggestionVoting(t *testing.T) {
	e := newWriteEnv(t)
	base := e.srv.URL
	e.setComponent(t, "app", func(c *index.Component) { c.SuggestionVoting, c.SuggestionAutoaccept = true, 3 })
	quit := e.unitURL(t, "app", "de", "quit")

	r := servertest.DoJSON(t, "PATCH", quit, e.anna, map[string]any{"target": []string{"Beenden"}, "state": 20})
	if want := denied("This translation is configured for suggestion voting. Add a suggestion instead of saving a direct translation."); r.Status != 403 || string(r.Body) != want {
		t.Errorf("translator's direct save: %d %s", r.Status, r.Body)
	}

	r = suggest(t, quit, e.anna, "Beenden")
	if r.Status != 201 || servertest.Num(servertest.Decode(t, r.Body)["votes"]) != "1" {
		t.Fatalf("suggest with voting: %d %s", r.Status, r.Body)
	}
	id := servertest.Num(servertest.Decode(t, r.Body)["id"])
	sugURL := base + "/api/suggestions/" + id + "/"
	r = suggest(t, quit, e.sam, "Beenden")
	res := servertest.Decode(t, r.Body)
	if r.Status != 200 || res["result"] != "voted" || servertest.Num(servertest.Obj(t, res["suggestion"])["votes"]) != "2" {
		t.Errorf("same text by another: %d %s", r.Status, r.Body)
	}
	// rita votes down, then changes her mind; the third +1 accepts.
	r = servertest.DoJSON(t, "POST", sugURL+"vote/", e.rita, map[string]any{"value": -1})
	if res := servertest.Decode(t, r.Body); r.Status != 200 || servertest.Num(servertest.Obj(t, res["suggestion"])["votes"]) != "1" {
		t.Errorf("vote -1: %d %s", r.Status, r.Body)
	}
	for _, bad := range []any{0, 2, "x", nil, true} {
		if r := servertest.DoJSON(t, "POST", sugURL+"vote/", e.rita, map[string]any{"value": bad}); r.Status != 400 {
			t.Errorf("vote %v: %d %s", bad, r.Status, r.Body)
		}
	}
	r = servertest.DoJSON(t, "POST", sugURL+"vote/", e.rita, map[string]any{"value": 1})
	if r.Status != 200 || string(r.Body) != `{"result":"accepted","suggestion":null}` {
		t.Fatalf("accepting vote: %d %s", r.Status, r.Body)
	}
	if u := servertest.GetObject(t, quit); fmt.Sprint(u["target"]) != "[Beenden]" || u["has_suggestion"] != false {
		t.Errorf("auto-accepted unit: %v", u)
	}
	// A reviewer may still save directly.
	if r := servertest.DoJSON(t, "PATCH", quit, e.rita, map[string]any{"target": []string{"Schließen"}, "state": 20}); r.Status != 200 {
		t.Errorf("reviewer's direct save: %d %s", r.Status, r.Body)
	}
	checkStatsRecount(t, e.db)
}

// TestSuggestionVotesConcurrent: many voters at once on a suggestion
// with auto-accept: exactly one vote accepts it, the others that came
// before count and those after find it gone (404); the unit holds its
// text once, change 7 is recorded once, and every count equals a
// recount, on each engine.
func TestSuggestionVotesConcurrent(t *testing.T) {
	const voters = 12
	opts := []servertest.Option{servertest.WithDemo(), servertest.WithUser("anna", false, [2]string{"Translate", "demo"})}
	for i := range voters {
		opts = append(opts, servertest.WithUser(fmt.Sprintf("voter%d", i), false, [2]string{"Translate", "demo"}))
	}
	env := servertest.New(t, opts...)
	e := &writeEnv{srv: env.Running, db: env.DB, anna: env.Auth["anna"]}
	e.setComponent(t, "app", func(c *index.Component) { c.SuggestionVoting, c.SuggestionAutoaccept = true, 6 })
	about := e.unitURL(t, "app", "de", "about")
	r := suggest(t, about, e.anna, "Über diese App")
	if r.Status != 201 {
		t.Fatalf("suggest: %d %s", r.Status, r.Body)
	}
	sugURL := e.srv.URL + "/api/suggestions/" + servertest.Num(servertest.Decode(t, r.Body)["id"]) + "/"
	var mu sync.Mutex
	results := map[string]int{}
	var wg sync.WaitGroup
	for i := range voters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := servertest.DoJSON(t, "POST", sugURL+"vote/", env.Auth[fmt.Sprintf("voter%d", i)], map[string]any{"value": 1})
			key := fmt.Sprint(r.Status)
			if r.Status == 404 && string(r.Body) != `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}` {
				key = "404 " + string(r.Body)
			}
			if r.Status == 200 {
				key = servertest.Decode(t, r.Body)["result"].(string)
			}
			mu.Lock()
			results[key]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if results["accepted"] != 1 || results["voted"] != 4 || results["404"] != voters-5 {
		t.Errorf("results: %v, want 1 accepted, 4 voted, %d not found", results, voters-5)
	}
	n := 0
	for _, ch := range e.changes(t, index.ChangeFilter{UnitID: e.unitID(t, "app", "de", "about")}) {
		if ch.Action == index.ActionSuggestionAccept {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d accept changes", n)
	}
	u, err := e.db.FindUnitByID(context.Background(), e.unitID(t, "app", "de", "about"))
	if err != nil || u.Target[0] != "Über diese App" || u.HasSuggestion {
		t.Errorf("unit: %+v %v", u, err)
	}
	checkStatsRecount(t, e.db)
}

// TestAnonymousSuggestions: with anonymous suggestions on, an anonymous
// client suggests on a public project (user null, its address and agent
// kept), not on a protected one; past its address's limit it gets 429
// with Retry-After, while signed-in users suggest on and nothing stored
// is lost. Anonymous votes and deletes stay 401.
func TestAnonymousSuggestions(t *testing.T) {
	env := servertest.New(t, servertest.WithDemo(),
		servertest.WithUser("anna", false, [2]string{"Translate", "demo"}),
		servertest.WithOptions(func(o *servertest.Options) {
			o.AnonymousSuggestions = edge.RateLimit{Requests: 2, Period: time.Hour}
		}))
	e := &writeEnv{srv: env.Running, db: env.DB, anna: env.Auth["anna"]}
	save := e.unitURL(t, "app", "de", "save")
	r := suggest(t, save, "", "Speichern")
	if r.Status != 201 {
		t.Fatalf("anonymous suggestion: %d %s", r.Status, r.Body)
	}
	got := servertest.Decode(t, r.Body)
	if got["user"] != nil {
		t.Errorf("anonymous suggestion's user: %v", got["user"])
	}
	id, _ := strconv.ParseInt(servertest.Num(got["id"]), 10, 64)
	s, err := e.db.FindSuggestionByID(context.Background(), id)
	if err != nil || s.Address != "127.0.0.1" || s.Agent == "" || s.UserID != 0 {
		t.Errorf("stored: %+v %v", s, err)
	}
	sugURL := e.srv.URL + "/api/suggestions/" + servertest.Num(got["id"]) + "/"
	for _, m := range []string{"DELETE", "POST vote/", "POST accept/"} {
		method, sub, _ := strings.Cut(m, " ")
		if r := servertest.DoJSON(t, method, sugURL+sub, "", map[string]any{"value": 1}); r.Status != 401 {
			t.Errorf("anonymous %s: %d %s", m, r.Status, r.Body)
		}
	}
	e.setProject(t, func(p *index.Project) { p.AccessControl = index.AccessProtected })
	if r := suggest(t, save, "", "Sichern"); r.Status != 403 {
		t.Errorf("anonymous on a protected project: %d %s", r.Status, r.Body)
	}
	e.setProject(t, func(p *index.Project) { p.AccessControl = index.AccessPublic })
	r = suggest(t, save, "", "Alles sichern")
	if r.Status != 429 || r.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(r.Body), `"code":"throttled"`) {
		t.Errorf("past the limit: %d %s %v", r.Status, r.Body, r.Header)
	}
	if r := suggest(t, save, e.anna, "Alles speichern"); r.Status != 201 {
		t.Errorf("a user past an anonymous flood: %d %s", r.Status, r.Body)
	}
	list := servertest.GetObject(t, save+"suggestions/")
	if servertest.Num(list["count"]) != "2" {
		t.Errorf("after the flood: %v", list)
	}
	checkStatsRecount(t, e.db)
}

// TestSuggestUpload: method=suggest turns each differing target of the
// file into a suggestion by the uploader (weblate-writes.md §3.1):
// accepted counts the suggestions made; skipped the targets the unit
// holds, read-only units and repeats of a suggestion; not_found the
// strings the translation lacks. Turned off, the method is refused.
func TestSuggestUpload(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	file := `{"greeting": "Hallo, {name}!", "farewell": "Tschüss", "menu": {"view": "Ansicht"}, "nope": "x"}`
	r := doUpload(t, "POST", e.Srv.URL+deURL, e.Anna, file, "method", "suggest")
	wantUploaded(t, r, 1, 1, 2, 4)
	tr := servertest.GetObject(t, e.Srv.URL+"/api/translations/demo/app/de/")
	if servertest.Num(tr["have_suggestion"]) != "2" || servertest.Num(tr["translated"]) != "4" {
		t.Errorf("after suggesting: have_suggestion %v, translated %v", tr["have_suggestion"], tr["translated"])
	}
	all := servertest.GetObject(t, e.Srv.URL+"/api/suggestions/")
	if servertest.Num(all["count"]) != "2" || servertest.Results(t, all)[0]["user"] != e.Srv.URL+"/api/users/anna/" {
		t.Errorf("suggestions: %v", all)
	}
	// The same file again suggests nothing new.
	wantUploaded(t, doUpload(t, "POST", e.Srv.URL+deURL, e.Anna, file, "method", "suggest"), 1, 3, 0, 4)
	checkStatsRecount(t, e.DB)

	(&writeEnv{db: e.DB}).setComponent(t, "app", func(c *index.Component) { c.EnableSuggestions = false })
	wantError(t, doUpload(t, "POST", e.Srv.URL+deURL, e.Anna, file, "method", "suggest"), 400, "method",
		"This method is not available here. Suggestions are turned off for this language. Ask a project administrator to enable them.")
}
