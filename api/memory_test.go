package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// lookupAnswer is one result of POST /api/memory/lookup/.
type lookupAnswer struct {
	Query string `json:"query"`
	Match *struct {
		ID      int64  `json:"id"`
		Source  string `json:"source"`
		Target  string `json:"target"`
		Origin  string `json:"origin"`
		Exact   bool   `json:"exact"`
		Quality int    `json:"quality"`
	} `json:"match"`
}

// lookup posts strings to the lookup as auth and returns "target
// quality[x]" per string ("-" for no match).
func lookup(tb testing.TB, base, auth, query string, strs ...string) []string {
	tb.Helper()
	r := servertest.DoJSON(tb, "POST", base+"/api/memory/lookup/?"+query, auth, map[string]any{"strings": strs})
	if r.Status != http.StatusOK {
		tb.Fatalf("lookup %s: %d %s", query, r.Status, r.Body)
	}
	var got []lookupAnswer
	if err := json.Unmarshal(r.Body, &got); err != nil {
		tb.Fatal(err)
	}
	if len(got) != len(strs) {
		tb.Fatalf("lookup: %d answers for %d strings", len(got), len(strs))
	}
	var out []string
	for i, a := range got {
		if a.Query != strs[i] {
			tb.Errorf("answer %d is for %q, want %q (input order)", i, a.Query, strs[i])
		}
		if a.Match == nil {
			out = append(out, "-")
			continue
		}
		s := fmt.Sprintf("%s %d", a.Match.Target, a.Match.Quality)
		if a.Match.Exact {
			s += "x"
		}
		out = append(out, s)
	}
	return out
}

func TestMemoryLookupAPI(t *testing.T) {
	e := mustPrivateEnv(t)
	const pair = "source_language=en&target_language=de"
	// The glossary's apple is Apfel; "apples" is 200·5/11 = 90.9 like it.
	got := lookup(t, e.srv.URL, e.root, pair, "apple", "apples", "Nothing like it at all")
	if want := []string{"Apfel 100x", "Apfel 90", "-"}; !same(got, want) {
		t.Errorf("lookup = %q, want %q", got, want)
	}
	// Language codes as files and clients write them; exact=true drops
	// the fuzzy match; threshold is Tolk's.
	if got := lookup(t, e.srv.URL, e.root, "source_language=EN&target_language=de&exact=true", "apple", "apples"); !same(got, []string{"Apfel 100x", "-"}) {
		t.Errorf("exact = %q", got)
	}
	if got := lookup(t, e.srv.URL, e.root, pair+"&threshold=95", "apples"); !same(got, []string{"-"}) {
		t.Errorf("threshold 95 = %q", got)
	}
	// An edit is in the memory at once.
	r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/translations/demo/glossary/de/units/?q=source:plum", e.root, nil)
	units := servertest.Results(t, servertest.Decode(t, r.Body))
	if len(units) != 1 {
		t.Fatalf("plum: %s", r.Body)
	}
	patch := servertest.DoJSON(t, "PATCH", fmt.Sprint(units[0]["url"]), e.root, map[string]any{"target": []string{"Pflaume"}, "state": 20})
	if patch.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", patch.Status, patch.Body)
	}
	if got := lookup(t, e.srv.URL, e.root, pair, "plum"); !same(got, []string{"Pflaume 100x"}) {
		t.Errorf("after the edit = %q", got)
	}

	long := strings.Repeat("x", 2001)
	many := make([]string, 101)
	for i := range many {
		many[i] = "s"
	}
	for _, tc := range []struct {
		name, query string
		body        any
		want        string
	}{
		{"no languages", "", map[string]any{"strings": []string{"a"}}, "source_language"},
		{"unknown language", "source_language=en&target_language=xx-nothing", map[string]any{"strings": []string{"a"}}, "target_language"},
		{"no strings", pair, map[string]any{}, "strings"},
		{"too many strings", pair, map[string]any{"strings": many}, "strings"},
		{"string too long", pair, map[string]any{"strings": []string{"ok", long}}, "strings"},
		{"strings not a list", pair, map[string]any{"strings": 5}, "strings"},
		{"threshold out of range", pair + "&threshold=101", map[string]any{"strings": []string{"a"}}, "threshold"},
		{"missing project", pair + "&project=nothing", map[string]any{"strings": []string{"a"}}, "project"},
	} {
		r := servertest.DoJSON(t, "POST", e.srv.URL+"/api/memory/lookup/?"+tc.query, e.root, tc.body)
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"attr":"`+tc.want+`"`) {
			t.Errorf("%s: %d %s, want 400 naming %s", tc.name, r.Status, r.Body, tc.want)
		}
	}
	if r := servertest.DoJSON(t, "POST", e.srv.URL+"/api/memory/lookup/?"+pair, "", map[string]any{"strings": []string{"a"}}); r.Status != http.StatusUnauthorized {
		t.Errorf("anonymous lookup: %d %s", r.Status, r.Body)
	}
}

// memoryList is the entries of GET /api/memory/?query as auth, walked
// over every page.
func memoryList(tb testing.TB, base, auth, query string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for next := base + "/api/memory/?" + query; next != ""; {
		page := servertest.GetObjectAs(tb, next, auth)
		out = append(out, servertest.Results(tb, page)...)
		next, _ = page["next"].(string)
	}
	return out
}

func TestMemoryImportExport(t *testing.T) {
	e := mustPrivateEnv(t)
	const tmx = `<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en-US" o-tmf="OmegaT" datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" creationtoolversion="1"/>
<body>
<tu><prop type="x-context">greeting</prop><tuv xml:lang="en-US"><seg>Good morning &amp; welcome</seg></tuv><tuv xml:lang="de"><seg>Guten Morgen &amp; willkommen</seg></tuv></tu>
<tu><tuv xml:lang="en-US"><seg>Close the window</seg></tuv><tuv xml:lang="de"><seg>Fenster schließen</seg></tuv><tuv xml:lang="fr"><seg>Fermer la fenêtre</seg></tuv></tu>
</body></tmx>`
	before := len(memoryList(t, e.srv.URL, e.root, ""))
	// A site-wide import takes memory.manage: a project's member may not.
	if r := doUpload(t, "POST", e.srv.URL+"/api/memory/import/", e.member, tmx); r.Status != http.StatusForbidden {
		t.Fatalf("member's site-wide import: %d %s", r.Status, r.Body)
	}
	r := doUpload(t, "POST", e.srv.URL+"/api/memory/import/", e.root, tmx)
	if r.Status != http.StatusOK || string(r.Body) != `{"imported":3,"skipped":0}` {
		t.Fatalf("import: %d %s", r.Status, r.Body)
	}
	if got := lookup(t, e.srv.URL, e.stranger, "source_language=en&target_language=de", "Good morning & welcome", "Close the window!"); !same(got, []string{"Guten Morgen & willkommen 100x", "Fenster schließen 96"}) {
		t.Errorf("lookup of the import = %q", got)
	}
	// The same file again stores nothing new.
	if r := doUpload(t, "POST", e.srv.URL+"/api/memory/import/", e.root, tmx); string(r.Body) != `{"imported":0,"skipped":3}` {
		t.Errorf("second import: %d %s", r.Status, r.Body)
	}
	all := memoryList(t, e.srv.URL, e.root, "")
	if len(all) != before+3 {
		t.Errorf("list has %d entries, want %d", len(all), before+3)
	}
	servertest.CheckShape(t, "memory entry", all[0], servertest.Shape{"id": "number", "source": "string",
		"target": "string", "source_language": "string", "target_language": "string", "origin": "string",
		"project": "null", "from_file": "bool", "shared": "bool", "context": "string", "status": "number"})
	if fr := memoryList(t, e.srv.URL, e.root, "target_language=fr&source=WINDOW"); len(fr) != 1 || fr[0]["target"] != "Fermer la fenêtre" {
		t.Errorf("filtered list: %v", fr)
	}

	// Export, then import the export into a fresh server: the same
	// lookups answer the same.
	exp := servertest.Do(t, "GET", e.srv.URL+"/api/memory/export/?format=tmx&source_language=en&target_language=de",
		http.Header{"Authorization": {e.root}})
	if exp.Status != http.StatusOK || exp.Header.Get("Content-Type") != "application/x-tmx" {
		t.Fatalf("export: %d %s %s", exp.Status, exp.Header.Get("Content-Type"), exp.Body)
	}
	fresh := mustPrivateEnv(t)
	if r := doUpload(t, "POST", fresh.srv.URL+"/api/memory/import/", fresh.root, string(exp.Body)); r.Status != http.StatusOK {
		t.Fatalf("import of the export: %d %s\n%s", r.Status, r.Body, exp.Body)
	}
	for _, s := range []string{"Good morning & welcome", "Close the window", "apple"} {
		a := lookup(t, e.srv.URL, e.root, "source_language=en&target_language=de", s)
		b := lookup(t, fresh.srv.URL, fresh.root, "source_language=en&target_language=de", s)
		if !same(a, b) {
			t.Errorf("%q: %q before the round trip, %q after", s, a, b)
		}
	}
	// JSON: the reference's dump, which imports as well.
	js := servertest.Do(t, "GET", e.srv.URL+"/api/memory/export/?target_language=fr&source=window", http.Header{"Authorization": {e.root}})
	var dump []map[string]any
	if err := json.Unmarshal(js.Body, &dump); err != nil || len(dump) != 1 || dump[0]["source_language"] != "en" {
		t.Errorf("JSON export: %v %s", err, js.Body)
	}
	if r := doUpload(t, "POST", fresh.srv.URL+"/api/memory/import/", fresh.root, string(js.Body)); string(r.Body) != `{"imported":1,"skipped":0}` {
		t.Errorf("import of the JSON export: %d %s", r.Status, r.Body)
	}

	// Refused files store nothing.
	count := len(memoryList(t, e.srv.URL, e.root, ""))
	for name, file := range map[string]string{
		"doctype":          `<!DOCTYPE tmx [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>` + tmx[strings.Index(tmx, "<tmx"):],
		"external entity":  `<!DOCTYPE tmx [<!ENTITY x SYSTEM "file:///etc/passwd">]><tmx version="1.4"><header srclang="en"/><body/></tmx>`,
		"unknown language": strings.Replace(tmx, `xml:lang="fr"`, `xml:lang="zz-nope"`, 1),
		"malformed":        tmx[:200],
		"json language":    `[{"source":"a","target":"b","source_language":"en","target_language":"de"},{"source":"a","target":"b","source_language":"en","target_language":"nope!"}]`,
		"json missing":     `[{"source":"a","source_language":"en","target_language":"de"}]`,
		"json empty":       `[{"source":"","target":"b","source_language":"en","target_language":"de"}]`,
	} {
		r := doUpload(t, "POST", e.srv.URL+"/api/memory/import/", e.root, file)
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"attr":"file"`) {
			t.Errorf("%s: %d %s, want 400 naming file", name, r.Status, r.Body)
		}
	}
	if n := len(memoryList(t, e.srv.URL, e.root, "")); n != count {
		t.Errorf("refused imports stored %d entries", n-count)
	}
	if r := servertest.Do(t, "GET", e.srv.URL+"/api/memory/export/?format=xliff", http.Header{"Authorization": {e.root}}); r.Status != http.StatusBadRequest {
		t.Errorf("export format xliff: %d %s", r.Status, r.Body)
	}

	// A unit's entry is its translation: not deleted here. An imported
	// one is.
	var unitID, importedID string
	for _, m := range all {
		switch {
		case m["from_file"] == false && unitID == "":
			unitID = servertest.Num(m["id"])
		case m["from_file"] == true && importedID == "":
			importedID = servertest.Num(m["id"])
		}
	}
	if r := servertest.DoJSON(t, "DELETE", e.srv.URL+"/api/memory/"+unitID+"/", e.root, nil); r.Status != http.StatusBadRequest {
		t.Errorf("DELETE a unit's entry: %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "DELETE", e.srv.URL+"/api/memory/"+importedID+"/", e.root, nil); r.Status != http.StatusNoContent {
		t.Errorf("DELETE an imported entry: %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/memory/"+importedID+"/", e.root, nil); r.Status != http.StatusNotFound {
		t.Errorf("GET a deleted entry: %d %s", r.Status, r.Body)
	}
	for _, path := range []string{"/api/memory/abc/", "/api/memory/99999999999999999999/", "/api/memory/?page=0",
		"/api/memory/?source_language=%00", "/api/memory/?project=" + strings.Repeat("p", 5000)} {
		r := servertest.DoJSON(t, "GET", e.srv.URL+path, e.root, nil)
		if r.Status != http.StatusNotFound && r.Status != http.StatusBadRequest {
			t.Errorf("GET %.60s: %d %s", path, r.Status, r.Body)
		}
		checkErrorEnvelope(t, path, r)
	}
	if r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/memory/", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("anonymous list: %d", r.Status)
	}
}

func same(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }
