package checks

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Glossary checks (reference §1.3, Weblate's glossary.py).
// prohibited_initial_character runs only in glossary components
// (RunGlossary); check_glossary runs in Run under the check-glossary
// flag and reads the terms the caller gives in Unit.Glossary.
var _ = register(nil, map[string]whole{
	"prohibited_initial_character": prohibitedInitialCharacter,
	"check_glossary":               glossaryMismatch,
})

// RunGlossary returns the glossary checks failing on u, a unit of a
// glossary component (its source-language units included: the reference
// runs them on read-only units too). Ignore flags apply as in Run;
// ignore-all-checks silences all. The caller leaves out untranslated
// units, as the reference does.
func RunGlossary(u Unit) []Result { return runKind(u, Glossary) }

// ProhibitedInitial reports whether s starts with a character a
// spreadsheet reads as the start of a formula, or with a space: Weblate's
// PROHIBITED_INITIAL_CHARS (weblate/utils/csv.py) are = + - @ | % and
// every character of Unicode category Zs. Tab and carriage return are
// control characters (Cc), not in the set.
func ProhibitedInitial(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return false
	}
	switch r {
	case '=', '+', '-', '@', '|', '%':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// prohibitedInitialCharacter: a term (source form) or its translation
// (target form) starts with a prohibited character.
func prohibitedInitialCharacter(u Unit) bool {
	for _, s := range u.Source {
		if ProhibitedInitial(s) {
			return true
		}
	}
	for _, t := range u.Target {
		if ProhibitedInitial(t) {
			return true
		}
	}
	return false
}

// Term is one glossary entry in the unit's target language, as
// check_glossary reads it.
type Term struct {
	Source string // the term, as the glossary's source string
	Target string // its translation; unused when ReadOnly
	// Forbidden (flag forbidden): the translation must not use Target.
	Forbidden bool
	// ReadOnly (flag read-only, an untranslatable term): the translation
	// must keep Source as it is.
	ReadOnly bool
}

// pluralJoin is Weblate's PLURAL_SEPARATOR, which joins the source forms
// the glossary terms are looked up in.
const pluralJoin = "\x1e\x1e"

// GlossaryMatches returns the terms whose source occurs in the source
// forms, as the reference's get_glossary_terms finds them: lower-cased,
// overlapping, and, for a source language written with spaces, only
// where the term starts and ends at a word boundary ("apple" is not in
// "apples"). Terms come back in the order given.
func GlossaryMatches(source []string, sourceLanguage string, terms []Term) []Term {
	if len(terms) == 0 {
		return nil
	}
	keys := make([]string, len(terms))
	for i, t := range terms {
		keys[i] = t.Source
	}
	found := NewGlossaryMatcher(keys).Found(source, sourceLanguage)
	var out []Term
	for i, t := range terms {
		if found[i] {
			out = append(out, t)
		}
	}
	return out
}

// GlossaryMatcher finds glossary terms in source strings: the one
// matcher of check_glossary, the editor's glossary panel, the machinery's
// glossaries and the search's has:glossary (through GlossaryMatches or
// directly). Built once, it serves any number of strings; it is safe for
// concurrent use.
//
// Its cost does not grow with the terms as a loop over them would: the
// terms are filed by their text, and a string is walked once, looking
// up at each place a term may start (after a non-word character, or
// anywhere in a language written without spaces) the text of each
// length some term has: a few map lookups a place, however many terms
// (BenchmarkGlossaryMatcher: 5,000 terms).
type GlossaryMatcher struct {
	n       int              // terms given
	byText  map[string][]int // indexes of the terms by their lower-cased text
	lengths []int            // the lengths of those texts in bytes, ascending
}

// NewGlossaryMatcher compiles terms (their case is ignored; empty ones
// match nothing).
func NewGlossaryMatcher(terms []string) *GlossaryMatcher {
	m := &GlossaryMatcher{n: len(terms), byText: map[string][]int{}}
	for i, t := range terms {
		key := strings.ToLower(t)
		if key == "" {
			continue
		}
		if _, ok := m.byText[key]; !ok {
			m.lengths = append(m.lengths, len(key))
		}
		m.byText[key] = append(m.byText[key], i)
	}
	slices.Sort(m.lengths)
	m.lengths = slices.Compact(m.lengths)
	return m
}

// Found reports, term by term, whether it occurs in the source forms
// (see GlossaryMatches).
func (m *GlossaryMatcher) Found(source []string, sourceLanguage string) []bool {
	found := make([]bool, m.n)
	m.walk(source, sourceLanguage, func(is []int) bool {
		for _, i := range is {
			found[i] = true
		}
		return true
	})
	return found
}

// Any reports whether any term occurs in the source forms (see
// GlossaryMatches); it stops at the first.
func (m *GlossaryMatcher) Any(source []string, sourceLanguage string) bool {
	any := false
	m.walk(source, sourceLanguage, func([]int) bool {
		any = true
		return false
	})
	return any
}

// walk calls hit with the indexes of the terms of each text found in
// the source forms (a text found twice may be reported twice) until hit
// returns false.
func (m *GlossaryMatcher) walk(source []string, sourceLanguage string, hit func([]int) bool) {
	if len(m.byText) == 0 {
		return
	}
	var parts []string
	for _, s := range source {
		if s = strings.TrimSpace(strings.ToLower(s)); s != "" {
			parts = append(parts, s)
		}
	}
	text := strings.Join(parts, pluralJoin)
	words := usesWhitespace(sourceLanguage)
	for p := 0; p < len(text); {
		if !words || !wordBefore(text, p) {
			for _, n := range m.lengths {
				if p+n > len(text) {
					break
				}
				if is, ok := m.byText[text[p:p+n]]; ok && (!words || !wordAt(text, p+n)) && !hit(is) {
					return
				}
			}
		}
		_, size := utf8.DecodeRuneInString(text[p:])
		p += size
	}
}

// glossaryMismatch: check_glossary, reading u.Glossary (the terms of the
// glossaries in u's language; GlossaryMatches picks those in the
// source). Each target form must use, for each term in the source, one
// of the term's translations (its source for a read-only term), and
// none of its forbidden ones, matched case-insensitively as a word where
// the target language is written with spaces. Untranslated terms are the
// caller's to leave out.
func glossaryMismatch(u Unit) bool {
	terms := GlossaryMatches(u.Source, u.SourceLanguage, u.Glossary)
	if len(terms) == 0 {
		return false
	}
	spaced := usesWhitespace(u.Language)
	for _, t := range u.Target {
		if glossaryFails(strings.ToLower(t), terms, spaced) {
			return true
		}
	}
	return false
}

// glossaryFails is the reference's check_single on one target form
// (lower case): a forbidden term used, or a term none of whose entries'
// translations is used.
func glossaryFails(target string, terms []Term, spaced bool) bool {
	matched := map[string]bool{}
	missing := map[string]bool{}
	for _, t := range terms {
		expected := t.Target
		if t.ReadOnly {
			expected = t.Source
		}
		expected = strings.ToLower(expected)
		if t.Forbidden {
			if containsWord(target, expected, spaced) {
				return true
			}
			continue
		}
		if matched[t.Source] {
			continue
		}
		if containsWord(target, expected, spaced) {
			delete(missing, t.Source)
			matched[t.Source] = true
		} else {
			missing[t.Source] = true
		}
	}
	return len(missing) > 0
}

// containsWord is Python's re.search(r"\bW\b", text) on lower-cased
// strings: W occurs with a word boundary (\b: a word character on one
// side only) at both of its ends; without words (a language written
// without spaces), anywhere.
func containsWord(text, w string, words bool) bool {
	if w == "" {
		return false
	}
	if !words {
		return strings.Contains(text, w)
	}
	first, _ := utf8.DecodeRuneInString(w)
	last, _ := utf8.DecodeLastRuneInString(w)
	for from := 0; from <= len(text)-len(w); {
		i := strings.Index(text[from:], w)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(w)
		if wordBefore(text, start) != isWordRune(first) && isWordRune(last) != wordAt(text, end) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		from = start + size
	}
	return false
}

// wordBefore: the character before byte i of s is a word character.
func wordBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r)
}

// wordAt: the character at byte i of s is a word character.
func wordAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWordRune(r)
}

// isWordRune is Python's \w: a letter, digit or underscore.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// usesWhitespace reports whether a language separates words with spaces
// (Weblate's Language.uses_whitespace); the glossary matches terms as
// words only in those that do.
func usesWhitespace(code string) bool {
	return !isLanguage(code, "zh", "ja", "th", "lo", "km", "my", "bo", "dz")
}
