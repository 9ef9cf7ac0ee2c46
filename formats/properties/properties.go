package properties

import (
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// Codec reads and writes Java .properties files in one encoding. The
// zero value is the ISO-8859-1 variant. A Codec keeps no state and is
// safe for concurrent use.
type Codec struct {
	// UTF8 says the file's bytes are UTF-8 (the reference's
	// "properties-utf8"); otherwise each byte is one ISO-8859-1
	// character and characters beyond it are \uXXXX escapes
	// ("properties").
	UTF8 bool
}

// The codecs of the reference's two file_format ids.
var (
	Latin1 = Codec{}           // "properties"
	UTF8   = Codec{UTF8: true} // "properties-utf8"
)

var (
	_ formats.Codec     = Codec{}
	_ formats.Templater = Codec{}
)

// Errors a Decode can wrap in a *formats.ParseError.
var (
	ErrUnicodeEscape = errors.New("properties: malformed \\uxxxx encoding")
	ErrUTF8          = errors.New("properties: invalid UTF-8")
)

// bom is the UTF-8 byte order mark, skipped (and kept) by the UTF-8
// variant.
const bom = "\uFEFF"

// entry is one key/value pair. Offsets index file.src.
type entry struct {
	key, value string
	note       string
	line       int // 1-based line of the key
	noteStart  int // start of the comment block above, == start when none
	start      int // start of the entry's first line
	keyStart   int // first byte of the key
	sepStart   int // just past the key
	valStart   int // first byte of the value (may be a continuation backslash)
	valEnd     int // end of the last physical line, before its EOL
	end        int // past the last line's EOL (or len(src))
	oneLine    bool
	dead       bool // a later entry has the same key
}

// file is a parsed .properties file.
type file struct {
	src     string
	entries []entry
	index   map[string]int // key → live entry
	eol     string         // the first line ending, "\n" when none
	raw8    bool           // the file holds bytes >= 0x80 (raw Latin-1 characters)
	lower   bool           // \u escapes use lower-case hex
	pending bool           // the last line continues into the end of the file
}

// Decode reads a whole file. Each key is one unit in file order: Context
// is the key, Target its value (one form), Note the comment lines
// directly above it (no blank line between), with their "#" or "!" and
// one following space removed, Line the line of the key. A key that
// repeats counts once, at its last occurrence, whose value wins as in
// java.util.Properties.load. Source is nil: the template gives it.
//
// A malformed \uXXXX escape, and invalid UTF-8 in the UTF-8 variant,
// are a *formats.ParseError with line and column.
func (c Codec) Decode(data []byte, _ formats.File) ([]formats.Unit, error) {
	p, err := c.parse(data)
	if err != nil {
		return nil, err
	}
	units := make([]formats.Unit, 0, len(p.index))
	targets := make([]string, len(p.index))
	for i := range p.entries {
		e := &p.entries[i]
		if e.dead {
			continue
		}
		n := len(units)
		targets[n] = e.value
		units = append(units, formats.Unit{
			Context: e.key,
			Target:  targets[n : n+1 : n+1],
			Note:    e.note,
			Line:    e.line,
		})
	}
	return units, nil
}

// isSpace is Java's whitespace between key, separator and value.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\f' }

// lineEnd returns the end of the physical line starting at pos and the
// start of the next one.
func lineEnd(src string, pos int) (end, next int) {
	i := strings.IndexAny(src[pos:], "\r\n")
	if i < 0 {
		return len(src), len(src)
	}
	end = pos + i
	if src[end] == '\r' && end+1 < len(src) && src[end+1] == '\n' {
		return end, end + 2
	}
	return end, end + 1
}

// segment is one physical piece of a logical line: src[start:end].
type segment struct{ start, end int }

func (c Codec) parse(data []byte) (*file, error) {
	src := string(data)
	if c.UTF8 && !utf8.ValidString(src) {
		off := 0
		for off < len(src) {
			r, n := utf8.DecodeRuneInString(src[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		line, col := c.position(src, off)
		return nil, &formats.ParseError{Line: line, Column: col, Err: ErrUTF8}
	}
	p := &file{src: src, eol: "\n", index: make(map[string]int)}
	if e, _ := lineEnd(src, 0); e < len(src) && src[e] == '\r' {
		p.eol = "\r"
		if e+1 < len(src) && src[e+1] == '\n' {
			p.eol = "\r\n"
		}
	}
	for i := 0; i < len(src); i++ {
		if src[i] >= 0x80 {
			p.raw8 = true
			break
		}
	}
	// The case of the first escape with a hex letter in it is the file's.
	for rest := src; ; {
		i := strings.Index(rest, `\u`)
		if i < 0 || i+6 > len(rest) {
			break
		}
		hex := rest[i+2 : i+6]
		if strings.ContainsAny(hex, "abcdef") {
			p.lower = true
			break
		}
		if strings.ContainsAny(hex, "ABCDEF") {
			break
		}
		rest = rest[i+2:]
	}
	pos, line := 0, 1
	if c.UTF8 && strings.HasPrefix(src, bom) {
		pos = len(bom)
	}
	noteStart := -1
	var note []string
	var segs []segment
	for pos < len(src) {
		end, next := lineEnd(src, pos)
		i := pos
		for i < end && isSpace(src[i]) {
			i++
		}
		switch {
		case i == end: // blank line
			noteStart, note = -1, note[:0]
			pos, line = next, line+1
			continue
		case src[i] == '#' || src[i] == '!':
			if noteStart < 0 {
				noteStart = pos
			}
			text := src[i+1 : end]
			note = append(note, strings.TrimPrefix(text, " "))
			pos, line = next, line+1
			continue
		}
		// An entry: gather its physical lines while each ends in an odd
		// number of backslashes.
		e := entry{line: line, start: pos, noteStart: pos}
		if noteStart >= 0 {
			e.noteStart = noteStart
			e.note = strings.Join(note, "\n")
		}
		noteStart, note = -1, note[:0]
		segs = segs[:0]
		segStart := i
		for {
			bs := 0
			for j := end - 1; j >= segStart && src[j] == '\\'; j-- {
				bs++
			}
			line++
			if bs%2 == 0 {
				segs = append(segs, segment{segStart, end})
				break
			}
			// The continuation backslash is no part of the text; at the
			// end of the file Java drops it too.
			segs = append(segs, segment{segStart, end - 1})
			if next >= len(src) || next == end {
				p.pending = true
				break
			}
			pos = next
			end, next = lineEnd(src, pos)
			segStart = pos
			for segStart < end && isSpace(src[segStart]) {
				segStart++
			}
		}
		e.valEnd, e.end = end, next
		e.oneLine = len(segs) == 1
		if err := c.entry(p, &e, segs); err != nil {
			return nil, err
		}
		if prev, ok := p.index[e.key]; ok {
			p.entries[prev].dead = true
		}
		p.index[e.key] = len(p.entries)
		p.entries = append(p.entries, e)
		pos = next
	}
	return p, nil
}

// cursor walks the characters of a logical line across its segments.
type cursor struct {
	src  string
	segs []segment
	s, i int // segment index and offset in src
}

func (k *cursor) done() bool {
	for k.s < len(k.segs) && k.i >= k.segs[k.s].end {
		k.s++
		if k.s < len(k.segs) {
			k.i = k.segs[k.s].start
		}
	}
	return k.s >= len(k.segs)
}

// off returns the src offset of the current character, or the end of the
// last segment when done.
func (k *cursor) off() int {
	if k.done() {
		return k.segs[len(k.segs)-1].end
	}
	return k.i
}

// entry splits a logical line into key, separator and value as
// java.util.Properties.load does: the key ends at the first unescaped
// '=', ':' or whitespace; whitespace, at most one '=' or ':', and
// whitespace again separate it from the value.
func (c Codec) entry(p *file, e *entry, segs []segment) error {
	src := p.src
	k := &cursor{src: src, segs: segs, i: segs[0].start}
	e.keyStart = k.off()
	// after is the offset just past the last character consumed and
	// afterSeg its segment: the value's bytes start there when the value
	// itself starts on a later line.
	after, afterSeg := e.keyStart, 0
	step := func(n int) {
		for range n {
			if k.done() {
				return
			}
			k.i++
			after, afterSeg = k.i, k.s
		}
	}
	hasSep := false
	for !k.done() {
		b := src[k.i]
		if b == '\\' {
			step(2)
			continue
		}
		if b == '=' || b == ':' || isSpace(b) {
			break
		}
		step(1)
	}
	e.sepStart = after
	if !k.done() && (src[k.i] == '=' || src[k.i] == ':') {
		hasSep = true
		e.sepStart = k.i
		step(1)
	}
	for !k.done() {
		b := src[k.i]
		if isSpace(b) {
			step(1)
			continue
		}
		if !hasSep && (b == '=' || b == ':') {
			hasSep = true
			step(1)
			continue
		}
		break
	}
	var valSegs []segment
	if k.done() {
		e.valStart = after
	} else {
		e.valStart = k.i
		if k.s != afterSeg {
			e.valStart = after
		}
		valSegs = append(valSegs, segment{k.i, segs[k.s].end})
		valSegs = append(valSegs, segs[k.s+1:]...)
	}
	var err error
	if e.key, err = c.unescape(src, keySegments(segs, e.keyStart, e.sepStart)); err != nil {
		return err
	}
	e.value, err = c.unescape(src, valSegs)
	return err
}

// keySegments returns the parts of segs between src offsets from and to.
func keySegments(segs []segment, from, to int) []segment {
	var out []segment
	for _, s := range segs {
		a, b := max(s.start, from), min(s.end, to)
		if a < b {
			out = append(out, segment{a, b})
		}
	}
	return out
}

// unescape decodes the text of segs: Java's escapes (\t \n \r \f,
// \uXXXX with UTF-16 surrogate pairs joined, a backslash before any other
// character standing for that character) and, in the ISO-8859-1
// variant, each byte >= 0x80 as the character of that code point.
func (c Codec) unescape(src string, segs []segment) (string, error) {
	if len(segs) == 1 {
		s := src[segs[0].start:segs[0].end]
		if strings.IndexByte(s, '\\') < 0 && (c.UTF8 || !hasHigh(s)) {
			return s, nil
		}
	}
	var b strings.Builder
	var pending rune = -1 // a high surrogate waiting for its low half
	flush := func() {
		if pending >= 0 {
			b.WriteRune(utf8.RuneError)
			pending = -1
		}
	}
	for _, sg := range segs {
		for i := sg.start; i < sg.end; i++ {
			ch := src[i]
			if ch != '\\' {
				flush()
				if ch >= 0x80 && !c.UTF8 {
					b.WriteRune(rune(ch))
				} else {
					b.WriteByte(ch)
				}
				continue
			}
			// The escaped character may sit on the next segment when the
			// backslash ends one (an escaped line end cannot: it would
			// have been a continuation).
			j, end := i+1, sg.end
			if j >= end {
				continue // a backslash ending the text escapes nothing
			}
			r := rune(src[j])
			switch src[j] {
			case 't':
				r = '\t'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 'f':
				r = '\f'
			case 'u':
				if j+5 > end {
					return "", c.errorAt(src, i, ErrUnicodeEscape)
				}
				var v rune
				for _, h := range src[j+1 : j+5] {
					d, ok := hexDigit(h)
					if !ok {
						return "", c.errorAt(src, i, ErrUnicodeEscape)
					}
					v = v<<4 | d
				}
				i = j + 4
				switch {
				case utf16.IsSurrogate(v) && v < 0xDC00:
					flush()
					pending = v
				case utf16.IsSurrogate(v) && pending >= 0:
					b.WriteRune(utf16.DecodeRune(pending, v))
					pending = -1
				default:
					flush()
					b.WriteRune(v) // a lone low surrogate becomes U+FFFD
				}
				continue
			default:
				if src[j] >= 0x80 {
					if c.UTF8 {
						rr, n := utf8.DecodeRuneInString(src[j:end])
						r, j = rr, j+n-1
					} else {
						r = rune(src[j])
					}
				}
			}
			flush()
			b.WriteRune(r)
			i = j
		}
	}
	flush()
	return b.String(), nil
}

func hasHigh(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

func hexDigit(h rune) (rune, bool) {
	switch {
	case '0' <= h && h <= '9':
		return h - '0', true
	case 'a' <= h && h <= 'f':
		return h - 'a' + 10, true
	case 'A' <= h && h <= 'F':
		return h - 'A' + 10, true
	}
	return 0, false
}

// errorAt returns a *formats.ParseError for src offset off.
func (c Codec) errorAt(src string, off int, err error) error {
	line, col := c.position(src, off)
	return &formats.ParseError{Line: line, Column: col, Err: err}
}

// position returns the 1-based line and column (in characters) of src
// offset off. "\r\n", "\r" and "\n" end lines, as for Java.
func (c Codec) position(src string, off int) (line, col int) {
	line, start := 1, 0
	for i := 0; i < off; i++ {
		switch src[i] {
		case '\n':
			line, start = line+1, i+1
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				continue
			}
			line, start = line+1, i+1
		}
	}
	if c.UTF8 {
		return line, utf8.RuneCountInString(src[start:off]) + 1
	}
	return line, off - start + 1
}

// String names the codec by its file_format id.
func (c Codec) String() string {
	if c.UTF8 {
		return "properties-utf8"
	}
	return "properties"
}
