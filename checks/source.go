package checks

import (
	"regexp"
	"strings"
)

// Source checks (reference §1.3, Weblate's source.py) read only the
// source forms; RunSource runs them. multiple_failures and
// long_untranslated need other units' results and history, so they stay
// registered-only.
var _ = register(nil, map[string]whole{
	"optional_plural": optionalPlural,
	"ellipsis":        ellipsis,
})

// RunSource returns the source checks that fail on u, the source-language
// unit, in registry order. Only u.Source and u.Flags are read. Flags and
// ignore flags apply as in Run; ignore-all-checks silences all.
func RunSource(u Unit) []Result {
	if u.Flags.Has("ignore-all-checks") {
		return nil
	}
	var out []Result
	for _, c := range registry {
		if c.Kind != Source || !enabled(c, u.Flags) {
			continue
		}
		if fn, ok := implemented[c.ID].(whole); ok && fn(u) {
			out = append(out, Result{ID: c.ID})
		}
	}
	return out
}

// optionalPluralRE: a word directly followed by "(s)", as in "file(s)".
var optionalPluralRE = regexp.MustCompile(`[\pL\pN_]\(s\)(?:[^\pL\pN_]|$)`)

// optionalPlural: a non-plural source that writes its plural as
// "file(s)" instead of using plural forms.
func optionalPlural(u Unit) bool {
	if len(u.Source) != 1 {
		return false
	}
	return optionalPluralRE.MatchString(u.Source[0])
}

// ellipsis: a source form with three dots ("...") where the ellipsis
// character "…" belongs.
func ellipsis(u Unit) bool {
	for _, s := range u.Source {
		if strings.Contains(s, "...") {
			return true
		}
	}
	return false
}
