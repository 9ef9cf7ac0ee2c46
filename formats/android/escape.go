package android

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// textState carries what Android's reading of a value remembers from one
// run of character data to the next: whether a double quote is open.
// Markup between runs does not close a quote.
type textState struct {
	quoted bool
}

// isSpace is the white space Android collapses outside quotes. It is
// ASCII only: translate-toolkit's Python \s also collapses U+00A0 and the
// other Unicode spaces, which would turn a French no-break space into a
// plain one; aapt2 keeps them, and so do we.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

const spaces = " \t\n\r\f\v"

// splitQuoted splits s into the parts translate-toolkit's QUOTED_STRING
// regular expression separates: quoted parts ("…", where neither quote is
// preceded by a backslash) and the text between them. Empty parts are
// dropped.
func splitQuoted(s string) []string {
	var parts []string
	start := 0
	i := 0
	for i < len(s) {
		if s[i] != '"' || (i > 0 && s[i-1] == '\\') {
			i++
			continue
		}
		// An opening quote: find the first closing quote not preceded by
		// a backslash.
		j := i + 1
		for j < len(s) && (s[j] != '"' || s[j-1] == '\\') {
			j++
		}
		if j >= len(s) {
			break // no closing quote: the rest is unquoted text
		}
		if i > start {
			parts = append(parts, s[start:i])
		}
		parts = append(parts, s[i:j+1])
		start = j + 1
		i = j + 1
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	return parts
}

// collapse replaces every run of white space with one space.
func collapse(s string) string {
	var b strings.Builder
	inSpace := false
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			if !inSpace {
				b.WriteByte(' ')
			}
			inSpace = true
			continue
		}
		inSpace = false
		b.WriteByte(s[i])
	}
	return b.String()
}

// stripPart is translate-toolkit's strip_part: a leading or trailing
// unescaped quote toggles the quoted state and is dropped, and text that
// starts outside quotes has its white space collapsed.
func (st *textState) stripPart(text string) (string, bool) {
	if strings.HasPrefix(text, `"`) {
		text = text[1:]
		st.quoted = !st.quoted
	}
	strip := !st.quoted
	if strings.HasSuffix(text, `"`) && !strings.HasSuffix(text, `\"`) {
		text = text[:len(text)-1]
		st.quoted = !st.quoted
	}
	if strip {
		text = collapse(text)
	}
	return text, strip
}

// process is translate-toolkit's process_string: it reads one run of
// character data the way Android does (quotes, white space, backslash
// escapes) and says whether leading and trailing white space may be
// trimmed.
func (st *textState) process(content string) (text string, cleanStart, cleanEnd bool) {
	if content == "" {
		return "", false, false
	}
	var b strings.Builder
	for i, part := range splitQuoted(content) {
		stripped, was := st.stripPart(part)
		if i == 0 {
			cleanStart = was
		}
		cleanEnd = was && !st.quoted
		b.WriteString(stripped)
	}
	merged := b.String()
	text = unescapeChars(unescapeUnicode(merged))
	if merged != "" && text != "" {
		if merged[0] != text[0] {
			cleanStart = false
		}
		if merged[len(merged)-1] != text[len(text)-1] {
			cleanEnd = false
		}
	}
	return text, cleanStart, cleanEnd
}

// unescapeUnicode replaces \uXXXX with its character, as the first of
// translate-toolkit's two passes; a surrogate pair becomes one character.
func unescapeUnicode(s string) string {
	if !strings.Contains(s, `\u`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if r, ok := hex4(s, i); ok {
			if utf16.IsSurrogate(r) {
				if r2, ok2 := hex4(s, i+6); ok2 {
					if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
						b.WriteRune(p)
						i += 12
						continue
					}
				}
			}
			b.WriteRune(r)
			i += 6
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// hex4 reads \uXXXX at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
	if err != nil || strings.ContainsAny(s[i+2:i+6], "+-_xX") {
		return 0, false
	}
	return rune(n), true
}

// unescapeChars is the second pass: \n and \t (either case) become a
// newline and a tab; \\, \', \", \@, \?, and a backslash before a space
// give the character itself; any other escaped character is dropped, as
// Android drops it. A backslash before a newline or at the end stays.
func unescapeChars(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) || s[i+1] == '\n' {
			b.WriteByte(c)
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i+1:])
		next := s[i+1 : i+1+size]
		i += size
		switch next {
		case "n", "N":
			b.WriteByte('\n')
		case "t", "T":
			b.WriteByte('\t')
		case " ", `"`, "'", "@", "?", `\`:
			b.WriteString(next)
		}
	}
	return b.String()
}

// escape is translate-toolkit's AndroidResourceUnit.escape: backslashes,
// newlines, tabs and both quotes are escaped, a leading @ or ? is escaped
// so that it is not read as a reference, and text with leading or
// trailing white space or a run of two spaces is wrapped in double quotes
// (wrap) or has the run written as " \u0020" (!wrap, for text between
// markup, where quotes would span elements).
func escape(text string, wrap bool) string {
	if text == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(text) + 8)
	if text[0] == '@' || text[0] == '?' {
		b.WriteByte('\\')
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\'':
			b.WriteString(`\'`)
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	multi := hasMultiSpace(out)
	if wrap && (isWrapSpace(out[0]) || isWrapSpace(out[len(out)-1]) || multi) {
		return `"` + out + `"`
	}
	if !wrap && multi {
		return replaceMultiSpace(out)
	}
	return out
}

func isWrapSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' }

// hasMultiSpace reports a match of translate-toolkit's MULTIWHITESPACE,
// [ \n\t]{2}(?!\\n), in escaped text (where newlines and tabs are already
// escapes, so only spaces remain).
func hasMultiSpace(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if isWrapSpace(s[i]) && isWrapSpace(s[i+1]) && !strings.HasPrefix(s[i+2:], `\n`) {
			return true
		}
	}
	return false
}

// replaceMultiSpace writes each such pair of spaces as " \u0020".
func replaceMultiSpace(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i+1 < len(s) && isWrapSpace(s[i]) && isWrapSpace(s[i+1]) && !strings.HasPrefix(s[i+2:], `\n`) {
			b.WriteString(strings.ReplaceAll(s[i:i+2], "  ", ` \u0020`))
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// errInvalidChar is returned for text XML 1.0 cannot hold.
var errInvalidChar = errors.New("android: text holds a character XML cannot represent")

// escapeXMLText escapes &, < and > for character data, as lxml writes it,
// and \r as &#13; so that it survives parsing.
func escapeXMLText(s string) (string, error) {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\r':
			b.WriteString("&#13;")
		case !isXMLChar(r):
			return "", errInvalidChar
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}

// isXMLChar is XML 1.0's Char production.
func isXMLChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
