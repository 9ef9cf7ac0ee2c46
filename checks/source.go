package checks

import (
	"regexp"
	"strings"
)

// Source checks (reference §1.3, Weblate's source.py) read only the
// source forms; RunSource runs them. multiple_failures and
// long_untranslated need other units' results and states: the store
// computes them in a daily pass (index/sqlstore/checks_daily.go).
var _ = register(nil, map[string]whole{
	"optional_plural":   optionalPlural,
	"ellipsis":          ellipsis,
	"source-max-length": sourceMaxLength,
	"unnamed_format":    unnamedFormat,
})

// sourceMaxLength: a source form already at 85% of max-length:N (an
// English source, which translations usually outgrow) or at N (any
// other), as the reference's SourceMaxLength; replacements: applies as
// for max-length.
func sourceMaxLength(u Unit) bool {
	n, ok := u.Flags.Int("max-length")
	if !ok || n <= 0 {
		return false
	}
	limit := float64(n)
	if src := u.SourceLanguage; src == "" || baseLanguage(src) == "en" {
		limit = 0.85 * float64(n)
	}
	r := u.Flags.replacer()
	for _, s := range u.Source {
		if r != nil {
			s = r.Replace(s)
		}
		if float64(runeLen(s)) >= limit {
			return true
		}
	}
	return false
}

// unnamedPrintf are the printf-style formats, by flag, whose
// placeholders may be positional ("%s") or numbered or named ("%1$s",
// "%(name)s").
var unnamedPrintf = []struct {
	flag string
	spec printfSpec
}{
	{"c-format", cPrintf}, {"objc-format", cPrintf}, {"php-format", phpPrintf},
	{"python-format", pythonPrintf}, {"javascript-format", javascriptPrintf},
	{"java-printf-format", javaPrintf}, {"ruby-format", rubyPrintf},
}

// unnamedFormat: a source form with two or more placeholders that name
// no argument ("%s of %s", "{} of {}"), which a translation cannot put in
// another order (reference: MultipleUnnamedFormatsCheck). It runs for the
// formats whose placeholders can be named, when their flag is set.
func unnamedFormat(u Unit) bool {
	for _, s := range u.Source {
		n := 0
		for _, f := range unnamedPrintf {
			if u.Flags.Has(f.flag) {
				n = max(n, f.spec.unnamed(s))
			}
		}
		if u.Flags.Has("python-brace-format") {
			n = max(n, strings.Count(s, "{}")-strings.Count(s, "{{}}"))
		}
		if n >= 2 {
			return true
		}
	}
	return false
}

// RunSource returns the source checks that fail on u, the source-language
// unit, in registry order. Only u.Source and u.Flags are read. Flags and
// ignore flags apply as in Run; ignore-all-checks silences all.
func RunSource(u Unit) []Result { return runKind(u, Source) }

// runKind runs the implemented checks of one kind that read the unit
// whole (the source and glossary checks), in the registry's order.
func runKind(u Unit, kind Kind) []Result {
	if u.Flags.Has("ignore-all-checks") {
		return nil
	}
	var out []Result
	for _, c := range registry {
		if c.Kind != kind || !enabled(c, u.Flags) {
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
