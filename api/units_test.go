package api_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
)

var unitShape = shape{
	"translation": "url", "source": "strings", "previous_source": "string", "target": "strings",
	"id_hash": "int", "content_hash": "int", "location": "string", "context": "string", "note": "string",
	"flags": "string", "labels": "strings", "state": "int", "fuzzy": "bool", "translated": "bool",
	"approved": "bool", "position": "int", "has_suggestion": "bool", "has_comment": "bool",
	"has_failing_check": "bool", "num_words": "int", "source_unit": "url", "priority": "int", "id": "int",
	"web_url": "url", "url": "url", "explanation": "string", "extra_flags": "string", "pending": "bool",
	"timestamp": "timestamp",
}

var listShape = shape{"count": "int", "next": "url|null", "previous": "url|null", "results": "array"}

func TestUnitsFields(t *testing.T) {
	srv, _ := demoServer(t)
	base := srv.URL
	list := getObject(t, base+"/api/translations/demo/app/de/units/")
	checkShape(t, "units list", list, listShape)
	checkValues(t, "units list", list, map[string]any{"count": "6", "next": nil, "previous": nil})
	units := results(t, list)
	if len(units) != 6 {
		t.Fatalf("got %d units, want 6", len(units))
	}
	sourceURLs := map[string]string{} // context -> url of the English unit
	for _, u := range results(t, getObject(t, base+"/api/translations/demo/app/en/units/")) {
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
		checkShape(t, "unit "+ctx, u, unitShape)
		id := num(u["id"])
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
		if i > 0 && atoi(t, num(units[i-1]["id"])) >= atoi(t, id) {
			t.Errorf("unit ids not ascending: %s then %s", num(units[i-1]["id"]), id)
		}
	}
	if got := units[2]["target"].([]any); len(got) != 1 || got[0] != "Datei öffnen…" {
		t.Errorf("open target = %v", got)
	}
	if got := units[3]["labels"].([]any); len(got) != 0 {
		t.Errorf("labels = %v, want []", got)
	}
	if got := units[0]["num_words"]; num(got) != "1" {
		t.Errorf("hello num_words = %v", got)
	}
}

func TestGlossaryUnits(t *testing.T) {
	srv, _ := demoServer(t)
	units := results(t, getObject(t, srv.URL+"/api/translations/demo/glossary/de/units/"))
	if len(units) != 3 {
		t.Fatalf("got %d glossary units, want 3", len(units))
	}
	checkShape(t, "glossary unit", units[0], unitShape)
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
	db := mustOpenDB(t)
	seedBig(t, db, 276)
	srv := mustServe(t, db, api.Options{})
	path := "/api/translations/big/strings/de/units/"
	base := srv.URL + path

	total := num(getObject(t, srv.URL+"/api/translations/big/strings/de/")["total"])
	var ids []int64
	next := any(base)
	for page := 1; next != nil; page++ {
		list := getObject(t, next.(string))
		checkShape(t, "page", list, listShape)
		if got := num(list["count"]); got != total || got != "276" {
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
		units := results(t, list)
		if len(units) != wantLen {
			t.Errorf("page %d holds %d units, want %d", page, len(units), wantLen)
		}
		for _, u := range units {
			id := atoi(t, num(u["id"]))
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
		list := getObject(t, base+"?page_size=100&page=2")
		checkValues(t, "page_size=100 page 2", list, map[string]any{
			"previous": base + "?page_size=100",
			"next":     base + "?page=3&page_size=100",
		})
		if n := len(results(t, list)); n != 100 {
			t.Errorf("page_size=100 gives %d units", n)
		}
		for q, want := range map[string]int{"page_size=2000": 276, "page_size=0": 50, "page_size=abc": 50, "page_size=-5": 50} {
			if n := len(results(t, getObject(t, base+"?"+q))); n != want {
				t.Errorf("%s gives %d units, want %d", q, n, want)
			}
		}
	})
	t.Run("last", func(t *testing.T) {
		list := getObject(t, base+"?page=last")
		if n := len(results(t, list)); n != 26 || list["next"] != nil {
			t.Errorf("page=last: %d units, next %v", n, list["next"])
		}
	})
	t.Run("format=api", func(t *testing.T) {
		list := getObject(t, base+"?page=2&format=api")
		checkValues(t, "format=api page 2", list, map[string]any{
			"previous": base + "?format=api",
			"next":     base + "?page=3&format=api",
		})
	})
}

func TestInvalidPage(t *testing.T) {
	srv, _ := demoServer(t)
	const invalid = `{"type":"client_error","errors":[{"code":"not_found","detail":"Invalid page.","attr":null}]}`
	for _, list := range []string{"units", "changes"} {
		for _, page := range []string{"0", "-1", "abc", "2", "99999", "1.5", "99999999999999999999"} {
			t.Run(list+"/"+page, func(t *testing.T) {
				url := srv.URL + "/api/translations/demo/app/de/" + list + "/?page=" + page
				r := do(t, "GET", url, nil)
				if r.status != 404 || string(r.body) != invalid {
					t.Errorf("GET %s = %d %s, want 404 %s", url, r.status, r.body, invalid)
				}
			})
		}
	}
	// The first page of a list exists even when the list is empty.
	db := mustOpenDB(t)
	p := mustProject(t, db, index.Project{Name: "E", Slug: "e"})
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug = p.ID, "C", "c"
	c = mustComponent(t, db, c)
	mustImport(t, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Revision: "x"})
	empty := mustServe(t, db, api.Options{})
	list := getObject(t, empty.URL+"/api/translations/e/c/de/units/?page=1")
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
