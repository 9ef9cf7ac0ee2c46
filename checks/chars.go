package checks

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// singles are the checks computed form by form (reference §1.3).
var singles = map[string]single{
	"begin_newline":       func(s, t, _ string) bool { return firstDiffers(s, t, "\n") },
	"end_newline":         func(s, t, _ string) bool { return lastDiffers(s, t, "\n") },
	"begin_space":         beginSpace,
	"end_space":           endSpace,
	"double_space":        doubleSpace,
	"end_stop":            endStop,
	"end_colon":           endColon,
	"end_question":        endQuestion,
	"end_exclamation":     endExclamation,
	"end_ellipsis":        endEllipsis,
	"end_semicolon":       endSemicolon,
	"end_interrobang":     endInterrobang,
	"escaped_newline":     func(s, t, _ string) bool { return countDiffers(s, t, `\n`) },
	"newline-count":       func(s, t, _ string) bool { return countDiffers(s, t, "\n") },
	"zero-width-space":    zeroWidthSpace,
	"kashida":             func(_, t, _ string) bool { return strings.ContainsAny(t, kashida) },
	"punctuation_spacing": punctuationSpacing,
}

// firstDiffers reports whether exactly one of s and t starts with a
// character of set; it is false when either is empty.
func firstDiffers(s, t, set string) bool {
	if s == "" || t == "" {
		return false
	}
	a, _ := utf8.DecodeRuneInString(s)
	b, _ := utf8.DecodeRuneInString(t)
	return strings.ContainsRune(set, a) != strings.ContainsRune(set, b)
}

// lastDiffers reports whether exactly one of s and t ends with a
// character of set; it is false when either is empty.
func lastDiffers(s, t, set string) bool {
	if s == "" || t == "" {
		return false
	}
	return strings.ContainsRune(set, last(s)) != strings.ContainsRune(set, last(t))
}

func last(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// short: one-character strings are usually separators, so the space
// checks skip them.
func short(s, t string) bool { return runeLen(s) <= 1 && runeLen(t) <= 1 }

func beginSpace(s, t, _ string) bool {
	if short(s, t) {
		return false
	}
	st, ss := strings.TrimLeft(t, " "), strings.TrimLeft(s, " ")
	if st == "" { // translated to spaces only
		return false
	}
	return len(s)-len(ss) != len(t)-len(st)
}

func endSpace(s, t, _ string) bool {
	if short(s, t) || s == "" || t == "" {
		return false
	}
	st, ss := strings.TrimRight(t, " "), strings.TrimRight(s, " ")
	if st == "" {
		return false
	}
	return len(s)-len(ss) != len(t)-len(st)
}

func doubleSpace(s, t, _ string) bool {
	if short(s, t) || s == "" || t == "" || strings.Contains(s, "  ") {
		return false
	}
	return strings.Contains(t, "  ")
}

// Full stops, by language (reference §1.3, end_stop).
const (
	stops       = ".。।۔։·෴។။"
	stopsHy     = ".。।۔։·෴។:՝?!`"
	stopsIndic  = ".।|" // hi, bn, or: "|" for "।" is common
	stopsSat    = ".᱾"
	stopsMy     = ".။"
	stopsJaList = ";:：.。" // a Japanese sentence may end with a stop before a list
)

// ellipsisOK: "..." may be translated as "…".
func ellipsisOK(s, t string) bool { return strings.HasSuffix(s, "...") && last(t) == '…' }

func endStop(s, t, lang string) bool {
	switch {
	case runeLen(s) <= 4 || t == "": // might need a shortcut in translation
		return false
	case isLanguage(lang, "th", "jbo"): // no full stop
		return false
	case ellipsisOK(s, t):
		return false
	case isLanguage(lang, "ja") && strings.ContainsRune(":;", last(s)):
		return lastDiffers(s, t, stopsJaList)
	case isLanguage(lang, "hy"):
		return lastDiffers(s, t, stopsHy)
	case isLanguage(lang, "hi", "bn", "or"):
		return lastDiffers(s, t, stopsIndic)
	case isLanguage(lang, "sat"):
		return lastDiffers(s, t, stopsSat)
	case isLanguage(lang, "my"):
		return lastDiffers(s, t, stopsMy)
	}
	return lastDiffers(s, t, stops)
}

func endColon(s, t, lang string) bool {
	switch {
	case s == "" || t == "" || isLanguage(lang, "jbo"):
		return false
	case isLanguage(lang, "hy"):
		return last(s) == ':' && lastDiffers(s, t, ":՝`")
	case isLanguage(lang, "ja"):
		return strings.ContainsRune(":;", last(s)) && lastDiffers(s, t, stopsJaList)
	}
	return lastDiffers(s, t, ":：៖")
}

func endQuestion(s, t, lang string) bool {
	switch {
	case s == "" || t == "" || isLanguage(lang, "jbo"):
		return false
	case endsInterrobang(s) || endsInterrobang(t): // end_interrobang's case
		return false
	case isLanguage(lang, "hy"):
		return last(s) == '?' && lastDiffers(s, t, "?՞։")
	case isLanguage(lang, "el"): // ";" and U+037E are the Greek question mark
		return last(s) == '?' && !strings.ContainsRune("?;\u037e", last(t))
	}
	return lastDiffers(s, t, "?՞؟⸮？፧꘏⳺")
}

func endExclamation(s, t, lang string) bool {
	switch {
	case s == "" || t == "":
		return false
	case endsInterrobang(s) || endsInterrobang(t): // end_interrobang's case
		return false
	case isLanguage(lang, "eu") && last(s) == '!' && strings.Contains(t, "¡") && strings.Contains(t, "!"):
		return false // Basque ¡…!
	case isLanguage(lang, "hy", "jbo"):
		return false
	case strings.HasSuffix(s, "Texy!") || strings.HasSuffix(t, "Texy!"):
		return false // a product name
	}
	return lastDiffers(s, t, "!！՜᥄႟߹")
}

func endEllipsis(s, t, lang string) bool {
	if t == "" || isLanguage(lang, "jbo") || ellipsisOK(s, t) {
		return false
	}
	return lastDiffers(s, t, "…")
}

func endSemicolon(s, t, lang string) bool {
	if isLanguage(lang, "el") && s != "" && last(s) == '?' {
		return false // the Greek question mark is ";", see end_question
	}
	return lastDiffers(s, t, ";")
}

// interrobangs are the endings end_interrobang looks for, with their
// Arabic and full-width forms.
var interrobangs = []string{"?!", "!?", "⁈", "⁉", "؟!", "!؟", "？！", "！？"}

func endsInterrobang(s string) bool {
	for _, x := range interrobangs {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

func endInterrobang(s, t, _ string) bool {
	if s == "" || t == "" {
		return false
	}
	return endsInterrobang(s) != endsInterrobang(t)
}

func countDiffers(s, t, sub string) bool {
	if s == "" || t == "" {
		return false
	}
	return strings.Count(s, sub) != strings.Count(t, sub)
}

func zeroWidthSpace(s, t, lang string) bool {
	if isLanguage(lang, "km") || strings.ContainsRune(s, '\u200b') {
		return false
	}
	return strings.ContainsRune(t, '\u200b')
}

// kashida are Arabic tatweel and its presentation forms.
const kashida = "\u0640\uFCF2\uFCF3\uFCF4\uFE71\uFE77\uFE79\uFE7B\uFE7D\uFE7F"

// punctuationSpacing: in French (not fr_CA) and Breton, ; : ? ! that end
// a word need a space, no-break space or narrow no-break space before
// them. Entities such as &amp; are skipped.
func punctuationSpacing(_, t, lang string) bool {
	if !isLanguage(lang, "fr", "br") || isFrCA(lang) {
		return false
	}
	r := []rune(stripEntities(t))
	for i, c := range r {
		if !strings.ContainsRune(";:?!", c) {
			continue
		}
		if i+1 < len(r) && !unicode.IsSpace(r[i+1]) {
			continue // inside a word or a URL
		}
		// A run of marks ("?!") needs the space before the run, as the
		// reference's newer check and fixup read it.
		j := i
		for j > 0 && strings.ContainsRune(";:?!", r[j-1]) {
			j--
		}
		if j == 0 || !strings.ContainsRune(" \u00a0\u202f\u2009", r[j-1]) {
			return true
		}
	}
	return false
}

// stripEntities removes &name; &#123; and &#x1F; references.
func stripEntities(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '&')
		if i < 0 {
			break
		}
		// Entity names are short: looking only a little ahead for the
		// ";" keeps a string of bare "&" linear.
		w := s[i:min(len(s), i+maxEntityLen)]
		j := strings.IndexByte(w, ';')
		if j > 1 && isEntityName(s[i+1:i+j]) {
			b.WriteString(s[:i])
			s = s[i+j+1:]
			continue
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
	}
	b.WriteString(s)
	return b.String()
}

// maxEntityLen bounds an entity reference, "&" and ";" included; HTML's
// longest name, &CounterClockwiseContourIntegral;, has 33 letters.
const maxEntityLen = 40

func isEntityName(n string) bool {
	for i, c := range n {
		if !(c == '#' && i == 0) && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// kabyleStandard pairs the Greek and Turkish look-alikes of Kabyle
// letters with the letters they stand for, Weblate's
// KabyleCharactersCheck.confusable_to_standard: kabyle-characters finds
// the first of each pair, its fixup (Fixup) writes the second.
var kabyleStandard = [][2]string{
	{"γ", "ɣ"}, {"Γ", "Ɣ"}, {"ε", "ɛ"}, {"Ε", "Ɛ"}, {"ğ", "ǧ"}, {"Ğ", "Ǧ"},
}

// kabyleConfusables are kabyleStandard's look-alikes in one string.
var kabyleConfusables = func() string {
	var b strings.Builder
	for _, p := range kabyleStandard {
		b.WriteString(p[0])
	}
	return b.String()
}()

// kabyleCharacters: a Kabyle translation uses a look-alike letter.
func kabyleCharacters(_, t, lang string) bool {
	return isLanguage(lang, "kab") && strings.ContainsAny(t, kabyleConfusables)
}

var _ = register(map[string]single{"kabyle-characters": kabyleCharacters}, nil)
