package index

import (
	"slices"
	"strings"
)

// Language is a natural language with its plural rules.
type Language struct {
	Code       string
	Name       string
	Direction  string // "ltr" or "rtl"
	Population int64
	Aliases    []string
	Plural     Plural
}

// Plural describes a language's plural forms.
type Plural struct {
	ID      int64
	Source  int    // 0 default (language data), 1 gettext, 2 CLDR, ...
	Number  int    // number of forms
	Formula string // C expression over n
	Type    int    // formula family
	// ZeroFirst says a "zero" form was put in front of the family's
	// forms (WithZero): Number and Formula count it, Type is the
	// family's.
	ZeroFirst bool
}

// WithZero returns p with a "zero" form in front, the rule the
// reference gives every language in the files of a format where any
// language may say something of its own for zero (.stringsdict:
// weblate's StringsdictFormat.get_plural, Plural.SOURCE_CLDR_ZERO): one
// form more, and n == 0 selecting it. A rule that has a zero form
// already is returned as it is, as the reference keeps it.
func (p Plural) WithZero() Plural {
	if p.ZeroFirst || slices.Contains(p.Categories(), "zero") || p.Number < 1 {
		return p
	}
	p.ZeroFirst = true
	p.ID = 0
	p.Number++
	p.Formula = "(n == 0) ? 0 : 1 + (" + p.Formula + ")"
	return p
}

// pluralCategories names the forms of each plural formula family
// (Plural.Type, numbered as the reference numbers them; see
// langdata's Plural* constants) with CLDR plural categories, in form
// order. CLDR has no "three": the third form of one/two/three/other is
// named "few", as the category next in line.
var pluralCategories = map[int][]string{
	0:  {"other"},
	1:  {"one", "other"},
	2:  {"one", "few", "other"},
	3:  {"zero", "one", "two", "few", "many", "other"},
	4:  {"one", "two", "other"},
	5:  {"one", "two", "few", "other"},
	6:  {"one", "two", "few", "other"},
	7:  {"one", "other", "zero"},
	8:  {"one", "few", "many", "other"},
	9:  {"other", "two"}, // "(n==2) ? 1 : 0"
	10: {"one", "two", "few", "many", "other"},
	11: {"zero", "one", "other"},
	12: {"zero", "one", "few", "other"},
	13: {"zero", "one", "two", "few", "many", "other"},
	14: {"one", "many", "other"},
	15: {"zero", "one", "many", "other"},
	16: {"one", "few", "many"},
	17: {"zero", "other"},
	18: {"zero", "one", "two", "few", "other"},
}

// byNumber names the forms of a formula of no known family by their
// count alone.
var byNumber = [][]string{
	1: {"other"},
	2: {"one", "other"},
	3: {"one", "few", "other"},
	4: {"one", "two", "few", "other"},
	5: {"one", "two", "few", "many", "other"},
	6: {"zero", "one", "two", "few", "many", "other"},
}

// Categories returns the CLDR plural category of each form, in form
// order: what i18next's key suffixes and go-i18n's fields call them. It
// has Number elements; a formula of no known family, or a Number that
// disagrees with its family, is named by its number of forms alone, and
// nil is returned for a Number outside 1–6. The caller owns the slice.
func (p Plural) Categories() []string {
	if p.ZeroFirst {
		return zeroFirst(p, func(base Plural) []string { return base.Categories() })
	}
	if c, ok := pluralCategories[p.Type]; ok && len(c) == p.Number {
		return append([]string(nil), c...)
	}
	if p.Number >= 1 && p.Number < len(byNumber) {
		return append([]string(nil), byNumber[p.Number]...)
	}
	return nil
}

// zeroFirst names the forms of a ZeroFirst rule: "zero", then what of
// names the forms of the rule it was made from; nil when of has no names.
func zeroFirst(p Plural, of func(base Plural) []string) []string {
	p.ZeroFirst, p.Number = false, p.Number-1
	c := of(p)
	if c == nil {
		return nil
	}
	return append([]string{"zero"}, c...)
}

// manyLanguages are the languages whose third gettext form (n%10 of 5–9
// or 0, or 11–14) CLDR calls "many", not "other": their one/few/other
// formula shares its family with Czech's, whose third form CLDR does call
// "other".
var manyLanguages = map[string]bool{"pl": true, "ru": true, "uk": true, "be": true, "szl": true, "csb": true}

// PluralCategories returns the CLDR plural category of each of the
// language's forms, in form order (see Plural.Categories): Czech gives
// one, few, other and Polish one, few, many. The caller owns the slice.
func (l Language) PluralCategories() []string {
	if l.Plural.ZeroFirst {
		return zeroFirst(l.Plural, func(base Plural) []string {
			l.Plural = base
			return l.PluralCategories()
		})
	}
	c := l.Plural.Categories()
	base, _, _ := strings.Cut(l.Code, "_")
	if l.Plural.Type == 2 && manyLanguages[base] && len(c) == 3 {
		c[2] = "many"
	}
	return c
}
