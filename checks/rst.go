package checks

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// reStructuredText checks behind rst-text (reference §1.3; Weblate's
// markup.py RSTReferencesCheck and RSTSyntaxCheck).
//
// rst-references compares the roles (":ref:`x`", keyed by role and
// target, or by role alone for the roles whose text is translated:
// :guilabel:, :kbd:, …), auto-numbered footnotes ("[#c]_"), inline links
// ("`text <url>`_") and named links ("`text`_") of source and target,
// with the reference's boundaries (a reference starts the text or
// follows a non-word character, and is followed by one or the end).
//
// rst-syntax: Weblate parses the target with docutils and reports its
// warnings. Tolk has no docutils; it applies docutils' inline markup
// recognition rules (start-string after white space or opening
// punctuation and before non-white space; end-string after non-white
// space and before white space or closing punctuation; backslash
// escapes) to inline literals, interpreted text and phrase references,
// strong and emphasis, and reports a start-string without its
// end-string, a phrase reference whose name holds a backtick (docutils:
// unknown target name) and a role docutils does not know that the source
// does not use either — the warnings Weblate's own tests exercise.
// Block-level syntax (tables, directives, sections) is not parsed; a
// unit's text is rarely more than a paragraph.

// rstTranslatable are the roles whose text may be translated: keyed by
// the role alone.
var rstTranslatable = map[string]bool{
	":guilabel:": true, ":file:": true, ":code:": true, ":math:": true, ":eq:": true,
	":abbr:": true, ":dfn:": true, ":menuselection:": true, ":sub:": true, ":sup:": true,
	":kbd:": true, ":index:": true, ":samp:": true,
}

// nonWordBefore reports whether position i of s starts the text or
// follows a non-word character ((?<=\W)|^).
func nonWordBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !isWordRune(r)
}

// nonWordAt reports whether position i of s is the end or a non-word
// character ((?=\W|$)).
func nonWordAt(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return !isWordRune(r)
}

// rstRefs is what rst-references compares of one string.
type rstRefs struct {
	refs         map[string]int // role keys and footnotes, counted
	inline, bare int            // `text <url>`_ and `text`_ links
}

func scanRSTRefs(s string) rstRefs {
	r := rstRefs{refs: map[string]int{}}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			if key, end := rstRoleRef(s, i); end > 0 {
				r.refs[key]++
				i = end - 1
			}
		case '[':
			if end := rstFootnote(s, i); end > 0 {
				r.refs[s[i:end]]++
				i = end - 1
			}
		case '`':
			if !nonWordBefore(s, i) {
				continue
			}
			if end := rstLink(s, i, true); end > 0 {
				r.inline++
				i = end - 1
			} else if end := rstLink(s, i, false); end > 0 {
				r.bare++
				i = end - 1
			}
		}
	}
	return r
}

// rstRoleRef matches a role reference at i (":role:`target`" or
// ":role:`text <target>`"); it returns its key and end, or end 0.
func rstRoleRef(s string, i int) (string, int) {
	if !nonWordBefore(s, i) {
		return "", 0
	}
	j := i + 1
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == ':') {
		j++
	}
	// [a-z:]+ then ':' then '`': the role ends at the last colon.
	if j >= len(s) || s[j] != '`' || s[j-1] != ':' || j-1 <= i+1 {
		return "", 0
	}
	role := s[i:j]
	p := j // the opening backtick
	if p+1 >= len(s) || s[p+1] == '<' || s[p+1] == ' ' {
		return "", 0
	}
	lt := strings.IndexByte(s[p+1:], '<')
	if lt >= 0 {
		lt += p + 1
	}
	// `target`: the content holds no '<', has two characters or more,
	// does not end with a space; the closing backtick is followed by
	// neither a backtick nor a word character.
	for q := p + 3; q < len(s); q++ {
		if lt >= 0 && q > lt {
			break
		}
		if s[q] == '`' && s[q-1] != ' ' && rstRefEnd(s, q+1) {
			return rstKey(role, s[p+1:q]), q + 1
		}
	}
	// `text <target>`.
	if lt < 0 || lt == p+1 {
		return "", 0
	}
	next := strings.IndexByte(s[lt+1:], '<')
	for q := lt + 3; q < len(s); q++ {
		if next >= 0 && q-1 > lt+1+next {
			break
		}
		if s[q] == '`' && s[q-1] == '>' && rstRefEnd(s, q+1) {
			return rstKey(role, s[lt+1:q-1]), q + 1
		}
	}
	return "", 0
}

func rstRefEnd(s string, i int) bool {
	return (i >= len(s) || s[i] != '`') && nonWordAt(s, i)
}

func rstKey(role, target string) string {
	if rstTranslatable[role] {
		return role
	}
	return role + target
}

// rstFootnote matches "[#label]_" at i, returning its end or 0.
func rstFootnote(s string, i int) int {
	if !nonWordBefore(s, i) || i+2 >= len(s) || s[i+1] != '#' {
		return 0
	}
	k := strings.IndexByte(s[i+2:], ']')
	if k <= 0 {
		return 0
	}
	k += i + 2
	if k+1 < len(s) && s[k+1] == '_' && nonWordAt(s, k+2) {
		return k + 2
	}
	return 0
}

// rstLink matches "`text <url>`_" (inline) or "`text`_" at i, returning
// its end or 0.
func rstLink(s string, i int, inline bool) int {
	k := strings.IndexAny(s[i+1:], "`<")
	if k < 0 {
		return 0
	}
	k += i + 1
	if !inline {
		if s[k] != '`' || k-1 < i+1 || strings.IndexByte("` <", s[k-1]) >= 0 {
			return 0
		}
		if k+1 < len(s) && s[k+1] == '_' && nonWordAt(s, k+2) {
			return k + 2
		}
		return 0
	}
	if s[k] != '<' || k-2 < i+1 || s[k-1] != ' ' || strings.IndexByte("` <", s[k-2]) >= 0 {
		return 0
	}
	m := strings.IndexAny(s[k+1:], "`> ")
	if m < 0 {
		return 0
	}
	m += k + 1
	if s[m] == '>' && strings.HasPrefix(s[m+1:], "`_") && nonWordAt(s, m+3) {
		return m + 3
	}
	return 0
}

func rstReferences(src, tgt, _ string) bool {
	s, t := scanRSTRefs(src), scanRSTRefs(tgt)
	if s.inline != t.inline || s.bare != t.bare || len(s.refs) != len(t.refs) {
		return true
	}
	for k, n := range s.refs {
		if t.refs[k] != n {
			return true
		}
	}
	return false
}

// docutilsRoles are the roles docutils itself knows (canonical names and
// aliases); others are Sphinx's or an extension's.
var docutilsRoles = map[string]bool{
	"emphasis": true, "literal": true, "code": true, "math": true, "pep-reference": true, "pep": true,
	"rfc-reference": true, "rfc": true, "strong": true, "subscript": true, "sub": true,
	"superscript": true, "sup": true, "title-reference": true, "title": true, "t": true,
	"abbreviation": true, "ab": true, "acronym": true, "ac": true, "raw": true,
}

// rstInline is what rstParse found in one string.
type rstInline struct {
	errors int
	roles  map[string]bool // the roles used, known or not
	bad    []string        // the unknown roles used
}

// rstStartOK: docutils' rules for a start-string at i of length n: it
// follows the text's start, white space or opening punctuation, is
// followed by non-white space (or the end), and is not the inside of a
// pair of quotes or brackets ("(*)").
func rstStartOK(s string, i, n int) bool {
	var before rune = ' '
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if !(unicode.IsSpace(before) || strings.ContainsRune(`-:/'"<([{`, before) ||
		unicode.In(before, unicode.Ps, unicode.Pi, unicode.Pf, unicode.Pd, unicode.Po)) {
		return false
	}
	if i+n >= len(s) {
		return true
	}
	after, _ := utf8.DecodeRuneInString(s[i+n:])
	if unicode.IsSpace(after) {
		return false
	}
	if pair := map[rune]rune{'(': ')', '[': ']', '{': '}', '<': '>', '"': '"', '\'': '\''}[before]; pair != 0 && after == pair {
		return false
	}
	return true
}

// rstEndOK: an end-string at i of length n follows non-white space and
// is followed by the end, white space or closing punctuation.
func rstEndOK(s string, i, n int) bool {
	if i == 0 {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	if unicode.IsSpace(before) {
		return false
	}
	if i+n >= len(s) {
		return true
	}
	after, _ := utf8.DecodeRuneInString(s[i+n:])
	return unicode.IsSpace(after) || strings.ContainsRune(`-.,:;!?\/'")]}>`, after) ||
		unicode.In(after, unicode.Pe, unicode.Pi, unicode.Pf, unicode.Pd, unicode.Po)
}

// rstFindEnd returns the first valid end-string at or after from, not
// in the string's escapes, or -1. Emphasis's "*" is not the first star
// of a "**".
func rstFindEnd(s string, from int, end string) int {
	for j := from; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if !strings.HasPrefix(s[j:], end) || !rstEndOK(s, j, len(end)) {
			continue
		}
		if end == "*" && j+1 < len(s) && s[j+1] == '*' {
			continue
		}
		return j
	}
	return -1
}

// rstRoleName reads a role name ("ref", "py:func") from i, returning its
// end, or i.
func rstRoleName(s string, i int) int {
	j := i
	for j < len(s) {
		c := s[j]
		if isLetterByte(c) || c >= '0' && c <= '9' || (j > i && strings.IndexByte("-_+:.", c) >= 0 && j+1 < len(s) && s[j+1] != '`') {
			j++
			continue
		}
		break
	}
	return j
}

// rstParse applies the inline markup rules to s.
func rstParse(s string) rstInline {
	var r rstInline
	r.roles = map[string]bool{}
	useRole := func(name string) {
		r.roles[name] = true
		if !docutilsRoles[strings.ToLower(name)] {
			r.bad = append(r.bad, name)
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case strings.HasPrefix(s[i:], "``"):
			if !rstStartOK(s, i, 2) {
				i++
				continue
			}
			j := rstFindEnd(s, i+3, "``")
			if j < 0 {
				r.errors++ // inline literal start-string without end-string
				i++
				continue
			}
			i = j + 1
		case c == ':' || c == '`':
			start := i
			if c == ':' {
				// :role:`text`
				k := rstRoleName(s, i+1)
				if k == i+1 || k+1 >= len(s) || s[k] != ':' || s[k+1] != '`' || !rstStartOK(s, i, 1) {
					continue
				}
				useRole(s[i+1 : k])
				start = k + 1
			} else if !rstStartOK(s, i, 1) {
				continue
			}
			j := rstFindInterpretedEnd(s, start+2)
			if j < 0 {
				r.errors++ // interpreted text or phrase reference start-string without end-string
				i = start
				continue
			}
			end := j + 1
			switch {
			case strings.HasPrefix(s[end:], "__"):
				end += 2
			case strings.HasPrefix(s[end:], "_"):
				if strings.Contains(s[start+1:j], "`") {
					r.errors++ // unknown target name with a backtick
				}
				end++
			case strings.HasPrefix(s[end:], ":") && start == i:
				if k := rstRoleName(s, end+1); k > end+1 && k < len(s) && s[k] == ':' {
					useRole(s[end+1 : k])
					end = k + 1
				}
			}
			i = end - 1
		case strings.HasPrefix(s[i:], "**"):
			if !rstStartOK(s, i, 2) {
				i++
				continue
			}
			j := rstFindEnd(s, i+3, "**")
			if j < 0 {
				r.errors++ // strong start-string without end-string
				i++
				continue
			}
			i = j + 1
		case c == '*':
			if !rstStartOK(s, i, 1) {
				continue
			}
			j := rstFindEnd(s, i+2, "*")
			if j < 0 {
				r.errors++ // emphasis start-string without end-string
				continue
			}
			i = j
		}
	}
	return r
}

// rstFindInterpretedEnd finds the backtick ending interpreted text or a
// phrase reference: itself an end-string, or followed by "_", "__" or a
// role suffix that is.
func rstFindInterpretedEnd(s string, from int) int {
	for j := from; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if s[j] != '`' || j == 0 || unicode.IsSpace(rune(s[j-1])) {
			continue
		}
		switch {
		case rstEndOK(s, j, 1):
			return j
		case strings.HasPrefix(s[j+1:], "__") && rstEndOK(s, j, 3):
			return j
		case strings.HasPrefix(s[j+1:], "_") && rstEndOK(s, j, 2):
			return j
		case j+1 < len(s) && s[j+1] == ':':
			if k := rstRoleName(s, j+2); k > j+2 && k < len(s) && s[k] == ':' && rstEndOK(s, j, k+1-j) {
				return j
			}
		}
	}
	return -1
}

func rstSyntax(src, tgt, _ string) bool {
	t := rstParse(tgt)
	if t.errors > 0 {
		return true
	}
	if len(t.bad) == 0 {
		return false
	}
	known := rstParse(src).roles
	for _, b := range t.bad {
		if !known[b] {
			return true
		}
	}
	return false
}

var _ = register(map[string]single{
	"rst-references": rstReferences,
	"rst-syntax":     rstSyntax,
}, nil)
