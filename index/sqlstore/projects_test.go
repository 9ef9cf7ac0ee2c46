package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// pagesFixture is what seedPages created, by creation order.
type pagesFixture struct {
	projects   []index.Project
	components []index.Component // zeta/c, zeta/a, zeta/b, alpha/solo
	// translations of zeta/c, imported fr, de, en: the ids ascend in
	// that order, not in code order.
	translations []int64
}

// seedPages creates projects and components whose names sort differently
// from their ids, so a list in name order cannot pass for id order.
func seedPages(tb testing.TB, db *sqlstore.DB) pagesFixture {
	tb.Helper()
	ctx := context.Background()
	var f pagesFixture
	for _, name := range []string{"Zeta", "Alpha", "Mid"} {
		p, _, err := db.SaveProject(ctx, index.Project{Name: name, Slug: strings.ToLower(name)})
		if err != nil {
			tb.Fatal(err)
		}
		f.projects = append(f.projects, p)
	}
	for _, pc := range []struct {
		project int
		slug    string
	}{{0, "c"}, {0, "a"}, {0, "b"}, {1, "solo"}} {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug = f.projects[pc.project].ID, strings.ToUpper(pc.slug), pc.slug
		c, _, err := db.SaveComponent(ctx, c)
		if err != nil {
			tb.Fatal(err)
		}
		f.components = append(f.components, c)
	}
	if err := db.SeedLanguages(ctx, []index.Language{{Code: "de", Name: "German"},
		{Code: "fr", Name: "French"}, {Code: "en", Name: "English"}}); err != nil {
		tb.Fatal(err)
	}
	for i, lang := range []string{"fr", "de", "en"} {
		// fr has one unit, de two, en three; the first is translated.
		var us []string
		for j := 0; j <= i; j++ {
			target := ""
			if j == 0 {
				target = "t"
			}
			us = append(us, fmt.Sprintf("k%d", j), "Source", target)
		}
		res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: f.components[0].ID,
			LanguageCode: lang, Revision: "r", Monolingual: true, Units: units(us...)})
		if err != nil {
			tb.Fatal(err)
		}
		f.translations = append(f.translations, res.TranslationID)
	}
	// A translation that never held a unit has no statistics row.
	if _, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: f.components[3].ID,
		LanguageCode: "de", Revision: "r"}); err != nil {
		tb.Fatal(err)
	}
	return f
}

func TestFindProjectPage(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	f := seedPages(t, db)
	cases := []struct {
		page index.Page
		want []string
	}{
		{index.Page{Number: 1, Size: 2}, []string{"zeta", "alpha"}},
		{index.Page{Number: 2, Size: 2}, []string{"mid"}},
		{index.Page{Number: 3, Size: 2}, nil},
		{index.Page{}, []string{"zeta", "alpha", "mid"}},
	}
	for _, tc := range cases {
		got, total, err := db.FindProjectPage(ctx, tc.page)
		if err != nil {
			t.Fatal(err)
		}
		var slugs []string
		for _, p := range got {
			slugs = append(slugs, p.Slug)
		}
		if total != 3 || fmt.Sprint(slugs) != fmt.Sprint(tc.want) {
			t.Errorf("page %+v = %v (total %d), want %v (total 3)", tc.page, slugs, total, tc.want)
		}
	}
	got, _, err := db.FindProjectPage(ctx, index.Page{Number: 1, Size: 1})
	if err != nil || len(got) != 1 || got[0] != f.projects[0] {
		t.Errorf("first project = %+v, %v; want %+v", got, err, f.projects[0])
	}
}

func TestFindProjectPageEmpty(t *testing.T) {
	got, total, err := mustOpen(t).FindProjectPage(context.Background(), index.Page{Number: 1, Size: 50})
	if err != nil || total != 0 || len(got) != 0 {
		t.Errorf("empty index = %v, %d, %v", got, total, err)
	}
}
