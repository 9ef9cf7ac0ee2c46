package langdata_test

import (
	"reflect"
	"testing"

	"github.com/tolk-project/tolk/index/langdata"
)

// TestPluralCategories checks the CLDR names of the forms of languages
// with 1, 2, 3, 4 and 6 forms, and that every language gets one name per
// form, each a CLDR category, none twice.
func TestPluralCategories(t *testing.T) {
	tab := langdata.Default()
	for code, want := range map[string][]string{
		"ja": {"other"},
		"de": {"one", "other"},
		"cs": {"one", "few", "other"},
		"pl": {"one", "few", "many"},
		"ar": {"zero", "one", "two", "few", "many", "other"},
	} {
		l, ok := tab.Get(code)
		if !ok {
			t.Fatalf("no language %s", code)
		}
		if got := l.PluralCategories(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s (type %d, %d forms): categories %v, want %v", code, l.Plural.Type, l.Plural.Number, got, want)
		}
	}
	cldr := map[string]bool{"zero": true, "one": true, "two": true, "few": true, "many": true, "other": true}
	for _, l := range tab.All() {
		got := l.PluralCategories()
		if len(got) != l.Plural.Number {
			t.Errorf("%s: %d categories for %d forms", l.Code, len(got), l.Plural.Number)
		}
		seen := map[string]bool{}
		for _, c := range got {
			if !cldr[c] || seen[c] {
				t.Errorf("%s: categories %v", l.Code, got)
			}
			seen[c] = true
		}
	}
}
