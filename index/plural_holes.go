package index

// PluralHole reports whether target is a plural with some forms filled
// and some left empty: a Czech "few" form forgotten while "one" and
// "other" are translated.
func PluralHole(target []string) bool {
	if len(target) < 2 {
		return false
	}
	filled, empty := false, false
	for _, f := range target {
		if f == "" {
			empty = true
		} else {
			filled = true
		}
	}
	return filled && empty
}

// SettleState is the state a unit with target is stored in when it is
// asked to be in s: a plural with a hole (PluralHole) is not translated,
// so a translated or approved one is kept as needs editing (10) — its
// filled forms stay, it counts as needing editing in every statistic,
// is:untranslated and the editor's "unfinished" lists find it, and the
// default-on plurals check names the missing forms. Every other state is
// returned as given (read-only units keep theirs).
//
// The reference stores such a unit as translated, flagged only by its
// plurals check, so a translation shows 100% while a form is missing
// (issue 26); Tolk does not count a string as translated that a reader
// would see untranslated for some numbers.
//
// format is the component's file format: where its runtime reads a
// missing form as the "other" one (PluralFallback), an empty form is no
// hole and s is returned as given.
func SettleState(s State, target []string, format string) State {
	if NeedsSettling(s, target) && !PluralFallback(format) {
		return StateFuzzy
	}
	return s
}

// NeedsSettling reports whether SettleState may change s for target, so
// a caller looks the format up only then (a plural with a hole is rare).
func NeedsSettling(s State, target []string) bool {
	return (s == StateTranslated || s == StateApproved) && PluralHole(target)
}

// PluralFallback reports whether a file format's runtime reads a plural
// form the file leaves out as its "other" form: Apple's stringsdict
// (whose optional zero form Tolk puts first) and String Catalogs, whose
// catalogs mark such a string translated. There an empty form is not
// missing text, and the catalog's own count of translated strings holds.
func PluralFallback(format string) bool {
	return format == "stringsdict" || format == "xcstrings"
}
