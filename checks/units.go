package checks

import (
	"strings"
	"unicode"
)

// wholes are the checks computed over all forms of a unit at once.
var wholes = map[string]whole{
	"same":         same,
	"max-length":   maxLength,
	"regex":        matchesRegex,
	"plurals":      plurals,
	"same-plurals": samePlurals,
}

// isUpper is Python's str.isupper: some cased letter, none lower case.
func isUpper(s string) bool {
	cased := false
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) || unicode.IsTitle(r) {
			cased = true
		}
	}
	return cased
}

// replacer is the replacements:FROM:TO:… flag's substitutions (nil
// without the flag), which the length and size checks apply first.
func (f Flags) replacer() *strings.Replacer {
	rep := f.params["replacements"]
	if len(rep) < 2 {
		return nil
	}
	return strings.NewReplacer(rep[:len(rep)/2*2]...)
}

// maxLength: some form longer than max-length:N characters, after the
// replacements:FROM:TO:… flag's substitutions.
func maxLength(u Unit) bool {
	n, ok := u.Flags.Int("max-length")
	if !ok {
		return false
	}
	r := u.Flags.replacer()
	for _, t := range u.Target {
		if r != nil {
			t = r.Replace(t)
		}
		if runeLen(t) > n {
			return true
		}
	}
	return false
}

// matchesRegex: some form in which regex:… finds no match.
func matchesRegex(u Unit) bool {
	re := u.Flags.regex
	if re == nil {
		return false
	}
	for _, t := range u.Target {
		if !re.MatchString(t) {
			return true
		}
	}
	return false
}

// plurals: a plural string with some forms filled and some empty.
func plurals(u Unit) bool {
	if len(u.Source) <= 1 {
		return false
	}
	for _, t := range u.Target {
		if t == "" {
			return true
		}
	}
	return false
}

// samePlurals: a plural string whose forms are all the same.
func samePlurals(u Unit) bool {
	if len(u.Source) <= 1 || len(u.Target) <= 1 || u.Target[0] == "" {
		return false
	}
	for _, t := range u.Target[1:] {
		if t != u.Target[0] {
			return false
		}
	}
	return true
}
