// Package xmlscan is a byte-level XML tokenizer for the format codecs:
// it returns encoding/xml's raw tokens (xml.Decoder.RawToken: names not
// translated into namespaces, end tags not matched) with the byte offset
// each starts and ends at, several times faster than xml.Decoder, whose
// reader interface, per-token copies and offset bookkeeping cost the XML
// codecs most of their time.
//
// It accepts what RawToken accepts in its default strict mode, for the
// documents codecs read: UTF-8 text of legal XML characters, the five
// predefined entities and character references, comments without "--",
// CDATA sections, processing instructions (an <?xml?> declaration must
// say version 1.0 and, if any, a UTF-8 encoding), directives such as a
// DOCTYPE with an internal subset, and tags whose attributes are quoted.
// Text and attribute values are returned decoded, with "\r\n" and "\r"
// read as "\n", as RawToken returns them. It is not a validating parser:
// like RawToken, it leaves matching end tags to the caller (Scanner.Ends
// does it for callers that want it).
package xmlscan

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Scanner reads the tokens of one document held in memory. It is not
// safe for concurrent use.
type Scanner struct {
	src []byte
	pos int
	// Ends makes Next check that every end tag closes the element open
	// (as xml.Decoder.Token does) and that no element is left open at
	// the end.
	Ends  bool
	stack []string
	buf   []byte // scratch for decoded text
	// closing is the name of a self-closing element whose end the next
	// call returns, as RawToken returns one; "" for none.
	closing string
}

// New returns a scanner over src, which must not change while it is read.
func New(src []byte) *Scanner { return &Scanner{src: src} }

// Offset is the byte offset just past the last token read, as
// xml.Decoder.InputOffset.
func (s *Scanner) Offset() int { return s.pos }

// SyntaxError is a malformed document: what is wrong and the byte
// offset where it was found.
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string { return "XML syntax error: " + e.Msg }

func (s *Scanner) fail(at int, format string, args ...any) error {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Offset: at}
}

// errEOF is returned, wrapped, for a document that ends inside a token.
var errEOF = errors.New("unexpected EOF")

// Next returns the next token and the offsets it starts and ends at; at
// the end of the document it returns io.EOF. CharData and the contents
// of Comment, ProcInst and Directive tokens may share memory with later
// tokens' (copy them to keep them); names and attribute values do not.
func (s *Scanner) Next() (tok xml.Token, start, end int, err error) {
	start = s.pos
	if s.closing != "" {
		// <x/> reads as <x></x>: the end, of no length, right after it.
		n := s.closing
		s.closing = ""
		return xml.EndElement{Name: splitName(n)}, start, start, nil
	}
	if s.pos >= len(s.src) {
		if s.Ends && len(s.stack) > 0 {
			return nil, start, start, s.fail(start, "unexpected EOF: <%s> is not closed", s.stack[len(s.stack)-1])
		}
		return nil, start, start, io.EOF
	}
	if s.src[s.pos] != '<' {
		text, err := s.text(-1)
		if err != nil {
			return nil, start, s.pos, err
		}
		return xml.CharData(text), start, s.pos, nil
	}
	if s.pos+1 >= len(s.src) {
		return nil, start, start, s.fail(start, "%v", errEOF)
	}
	switch s.src[s.pos+1] {
	case '/':
		tok, err = s.endTag()
	case '?':
		tok, err = s.procInst()
	case '!':
		tok, err = s.bang()
	default:
		tok, err = s.startTag()
	}
	return tok, start, s.pos, err
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *Scanner) skipSpace() {
	for s.pos < len(s.src) && isSpace(s.src[s.pos]) {
		s.pos++
	}
}

// isNameByte says c may be part of a name: ASCII letters, digits and
// -._: or any byte of a multi-byte UTF-8 character (checked as text).
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == ':' || c >= 0x80
}

// name reads a name at s.pos.
func (s *Scanner) name() (string, error) {
	i := s.pos
	for i < len(s.src) && isNameByte(s.src[i]) {
		i++
	}
	if i == s.pos {
		return "", s.fail(s.pos, "expected a name")
	}
	if !validName(s.src[s.pos:i]) {
		return "", s.fail(s.pos, "invalid XML name: %s", s.src[s.pos:i])
	}
	n := string(s.src[s.pos:i])
	s.pos = i
	return n, nil
}

// validName says n is an XML name as encoding/xml checks one: an
// ASCII name starts with a letter, '_' or ':'; one with other characters
// is left to encoding/xml's own tables (rare: no corpus file has one).
func validName(n []byte) bool {
	ascii := true
	for _, c := range n {
		ascii = ascii && c < utf8.RuneSelf
	}
	if ascii {
		c := n[0]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':'
	}
	d := xml.NewDecoder(bytes.NewReader(append(append([]byte("<"), n...), "/>"...)))
	tok, err := d.RawToken()
	st, ok := tok.(xml.StartElement)
	return err == nil && ok && len(st.Attr) == 0
}

// nsName reads an element's or attribute's name, which may hold one
// colon at most (encoding/xml's nsname).
func (s *Scanner) nsName() (string, error) {
	at := s.pos
	n, err := s.name()
	if err == nil && strings.Count(n, ":") > 1 {
		err = s.fail(at, "expected a name with one colon at most: %s", n)
	}
	return n, err
}

// splitName splits a raw name as RawToken does: "prefix:local".
func splitName(n string) xml.Name {
	for i := 0; i < len(n); i++ {
		if n[i] == ':' && i > 0 && i < len(n)-1 {
			return xml.Name{Space: n[:i], Local: n[i+1:]}
		}
	}
	return xml.Name{Local: n}
}

func (s *Scanner) startTag() (xml.Token, error) {
	s.pos++ // '<'
	n, err := s.nsName()
	if err != nil {
		return nil, err
	}
	el := xml.StartElement{Name: splitName(n)}
	for {
		s.skipSpace()
		if s.pos >= len(s.src) {
			return nil, s.fail(s.pos, "%v in <%s>", errEOF, n)
		}
		switch s.src[s.pos] {
		case '>':
			s.pos++
			if s.Ends {
				s.stack = append(s.stack, n)
			}
			return el, nil
		case '/':
			if s.pos+1 >= len(s.src) || s.src[s.pos+1] != '>' {
				return nil, s.fail(s.pos, "expected /> in element")
			}
			s.pos += 2
			s.closing = n
			return el, nil
		}
		an, err := s.nsName()
		if err != nil {
			return nil, err
		}
		s.skipSpace()
		if s.pos >= len(s.src) || s.src[s.pos] != '=' {
			return nil, s.fail(s.pos, "attribute name without = in element")
		}
		s.pos++
		s.skipSpace()
		if s.pos >= len(s.src) || (s.src[s.pos] != '"' && s.src[s.pos] != '\'') {
			return nil, s.fail(s.pos, "unquoted or missing attribute value in element")
		}
		q := s.src[s.pos]
		s.pos++
		v, err := s.text(int(q))
		if err != nil {
			return nil, err
		}
		s.pos++ // the closing quote
		el.Attr = append(el.Attr, xml.Attr{Name: splitName(an), Value: string(v)})
	}
}

func (s *Scanner) endTag() (xml.Token, error) {
	s.pos += 2 // "</"
	n, err := s.nsName()
	if err != nil {
		return nil, err
	}
	s.skipSpace()
	if s.pos >= len(s.src) || s.src[s.pos] != '>' {
		return nil, s.fail(s.pos, "invalid characters between </%s and >", n)
	}
	s.pos++
	if s.Ends {
		if len(s.stack) == 0 {
			return nil, s.fail(s.pos, "unexpected end element </%s>", n)
		}
		if top := s.stack[len(s.stack)-1]; top != n {
			return nil, s.fail(s.pos, "element <%s> closed by </%s>", top, n)
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
	return xml.EndElement{Name: splitName(n)}, nil
}

// text reads character data up to the next '<' (quote < 0) or up to
// the quote byte, which it leaves unread, decoding references and line
// ends; it refuses characters XML does not allow.
func (s *Scanner) text(quote int) ([]byte, error) {
	src := s.src
	i := s.pos
	// The common case: nothing to decode, returned without a copy.
	for i < len(src) {
		c := src[i]
		if c >= 0x80 {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n == 1 || !legal(r) {
				break // the loop below reports it
			}
			i += n
			continue
		}
		if c == '<' || int(c) == quote || c == '&' || c == '\r' || c < 0x20 && c != '\t' && c != '\n' ||
			c == '>' && quote < 0 && i-2 >= s.pos && src[i-1] == ']' && src[i-2] == ']' {
			break
		}
		i++
	}
	if i < len(src) && (src[i] == '<' && quote < 0 || int(src[i]) == quote) {
		out := src[s.pos:i]
		s.pos = i
		return out, nil
	}
	b := append(s.buf[:0], src[s.pos:i]...)
	for {
		if i >= len(src) {
			if quote >= 0 {
				return nil, s.fail(i, "%v in attribute value", errEOF)
			}
			break
		}
		c := src[i]
		switch {
		case quote < 0 && c == '<', int(c) == quote:
			s.pos, s.buf = i, b
			return b, nil
		case c == '<':
			return nil, s.fail(i, "unescaped < inside quoted string")
		case c == '>' && quote < 0 && i-2 >= s.pos && src[i-1] == ']' && src[i-2] == ']':
			return nil, s.fail(i, "unescaped ]]> not in CDATA section")
		case c == '&':
			r, n, err := s.reference(i)
			if err != nil {
				return nil, err
			}
			b = utf8.AppendRune(b, r)
			i += n
		case c == '\r':
			b = append(b, '\n')
			i++
			if i < len(src) && src[i] == '\n' {
				i++
			}
		case c < 0x20 && c != '\t' && c != '\n':
			return nil, s.fail(i, "illegal character code U+%04X", c)
		case c >= 0x80:
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, s.fail(i, "invalid UTF-8")
			}
			if !legal(r) {
				return nil, s.fail(i, "illegal character code %U", r)
			}
			b = append(b, src[i:i+n]...)
			i += n
		default:
			b = append(b, c)
			i++
		}
	}
	s.pos, s.buf = i, b
	return b, nil
}

// legal says r is a character XML allows (the ranges of
// encoding/xml's isInCharacterRange above ASCII).
func legal(r rune) bool {
	return r >= 0x80 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// reference decodes the entity or character reference at i ('&') and
// returns its rune and length.
func (s *Scanner) reference(i int) (rune, int, error) {
	src := s.src
	j := i + 1
	bad := func() (rune, int, error) {
		end := min(j+1, len(src))
		return 0, 0, s.fail(i, "invalid character entity %s", src[i:end])
	}
	if j < len(src) && src[j] == '#' {
		j++
		base := 10
		if j < len(src) && src[j] == 'x' {
			base = 16
			j++
		}
		digits := j
		for j < len(src) && (src[j] >= '0' && src[j] <= '9' ||
			base == 16 && (src[j] >= 'a' && src[j] <= 'f' || src[j] >= 'A' && src[j] <= 'F')) {
			j++
		}
		if j >= len(src) || src[j] != ';' {
			return bad()
		}
		n, err := strconv.ParseUint(string(src[digits:j]), base, 64)
		if err != nil || n > utf8.MaxRune {
			return bad()
		}
		// As encoding/xml: the rune as string(rune(n)) spells it (a
		// surrogate is U+FFFD), then checked as text.
		r := rune(n)
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		if r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r < 0x80 || legal(r) {
			return r, j - i + 1, nil
		}
		return 0, 0, s.fail(i, "illegal character code %U", r)
	}
	for j < len(src) && isNameByte(src[j]) {
		j++
	}
	if j >= len(src) || src[j] != ';' {
		return bad()
	}
	switch string(src[i+1 : j]) {
	case "lt":
		return '<', j - i + 1, nil
	case "gt":
		return '>', j - i + 1, nil
	case "amp":
		return '&', j - i + 1, nil
	case "quot":
		return '"', j - i + 1, nil
	case "apos":
		return '\'', j - i + 1, nil
	}
	return bad()
}

// procInst reads <?target inst?>.
func (s *Scanner) procInst() (xml.Token, error) {
	s.pos += 2 // "<?"
	target, err := s.name()
	if err != nil {
		return nil, err
	}
	s.skipSpace()
	end := indexFrom(s.src, s.pos, "?>")
	if end < 0 {
		return nil, s.fail(len(s.src), "%v in processing instruction", errEOF)
	}
	inst := s.src[s.pos:end]
	s.pos = end + 2
	if target == "xml" {
		content := string(inst)
		if v := procInstParam("version", content); v != "" && v != "1.0" {
			return nil, s.fail(s.pos, "unsupported version %q; only version 1.0 is supported", v)
		}
		if enc := procInstParam("encoding", content); enc != "" && !eqFold(enc, "utf-8") && !eqFold(enc, "utf8") {
			return nil, s.fail(s.pos, "encoding %q declared but Decoder.CharsetReader is nil", enc)
		}
	}
	return xml.ProcInst{Target: target, Inst: inst}, nil
}

// procInstParam returns the value of param in a processing
// instruction's content, as encoding/xml's procInst reads it ("" when
// absent): the first param= followed by a quote.
func procInstParam(param, s string) string {
	param += "="
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || len(param)+k >= len(sub) {
			return ""
		}
		i += len(param) + k + 1
		if c := sub[len(param)+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

func eqFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// bang reads what starts "<!": a comment, a CDATA section or a
// directive.
func (s *Scanner) bang() (xml.Token, error) {
	rest := s.src[s.pos:]
	switch {
	case hasPrefix(rest, "<!--"):
		end := indexFrom(s.src, s.pos+4, "--")
		if end < 0 {
			return nil, s.fail(len(s.src), "%v in comment", errEOF)
		}
		if end+2 >= len(s.src) || s.src[end+2] != '>' {
			return nil, s.fail(end, `invalid sequence "--" not allowed in comments`)
		}
		c := s.src[s.pos+4 : end]
		s.pos = end + 3
		return xml.Comment(c), nil
	case hasPrefix(rest, "<![CDATA["):
		end := indexFrom(s.src, s.pos+9, "]]>")
		if end < 0 {
			return nil, s.fail(len(s.src), "%v in CDATA section", errEOF)
		}
		start := s.pos + 9
		s.pos = start
		b := s.buf[:0]
		for i := start; i < end; {
			c := s.src[i]
			switch {
			case c == '\r':
				b = append(b, '\n')
				i++
				if i < end && s.src[i] == '\n' {
					i++
				}
			case c < 0x20 && c != '\t' && c != '\n':
				return nil, s.fail(i, "illegal character code U+%04X", c)
			case c >= 0x80:
				r, n := utf8.DecodeRune(s.src[i:end])
				if r == utf8.RuneError && n == 1 || !legal(r) {
					return nil, s.fail(i, "illegal character in CDATA section")
				}
				b = append(b, s.src[i:i+n]...)
				i += n
			default:
				b = append(b, c)
				i++
			}
		}
		s.buf = b
		s.pos = end + 3
		return xml.CharData(b), nil
	}
	if hasPrefix(rest, "<!-") {
		return nil, s.fail(s.pos, "invalid sequence <!- not part of <!--")
	}
	if hasPrefix(rest, "<![") {
		return nil, s.fail(s.pos, "invalid <![ sequence")
	}
	// A directive, read as encoding/xml reads one: up to the '>' outside
	// quotes that closes it, past nested <...> (an internal subset's
	// declarations); a comment inside it becomes one space.
	src := s.src
	if s.pos+2 >= len(src) {
		return nil, s.fail(len(src), "%v in directive", errEOF)
	}
	// The first byte is the directive's whatever it is, as in
	// encoding/xml.
	b := append(s.buf[:0], src[s.pos+2])
	var inquote byte
	depth := 0
	for i := s.pos + 3; i < len(src); i++ {
		c := src[i]
		if inquote == 0 && c == '>' && depth == 0 {
			s.buf = b
			s.pos = i + 1
			return xml.Directive(b), nil
		}
		switch {
		case c == inquote:
			inquote = 0
		case inquote != 0:
		case c == '\'' || c == '"':
			inquote = c
		case c == '>':
			depth--
		case c == '<' && hasPrefix(src[i:], "<!--"):
			j := i + 4
			var b0, b1 byte
			for ; j < len(src); j++ {
				if b0 == '-' && b1 == '-' && src[j] == '>' {
					break
				}
				b0, b1 = b1, src[j]
			}
			if j >= len(src) {
				return nil, s.fail(len(src), "%v in comment", errEOF)
			}
			b = append(b, ' ')
			i = j
			continue
		case c == '<':
			depth++
		}
		b = append(b, c)
	}
	return nil, s.fail(len(src), "%v in directive", errEOF)
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// indexFrom is the offset of the first sep in b at or after from, -1
// for none.
func indexFrom(b []byte, from int, sep string) int {
	for i := from; i+len(sep) <= len(b); i++ {
		if b[i] == sep[0] && string(b[i:i+len(sep)]) == sep {
			return i
		}
	}
	return -1
}
