package xcstrings

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
// Xcode's deepest structure (a substitution's plural variation) is 9 levels.
const maxDepth = 64

// kind is what a JSON value is.
type kind uint8

const (
	kindObject kind = iota
	kindString
	kindOther // number, boolean, null or array: kept as bytes, never a unit
)

// node is one parsed JSON value with the byte span it occupies, so that
// writers can replace exactly that span. Offsets index the source.
type node struct {
	kind       kind
	start, end int      // the value's first byte and just past its last
	str        string   // the decoded text of a string
	members    []member // an object's members in file order
}

// member is one key/value pair of an object.
type member struct {
	key      string
	keyStart int // the '"' opening the key
	val      *node
}

// get returns the value of the last member named key, as JSON.parse
// does for a repeated key, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// list returns an object's members; nil for nil.
func (n *node) list() []member {
	if n == nil {
		return nil
	}
	return n.members
}

// object returns the object member named key, or nil when it is absent
// or not an object.
func (n *node) object(key string) *node {
	if v := n.get(key); v != nil && v.kind == kindObject {
		return v
	}
	return nil
}

// text returns the string member named key; ok is false when it is absent
// or not a string.
func (n *node) text(key string) (s string, ok bool) {
	if v := n.get(key); v != nil && v.kind == kindString {
		return v.str, true
	}
	return "", false
}

// parser is a recursive-descent JSON parser that keeps byte offsets.
type parser struct {
	src  []byte
	text string // src as a string: unescaped strings are slices of it
	pos  int
	slab []node // nodes are carved from here: one allocation per 512
}

func (p *parser) node(k kind, start int) *node {
	if len(p.slab) == 0 {
		p.slab = make([]node, 512)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.kind, n.start = k, start
	return n
}

var (
	errEOF      = errors.New("unexpected end of input")
	errTrailing = errors.New("data after the top-level object")
	errDepth    = fmt.Errorf("objects and arrays nested deeper than %d levels", maxDepth)
	errUTF8     = errors.New("invalid UTF-8")
	errNotObj   = errors.New("the top-level value is not an object")
)

// parse reads a whole document, which must be one JSON object.
func parse(src []byte) (*node, error) {
	if !utf8.Valid(src) {
		i := 0
		for i < len(src) {
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		return nil, parseError(src, i, errUTF8)
	}
	p := &parser{src: src, text: string(src)}
	p.skipWS()
	if p.pos < len(src) && src[p.pos] != '{' {
		return nil, parseError(src, p.pos, errNotObj)
	}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.pos != len(src) {
		return nil, parseError(src, p.pos, errTrailing)
	}
	return root, nil
}

func (p *parser) skipWS() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) fail(format string, args ...any) error {
	if p.pos >= len(p.src) {
		return parseError(p.src, p.pos, errEOF)
	}
	return parseError(p.src, p.pos, fmt.Errorf(format, args...))
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, parseError(p.src, p.pos, errDepth)
	}
	if p.pos >= len(p.src) {
		return nil, p.fail("")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.objectValue(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		start := p.pos
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		n := p.node(kindString, start)
		n.end, n.str = p.pos, s
		return n, nil
	case c == 't', c == 'f', c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.src)-p.pos >= len(lit) && string(p.src[p.pos:p.pos+len(lit)]) == lit {
				n := p.node(kindOther, p.pos)
				n.end = p.pos + len(lit)
				p.pos += len(lit)
				return n, nil
			}
		}
		return nil, p.fail("invalid literal")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		return nil, p.fail("unexpected character %q", c)
	}
}

func (p *parser) objectValue(depth int) (*node, error) {
	n := p.node(kindObject, p.pos)
	p.pos++ // '{'
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		p.skipWS()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.fail("expected a string key")
		}
		keyStart := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		p.skipWS()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.fail("expected ':' after a key")
		}
		p.pos++
		p.skipWS()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyStart: keyStart, val: v})
		p.skipWS()
		if p.pos >= len(p.src) {
			return nil, p.fail("")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.fail("expected ',' or '}' after an object member")
		}
	}
}

func (p *parser) array(depth int) (*node, error) {
	n := p.node(kindOther, p.pos)
	p.pos++ // '['
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		p.skipWS()
		if _, err := p.value(depth + 1); err != nil {
			return nil, err
		}
		p.skipWS()
		if p.pos >= len(p.src) {
			return nil, p.fail("")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.fail("expected ',' or ']' after an array element")
		}
	}
}

func (p *parser) number() (*node, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.src[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.src) && p.src[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.fail("invalid number")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	n := p.node(kindOther, start)
	n.end = p.pos
	return n, nil
}

// string reads a quoted string at p.pos and returns it decoded. Lone
// surrogates decode to U+FFFD, as encoding/json does.
func (p *parser) string() (string, error) {
	p.pos++ // '"'
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '"' {
			s := p.text[start:p.pos]
			p.pos++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("control character %q in a string", c)
		}
		p.pos++
	}
	buf := append([]byte(nil), p.src[start:p.pos]...)
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("control character %q in a string", c)
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.src) {
			p.pos = len(p.src)
			return "", p.fail("")
		}
		p.pos++
		switch e := p.src[p.pos]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4(p.pos + 1)
			if !ok {
				return "", p.fail("invalid \\u escape")
			}
			p.pos += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := p.hex4(p.pos + 3); ok && p.src[p.pos+1] == '\\' && p.src[p.pos+2] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						p.pos += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.fail("invalid escape %q", e)
		}
		p.pos++
	}
	return "", p.fail("")
}

// hex4 decodes the four hex digits at i.
func (p *parser) hex4(i int) (rune, bool) {
	if i+4 > len(p.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.src[i:i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}

// parseError places err at byte offset off of src.
func parseError(src []byte, off int, err error) *formats.ParseError {
	return formats.ErrorAt(src, off, fmt.Errorf("xcstrings: %w", err))
}

// lines maps byte offsets to 1-based line numbers.
type lines []int // offsets of every '\n'

func newLines(src []byte) lines {
	var l lines
	for i, c := range src {
		if c == '\n' {
			l = append(l, i)
		}
	}
	return l
}

func (l lines) at(off int) int { return sort.SearchInts(l, off) + 1 }
