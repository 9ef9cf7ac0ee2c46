package langdata

import (
	"errors"
	"strings"
	"testing"
)

func TestCompilePlural(t *testing.T) {
	t.Parallel()
	tests := []struct {
		formula string
		n       int64
		want    int
	}{
		{"0", 5, 0},
		{"n != 1", 1, 0},
		{"n != 1", 0, 1},
		{"(n > 1);", 1, 0},
		{"n > 1", 2, 1},
		{"n==0 ? 0 : n==1 ? 1 : 2", 0, 0},
		{"n==0 ? 0 : n==1 ? 1 : 2", 7, 2},
		{"!(n == 1)", 1, 0},
		{"!n", 0, 1},
		{"-n + 2 * 3", 1, 5},
		{"n / 2 - 1", 7, 2},
		{"n % 0", 7, 0}, // no panic on division by zero
		{"n / 0", 7, 0},
		{"n <= 2 && n >= 2", 2, 1},
		{"n < 2 || n > 10", 5, 0},
		{"n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2", 22, 1},
		{"n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2", 12, 2},
		{"n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2", 21, 0},
	}
	for _, tc := range tests {
		fn, err := CompilePlural(tc.formula)
		if err != nil {
			t.Errorf("CompilePlural(%q): %v", tc.formula, err)
			continue
		}
		if got := fn(tc.n); got != tc.want {
			t.Errorf("CompilePlural(%q)(%d) = %d, want %d", tc.formula, tc.n, got, tc.want)
		}
	}
}

func TestCompilePluralErrors(t *testing.T) {
	t.Parallel()
	for _, formula := range []string{
		"", "n ?", "n ? 1", "(n", "n)", "m", "nplurals", "n = 1", "n & 1", "1 2",
		strings.Repeat("(", 1000) + "n" + strings.Repeat(")", 1000),
		strings.Repeat("!", 1000) + "n",
		strings.Repeat("n ? ", 1000) + "1" + strings.Repeat(" : 0", 1000),
		"99999999999999999999",
	} {
		if _, err := CompilePlural(formula); !errors.Is(err, ErrFormula) {
			t.Errorf("CompilePlural(%.40q) = %v, want ErrFormula", formula, err)
		}
	}
}

// TestEveryFormula evaluates every plural formula of the table, the main
// ones and the extra ones, for n = 0..200 and checks each form index is in
// range.
func TestEveryFormula(t *testing.T) {
	t.Parallel()
	tab := Default()
	for _, l := range tab.All() {
		plurals := append([]Plural{{l.Plural.Number, l.Plural.Formula}}, extra(tab, l.Code)...)
		for _, p := range plurals {
			fn, err := CompilePlural(p.Formula)
			if err != nil {
				t.Errorf("%s: %q: %v", l.Code, p.Formula, err)
				continue
			}
			for n := int64(0); n <= 200; n++ {
				if got := fn(n); got < 0 || got >= p.Number {
					t.Errorf("%s: %q at n=%d = %d, want [0, %d)", l.Code, p.Formula, n, got, p.Number)
					break
				}
			}
		}
	}
}

// Plural is the part of index.Plural TestEveryFormula needs.
type Plural struct {
	Number  int
	Formula string
}

func extra(tab *Table, code string) []Plural {
	var out []Plural
	for _, p := range tab.ExtraPlurals(code) {
		out = append(out, Plural{p.Number, p.Formula})
	}
	return out
}

func TestPluralFamilies(t *testing.T) {
	t.Parallel()
	tab := Default()
	byCode := []struct {
		code string
		want int
	}{
		{"ja", PluralNone},
		{"zh_Hans", PluralNone},
		{"en", PluralOneOther}, // n != 1
		{"fr", PluralOneOther}, // n > 1
		{"is", PluralOneOther}, // n % 10 != 1 || n % 100 == 11
		{"cs", PluralOneFewOther},
		{"ru", PluralOneFewOther},
		{"pl", PluralOneFewOther},
		{"ar", PluralArabic},
		{"ar_SA", PluralArabic},
		{"arz", PluralZeroOneTwoFewManyOther}, // same behaviour as ar, other text
		{"cy", PluralZeroOneTwoFewManyOther},
		{"sl", PluralOneTwoFewOther},
		{"he", PluralOneTwoFewOther},
		{"ga", PluralOneTwoFewManyOther},
		{"br", PluralOneTwoFewManyOther},
		{"lv", PluralZeroOneOther},
		{"ltg", PluralOneOtherZero},
		{"mt", PluralOneFewManyOther},
		{"iu", PluralOneTwoOther},
		{"vec", PluralOneManyOther},
	}
	for _, tc := range byCode {
		l, ok := tab.Get(tc.code)
		if !ok || l.Plural.Type != tc.want {
			t.Errorf("Get(%q).Plural.Type = %d (found %v), want %d; formula %q", tc.code, l.Plural.Type, ok, tc.want, l.Plural.Formula)
		}
	}

	c := newClassifier()
	byFormula := []struct {
		nplurals int
		formula  string
		want     int
	}{
		{1, "0", PluralNone},
		{2, "n != 1", PluralOneOther},
		{2, "(n != 1)", PluralOneOther},
		{2, "nplurals=2; plural=(n != 1);", PluralUnknown},
		{2, " ( n>1 ) ;", PluralOneOther},
		{2, "n == 1 ? 0 : 1", PluralOneOther}, // by behaviour
		{3, "(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2", PluralOneFewOther},
		{3, "n==1 ? 0 : n>=2 && n<=4 ? 1 : 2", PluralOneFewOther},
		{6, "n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5", PluralArabic},
		{4, "n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3", PluralOneTwoFewOther},
		{5, "n==1 ? 0 : n==2 ? 1 : (n>2 && n<7) ? 2 :(n>6 && n<11) ? 3 : 4", PluralOneTwoFewManyOther},
		{3, "n==0 ? 0 : n==1 ? 1 : 2", PluralZeroOneOther},
		{2, "(n==2) ? 1 : 0", PluralTwoOther},
		{4, "(n==1) ? 0 : (n==2) ? 1 : (n == 3) ? 2 : 3", PluralOneTwoThreeOther},
		// Not among the known formulas: named by the counts each form takes.
		{2, "n == 0 ? 0 : 1", PluralZeroOther},
		{4, "n == 0 ? 0 : n == 1 ? 1 : n < 5 ? 2 : 3", PluralZeroOneFewOther},
		{5, "n == 0 ? 0 : n == 1 ? 1 : n == 2 ? 2 : n < 5 ? 3 : 4", PluralZeroOneTwoFewOther},
		{3, "n==1 ? 0 : n==2 ? 2 : 1", PluralUnknown}, // one/other/two has no number
		{3, "n != 1", PluralUnknown},                  // form 2 is never used
		{2, "n + 5", PluralUnknown},                   // out of range
		{2, "n ?", PluralUnknown},
	}
	for _, tc := range byFormula {
		if got := c.classify(tc.nplurals, tc.formula); got != tc.want {
			t.Errorf("classify(%d, %q) = %d, want %d", tc.nplurals, tc.formula, got, tc.want)
		}
	}
}

func FuzzCompilePlural(f *testing.F) {
	for _, s := range []string{"n != 1", "n==0 ? 0 : n==1 ? 1 : 2", "(n % 10 == 1) ? 0 : 1", "!n", "n/0"} {
		f.Add(s, int64(7))
	}
	f.Fuzz(func(t *testing.T, formula string, n int64) {
		fn, err := CompilePlural(formula)
		if err != nil {
			return
		}
		fn(n)
	})
}

func BenchmarkCompilePlural(b *testing.B) {
	const formula = "n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompilePlural(formula); err != nil {
			b.Fatal(err)
		}
	}
}
