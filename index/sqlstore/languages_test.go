package sqlstore_test

import (
	"context"
	"errors"
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

// TestLookupsByTextWithNUL: a slug or code with a NUL character, which
// a URL's %00 gives, finds nothing on either engine; PostgreSQL refuses
// such a text outright, which was a 500.
func TestLookupsByTextWithNUL(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	mustComponent(t, db) // demo/app
	for name, find := range map[string]func() error{
		"language":    func() error { _, err := db.FindLanguage(ctx, "de\x00"); return err },
		"translation": func() error { _, err := db.FindTranslation(ctx, "demo", "app", "\x00"); return err },
		"project":     func() error { _, err := db.FindProject(ctx, "demo\x00"); return err },
		"component":   func() error { _, err := db.FindComponent(ctx, "demo", "app\x00"); return err },
		"user":        func() error { _, err := db.FindUser(ctx, "\x00"); return err },
	} {
		if err := find(); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("%s with a NUL: %v, want ErrNotFound", name, err)
		}
	}
}

// TestSeedLanguagesInBatches: languages beyond one statement's batch are
// all seeded; a code given twice takes its last values; a language
// created through the API keeps its own.
func TestSeedLanguagesInBatches(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	if _, err := db.CreateLanguage(ctx, index.Language{Code: "l120", Name: "Own", Direction: "rtl",
		Plural: index.Plural{Number: 1, Formula: "0"}}); err != nil {
		t.Fatal(err)
	}
	var langs []index.Language
	for i := range 250 {
		code := fmt.Sprintf("l%03d", i)
		langs = append(langs, index.Language{Code: code, Name: "Lang " + code, Direction: "ltr",
			Plural: index.Plural{Number: 2, Formula: "n != 1"}})
	}
	langs = append(langs, index.Language{Code: "l249", Name: "Last", Direction: "ltr"}) // in the same batch
	for range 2 {                                                                       // and again, over what the first seeded
		if err := db.SeedLanguages(ctx, langs); err != nil {
			t.Fatal(err)
		}
	}
	for code, want := range map[string]string{"l000": "Lang l000", "l120": "Own", "l200": "Lang l200", "l249": "Last"} {
		if l, err := db.FindLanguage(ctx, code); err != nil || l.Name != want {
			t.Errorf("%s: %q, %v; want %q", code, l.Name, err, want)
		}
	}
}
