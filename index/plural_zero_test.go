package index

import (
	"slices"
	"testing"
)

// TestPluralWithZero checks the rule .stringsdict gives a language: a
// zero form in front, named "zero", one form more, n == 0 selecting it;
// a rule with a zero form already is kept, and applying it twice is
// applying it once.
func TestPluralWithZero(t *testing.T) {
	german := Language{Code: "de", Plural: Plural{ID: 7, Number: 2, Formula: "n != 1", Type: 1}}
	polish := Language{Code: "pl", Plural: Plural{Number: 3, Type: 2,
		Formula: "(n==1) ? 0 : ((n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20)) ? 1 : 2)"}}
	arabic := Language{Code: "ar", Plural: Plural{Number: 6, Type: 3, Formula: "x"}}
	for _, tc := range []struct {
		lang Language
		want []string
	}{
		{german, []string{"zero", "one", "other"}},
		{polish, []string{"zero", "one", "few", "many"}},
		{arabic, []string{"zero", "one", "two", "few", "many", "other"}},
	} {
		l := tc.lang
		l.Plural = l.Plural.WithZero()
		if got := l.PluralCategories(); !slices.Equal(got, tc.want) || l.Plural.Number != len(tc.want) {
			t.Errorf("%s: %q (%d forms), want %q", l.Code, got, l.Plural.Number, tc.want)
		}
		if again := l.Plural.WithZero(); again != l.Plural {
			t.Errorf("%s: WithZero twice gives %+v", l.Code, again)
		}
	}
	if z := german.Plural.WithZero(); z.Formula != "(n == 0) ? 0 : 1 + (n != 1)" || z.ID != 0 || !z.ZeroFirst {
		t.Errorf("German with zero: %+v", z)
	}
}
