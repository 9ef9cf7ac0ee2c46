package api_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestLanguageList checks /api/languages/: the languages that have a
// translation, in seed (id) order, each the same object as its instance.
func TestLanguageList(t *testing.T) {
	db := servertest.MustOpenDB(t) // seeds en, then de
	servertest.SeedDemo(t, db)
	// Known but untranslated: listed by the reference only to language
	// managers; its instance still resolves.
	fr, _ := langdata.Default().Get("fr")
	cs, _ := langdata.Default().Get("cs")
	ctx := context.Background()
	if err := db.SeedLanguages(ctx, append(make([]index.Language, 0, 2), fr, cs)); err != nil {
		t.Fatal(err)
	}
	srv := servertest.Serve(t, db, servertest.Options{})
	base := srv.URL + "/api/languages/"
	list := servertest.GetObject(t, base)
	servertest.CheckShape(t, "languages", list, listShape)
	checkValues(t, "languages", list, map[string]any{"count": "2", "next": nil, "previous": nil})
	langs := servertest.Results(t, list)
	var codes []string
	for _, l := range langs {
		servertest.CheckShape(t, "language", l, languageShape)
		servertest.CheckShape(t, "plural", servertest.Obj(t, l["plural"]), pluralShape)
		codes = append(codes, l["code"].(string))
		if got := servertest.GetObject(t, l["url"].(string)); fmt.Sprint(got) != fmt.Sprint(l) {
			t.Errorf("GET %v = %v, want the list's %v", l["url"], got, l)
		}
	}
	if fmt.Sprint(codes) != "[en de]" {
		t.Errorf("codes = %v, want [en de] (seed order, not code order; fr unused)", codes)
	}
	servertest.GetObject(t, base+"fr/")

	// Pages of one: links keep page_size and format.
	p1 := servertest.GetObject(t, base+"?page_size=1&format=api")
	checkValues(t, "page 1", p1, map[string]any{"count": "2", "previous": nil,
		"next": base + "?page=2&page_size=1&format=api"})
	p2 := servertest.GetObject(t, base+"?page_size=1&page=2&format=api")
	checkValues(t, "page 2", p2, map[string]any{"next": nil, "previous": base + "?page_size=1&format=api"})
	if r := servertest.Results(t, p2); len(r) != 1 || r[0]["code"] != "de" || r[0]["url"] != base+"de/?format=api" {
		t.Errorf("page 2 = %v", r)
	}
	r := servertest.Do(t, "GET", base+"?page=3&page_size=1", nil)
	if r.Status != 404 {
		t.Errorf("page 3 = %d %s, want 404", r.Status, r.Body)
	}

	// An index without translations lists none.
	empty := servertest.Serve(t, servertest.MustOpenDB(t), servertest.Options{})
	checkValues(t, "no translations", servertest.GetObject(t, empty.URL+"/api/languages/"),
		map[string]any{"count": "0", "next": nil, "previous": nil})
}
