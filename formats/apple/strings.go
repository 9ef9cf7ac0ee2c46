package apple

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// pair is one "key" = "value"; entry of a .strings file. Offsets index the
// file's UTF-8 text (after the byte order mark).
type pair struct {
	key, value string
	note       string
	start      int // first byte of the pair's leading comments, or of its key
	keyStart   int // first byte of the key token
	keyEnd     int // just past the key token
	valStart   int // first byte of the value token (its '"'); -1 for "key";
	valEnd     int // just past the value token; for "key"; the offset of ';'
	end        int // just past ';' and a comment on the same line after it
	line       int // 1-based line of the key
	quoted     bool
	dead       bool // a later pair has the same key
}

// stringsFile is a parsed .strings file.
type stringsFile struct {
	text  string
	enc   encoding
	pairs []pair
	index map[string]int // key → index of its live pair
}

// hiddenNote is the comment Xcode writes for strings without one; the
// reference keeps it in the file but does not show it as a note.
const hiddenNote = "No comment provided by engineer."

// parseStrings reads a .strings file in any encoding decodeText accepts.
func parseStrings(data []byte) (*stringsFile, error) {
	text, enc, err := decodeText(data)
	if err != nil {
		return nil, err
	}
	// Files hold about one pair a line; sizing for that avoids regrowth.
	est := strings.Count(text, "\n") + 1
	sf := &stringsFile{text: text, enc: enc, index: make(map[string]int, est), pairs: make([]pair, 0, est)}
	p := &stringsParser{s: text, line: 1}
	for {
		notes, first, err := p.skip(true)
		if err != nil {
			return nil, err
		}
		if p.pos >= len(p.s) {
			break
		}
		start := p.pos
		if first >= 0 {
			start = first
		}
		e := pair{start: start, keyStart: p.pos, line: p.line, valStart: -1}
		if e.key, _, err = p.token("key"); err != nil {
			return nil, err
		}
		e.keyEnd = p.pos
		if _, _, err := p.skip(false); err != nil {
			return nil, err
		}
		switch {
		case p.pos < len(p.s) && p.s[p.pos] == ';':
			// "key"; is short for "key" = "key"; in property lists.
			e.value, e.valEnd = e.key, p.pos
		case p.pos < len(p.s) && p.s[p.pos] == '=':
			p.advance(1)
			if _, _, err := p.skip(false); err != nil {
				return nil, err
			}
			e.valStart = p.pos
			if e.value, e.quoted, err = p.token("value"); err != nil {
				return nil, err
			}
			e.valEnd = p.pos
			if _, _, err := p.skip(false); err != nil {
				return nil, err
			}
			if p.pos >= len(p.s) || p.s[p.pos] != ';' {
				return nil, p.errorf("expected ';' after the value of %q", e.key)
			}
		default:
			return nil, p.errorf("expected '=' or ';' after the key %q", e.key)
		}
		p.advance(1) // ';'
		e.end = p.pos
		// A comment on the same line after ';' describes this pair, as
		// the reference reads "key" = "value"; /* note */.
		if tail, ok := p.trailingComment(); ok {
			notes = append(notes, tail)
			e.end = p.pos
		}
		e.note = strings.Join(notes, "\n")
		if i, dup := sf.index[e.key]; dup {
			sf.pairs[i].dead = true
		}
		sf.index[e.key] = len(sf.pairs)
		sf.pairs = append(sf.pairs, e)
	}
	return sf, nil
}

// units returns the live pairs as units, in file order.
func (sf *stringsFile) units() []formats.Unit {
	units := make([]formats.Unit, 0, len(sf.index))
	targets := make([]string, len(sf.index))
	for i := range sf.pairs {
		e := &sf.pairs[i]
		if e.dead {
			continue
		}
		n := len(units)
		targets[n] = e.value
		units = append(units, formats.Unit{Context: e.key, Target: targets[n : n+1 : n+1], Note: e.note, Line: e.line})
	}
	return units
}

// stringsParser walks the text of a .strings file, counting lines.
type stringsParser struct {
	s         string
	pos, line int
	lineStart int // offset of the current line's first byte
}

func (p *stringsParser) advance(n int) {
	end := p.pos + n
	for i := p.pos; i < end; i++ {
		if p.s[i] == '\n' {
			p.line++
			p.lineStart = i + 1
		}
	}
	p.pos = end
}

func (p *stringsParser) errorf(format string, args ...any) error {
	col := utf8.RuneCountInString(p.s[p.lineStart:p.pos]) + 1
	return &formats.ParseError{Line: p.line, Column: col, Err: fmt.Errorf("apple: "+format, args...)}
}

// skip passes whitespace and comments. With collect it returns the
// comments' texts (without markers, the hidden Xcode one left out) and the
// offset of the first comment, -1 when there was none.
func (p *stringsParser) skip(collect bool) (notes []string, first int, err error) {
	first = -1
	newlines := 0 // in the current run of whitespace
	for p.pos < len(p.s) {
		switch c := p.s[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			if c == '\n' {
				p.line++
				p.lineStart = p.pos + 1
				// A blank line ends what the comments so far describe:
				// they head the file or a section, not the next pair.
				if newlines++; newlines == 2 {
					notes, first = nil, -1
				}
			}
			p.pos++
		case strings.HasPrefix(p.s[p.pos:], "/*"):
			end := strings.Index(p.s[p.pos+2:], "*/")
			if end < 0 {
				return nil, 0, p.errorf("unterminated /* comment")
			}
			if first < 0 {
				first = p.pos
			}
			newlines = 0
			body := p.s[p.pos+2 : p.pos+2+end]
			p.advance(end + 4)
			if t := strings.TrimSpace(body); collect && t != "" && t != hiddenNote {
				notes = append(notes, t)
			}
		case strings.HasPrefix(p.s[p.pos:], "//"):
			end := strings.IndexByte(p.s[p.pos:], '\n')
			if end < 0 {
				end = len(p.s) - p.pos
			}
			if first < 0 {
				first = p.pos
			}
			newlines = 0
			body := p.s[p.pos+2 : p.pos+end]
			p.pos += end // stops before '\n'
			if t := strings.TrimSpace(body); collect && t != "" {
				notes = append(notes, t)
			}
		default:
			return notes, first, nil
		}
	}
	return notes, first, nil
}

// trailingComment consumes blanks and one comment after a pair's ';' when
// the comment ends on that same line.
func (p *stringsParser) trailingComment() (string, bool) {
	i := p.pos
	for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t') {
		i++
	}
	rest := p.s[i:]
	var body string
	var n int
	switch {
	case strings.HasPrefix(rest, "/*"):
		end := strings.Index(rest[2:], "*/")
		if end < 0 || strings.ContainsRune(rest[:end+2], '\n') {
			return "", false
		}
		body, n = rest[2:2+end], end+4
	case strings.HasPrefix(rest, "//"):
		end := strings.IndexByte(rest, '\n')
		if end < 0 {
			end = len(rest)
		}
		body, n = rest[2:end], end
	default:
		return "", false
	}
	p.pos = i + n
	return strings.TrimSpace(body), true
}

// isBare reports whether c may appear in an unquoted property-list token.
func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '$' || c == '+' || c == '/' || c == ':' || c == '.' || c == '-'
}

// token reads a quoted string or an unquoted token at p.pos.
func (p *stringsParser) token(what string) (string, bool, error) {
	if p.pos >= len(p.s) {
		return "", false, p.errorf("expected a %s, found the end of the file", what)
	}
	if p.s[p.pos] != '"' {
		i := p.pos
		for i < len(p.s) && isBare(p.s[i]) && !strings.HasPrefix(p.s[i:], "//") && !strings.HasPrefix(p.s[i:], "/*") {
			i++
		}
		if i == p.pos {
			r, _ := utf8.DecodeRuneInString(p.s[p.pos:])
			return "", false, p.errorf("expected a %s, found %q", what, r)
		}
		tok := p.s[p.pos:i]
		p.pos = i
		return tok, false, nil
	}
	// Find the closing quote; raw line breaks are allowed inside.
	i := p.pos + 1
	escaped := false
	for ; i < len(p.s); i++ {
		c := p.s[i]
		if c == '\\' {
			escaped = true
			i++
			continue
		}
		if c == '"' {
			break
		}
	}
	if i >= len(p.s) {
		return "", false, p.errorf("unterminated quoted %s", what)
	}
	raw := p.s[p.pos+1 : i]
	p.advance(i + 1 - p.pos)
	if !escaped {
		return raw, true, nil
	}
	return unescapeStrings(raw), true, nil
}

// unescapeStrings decodes the backslash escapes of a quoted .strings
// token: \" \\ \n \t \r \a \b \f \v, \UXXXX and \uXXXX (UTF-16 units,
// surrogate pairs joined) and octal \NNN. Any other escaped character
// stands for itself, as Foundation reads it.
func unescapeStrings(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'U', 'u':
			r, n := hex4(s[i+1:])
			if n == 0 {
				b.WriteByte(c)
				continue
			}
			i += n
			if r >= 0xD800 && r < 0xDC00 && len(s) > i+2 && s[i+1] == '\\' && (s[i+2] == 'U' || s[i+2] == 'u') {
				if r2, n2 := hex4(s[i+3:]); n2 > 0 && r2 >= 0xDC00 && r2 <= 0xDFFF {
					r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
					i += 2 + n2
				}
			}
			b.WriteRune(r) // a lone surrogate becomes U+FFFD
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := 1
			for n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7' {
				n++
			}
			v, _ := strconv.ParseUint(s[i:i+n], 8, 16)
			b.WriteRune(rune(v))
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hex4 reads four hexadecimal digits; n is 0 when s does not start with them.
func hex4(s string) (r rune, n int) {
	if len(s) < 4 {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), 4
}

// escapeStrings quotes a value for a .strings file the way the reference
// writes it: backslash, quote, line feed, tab and carriage return escaped.
func escapeStrings(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
