package checks

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fixer describes one automatic fixup (reference §1.8, Weblate's
// AUTOFIX_LIST).
type Fixer struct {
	// ID is Weblate's fix_id, kept as Weblate spells it
	// ("devanadari-danda" included) so it can be stored and compared.
	ID string
	// Class is the Weblate class name ("SameBookendingWhitespace").
	Class string
	// Name is the human name Weblate shows in the "fixups applied" notice.
	Name string
}

// fixer rewrites one target form given the first source form; it reports
// whether it changed anything.
type fixer struct {
	Fixer
	fix func(tgt, src string, u Unit) (string, bool)
}

// fixers are the default AUTOFIX_LIST in Weblate's order, without
// BleachHTML (unsafe HTML cleaning needs an HTML sanitiser).
var fixers = []fixer{
	{Fixer{"end-whitespace", "SameBookendingWhitespace", "Trailing and leading whitespace"}, fixWhitespace},
	{Fixer{"end-ellipsis", "ReplaceTrailingDotsWithEllipsis", "Trailing ellipsis"}, fixEllipsis},
	{Fixer{"zero-width-space", "RemoveZeroSpace", "Zero-width space"}, fixZeroWidthSpace},
	{Fixer{"control-chars", "RemoveControlChars", "Control characters"}, fixControlChars},
	{Fixer{"devanadari-danda", "DevanagariDanda", "Devanagari danda"}, fixDanda},
	{Fixer{"punctuation-spacing", "PunctuationSpacing", "Punctuation spacing"}, fixPunctuationSpacing},
}

// Fixers returns the fixups Autofix applies, in the order it applies
// them. The slice is a copy.
func Fixers() []Fixer {
	out := make([]Fixer, len(fixers))
	for i, f := range fixers {
		out[i] = f.Fixer
	}
	return out
}

// Autofix applies Weblate's automatic fixups to u's target forms, as
// Weblate does on every save before running the checks. It returns the
// fixed forms (a new slice; u is not modified) and the ids of the fixers
// that changed something, in Fixers order; applied is nil when nothing
// changed. Every fixer compares each target form with the first source
// form, as Weblate's AutoFix.fix_target does. A read-only unit, or one
// without source or target, is returned unchanged.
func Autofix(u Unit) (target []string, applied []string) {
	target = slices.Clone(u.Target)
	if len(u.Source) == 0 || len(target) == 0 || u.Flags.Has("read-only") {
		return target, nil
	}
	src := u.Source[0]
	for _, f := range fixers {
		changed := false
		for i, t := range target {
			if t2, ok := f.fix(t, src, u); ok {
				target[i], changed = t2, true
			}
		}
		if changed {
			applied = append(applied, f.ID)
		}
	}
	return target, applied
}

// fixWhitespace gives the target the source's leading and trailing
// whitespace (source newlines normalised to \n), unless
// ignore-begin-space or ignore-end-space is set for that side. A target
// that is only whitespace is left alone.
func fixWhitespace(t, s string, u Unit) (string, bool) {
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
	stripped := t
	var head, tail string
	if !u.Flags.Has("ignore-begin-space") {
		head = s[:len(s)-len(strings.TrimLeftFunc(s, unicode.IsSpace))]
		stripped = strings.TrimLeftFunc(stripped, unicode.IsSpace)
	}
	if !u.Flags.Has("ignore-end-space") {
		rest := strings.TrimLeftFunc(s, unicode.IsSpace)
		if rest == "" {
			rest = s // all space: Weblate's ^\s+ and \s+$ both match it all
		}
		tail = rest[len(strings.TrimRightFunc(rest, unicode.IsSpace)):]
		stripped = strings.TrimRightFunc(stripped, unicode.IsSpace)
	}
	if stripped == "" {
		return t, false
	}
	n := head + stripped + tail
	return n, n != t
}

// fixEllipsis: a target ending in "..." gets "…" when the source ends
// with "…".
func fixEllipsis(t, s string, _ Unit) (string, bool) {
	if strings.HasSuffix(s, "…") && strings.HasSuffix(t, "...") {
		return t[:len(t)-3] + "…", true
	}
	return t, false
}

// fixZeroWidthSpace removes U+200B when the source has none (not for
// Khmer, which uses it between words).
func fixZeroWidthSpace(t, s string, u Unit) (string, bool) {
	if isLanguage(u.Language, "km") || strings.ContainsRune(s, '\u200b') || !strings.ContainsRune(t, '\u200b') {
		return t, false
	}
	return strings.ReplaceAll(t, "\u200b", ""), true
}

// isControlChar is Weblate's CONTROLCHARS (formats/helpers.py): C0
// controls other than tab, newline and carriage return, and the
// non-characters U+FFFE and U+FFFF.
func isControlChar(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xfffe || r == 0xffff
}

// fixControlChars removes control characters, whatever the source has.
func fixControlChars(t, _ string, _ Unit) (string, bool) {
	if strings.IndexFunc(t, isControlChar) < 0 {
		return t, false
	}
	return strings.Map(func(r rune) rune {
		if isControlChar(r) {
			return -1
		}
		return r
	}, t), true
}

// fixDanda: in Hindi, Bengali and Odia (not their _Latn variants), a
// source ending in "." makes a target ending in ".", "|" or the Bengali
// currency numerator "৷" end in the danda "।".
func fixDanda(t, s string, u Unit) (string, bool) {
	if !isLanguage(u.Language, "hi", "bn", "or") || strings.Contains(u.Language, "_Latn") || !strings.HasSuffix(s, ".") {
		return t, false
	}
	r, n := utf8.DecodeLastRuneInString(t)
	if r != '.' && r != '|' && r != '\u09f7' {
		return t, false
	}
	return t[:len(t)-n] + "\u0964", true
}

// fixPunctuationSpacing: in French (not fr_CA), a plain, thin or narrow
// no-break space before ":" becomes a no-break space, and a plain, thin
// or no-break space before ";", "?" or "!" becomes a narrow no-break
// space. Missing spaces are not added, as Weblate does not (URLs,
// Markdown). Spaces inside placeholders (the placeholders: flag's
// entries) and reStructuredText roles under rst-text are left alone.
func fixPunctuationSpacing(t, _ string, u Unit) (string, bool) {
	if !isLanguage(u.Language, "fr") || isFrCA(u.Language) || u.Flags.Has("ignore-punctuation-spacing") {
		return t, false
	}
	if !strings.ContainsAny(t, ":;?!") {
		return t, false
	}
	protected := placeholderSpans(t, u.Flags)
	rst := u.Flags.Has("rst-text")
	var b strings.Builder
	done := 0 // t[:done] is in b
	prev, prevAt := rune(-1), 0
	for i, r := range t {
		if prev >= 0 && strings.ContainsRune(":;?!", r) && !inSpans(protected, i) && !(rst && r == ':' && rstRoleAt(t[i:])) {
			want, from := '\u202f', " \u00a0\u2009"
			if r == ':' {
				want, from = '\u00a0', " \u2009\u202f"
			}
			if strings.ContainsRune(from, prev) {
				b.WriteString(t[done:prevAt])
				b.WriteRune(want)
				done = i
			}
		}
		prev, prevAt = r, i
	}
	if done == 0 {
		return t, false
	}
	b.WriteString(t[done:])
	return b.String(), true
}

func isFrCA(lang string) bool { return strings.EqualFold(strings.ReplaceAll(lang, "-", "_"), "fr_CA") }

// rstRoleAt reports whether s starts with a reStructuredText role
// (":ref:`…`").
func rstRoleAt(s string) bool {
	if len(s) < 3 || s[0] != ':' {
		return false
	}
	i := 1
	for i < len(s) && (isLetterByte(s[i]) || s[i] >= '0' && s[i] <= '9' || strings.IndexByte("_.+-", s[i]) >= 0) {
		i++
	}
	return i > 1 && i+1 < len(s) && s[i] == ':' && s[i+1] == '`'
}

// span is a half-open byte range.
type span struct{ start, end int }

func inSpans(ss []span, i int) bool {
	for _, s := range ss {
		if s.start <= i && i < s.end {
			return true
		}
	}
	return false
}

// placeholderSpans returns where the placeholders: flag's entries match
// in s.
func placeholderSpans(s string, f Flags) []span {
	if f.placeholders == nil {
		return nil
	}
	fold := f.Has("case-insensitive")
	if fold && f.placeholders.re == nil && len(strings.ToLower(s)) != len(s) {
		fold = false // spans would index the lower-cased text
	}
	return f.placeholders.spans(s, fold)
}
