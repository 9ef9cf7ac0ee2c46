package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// timestampRE is the reference's timestamp shape.
var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)

// keysOf returns the keys of a JSON object in the order the body has
// them.
func keysOf(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(body)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", body)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestCommentsAPI(t *testing.T) {
	e := newWriteEnv(t)
	base := e.srv.URL
	hello, enHello := e.unitURL(t, "app", "de", "hello"), e.unitURL(t, "app", "en", "hello")
	user := func(name string) string { return base + "/api/users/" + name + "/" }

	// §3.3: 201 with comment, timestamp, id and user, in that order.
	r := servertest.DoJSON(t, "POST", hello+"comments/", e.anna,
		map[string]any{"scope": "translation", "comment": "Is **Hallo** too casual? @rita"})
	if r.Status != http.StatusCreated {
		t.Fatalf("POST comment: %d %s", r.Status, r.Body)
	}
	if keys := keysOf(t, r.Body); !slices.Equal(keys, []string{"comment", "timestamp", "id", "user"}) {
		t.Errorf("POST answer keys %q", keys)
	}
	var created struct {
		Comment, Timestamp, User string
		ID                       int64
	}
	decodeJSON(t, r, &created)
	if created.Comment != "Is **Hallo** too casual? @rita" || created.User != user("anna") ||
		!timestampRE.MatchString(created.Timestamp) || created.ID == 0 {
		t.Errorf("POST answer %s", r.Body)
	}

	// The list: {id, comment, timestamp, user}, paginated.
	list := servertest.GetObject(t, hello+"comments/")
	results := servertest.Results(t, list)
	if servertest.Num(list["count"]) != "1" || len(results) != 1 || list["next"] != nil || list["previous"] != nil {
		t.Fatalf("GET comments: %v", list)
	}
	r = servertest.DoJSON(t, "GET", hello+"comments/", "", nil)
	item := string(r.Body)[strings.Index(string(r.Body), `"results":[`)+len(`"results":[`):]
	if keys := keysOf(t, []byte(item[:strings.Index(item, "}")+1])); !slices.Equal(keys, []string{"id", "comment", "timestamp", "user"}) {
		t.Errorf("list item keys %q", keys)
	}
	if results[0]["comment"] != created.Comment || results[0]["user"] != user("anna") ||
		results[0]["timestamp"] != created.Timestamp || servertest.Num(results[0]["id"]) != fmt.Sprint(created.ID) {
		t.Errorf("listed %v", results[0])
	}

	// Counts: the unit, its translation, its statistics.
	if u := servertest.GetObject(t, hello); u["has_comment"] != true {
		t.Errorf("has_comment = %v after a comment", u["has_comment"])
	}
	counts := func(lang string) (string, string) {
		t.Helper()
		tr := servertest.GetObject(t, base+"/api/translations/demo/app/"+lang+"/")
		st := servertest.GetObject(t, base+"/api/translations/demo/app/"+lang+"/statistics/")
		return servertest.Num(tr["have_comment"]), servertest.Num(st["comments"])
	}
	if have, n := counts("de"); have != "1" || n != "1" {
		t.Errorf("de have_comment %s, comments %s; want 1, 1", have, n)
	}

	// A global comment is stored on the source unit: the German list
	// leaves it out unless include=source, the English one has it.
	r = servertest.DoJSON(t, "POST", hello+"comments/", e.rita, map[string]any{"scope": "global", "comment": "Greeting"})
	wantResponse(t, "global comment", r, http.StatusCreated, "")
	if n := servertest.Num(servertest.GetObject(t, hello+"comments/")["count"]); n != "1" {
		t.Errorf("de list counts %s with a global comment, want 1 (the reference's)", n)
	}
	if n := servertest.Num(servertest.GetObject(t, hello+"comments/?include=source")["count"]); n != "2" {
		t.Errorf("de list with include=source counts %s, want 2", n)
	}
	if n := servertest.Num(servertest.GetObject(t, enHello+"comments/")["count"]); n != "1" {
		t.Errorf("en list counts %s, want the global comment", n)
	}
	if have, _ := counts("en"); have != "1" {
		t.Errorf("en have_comment %s after a global comment, want 1", have)
	}
	if have, _ := counts("de"); have != "1" {
		t.Errorf("de have_comment %s after a global comment, want still 1", have)
	}

	// Refusals, in the reference's words.
	wantResponse(t, "translation scope on a source unit",
		servertest.DoJSON(t, "POST", enHello+"comments/", e.anna, map[string]any{"scope": "translation", "comment": "x"}),
		http.StatusBadRequest, invalidField("scope", `"translation" is not a valid choice for source units.`))
	wantResponse(t, "report without source review",
		servertest.DoJSON(t, "POST", hello+"comments/", e.anna, map[string]any{"scope": "report", "comment": "x"}),
		http.StatusBadRequest, invalidField("scope", `"report" is not a valid choice as source review is disabled.`))
	wantResponse(t, "no fields", servertest.DoJSON(t, "POST", hello+"comments/", e.anna, map[string]any{}),
		http.StatusBadRequest, invalid(required("comment"), required("scope")))
	wantResponse(t, "unknown scope",
		servertest.DoJSON(t, "POST", hello+"comments/", e.anna, map[string]any{"scope": "all", "comment": "x"}),
		http.StatusBadRequest, invalid([3]string{"scope", "invalid_choice", `"all" is not a valid choice.`}))
	wantResponse(t, "no role", servertest.DoJSON(t, "POST", hello+"comments/", e.nobody, map[string]any{"scope": "global", "comment": "x"}),
		http.StatusForbidden, denied(deniedDefault))
	wantResponse(t, "anonymous", servertest.DoJSON(t, "POST", hello+"comments/", "", map[string]any{"scope": "global", "comment": "x"}),
		http.StatusUnauthorized, notSignedIn)
	wantResponse(t, "a translator dating a comment", servertest.DoJSON(t, "POST", hello+"comments/", e.anna,
		map[string]any{"scope": "global", "comment": "x", "timestamp": "2020-01-02T03:04:05Z"}), http.StatusForbidden, denied(deniedDefault))
	wantResponse(t, "a translator naming the author", servertest.DoJSON(t, "POST", hello+"comments/", e.anna,
		map[string]any{"scope": "global", "comment": "x", "user_email": "rita@example.com"}), http.StatusForbidden, denied(deniedDefault))
	wantResponse(t, "a bad e-mail", servertest.DoJSON(t, "POST", hello+"comments/", e.adam,
		map[string]any{"scope": "global", "comment": "x", "user_email": "rita"}), http.StatusBadRequest,
		invalidField("user_email", "Enter a valid email address."))
	wantResponse(t, "nobody's e-mail", servertest.DoJSON(t, "POST", hello+"comments/", e.adam,
		map[string]any{"scope": "global", "comment": "x", "user_email": "ghost@example.com"}), http.StatusBadRequest,
		invalidField("user_email", "No user has this e-mail address."))
	wantResponse(t, "a bad timestamp", servertest.DoJSON(t, "POST", hello+"comments/", e.adam,
		map[string]any{"scope": "global", "comment": "x", "timestamp": "yesterday"}), http.StatusBadRequest,
		invalidField("timestamp", "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."))
	wantResponse(t, "no unit", servertest.DoJSON(t, "POST", base+"/api/units/999999/comments/", e.anna,
		map[string]any{"scope": "global", "comment": "x"}), http.StatusNotFound, "")

	// An administrator imports history: the date and author given.
	r = servertest.DoJSON(t, "POST", hello+"comments/", e.adam, map[string]any{"scope": "translation",
		"comment": "Imported", "timestamp": "2020-01-02T03:04:05+01:00", "user_email": "RITA@example.com"})
	wantResponse(t, "imported comment", r, http.StatusCreated, "")
	var imported struct{ Timestamp, User string }
	decodeJSON(t, r, &imported)
	if imported.Timestamp != "2020-01-02T02:04:05.000000Z" || imported.User != user("rita") {
		t.Errorf("imported comment %s", r.Body)
	}

	// Resolving: the author or a reviewer; removing: the author or an
	// administrator. Tolk's own endpoint.
	commentURL := fmt.Sprintf("%s/api/comments/%d/", base, created.ID)
	resolve := func(auth string, resolved bool) servertest.Response {
		return servertest.DoJSON(t, "PATCH", commentURL, auth, map[string]any{"resolved": resolved})
	}
	wantResponse(t, "sam resolving anna's", resolve(e.sam, true), http.StatusForbidden, denied(deniedResolve))
	r = resolve(e.anna, true)
	wantResponse(t, "anna resolving her own", r, http.StatusOK, "")
	got := servertest.GetObject(t, commentURL)
	if got["resolved"] != true || got["unit"] != hello || got["user"] != user("anna") {
		t.Errorf("GET resolved comment: %v", got)
	}
	if u := servertest.GetObject(t, hello); u["has_comment"] != true {
		t.Error("resolving one of two comments cleared has_comment (the imported one is open)")
	}
	wantResponse(t, "reopen", resolve(e.rita, false), http.StatusOK, "")
	wantResponse(t, "resolved: not a boolean", servertest.DoJSON(t, "PATCH", commentURL, e.rita, map[string]any{"resolved": "perhaps"}),
		http.StatusBadRequest, invalidField("resolved", "Must be a valid boolean."))
	wantResponse(t, "no resolved", servertest.DoJSON(t, "PATCH", commentURL, e.rita, map[string]any{}),
		http.StatusBadRequest, invalid(required("resolved")))
	wantResponse(t, "rita removing anna's", servertest.DoJSON(t, "DELETE", commentURL, e.rita, nil),
		http.StatusForbidden, denied(deniedRemove))
	wantResponse(t, "anna removing her own", servertest.DoJSON(t, "DELETE", commentURL, e.anna, nil), http.StatusNoContent, "")
	wantResponse(t, "gone", servertest.DoJSON(t, "GET", commentURL, "", nil), http.StatusNotFound, "")
	if actions := changeActions(t, base+"/api/translations/demo/app/de/changes/"); !containsAll(actions,
		"3 by anna", "3 by rita", "65 by anna", "64 by anna") {
		t.Errorf("de changes %q lack the comment actions", actions)
	}
	// Resolve the imported comment too: nothing open is left on de.
	for _, c := range servertest.Results(t, servertest.GetObject(t, hello+"comments/")) {
		wantResponse(t, "resolve", servertest.DoJSON(t, "PATCH", fmt.Sprintf("%s/api/comments/%s/", base, servertest.Num(c["id"])),
			e.root, map[string]any{"resolved": 1}), http.StatusOK, "")
	}
	if have, n := counts("de"); have != "0" || n != "0" {
		t.Errorf("de have_comment %s, comments %s after resolving all; want 0, 0", have, n)
	}
	if u := servertest.GetObject(t, hello); u["has_comment"] != false {
		t.Error("has_comment true with every comment resolved")
	}
	checkStatsRecount(t, e.db)
}

// containsAll reports whether list holds every one of want.
func containsAll(list []string, want ...string) bool {
	for _, w := range want {
		if !slices.Contains(list, w) {
			return false
		}
	}
	return true
}

func TestReportCommentsAPI(t *testing.T) {
	e := newWriteEnv(t)
	e.setProject(t, func(p *index.Project) { p.SourceReview = true })
	base := e.srv.URL
	// Bilingual (the glossary): the red label, on the source string and
	// so on every translation's unit.
	apple := e.unitURL(t, "glossary", "de", "apple")
	wantResponse(t, "report on the glossary", servertest.DoJSON(t, "POST", apple+"comments/", e.anna,
		map[string]any{"scope": "report", "comment": "Apple the fruit or the firm?"}), http.StatusCreated, "")
	labels, _ := servertest.GetObject(t, apple)["labels"].([]any)
	if len(labels) != 1 {
		t.Fatalf("labels after a report: %v", labels)
	}
	l := labels[0].(map[string]any)
	if l["name"] != "Source needs review" || l["color"] != "red" || l["description"] != "" || l["id"] == nil {
		t.Errorf("report label %v", l)
	}
	projectLabels := servertest.Results(t, servertest.GetObject(t, base+"/api/projects/demo/labels/"))
	if len(projectLabels) != 1 || projectLabels[0]["name"] != "Source needs review" {
		t.Errorf("project labels %v", projectLabels)
	}
	if n := servertest.Num(servertest.GetObject(t, e.unitURL(t, "glossary", "en", "apple")+"comments/")["count"]); n != "1" {
		t.Errorf("the report is not on the source unit: count %s", n)
	}
	if actions := changeActions(t, base+"/api/translations/demo/glossary/en/changes/"); !containsAll(actions, "3 by anna", "86 by anna") {
		t.Errorf("glossary source changes %q", actions)
	}
	checkStatsRecount(t, e.db)
}
