package api_test

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

var unitShape = servertest.Shape{
	"translation": "url", "source": "strings", "previous_source": "string", "target": "strings",
	"id_hash": "int", "content_hash": "int", "location": "string", "context": "string", "note": "string",
	"flags": "string", "labels": "strings", "state": "int", "fuzzy": "bool", "translated": "bool",
	"approved": "bool", "position": "int", "has_suggestion": "bool", "has_comment": "bool",
	"has_failing_check": "bool", "num_words": "int", "source_unit": "url", "priority": "int", "id": "int",
	"web_url": "url", "url": "url", "explanation": "string", "extra_flags": "string", "pending": "bool",
	"timestamp": "timestamp", "automatically_translated": "bool",
}

var listShape = servertest.Shape{"count": "int", "next": "url|null", "previous": "url|null", "results": "array"}

func TestUnitsFields(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	list := servertest.GetObject(t, base+"/api/translations/demo/app/de/units/")
	servertest.CheckShape(t, "units list", list, listShape)
	checkValues(t, "units list", list, map[string]any{"count": "6", "next": nil, "previous": nil})
	units := servertest.Results(t, list)
	if len(units) != 6 {
		t.Fatalf("got %d units, want 6", len(units))
	}
	sourceURLs := map[string]string{} // context -> url of the English unit
	for _, u := range servertest.Results(t, servertest.GetObject(t, base+"/api/translations/demo/app/en/units/")) {
		sourceURLs[u["context"].(string)] = u["url"].(string)
		if u["source_unit"] != u["url"] {
			t.Errorf("source unit %v: source_unit %v, want its own url", u["context"], u["source_unit"])
		}
	}

	// state, fuzzy, translated, approved per the reference's state table.
	wantState := map[string][4]any{
		"hello": {"30", false, true, true},
		"bye":   {"10", true, false, false},
		"open":  {"20", false, true, false},
		"save":  {"0", false, false, false},
	}
	for i, u := range units {
		ctx := u["context"].(string)
		servertest.CheckShape(t, "unit "+ctx, u, unitShape)
		id := servertest.Num(u["id"])
		hash := index.HashParts(ctx) // monolingual: the key alone
		checksum := strconv.FormatUint(uint64(hash)+1<<63, 16)
		checkValues(t, "unit "+ctx, u, map[string]any{
			"translation": base + "/api/translations/demo/app/de/",
			"url":         base + "/api/units/" + id + "/",
			"web_url":     base + "/translate/demo/app/de/?checksum=" + checksum,
			"source_unit": sourceURLs[ctx],
			"id_hash":     strconv.FormatInt(hash, 10),
			"content_hash": strconv.FormatInt(index.ContentHash(
				[]string{u["source"].([]any)[0].(string)}, ctx), 10),
			"position": strconv.Itoa(i + 1),
			"priority": "100",
			"pending":  false,
		})
		if w, ok := wantState[ctx]; ok {
			checkValues(t, "unit "+ctx, u, map[string]any{
				"state": w[0], "fuzzy": w[1], "translated": w[2], "approved": w[3]})
		}
		if i > 0 && atoi(t, servertest.Num(units[i-1]["id"])) >= atoi(t, id) {
			t.Errorf("unit ids not ascending: %s then %s", servertest.Num(units[i-1]["id"]), id)
		}
	}
	if got := units[2]["target"].([]any); len(got) != 1 || got[0] != "Datei öffnen…" {
		t.Errorf("open target = %v", got)
	}
	if got := units[3]["labels"].([]any); len(got) != 0 {
		t.Errorf("labels = %v, want []", got)
	}
	if got := units[0]["num_words"]; servertest.Num(got) != "1" {
		t.Errorf("hello num_words = %v", got)
	}
}

func TestGlossaryUnits(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	units := servertest.Results(t, servertest.GetObject(t, srv.URL+"/api/translations/demo/glossary/de/units/"))
	if len(units) != 3 {
		t.Fatalf("got %d glossary units, want 3", len(units))
	}
	servertest.CheckShape(t, "glossary unit", units[0], unitShape)
	// Bilingual: id_hash covers source and context.
	checkValues(t, "glossary unit", units[0], map[string]any{
		"state": "20", "translated": true, "fuzzy": false, "approved": false,
		"id_hash": strconv.FormatInt(index.HashParts("apple", ""), 10),
	})
}

// TestUnitsPagination walks a 276-unit list: 50 per page, six pages, the
// last one holding 26, ids ascending across pages and count equal to the
// translation's total.
func TestUnitsPagination(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedBig(t, db, 276)
	srv := servertest.Serve(t, db, servertest.Options{})
	path := "/api/translations/big/strings/de/units/"
	base := srv.URL + path

	total := servertest.Num(servertest.GetObject(t, srv.URL+"/api/translations/big/strings/de/")["total"])
	var ids []int64
	next := any(base)
	for page := 1; next != nil; page++ {
		list := servertest.GetObject(t, next.(string))
		servertest.CheckShape(t, "page", list, listShape)
		if got := servertest.Num(list["count"]); got != total || got != "276" {
			t.Fatalf("page %d count = %s, want 276 = translation total %s", page, got, total)
		}
		wantPrev := any(nil)
		switch {
		case page == 2:
			wantPrev = base // the link to page 1 carries no page
		case page > 2:
			wantPrev = fmt.Sprintf("%s?page=%d", base, page-1)
		}
		wantNext := any(fmt.Sprintf("%s?page=%d", base, page+1))
		wantLen := 50
		if page == 6 {
			wantNext, wantLen = nil, 26
		}
		if list["previous"] != wantPrev || list["next"] != wantNext {
			t.Errorf("page %d: previous %v next %v, want %v and %v", page, list["previous"], list["next"], wantPrev, wantNext)
		}
		units := servertest.Results(t, list)
		if len(units) != wantLen {
			t.Errorf("page %d holds %d units, want %d", page, len(units), wantLen)
		}
		for _, u := range units {
			id := atoi(t, servertest.Num(u["id"]))
			if len(ids) > 0 && id <= ids[len(ids)-1] {
				t.Errorf("page %d: id %d after %d", page, id, ids[len(ids)-1])
			}
			ids = append(ids, id)
		}
		next = list["next"]
		if page > 6 {
			t.Fatal("more than six pages")
		}
	}
	if len(ids) != 276 {
		t.Errorf("walked %d units, want 276", len(ids))
	}

	t.Run("page_size", func(t *testing.T) {
		list := servertest.GetObject(t, base+"?page_size=100&page=2")
		checkValues(t, "page_size=100 page 2", list, map[string]any{
			"previous": base + "?page_size=100",
			"next":     base + "?page=3&page_size=100",
		})
		if n := len(servertest.Results(t, list)); n != 100 {
			t.Errorf("page_size=100 gives %d units", n)
		}
		for q, want := range map[string]int{"page_size=2000": 276, "page_size=0": 50, "page_size=abc": 50, "page_size=-5": 50} {
			if n := len(servertest.Results(t, servertest.GetObject(t, base+"?"+q))); n != want {
				t.Errorf("%s gives %d units, want %d", q, n, want)
			}
		}
	})
	t.Run("last", func(t *testing.T) {
		list := servertest.GetObject(t, base+"?page=last")
		if n := len(servertest.Results(t, list)); n != 26 || list["next"] != nil {
			t.Errorf("page=last: %d units, next %v", n, list["next"])
		}
	})
	t.Run("format=api", func(t *testing.T) {
		list := servertest.GetObject(t, base+"?page=2&format=api")
		checkValues(t, "format=api page 2", list, map[string]any{
			"previous": base + "?format=api",
			"next":     base + "?page=3&format=api",
		})
	})
}

func TestInvalidPage(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	const invalid = `{"type":"client_error","errors":[{"code":"not_found","detail":"Invalid page.","attr":null}]}`
	for _, list := range []string{"units", "changes"} {
		for _, page := range []string{"0", "-1", "abc", "2", "99999", "1.5", "99999999999999999999"} {
			t.Run(list+"/"+page, func(t *testing.T) {
				url := srv.URL + "/api/translations/demo/app/de/" + list + "/?page=" + page
				r := servertest.Do(t, "GET", url, nil)
				if r.Status != 404 || string(r.Body) != invalid {
					t.Errorf("GET %s = %d %s, want 404 %s", url, r.Status, r.Body, invalid)
				}
			})
		}
	}
	// The first page of a list exists even when the list is empty.
	db := servertest.MustOpenDB(t)
	p := servertest.MustProject(t, db, index.Project{Name: "E", Slug: "e"})
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug = p.ID, "C", "c"
	c = servertest.MustComponent(t, db, c)
	servertest.MustImport(t, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Revision: "x"})
	empty := servertest.Serve(t, db, servertest.Options{})
	list := servertest.GetObject(t, empty.URL+"/api/translations/e/c/de/units/?page=1")
	checkValues(t, "empty list", list, map[string]any{"count": "0", "next": nil, "previous": nil})
	if rs := list["results"].([]any); len(rs) != 0 {
		t.Errorf("results = %v, want []", rs)
	}
}

func atoi(tb testing.TB, s string) int64 {
	tb.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestAllUnits checks /api/units/ against the per-translation lists: the
// same units, in ascending id order, each linking its own translation.
func TestAllUnits(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	want := map[string]map[string]any{} // url -> unit from its translation's list
	for _, tr := range []string{"demo/app/en", "demo/app/de", "demo/glossary/en", "demo/glossary/de"} {
		for _, u := range allPages(t, base+"/api/translations/"+tr+"/units/") {
			if u["translation"] != base+"/api/translations/"+tr+"/" {
				t.Fatalf("%s unit translation = %v", tr, u["translation"])
			}
			want[u["url"].(string)] = u
		}
	}
	list := servertest.GetObject(t, base+"/api/units/")
	checkValues(t, "units", list, map[string]any{"count": fmt.Sprint(len(want)), "next": nil, "previous": nil})
	units := servertest.Results(t, list)
	if len(units) != len(want) || len(want) != 18 {
		t.Fatalf("got %d units, want %d (18)", len(units), len(want))
	}
	for i, u := range units {
		servertest.CheckShape(t, "unit", u, unitShape)
		if w := want[u["url"].(string)]; fmt.Sprint(w) != fmt.Sprint(u) {
			t.Errorf("unit %v = %v, want %v", u["url"], u, w)
		}
		if i > 0 && atoi(t, servertest.Num(units[i-1]["id"])) >= atoi(t, servertest.Num(u["id"])) {
			t.Errorf("ids not ascending: %v then %v", units[i-1]["id"], u["id"])
		}
		// The instance is the list's object.
		if got := servertest.GetObject(t, u["url"].(string)); fmt.Sprint(got) != fmt.Sprint(u) {
			t.Errorf("GET %v = %v, want %v", u["url"], got, u)
		}
	}
	withFormat := servertest.GetObject(t, base+"/api/units/9/?format=api")
	checkValues(t, "unit 9", withFormat, map[string]any{
		"url": base + "/api/units/9/?format=api", "translation": base + "/api/translations/demo/app/de/?format=api",
		"source_unit": base + "/api/units/3/?format=api", "context": "open",
	})

	const notFound = `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, id := range []string{"999", "0", "-1", "abc", "1.5", "+1", "1e3", "99999999999999999999"} {
		r := servertest.Do(t, "GET", base+"/api/units/"+id+"/", nil)
		if r.Status != 404 || string(r.Body) != notFound {
			t.Errorf("GET /api/units/%s/ = %d %s, want 404 %s", id, r.Status, r.Body, notFound)
		}
	}
}

// TestAllUnitsPagination walks 552 units of two translations: pages of
// 100 (the reference's large paginator), the link to page 1 without page,
// ids ascending across pages.
func TestAllUnitsPagination(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedBig(t, db, 276)
	srv := servertest.Serve(t, db, servertest.Options{})
	base := srv.URL + "/api/units/"
	first := servertest.GetObject(t, base)
	checkValues(t, "page 1", first, map[string]any{"count": "552", "previous": nil, "next": base + "?page=2"})
	if n := len(servertest.Results(t, first)); n != 100 {
		t.Errorf("page 1 holds %d, want 100", n)
	}
	middle := servertest.GetObject(t, base+"?page=3")
	checkValues(t, "page 3", middle, map[string]any{"previous": base + "?page=2", "next": base + "?page=4"})
	checkValues(t, "page 2", servertest.GetObject(t, base+"?page=2"), map[string]any{"previous": base})
	last := servertest.GetObject(t, base+"?page=6")
	checkValues(t, "page 6", last, map[string]any{"next": nil, "previous": base + "?page=5"})
	if n := len(servertest.Results(t, last)); n != 52 {
		t.Errorf("last page holds %d, want 52", n)
	}
	if r := servertest.Do(t, "GET", base+"?page=7", nil); r.Status != 404 {
		t.Errorf("page 7 = %d, want 404", r.Status)
	}
	if n := len(servertest.Results(t, servertest.GetObject(t, base+"?page_size=5000"))); n != 552 {
		t.Errorf("page_size=5000 gave %d units, want all 552 (the large paginator allows 10000)", n)
	}
	// q and format survive in the links; q=state:translated keeps the
	// 276 German strings.
	q := "q=state%3Atranslated&format=api"
	page2 := servertest.GetObject(t, base+"?page=2&"+q)
	checkValues(t, "q page 2", page2, map[string]any{"count": "276",
		"previous": base + "?q=state%3Atranslated&format=api",
		"next":     base + "?page=3&q=state%3Atranslated&format=api"})
	var prev int64
	n := 0
	for _, u := range allPages(t, base+"?"+q) {
		id := atoi(t, servertest.Num(u["id"]))
		if id <= prev {
			t.Fatalf("id %d after %d", id, prev)
		}
		if u["translation"] != srv.URL+"/api/translations/big/strings/de/?format=api" {
			t.Errorf("unit %d of %v passed state:translated", id, u["translation"])
		}
		prev = id
		n++
	}
	if n != 276 {
		t.Errorf("walked %d units, want 276", n)
	}
}

// TestUnitSearch checks q on both unit lists: each term filters, and the
// expected sets are computed here from the unfiltered list.
func TestUnitSearch(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	all := allPages(t, srv.URL+"/api/units/")
	str := func(u map[string]any, k string) string {
		var parts []string
		for _, v := range u[k].([]any) {
			parts = append(parts, v.(string))
		}
		return strings.ToLower(strings.Join(parts, "\x1e"))
	}
	state := func(u map[string]any) int64 { return atoi(t, servertest.Num(u["state"])) }
	has := func(u map[string]any, k, sub string) bool {
		if k == "context" {
			return strings.Contains(strings.ToLower(u[k].(string)), sub)
		}
		return strings.Contains(str(u, k), sub)
	}
	cases := []struct {
		q    string
		keep func(map[string]any) bool
	}{
		{"state:translated", func(u map[string]any) bool { return state(u) == 20 }},
		{"state:>=translated", func(u map[string]any) bool { return state(u) >= 20 }},
		{"state:<translated", func(u map[string]any) bool { return state(u) < 20 }},
		{"is:translated", func(u map[string]any) bool { return state(u) >= 20 }},
		{"is:untranslated", func(u map[string]any) bool { return state(u) < 20 }},
		{"state:needs-editing", func(u map[string]any) bool { return state(u) == 10 }},
		{"state:read-only", func(u map[string]any) bool { return state(u) == 100 }},
		{"state:approved", func(u map[string]any) bool { return state(u) == 30 }},
		{"key:o", func(u map[string]any) bool { return has(u, "context", "o") }},
		{"context:hello", func(u map[string]any) bool { return has(u, "context", "hello") }},
		{"source:FILE", func(u map[string]any) bool { return has(u, "source", "file") }},
		{"target:datei", func(u map[string]any) bool { return has(u, "target", "datei") }},
		{`source:"pear tree"`, func(u map[string]any) bool { return has(u, "source", "pear tree") }},
		{`'pear tree'`, func(u map[string]any) bool { return has(u, "source", "pear tree") || has(u, "target", "pear tree") }},
		{"file", func(u map[string]any) bool {
			return has(u, "source", "file") || has(u, "target", "file") || has(u, "context", "file")
		}},
		{"file AND state:empty", func(u map[string]any) bool { return has(u, "source", "file") && state(u) == 0 }},
		{"id:>9", func(u map[string]any) bool { return atoi(t, servertest.Num(u["id"])) > 9 }},
		{"id:9", func(u map[string]any) bool { return atoi(t, servertest.Num(u["id"])) == 9 }},
		{"note:x", func(map[string]any) bool { return false }},
		// The whole language (weblate-workspace.md §8): what a client
		// generated from the reference's OpenAPI sends, OR, NOT, regex.
		{"project:demo component:app language:de", func(u map[string]any) bool {
			return u["translation"] == srv.URL+"/api/translations/demo/app/de/"
		}},
		{"state:<translated project:demo component:app language:de", func(u map[string]any) bool {
			return state(u) < 20 && u["translation"] == srv.URL+"/api/translations/demo/app/de/"
		}},
		{"file OR key:o", func(u map[string]any) bool {
			return has(u, "source", "file") || has(u, "target", "file") || has(u, "context", "file") || has(u, "context", "o")
		}},
		{"NOT state:translated", func(u map[string]any) bool { return state(u) != 20 }},
		{"(key:o OR key:e) AND NOT is:translated", func(u map[string]any) bool {
			return (has(u, "context", "o") || has(u, "context", "e")) && state(u) < 20
		}},
		{`source:r"^[A-Z][a-z]+ "`, func(u map[string]any) bool {
			return regexp.MustCompile(`^[A-Z][a-z]+ `).MatchString(u["source"].([]any)[0].(string))
		}},
		{"id:[3 to 7]", func(u map[string]any) bool { n := atoi(t, servertest.Num(u["id"])); return n >= 3 && n <= 7 }},
	}
	for _, tc := range cases {
		var want []string
		for _, u := range all {
			if tc.keep(u) {
				want = append(want, servertest.Num(u["id"]))
			}
		}
		if len(want) == 0 && tc.q != "note:x" || len(want) == len(all) {
			t.Errorf("%q: %d of %d units match; the case does not test filtering", tc.q, len(want), len(all))
		}
		for _, path := range []string{"/api/units/", "/api/translations/demo/app/de/units/"} {
			list := servertest.GetObject(t, srv.URL+path+"?q="+url.QueryEscape(tc.q))
			var got []string
			for _, u := range servertest.Results(t, list) {
				got = append(got, servertest.Num(u["id"]))
			}
			wantHere := want
			if path != "/api/units/" {
				wantHere = nil
				for _, u := range all {
					if tc.keep(u) && u["translation"] == srv.URL+"/api/translations/demo/app/de/" {
						wantHere = append(wantHere, servertest.Num(u["id"]))
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(wantHere) || servertest.Num(list["count"]) != fmt.Sprint(len(wantHere)) {
				t.Errorf("%s?q=%s: ids %v (count %v), want %v", path, tc.q, got, list["count"], wantHere)
			}
		}
	}
}

func TestUnitSearchErrors(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	// Each message says where: the character (from 1) and the token.
	for q, detail := range map[string]string{
		"colour:red":                `unknown search field \"colour\" at character 1.`,
		"hello state:shiny":         `unknown state \"shiny\" at character 7.`,
		`a "open`:                   "unterminated quote at character 3.",
		"a OR":                      "missing term at character 5.",
		"(a OR b":                   `unclosed \"(\" at character 1.`,
		"a AND AND b":               `unexpected operator \"AND\" at character 7.`,
		"id:abc":                    `invalid number \"abc\" for \"id\" at character 1.`,
		`source:r"(?=x)"`:           `invalid regular expression \"(?=x)\" (error parsing regexp: invalid or unsupported Perl syntax: ` + "`(?=`" + `) at character 1.`,
		"changed:[2019 to someday]": `invalid date range changed:[2019 to someday] at character 1.`,
	} {
		want := `{"type":"validation_error","errors":[{"code":"invalid","detail":"Could not parse query string: ` +
			detail + `","attr":"q"}]}`
		for _, path := range []string{"/api/units/", "/api/translations/demo/app/de/units/"} {
			// The query is judged before the page, as in the reference.
			r := servertest.Do(t, "GET", srv.URL+path+"?page=99&q="+url.QueryEscape(q), nil)
			if r.Status != 400 || string(r.Body) != want {
				t.Errorf("GET %s?q=%s = %d %s, want 400 %s", path, q, r.Status, r.Body, want)
			}
		}
	}
	// An unknown translation is a 404 before its query is looked at.
	r := servertest.Do(t, "GET", srv.URL+"/api/translations/demo/app/xx/units/?q=colour:red", nil)
	if r.Status != 404 {
		t.Errorf("unknown translation with a bad query = %d %s, want 404", r.Status, r.Body)
	}
}

// TestUnitSearchLimits: queries past what the engine can answer are a
// 400 on q, not a 500 from SQLite (expression depth, LIKE pattern
// length), and a NUL byte is refused rather than cutting the pattern.
func TestUnitSearchLimits(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	words := make([]string, 2000)
	for i := range words {
		words[i] = string(rune('a' + i%26))
	}
	long := strings.Repeat("x", 900<<10)
	for _, tc := range []struct{ name, q, want string }{
		{"2000 terms", strings.Join(words, " "), `{"code":"invalid","detail":"Could not parse query string: ` +
			`The query has 2000 terms; at most 100 are allowed.","attr":"q"}`},
		{"900 KB word", long, `{"code":"max_length","detail":"Ensure this value has at most 10000 characters ` +
			`(it has 921600).","attr":"q"}`},
		{"NUL", "Hel\x00lo", `{"code":"null_characters_not_allowed","detail":"Null characters are not allowed.","attr":"q"}`},
	} {
		want := `{"type":"validation_error","errors":[` + tc.want + `]}`
		for _, path := range []string{"/api/units/", "/api/translations/demo/app/de/units/"} {
			r := servertest.Do(t, "GET", srv.URL+path+"?q="+url.QueryEscape(tc.q), nil)
			if r.Status != 400 || string(r.Body) != want {
				t.Errorf("%s: GET %s = %d %.300s, want 400 %s", tc.name, path, r.Status, r.Body, want)
			}
		}
	}
	// At the limits a query is answered.
	r := servertest.Do(t, "GET", srv.URL+"/api/units/?q="+url.QueryEscape(strings.Join(words[:100], " ")), nil)
	if r.Status != 200 {
		t.Errorf("100 terms = %d %.300s, want 200", r.Status, r.Body)
	}
	r = servertest.Do(t, "GET", srv.URL+"/api/units/?q="+strings.Repeat("x", 10000), nil)
	if r.Status != 200 {
		t.Errorf("10000 characters = %d %.300s, want 200", r.Status, r.Body)
	}
}

// allPages reads every page of a list, following next, each page in the
// list envelope's shape.
func allPages(tb testing.TB, url string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for next := any(url); next != nil; {
		list := servertest.GetObject(tb, next.(string))
		servertest.CheckShape(tb, "list", list, listShape)
		out = append(out, servertest.Results(tb, list)...)
		next = list["next"]
	}
	return out
}
