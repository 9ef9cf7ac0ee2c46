package po

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

const bom = "\uFEFF"

// comment is one "#" line of an entry.
type comment struct {
	kind       byte // ',' flags, '.' extracted, ':' references, '|' previous, '~' obsolete, ' ' translator
	start, end int  // the line's first byte and the end of its content (before the line end)
	next       int  // the start of the next line
}

// piece is one string of a multi-line value: the line it is on and its
// decoded text.
type piece struct {
	start, end, next int
	val              string
}

// block is one entry of the file, or a run of comment lines that is not
// one (an obsolete "#~" entry, a stray comment).
type block struct {
	start, end int // first byte of its first line; just past its last line's end
	line       int // 1-based line of its first line
	c0, c1     int // its comments are doc.cmts[c0:c1]
	keyStart   int // start of the msgctxt or msgid line
	keyLine    int
	ctx, id    string
	plural     string
	hasCtx     bool
	hasPlural  bool
	strs       []string // msgstr, or msgstr[0], msgstr[1]…
	strStart   int      // start of the first msgstr line
	strEnd     int      // end of the last msgstr line's content
	strLine    int
	pieces     []piece // the header's msgstr strings
	kind       blockKind
}

type blockKind uint8

const (
	kindEntry    blockKind = iota
	kindHeader             // msgid "" without msgctxt, the first one
	kindDup                // an entry whose msgctxt and msgid an earlier one has
	kindObsolete           // "#~" lines
	kindLoose              // comments followed by no entry
)

// key identifies an entry: gettext's msgctxt and msgid.
type key struct {
	ctx, id string
	hasCtx  bool
}

// commentsOf returns the block's comment lines.
func (d *doc) commentsOf(b *block) []comment { return d.cmts[b.c0:b.c1] }

// phase is where the parser is inside an entry.
type phase uint8

const (
	phaseComments phase = iota
	phaseCtx
	phaseID
	phasePlural
	phaseStr
)

// doc is a parsed PO file.
type doc struct {
	src     string
	eol     string // "\n" or "\r\n", from the first line end
	blocks  []block
	cmts    []comment // the comments of every block, in file order
	header  int       // index in blocks, -1 when there is none
	bom     bool
	finalNL bool // the file ends with a line end
}

type parser struct {
	d       doc
	pos     int // start of the line being read
	line    int
	cur     block
	open    bool // cur holds lines
	phase   phase
	target  *string // the value continuation strings append to
	seen    map[key]bool
	obsLast bool // the last comment line of cur was "#~"
}

// parse reads a whole PO file. Errors are *formats.ParseError.
func parse(src string) (*doc, error) {
	p := &parser{d: doc{src: src, eol: "\n", header: -1}, line: 1}
	if strings.HasPrefix(src, bom) {
		p.d.bom = true
		p.pos = len(bom)
	}
	if !utf8.ValidString(src) {
		line, col := position(src, firstInvalid(src))
		return nil, &formats.ParseError{Line: line, Column: col, Err: errors.New("po: invalid UTF-8")}
	}
	if i := strings.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		p.d.eol = "\r\n"
	}
	p.d.finalNL = strings.HasSuffix(src, "\n")
	// Entries are about a blank line each; sizing up front saves the
	// regrowth of large slices.
	n := strings.Count(src, "\n\n") + 1
	p.d.blocks = make([]block, 0, n)
	p.d.cmts = make([]comment, 0, 2*n)
	p.seen = make(map[key]bool, n)
	for p.pos < len(src) {
		next := len(src)
		end := next
		if i := strings.IndexByte(src[p.pos:], '\n'); i >= 0 {
			end, next = p.pos+i, p.pos+i+1
		}
		content := end
		if content > p.pos && src[content-1] == '\r' {
			content--
		}
		if err := p.lineAt(p.pos, content, next); err != nil {
			return nil, err
		}
		p.pos = next
		p.line++
	}
	if err := p.finish(len(src), true); err != nil {
		return nil, err
	}
	return &p.d, nil
}

func firstInvalid(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return 0
}

// position returns the 1-based line and column (in characters) of
// byte offset off of src.
func position(src string, off int) (line, col int) {
	off = min(off, len(src))
	start := strings.LastIndexByte(src[:off], '\n') + 1
	return strings.Count(src[:start], "\n") + 1, utf8.RuneCountInString(src[start:off]) + 1
}

func (p *parser) errorf(off int, format string, args ...any) error {
	line, col := position(p.d.src, off)
	return &formats.ParseError{Line: line, Column: col, Err: fmt.Errorf("po: "+format, args...)}
}

// lineAt handles the line src[start:content], whose next line starts at
// next.
func (p *parser) lineAt(start, content, next int) error {
	s := p.d.src[start:content]
	indent := len(s) - len(strings.TrimLeft(s, " \t\r"))
	t := s[indent:]
	if t == "" {
		return p.blank(start)
	}
	switch t[0] {
	case '#':
		return p.comment(start, content, next, t)
	case '"':
		if p.target == nil {
			return p.errorf(start+indent, "string outside an entry")
		}
		val, n, err := scanString(t)
		if err != nil {
			return p.stringError(start+indent, err)
		}
		if err := p.trailing(start+indent+n, t[n:]); err != nil {
			return err
		}
		*p.target += val
		if p.cur.kind == kindHeader && p.phase == phaseStr {
			p.cur.pieces = append(p.cur.pieces, piece{start, content, next, val})
		}
		p.extend(content, next)
		return nil
	}
	return p.keyword(start, start+indent, content, next, t)
}

func (p *parser) stringError(off int, err error) error {
	var at *errAt
	if errors.As(err, &at) {
		return p.errorf(off+at.off, "%v", at.err)
	}
	return p.errorf(off, "%v", err)
}

// trailing checks that nothing but white space, or a comment gettext
// ignores there, follows a string.
func (p *parser) trailing(off int, rest string) error {
	if t := strings.TrimLeft(rest, " \t\r"); t != "" && t[0] != '#' {
		return p.errorf(off+len(rest)-len(t), "unexpected %q after a string", clip(t))
	}
	return nil
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

func (p *parser) extend(content, next int) {
	p.cur.end = next
	if p.phase == phaseStr {
		p.cur.strEnd = content
	}
}

func (p *parser) begin(start int) {
	if !p.open {
		p.cur = block{start: start, line: p.line, c0: len(p.d.cmts), c1: len(p.d.cmts)}
		p.open = true
		p.phase = phaseComments
		p.target = nil
		p.obsLast = false
	}
}

func (p *parser) blank(start int) error {
	switch {
	case !p.open:
		return nil
	case p.phase == phaseStr || p.phase == phaseComments:
		return p.finish(start, false)
	}
	// gettext allows white space between the parts of an entry.
	return nil
}

func (p *parser) comment(start, content, next int, t string) error {
	kind := byte(' ')
	if len(t) > 1 {
		switch t[1] {
		case ',', '.', ':', '|', '~':
			kind = t[1]
		}
	}
	switch {
	case p.open && p.phase == phaseStr:
		if err := p.finish(start, false); err != nil {
			return err
		}
	case p.open && p.phase != phaseComments:
		return p.errorf(start, "comment inside an entry, before its msgstr")
	case p.open && p.obsLast && kind != '~':
		// An obsolete entry followed by the comments of the next one.
		if err := p.finish(start, false); err != nil {
			return err
		}
	}
	p.begin(start)
	p.d.cmts = append(p.d.cmts, comment{kind, start, content, next})
	p.cur.c1 = len(p.d.cmts)
	p.obsLast = kind == '~'
	if kind == '~' {
		p.cur.kind = kindObsolete
	}
	p.cur.end = next
	return nil
}

// keyword handles a msgctxt, msgid, msgid_plural or msgstr line; t
// starts at byte kw of the file.
func (p *parser) keyword(start, kw, content, next int, t string) error {
	word := t
	if i := strings.IndexAny(t, " \t\""); i >= 0 {
		word = t[:i]
	}
	rest := strings.TrimLeft(t[len(word):], " \t")
	if rest == "" || rest[0] != '"' {
		if word == "msgctxt" || word == "msgid" || word == "msgid_plural" || strings.HasPrefix(word, "msgstr") {
			return p.errorf(kw+len(word), "%s without a string", word)
		}
		return p.errorf(kw, "unexpected %q", clip(t))
	}
	strOff := kw + len(t) - len(rest)
	val, n, err := scanString(rest)
	if err != nil {
		return p.stringError(strOff, err)
	}
	if err := p.trailing(strOff+n, rest[n:]); err != nil {
		return err
	}
	if p.open && p.obsLast {
		if err := p.finish(start, false); err != nil {
			return err
		}
	}
	switch {
	case word == "msgctxt" || word == "msgid":
		if p.open && p.phase == phaseStr {
			if err := p.finish(start, false); err != nil {
				return err
			}
		}
		p.begin(start)
		if word == "msgctxt" {
			if p.phase != phaseComments {
				return p.errorf(kw, "msgctxt after msgid")
			}
			p.phase, p.cur.hasCtx, p.cur.ctx = phaseCtx, true, val
			p.target = &p.cur.ctx
			p.cur.keyStart, p.cur.keyLine = start, p.line
		} else {
			if p.phase != phaseComments && p.phase != phaseCtx {
				return p.errorf(kw, "msgid without a msgstr before it")
			}
			if p.phase == phaseComments {
				p.cur.keyStart, p.cur.keyLine = start, p.line
			}
			p.phase, p.cur.id = phaseID, val
			p.target = &p.cur.id
		}
	case word == "msgid_plural":
		if p.phase != phaseID {
			return p.errorf(kw, "msgid_plural without a msgid before it")
		}
		p.phase, p.cur.hasPlural, p.cur.plural = phasePlural, true, val
		p.target = &p.cur.plural
	case word == "msgstr":
		switch p.phase {
		case phaseID:
		case phasePlural:
			return p.errorf(kw, "msgstr after msgid_plural needs an index (msgstr[0])")
		case phaseStr:
			return p.errorf(kw, "second msgstr in one entry")
		default:
			return p.errorf(kw, "msgstr without a msgid before it")
		}
		p.startStr(start)
		p.cur.strs = append(p.cur.strs, val)
		p.target = &p.cur.strs[0]
	case strings.HasPrefix(word, "msgstr["):
		idx, ok := pluralIndex(word)
		if !ok {
			return p.errorf(kw, "malformed %q", word)
		}
		switch {
		case p.phase == phaseID:
			return p.errorf(kw, "%s without a msgid_plural", word)
		case p.phase == phasePlural || p.phase == phaseStr && p.cur.hasPlural:
		default:
			return p.errorf(kw, "%s without a msgid before it", word)
		}
		if idx != len(p.cur.strs) {
			return p.errorf(kw, "%s where msgstr[%d] was expected", word, len(p.cur.strs))
		}
		if p.phase != phaseStr {
			p.startStr(start)
		}
		p.cur.strs = append(p.cur.strs, val)
		p.target = &p.cur.strs[idx]
	default:
		return p.errorf(kw, "unexpected %q", clip(t))
	}
	if p.cur.kind == kindHeader && p.phase == phaseStr {
		p.cur.pieces = append(p.cur.pieces, piece{start, content, next, val})
	}
	p.extend(content, next)
	return nil
}

// startStr moves to the msgstr part of the entry, deciding whether it is
// the header.
func (p *parser) startStr(start int) {
	p.phase = phaseStr
	p.cur.strStart, p.cur.strLine = start, p.line
	if p.cur.id == "" && !p.cur.hasCtx && !p.cur.hasPlural && p.d.header < 0 {
		p.cur.kind = kindHeader
	}
}

// pluralIndex parses "msgstr[N]".
func pluralIndex(word string) (int, bool) {
	if !strings.HasSuffix(word, "]") || len(word) < len("msgstr[0]") || len(word) > len("msgstr[999]") {
		return 0, false
	}
	n := 0
	for _, c := range word[len("msgstr[") : len(word)-1] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// finish closes the current block at offset end (the start of the line
// that ends it). At the end of the file, eof is true.
func (p *parser) finish(end int, eof bool) error {
	if !p.open {
		return nil
	}
	b := p.cur
	p.open, p.target = false, nil
	switch {
	case p.phase == phaseComments:
		if b.kind != kindObsolete {
			b.kind = kindLoose
		}
	case p.phase != phaseStr:
		return p.errorf(b.keyStart, "entry without a msgstr")
	case b.kind == kindHeader:
		p.d.header = len(p.d.blocks)
	case b.id == "" && !b.hasCtx && !b.hasPlural:
		// A second header, which Translate Toolkit does not read as a
		// unit either.
		b.kind = kindDup
	default:
		k := key{b.ctx, b.id, b.hasCtx}
		if p.seen[k] {
			b.kind = kindDup
		}
		p.seen[k] = true
	}
	p.d.blocks = append(p.d.blocks, b)
	return nil
}
