package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

func TestFindUsedLanguages(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	// Seeded in this order, so ids follow it, not the codes.
	var langs []index.Language
	for _, code := range []string{"sv", "de", "fr", "cs", "en"} {
		langs = append(langs, index.Language{Code: code, Name: "Lang " + code, Direction: "ltr",
			Aliases: []string{code + "_XX"}, Plural: index.Plural{Number: 2, Formula: "n != 1"}})
	}
	if err := db.SeedLanguages(ctx, langs); err != nil {
		t.Fatal(err)
	}
	if got, total, err := db.FindUsedLanguages(ctx, index.Page{Number: 1, Size: 50}); err != nil || total != 0 || len(got) != 0 {
		t.Fatalf("no translations: %v (total %d), %v", got, total, err)
	}
	c := mustComponent(t, db)
	for _, code := range []string{"en", "fr", "sv", "cs"} {
		if _, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: code,
			Revision: "1", Monolingual: true, Units: units("a", "A", "x")}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		page, size int
		want       string
	}{
		{1, 50, "sv,fr,cs,en"}, {1, 3, "sv,fr,cs"}, {2, 3, "en"}, {3, 3, ""},
	} {
		got, total, err := db.FindUsedLanguages(ctx, index.Page{Number: tc.page, Size: tc.size})
		var codes []string
		for _, l := range got {
			codes = append(codes, l.Code)
		}
		if err != nil || total != 4 || strings.Join(codes, ",") != tc.want {
			t.Errorf("page %d/%d: %v (total %d), %v; want %s", tc.page, tc.size, codes, total, err, tc.want)
		}
	}
	got, _, _ := db.FindUsedLanguages(ctx, index.Page{Number: 1, Size: 1})
	if l := got[0]; l.Name != "Lang sv" || fmt.Sprint(l.Aliases) != "[sv_XX]" || l.Plural.Formula != "n != 1" {
		t.Errorf("sv = %+v", l)
	}
}
