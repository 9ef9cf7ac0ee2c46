package po

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// wrapWidth is the line width gettext's tools (msgmerge, xgettext and
// Translate Toolkit, which the reference writes through) wrap strings at:
// no line, quotes included, is longer than 79 columns.
const wrapWidth = 79

var errUnterminated = errors.New("po: unterminated string")

// scanString reads the C string literal that starts at s[0] (a '"') and
// returns its decoded value and the index just past the closing quote.
// The error's offset is into s.
func scanString(s string) (val string, end int, err error) {
	// Fast path: no escapes, the common case in real files.
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return s[1:i], i + 1, nil
		case '\\':
			return scanEscaped(s)
		}
	}
	return "", len(s), errUnterminated
}

// errAt is an error inside a string, at byte offset off of the line.
type errAt struct {
	off int
	err error
}

func (e *errAt) Error() string { return e.err.Error() }

func scanEscaped(s string) (string, int, error) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 1; i < len(s); {
		c := s[i]
		if c == '"' {
			return b.String(), i + 1, nil
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\', '\'', '?':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			j, n := i+2, 0
			for ; j < len(s) && j < i+4 && isHex(s[j]); j++ {
				n = n*16 + hexVal(s[j])
			}
			if j == i+2 {
				return "", i, &errAt{i, errors.New(`po: \x without hex digits`)}
			}
			b.WriteByte(byte(n))
			i = j
			continue
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j, n := i+1, 0
			for ; j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			if n > 0xff {
				return "", i, &errAt{i, errors.New("po: octal escape out of range")}
			}
			b.WriteByte(byte(n))
			i = j
			continue
		default:
			return "", i, &errAt{i, fmt.Errorf("po: invalid escape \\%c", e)}
		}
		i += 2
	}
	return "", len(s), errUnterminated
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// escape writes s as the inside of a PO string, as gettext does: the
// C escapes for backslash, quote and the control characters that have
// one; other characters as they are (files are UTF-8). Other control
// characters and bytes that are not UTF-8 (a value can hold them through
// \x and octal escapes) are written as octal escapes, so that the file
// stays valid UTF-8 and reads back to the same value.
func escape(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '\\' || c == '"' || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		c := s[i]
		switch {
		case r == utf8.RuneError && size == 1, c < 0x20 && !strings.ContainsRune("\n\t\r\a\b\f\v", rune(c)), c == 0x7f:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"':
			b.WriteString(`\"`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\a':
			b.WriteString(`\a`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\v':
			b.WriteString(`\v`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// quoteLines renders `kw "s"` as the lines of a PO file, without line
// ends. Unwrapped, it is one line. Wrapped, as gettext's tools wrap: a
// value that does not fit on the keyword's line, or that has a newline
// before its end, starts with `kw ""` and continues on string lines,
// one after each "\n" and otherwise broken after spaces so that no line
// is longer than wrapWidth (a word longer than that overflows). Widths
// count characters, not display columns.
func quoteLines(kw, s string, wrap bool) []string {
	esc := escape(s)
	one := kw + ` "` + esc + `"`
	if !wrap || (width(one) <= wrapWidth && nextNewline(esc) >= len(esc)) {
		return []string{one}
	}
	lines := []string{kw + ` ""`}
	for len(esc) > 0 {
		// One segment per "\n"-terminated piece.
		seg := esc[:nextNewline(esc)]
		esc = esc[len(seg):]
		for len(seg) > 0 {
			piece := breakAt(seg, wrapWidth-2)
			lines = append(lines, `"`+seg[:piece]+`"`)
			seg = seg[piece:]
		}
	}
	return lines
}

// nextNewline returns the index just past the first real `\n` escape
// in esc, or len(esc).
func nextNewline(esc string) int {
	for i := 0; i+1 < len(esc); i++ {
		if esc[i] == '\\' {
			if esc[i+1] == 'n' {
				return i + 2
			}
			i++
		}
	}
	return len(esc)
}

// breakAt returns how many bytes of seg go on one line of at most max
// columns: up to and including the last space that fits, or, when none
// does, up to the first space (a long word overflows).
func breakAt(seg string, max int) int {
	if width(seg) <= max {
		return len(seg)
	}
	last, n := -1, 0
	for i := 0; i < len(seg); {
		r, size := utf8.DecodeRuneInString(seg[i:])
		w := runeWidth(r)
		if seg[i] == '\\' && i+1 < len(seg) {
			size, w = 2, 2 // never split an escape
		}
		if n+w > max {
			break
		}
		if seg[i] == ' ' {
			last = i + 1
		}
		i += size
		n += w
	}
	if last > 0 {
		return last
	}
	if i := strings.IndexByte(seg, ' '); i >= 0 {
		return i + 1
	}
	return len(seg)
}

// width is the number of columns s takes on a terminal, as gettext
// measures lines when it wraps them.
func width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is 0 for combining marks and invisible format characters
// (soft hyphen, zero-width joiners, variation selectors), 2 for East
// Asian wide characters and 1 otherwise.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		if r == 0xAD {
			return 0
		}
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0x303E, r >= 0x3041 && r <= 0x33FF,
		r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF, r >= 0xA000 && r <= 0xA4CF,
		r >= 0xAC00 && r <= 0xD7A3, r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F,
		r >= 0xFF00 && r <= 0xFF60, r >= 0xFFE0 && r <= 0xFFE6, r >= 0x1F300 && r <= 0x1F64F,
		r >= 0x1F900 && r <= 0x1F9FF, r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}
