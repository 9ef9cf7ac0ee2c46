package langdata

import (
	"strings"
)

// Plural formula families, numbered as the reference (Weblate) numbers its
// plural types; index.Plural.Type holds one of them. The name lists the
// meaning of each form index in order.
const (
	PluralNone                   = 0   // one form, formula "0"
	PluralOneOther               = 1   // one/other
	PluralOneFewOther            = 2   // one/few/other
	PluralArabic                 = 3   // zero/one/two/few/many/other, Arabic's own formula
	PluralOneTwoOther            = 4   // one/two/other
	PluralOneTwoThreeOther       = 5   // one/two/three/other
	PluralOneTwoFewOther         = 6   // one/two/few/other
	PluralOneOtherZero           = 7   // one/other/zero
	PluralOneFewManyOther        = 8   // one/few/many/other
	PluralTwoOther               = 9   // two/other
	PluralOneTwoFewManyOther     = 10  // one/two/few/many/other
	PluralZeroOneOther           = 11  // zero/one/other
	PluralZeroOneFewOther        = 12  // zero/one/few/other
	PluralZeroOneTwoFewManyOther = 13  // zero/one/two/few/many/other
	PluralOneManyOther           = 14  // one/many/other
	PluralZeroOneManyOther       = 15  // zero/one/many/other
	PluralOneFewMany             = 16  // one/few/many
	PluralZeroOther              = 17  // zero/other
	PluralZeroOneTwoFewOther     = 18  // zero/one/two/few/other
	PluralUnknown                = 666 // none of the above
)

// familyFormulas are known formulas of each family: those languages.csv and
// extraplurals.csv use, plus common gettext spellings. A formula matches a
// family when it is the same text up to white space and outer parentheses,
// or, failing that, when it gives the same form for every sample count.
//
// Arabic is the one family decided by text alone: its formula behaves like
// the zero/one/two/few/many/other formulas of arq, ars and arz, yet the
// reference gives Arabic's exact formula a type of its own.
var familyFormulas = map[int][]string{
	PluralNone: {"0"},
	PluralOneOther: {
		"n != 1",
		"n > 1",
		"n==1 || n%10==1 ? 0 : 1",
		"n >= 2 && (n < 11 || n > 99)",
		"n % 10 != 1 || n % 100 == 11",
		"(n % 10 == 1 && n % 100 != 11) ? 0 : 1",
		"n != 1 && n != 2 && n != 3 && (n % 10 == 4 || n % 10 == 6 || n % 10 == 9)",
		"(n==0 || n==1)",
	},
	PluralOneFewOther: {
		"n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2",
		"(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2",
		"n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2",
		"n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2",
		"n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2",
		"(n == 1) ? 0 : ((n == 0 || n != 1 && n % 100 >= 1 && n % 100 <= 19) ? 1 : 2)",
		"(n == 0 || n == 1) ? 0 : ((n >= 2 && n <= 10) ? 1 : 2)",
		"(n % 10 == 1 && (n % 100 < 11 || n % 100 > 19)) ? 0 : ((n % 10 >= 2 && n % 10 <= 9 && (n % 100 < 11 || n % 100 > 19)) ? 1 : 2)",
		"(n == 1) ? 0 : ((n == 0 || n % 100 >= 2 && n % 100 <= 19) ? 1 : 2)",
	},
	PluralArabic: {
		"n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5",
	},
	PluralOneTwoOther: {
		"n==1 ? 0 : n==2 ? 1 : 2",
	},
	PluralOneTwoThreeOther: {
		"(n==1) ? 0 : (n==2) ? 1 : (n == 3) ? 2 : 3",
	},
	PluralOneTwoFewOther: {
		"(n==1 || n==11) ? 0 : (n==2 || n==12) ? 1 : (n > 2 && n < 20) ? 2 : 3",
		"n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3",
		"(n % 10 == 1) ? 0 : ((n % 10 == 2) ? 1 : ((n % 100 == 0 || n % 100 == 20 || n % 100 == 40 || n % 100 == 60 || n % 100 == 80) ? 2 : 3))",
		"(n == 1) ? 0 : ((n == 2) ? 1 : ((n > 10 && n % 10 == 0) ? 2 : 3))",
		"(n == 1) ? 0 : ((n == 2) ? 1 : ((n == 10) ? 2 : 3))",
		"(n==1) ? 0 : (n==2) ? 1 : (n != 8 && n != 11) ? 2 : 3",
	},
	PluralOneOtherZero: {
		"n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2",
	},
	PluralOneFewManyOther: {
		"n==1 ? 0 : n==0 || ( n%100>1 && n%100<11) ? 1 : (n%100>10 && n%100<20 ) ? 2 : 3",
		"n==1 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : n%10==0 || (n%100>10 && n%100<20) ? 2 : 3",
	},
	PluralTwoOther: {
		"(n==2) ? 1 : 0",
	},
	PluralOneTwoFewManyOther: {
		"n==1 ? 0 : n==2 ? 1 : n<7 ? 2 : n<11 ? 3 : 4",
		"(n % 10 == 1 && n % 100 != 11 && n % 100 != 71 && n % 100 != 91) ? 0 : ((n % 10 == 2 && n % 100 != 12 && n % 100 != 72 && n % 100 != 92) ? 1 : ((((n % 10 == 3 || n % 10 == 4) || n % 10 == 9) && (n % 100 < 10 || n % 100 > 19) && (n % 100 < 70 || n % 100 > 79) && (n % 100 < 90 || n % 100 > 99)) ? 2 : ((n != 0 && n % 1000000 == 0) ? 3 : 4)))",
	},
	PluralZeroOneOther: {
		"n==0 ? 0 : n==1 ? 1 : 2",
		"(n % 10 == 0 || n % 100 >= 11 && n % 100 <= 19) ? 0 : ((n % 10 == 1 && n % 100 != 11) ? 1 : 2)",
	},
	PluralZeroOneTwoFewManyOther: {
		"(n==0) ? 0 : (n==1) ? 1 : (n==2) ? 2 : (n==3) ? 3 :(n==6) ? 4 : 5",
		"(n == 0) ? 0 : ((n == 1) ? 1 : ((n == 2) ? 2 : ((n % 100 >= 3 && n % 100 <= 10) ? 3 : ((n % 100 >= 11 && n % 100 <= 99) ? 4 : 5))))",
		"(n == 0) ? 0 : ((n == 1) ? 1 : (((n % 100 == 2 || n % 100 == 22 || n % 100 == 42 || n % 100 == 62 || n % 100 == 82) || n % 1000 == 0 && (n % 100000 >= 1000 && n % 100000 <= 20000 || n % 100000 == 40000 || n % 100000 == 60000 || n % 100000 == 80000) || n != 0 && n % 1000000 == 100000) ? 2 : ((n % 100 == 3 || n % 100 == 23 || n % 100 == 43 || n % 100 == 63 || n % 100 == 83) ? 3 : ((n != 1 && (n % 100 == 1 || n % 100 == 21 || n % 100 == 41 || n % 100 == 61 || n % 100 == 81)) ? 4 : 5))))",
	},
	PluralOneManyOther: {
		"(n == 1) ? 0 : ((n != 0 && n % 1000000 == 0) ? 1 : 2)",
	},
	PluralZeroOther: {
		"n==0 ? 0 : 1",
	},
}

// familyForms is the number of forms of each family.
var familyForms = map[int]int{
	PluralNone: 1, PluralOneOther: 2, PluralOneFewOther: 3, PluralArabic: 6,
	PluralOneTwoOther: 3, PluralOneTwoThreeOther: 4, PluralOneTwoFewOther: 4,
	PluralOneOtherZero: 3, PluralOneFewManyOther: 4, PluralTwoOther: 2,
	PluralOneTwoFewManyOther: 5, PluralZeroOneOther: 3, PluralZeroOneFewOther: 4,
	PluralZeroOneTwoFewManyOther: 6, PluralOneManyOther: 3, PluralZeroOneManyOther: 4,
	PluralOneFewMany: 3, PluralZeroOther: 2, PluralZeroOneTwoFewOther: 5,
}

// namedFamilies maps the form names the fallback classifier derives (see
// nameForms) to a family.
var namedFamilies = map[string]int{
	"one/other":                   PluralOneOther,
	"one/few/other":               PluralOneFewOther,
	"one/two/other":               PluralOneTwoOther,
	"one/two/few/other":           PluralOneTwoFewOther,
	"one/other/zero":              PluralOneOtherZero,
	"one/few/many/other":          PluralOneFewManyOther,
	"two/other":                   PluralTwoOther,
	"other/two":                   PluralTwoOther,
	"one/two/few/many/other":      PluralOneTwoFewManyOther,
	"zero/one/other":              PluralZeroOneOther,
	"zero/one/few/other":          PluralZeroOneFewOther,
	"zero/one/two/few/many/other": PluralZeroOneTwoFewManyOther,
	"zero/other":                  PluralZeroOther,
	"zero/one/two/few/other":      PluralZeroOneTwoFewOther,
}

// samples are the counts a formula is evaluated at to compare behaviour and
// name forms: every count to 1,000, then coarser steps far enough to reach
// the million-based rules (Breton, Cornish, Italian "many").
var samples = func() []int64 {
	var s []int64
	for n := int64(0); n <= 1000; n++ {
		s = append(s, n)
	}
	for n := int64(1100); n <= 200000; n += 100 {
		s = append(s, n)
	}
	for n := int64(300000); n <= 3000000; n += 100000 {
		s = append(s, n)
	}
	return s
}()

// classifier decides formula families. It is built once, read only after.
type classifier struct {
	byText      map[string]int // normalized formula → family
	byBehaviour map[string]int // fingerprint → family
}

func newClassifier() *classifier {
	c := &classifier{byText: map[string]int{}, byBehaviour: map[string]int{}}
	for family, formulas := range familyFormulas {
		for _, f := range formulas {
			c.byText[normalizeFormula(f)] = family
			fn, err := CompilePlural(f)
			if err != nil {
				panic("langdata: bad reference formula " + f + ": " + err.Error())
			}
			if family != PluralArabic {
				c.byBehaviour[fingerprint(fn)] = family
			}
		}
	}
	return c
}

// classify returns the family of a formula with nplurals forms: a known
// formula's family by text, then by behaviour, then by naming the forms
// (nameForms). A family whose number of forms is not nplurals never
// matches.
func (c *classifier) classify(nplurals int, formula string) int {
	if t, ok := c.byText[normalizeFormula(formula)]; ok && familyForms[t] == nplurals {
		return t
	}
	fn, err := CompilePlural(formula)
	if err != nil {
		return PluralUnknown
	}
	if nplurals == 1 {
		return PluralNone
	}
	if t, ok := c.byBehaviour[fingerprint(fn)]; ok && familyForms[t] == nplurals {
		return t
	}
	if t, ok := namedFamilies[nameForms(nplurals, fn)]; ok {
		return t
	}
	return PluralUnknown
}

// normalizeFormula drops white space, a trailing ';' and parentheses around
// the whole expression.
func normalizeFormula(f string) string {
	f = strings.Join(strings.Fields(f), "")
	f = strings.TrimSuffix(f, ";")
	for len(f) >= 2 && f[0] == '(' && f[len(f)-1] == ')' && wrapsAll(f) {
		f = f[1 : len(f)-1]
	}
	return f
}

// wrapsAll reports whether the '(' at f[0] closes at the last byte.
func wrapsAll(f string) bool {
	depth := 0
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i == len(f)-1
			}
		}
	}
	return false
}

func fingerprint(fn PluralFunc) string {
	b := make([]byte, 0, len(samples))
	for _, n := range samples {
		b = append(b, byte(fn(n)))
	}
	return string(b)
}

// nameForms is the fallback for formulas no known family matches. It names
// each form index by the counts that select it: only 0 is "zero"; a form
// that 1 selects is "one"; a form 2 selects (but neither 1 nor 3) is "two";
// of the rest, the form with the most counts is "other" and the others are
// "few" then "many" in order of their smallest count. It returns "" when a
// form is unused, out of range, or there are too many leftovers to name.
func nameForms(nplurals int, fn PluralFunc) string {
	sets := make([]map[int64]bool, nplurals)
	for i := range sets {
		sets[i] = map[int64]bool{}
	}
	for _, n := range samples {
		i := fn(n)
		if i < 0 || i >= nplurals {
			return ""
		}
		sets[i][n] = true
	}
	names := make([]string, nplurals)
	var rest []int
	for i, s := range sets {
		switch {
		case len(s) == 0:
			return ""
		case len(s) == 1 && s[0]:
			names[i] = "zero"
		case s[1]:
			names[i] = "one"
		case s[2] && !s[3]:
			names[i] = "two"
		default:
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 || len(rest) > 3 {
		return ""
	}
	other := rest[0]
	for _, i := range rest {
		if len(sets[i]) > len(sets[other]) {
			other = i
		}
	}
	// rest is in index order; formulas list few before many.
	more := []string{"few", "many"}
	for _, i := range rest {
		if i == other {
			names[i] = "other"
			continue
		}
		names[i], more = more[0], more[1:]
	}
	return strings.Join(names, "/")
}
