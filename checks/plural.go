package checks

// PluralMap says which source form each target form is checked against,
// as Weblate's PluralMapper (weblate/lang/models.py) decides from the two
// languages' plural formulas. Build it once per translation with
// NewPluralMap and share it between units: it is read-only.
type PluralMap struct {
	// SourceForms is the source language's number of forms; a unit with
	// another number of source forms pairs every target form with its
	// last source form.
	SourceForms int
	// Source[i] is the index of the source form target form i is
	// checked against.
	Source []int
	// Single[i] reports that target form i is used for one number only
	// (English "one", Arabic "zero" and "two"), so a format check lets it
	// omit a placeholder such as the count.
	Single []bool
}

// pluralExamples mirrors Weblate's Plural.examples: up to ten counts per
// form, from 0–9,999 and then every thousand up to 2,000,000.
func pluralExamples(n int, form func(int64) int) [][]int64 {
	ex := make([][]int64, n)
	add := func(i int64) {
		f := form(i)
		if f >= 0 && f < n && len(ex[f]) < 10 {
			ex[f] = append(ex[f], i)
		}
	}
	for i := int64(0); i < 10000; i++ {
		add(i)
	}
	for i := int64(10000); i <= 2000000; i += 1000 {
		add(i)
	}
	return ex
}

// NewPluralMap pairs the forms of a source language with srcN forms
// chosen by src (a compiled plural formula: count → form index) and a
// target language with tgtN forms chosen by tgt, as Weblate does:
//
//   - when both formulas choose the same forms, form i pairs with form i;
//   - a target form used for exactly one count n (Czech "one" for 1,
//     Arabic "zero" for 0) pairs with the source form used for n;
//   - every other target form pairs with the last source form
//     (English "other"), so Russian "one" (1, 21, 31, …) and Czech "few"
//     pair with "%d files", not with "One file".
//
// It evaluates each formula about 12,000 times, so callers cache the
// result per translation. A nil formula or a count below 1 gives nil.
func NewPluralMap(srcN int, src func(int64) int, tgtN int, tgt func(int64) int) *PluralMap {
	if src == nil || tgt == nil || srcN < 1 || tgtN < 1 {
		return nil
	}
	se, te := pluralExamples(srcN, src), pluralExamples(tgtN, tgt)
	m := &PluralMap{SourceForms: srcN, Source: make([]int, tgtN), Single: make([]bool, tgtN)}
	for i := range te {
		m.Single[i] = len(te[i]) == 1
	}
	if srcN == tgtN && samePlural(se, te) {
		for i := range m.Source {
			m.Source[i] = i
		}
		return m
	}
	// exact: counts that are a source form's only example; all: the
	// other forms' examples.
	exact, all := map[int64]int{}, map[int64]int{}
	for i, ex := range se {
		if len(ex) == 1 {
			exact[ex[0]] = i
			continue
		}
		for _, n := range ex {
			all[n] = i
		}
	}
	for i, ex := range te {
		m.Source[i] = srcN - 1
		if len(ex) != 1 {
			continue
		}
		if j, ok := exact[ex[0]]; ok {
			m.Source[i] = j
		} else if j, ok := all[ex[0]]; ok {
			m.Source[i] = j
		}
	}
	return m
}

func samePlural(a, b [][]int64) bool {
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// singleCategories are the CLDR categories that, in most languages, stand
// for one count: used when only categories are known.
func singleCategory(c string) bool { return c == "zero" || c == "one" || c == "two" }

// sourceIndex returns the index of the source form that target form i is
// checked against (reference §1.1, "Plurals"), or -1 when u has no
// source. In order of preference:
//
//  1. u.PluralMap, when it has one entry per target form;
//  2. u.SourcePlurals and u.TargetPlurals (CLDR categories), when each
//     has one entry per form: a target form pairs with the source form of
//     the same category, and a category the source lacks ("few", "many",
//     "zero") with the last source form ("other");
//  3. without plural data: form by form when the counts match.
//
// When plural data is given but the forms do not match its count (an
// incomplete file), every target form pairs with the last source form, as
// Weblate does.
func sourceIndex(u *Unit, i int) int {
	ns, nt := len(u.Source), len(u.Target)
	if ns == 0 {
		return -1
	}
	last := ns - 1
	switch {
	case u.PluralMap != nil:
		if len(u.PluralMap.Source) == nt && ns == u.PluralMap.SourceForms {
			if j := u.PluralMap.Source[i]; j >= 0 && j < ns {
				return j
			}
		}
		return last
	case u.SourcePlurals != nil && u.TargetPlurals != nil:
		if ns != len(u.SourcePlurals) || nt != len(u.TargetPlurals) {
			return last
		}
		c := u.TargetPlurals[i]
		for j, sc := range u.SourcePlurals {
			if sc == c {
				return j
			}
		}
		return last
	case ns == nt:
		return i
	}
	return last
}

// singleForm reports whether target form i stands for one count only, so
// a format check lets it omit placeholders. Without plural data the first
// form of a plural unit stands for it.
func singleForm(u *Unit, i int) bool {
	if len(u.Source) <= 1 || len(u.Target) <= 1 {
		return false
	}
	switch {
	case u.PluralMap != nil && len(u.PluralMap.Single) == len(u.Target):
		return u.PluralMap.Single[i]
	case len(u.TargetPlurals) == len(u.Target):
		return singleCategory(u.TargetPlurals[i])
	}
	return i == 0
}
