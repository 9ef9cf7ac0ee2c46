package xliff

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/internal/xmlscan"
)

// span is a byte range [start, end) of doc.src.
type span struct{ start, end int }

// element is one element as written: its start tag and, for an element
// with content, the content and the end tag.
type element struct {
	tag         span   // the start tag, '<' to just past '>'
	inner       span   // the content; empty at tag.end for <x/>
	end         int    // just past the element
	selfClosing bool   // written <x/>
	name        string // as written, prefix included
}

// entry is one translatable string: a trans-unit (1.2) or one segment of
// a unit (2.0).
type entry struct {
	ctx  string // see unitContext
	id   string // the trans-unit's or unit's id
	line int
	// owner is the trans-unit or unit element; removal takes it out.
	owner element
	// stateTag carries the state attribute: the target's start tag in
	// 1.2 (nil without a target), the segment's in 2.0.
	stateTag *span
	segment  element // 2.0 only
	source   *element
	target   *element
	srcText  string // source content as a string (see content)
	tgtText  string
	// srcPlain and tgtPlain are the text content alone (PlainXLIFF):
	// entities decoded, inline elements reduced to their text.
	srcPlain, tgtPlain string
	attrs              map[string]string // of the trans-unit (1.2) or unit and segment (2.0)
	approved           string            // 1.2 approved attribute
	state              string            // 1.2 target state, 2.0 segment state
	notes              []string
	location           []string
	// group is the index in doc.groups of the gettext plural group the
	// trans-unit is a form of, -1 for none (1.2 only).
	group int
	// header marks the gettext header unit of a PO-flavoured file
	// (restype="x-gettext-domain-header").
	header bool
}

// pluralGroup is a <group restype="x-gettext-plurals">: one gettext
// string whose plural forms are its trans-units (XLIFF 1.2 Representation
// Guide for Gettext PO), read by POXLIFF.
type pluralGroup struct {
	el      element
	ctx     string // as unitContext of the group's resname and id
	members []int  // indexes into doc.entries, in form order
}

// fileEl is one <file> element.
type fileEl struct {
	tag      span
	original string
	// close is the offset of the '<' of the end tag new units go before:
	// </body> in 1.2, </file> in 2.0; -1 when there is none.
	close int
	// lastEnd is just past the last unit of the file, 0 when it has none.
	lastEnd int
}

// doc is a parsed XLIFF document. Offsets index src.
type doc struct {
	src     []byte
	v2      bool
	plain   bool // strings are text, not XML (PlainXLIFF)
	root    span // the <xliff> start tag
	files   []fileEl
	entries []entry
	groups  []pluralGroup
}

// parse reads a whole XLIFF 1.x or 2.x document. It fails with a
// *formats.ParseError on malformed XML or a root that is not <xliff>.
func parse(src []byte) (*doc, error) {
	p := parser{d: &doc{src: src}, lines: formats.NewLines(src), plural: -1}
	// xmlscan reads the raw tokens encoding/xml's RawToken would (no
	// namespace translation; the parser checks that end tags match),
	// several times faster.
	sc := xmlscan.New(src)
	for {
		tok, before, after, err := sc.Next()
		if err == io.EOF {
			if len(p.stack) > 0 {
				return nil, parseError(src, len(src), fmt.Errorf("xliff: <%s> is not closed", p.stack[len(p.stack)-1].el.name))
			}
			break
		}
		if err != nil {
			var se *xmlscan.SyntaxError
			if errors.As(err, &se) {
				return nil, parseError(src, se.Offset, err)
			}
			return nil, parseError(src, after, err)
		}
		if dt, ok := tok.(xml.Directive); ok && bytes.HasPrefix(dt, []byte("DOCTYPE")) {
			// XLIFF has no use for entities: any declaration is refused.
			if names, err := formats.DoctypeEntities(dt); err != nil || len(names) > 0 {
				if err == nil {
					err = formats.ErrDoctype
				}
				return nil, parseError(src, before, fmt.Errorf("xliff: %w", err))
			}
		}
		if err := p.token(tok, before, after); err != nil {
			return nil, parseError(src, before, err)
		}
	}
	if !p.sawRoot {
		return nil, &formats.ParseError{Line: 1, Column: 1, Err: errors.New("xliff: no root element")}
	}
	return p.d, nil
}

// open is an element on the parser's stack.
type open struct {
	local string
	el    element
}

// parser holds the state of one pass over the tokens.
type parser struct {
	d       *doc
	lines   formats.Lines
	stack   []open
	depth   int
	sawRoot bool

	file int // index into d.files, -1 outside a <file>
	unit *unitState
	// plural is the index in d.groups of the gettext plural group being
	// read and pluralDepth its depth; -1 and 0 outside one.
	plural      int
	pluralDepth int
	capture     *capture
}

// unitState gathers a trans-unit or unit until its end tag.
type unitState struct {
	depth    int
	owner    element
	line     int
	id       string
	attrs    map[string]string
	approved string
	notes    []string
	location []string
	segs     []entry // 2.0: one per segment; 1.2: exactly one
	cur      *entry  // the segment being read (2.0), the entry (1.2)
	segDepth int
	// context-group purpose="location" being read (1.2)
	locDepth int
	locFile  string
	locLine  string
}

// capture collects the content of source, target, note or context.
type capture struct {
	depth int
	kind  string // "source", "target", "note", "context"
	typ   string // context-type, note category
	start int    // content start
	rich  strings.Builder
	plain strings.Builder
}

func (p *parser) token(tok xml.Token, before, after int) error {
	src := p.d.src
	switch t := tok.(type) {
	case xml.StartElement:
		p.depth++
		selfClosing := after-before >= 2 && src[after-2] == '/' && src[after-1] == '>'
		el := element{tag: span{before, after}, inner: span{after, after}, selfClosing: selfClosing, name: formats.RawElementName(src, before)}
		p.stack = append(p.stack, open{t.Name.Local, el})
		if p.capture != nil {
			if p.capture.kind == "source" || p.capture.kind == "target" {
				p.capture.rich.Write(src[before:after])
			}
			return nil
		}
		return p.start(t, el)
	case xml.EndElement:
		if len(p.stack) == 0 {
			return fmt.Errorf("xliff: unexpected end tag </%s>", t.Name.Local)
		}
		top := p.stack[len(p.stack)-1]
		if name := t.Name.Local; t.Name.Space != "" {
			if name = t.Name.Space + ":" + name; name != top.el.name {
				return fmt.Errorf("xliff: <%s> closed by </%s>", top.el.name, name)
			}
		} else if name != top.el.name {
			return fmt.Errorf("xliff: <%s> closed by </%s>", top.el.name, name)
		}
		p.stack = p.stack[:len(p.stack)-1]
		el := top.el
		el.end = after
		if !el.selfClosing {
			el.inner.end = before
		}
		defer func() { p.depth-- }()
		if c := p.capture; c != nil {
			if p.depth > c.depth {
				if c.kind == "source" || c.kind == "target" {
					c.rich.Write(src[before:after])
				}
				return nil
			}
			p.capture = nil
			p.endCapture(c, el)
			return nil
		}
		p.end(top.local, el)
	case xml.CharData:
		if c := p.capture; c != nil {
			escapeTo(&c.rich, string(t))
			c.plain.Write(t)
		}
	case xml.ProcInst:
		if c := p.capture; c != nil && (c.kind == "source" || c.kind == "target") {
			c.rich.Write(src[before:after])
		}
	}
	return nil
}

// start handles a start tag outside any captured content.
func (p *parser) start(t xml.StartElement, el element) error {
	d := p.d
	local := t.Name.Local
	if !p.sawRoot {
		p.sawRoot = true
		if local != "xliff" {
			return fmt.Errorf("xliff: root element is <%s>, not <xliff>", local)
		}
		d.root = el.tag
		version := attr(t, "version")
		d.v2 = strings.HasPrefix(version, "2") || (version == "" && strings.Contains(attr(t, "xmlns"), ":xliff:document:2"))
		p.file = -1
		return nil
	}
	u := p.unit
	switch {
	case local == "file" && u == nil && p.file < 0:
		d.files = append(d.files, fileEl{tag: el.tag, original: attr(t, "original"), close: -1})
		p.file = len(d.files) - 1
	case u == nil && ((!d.v2 && local == "trans-unit") || (d.v2 && local == "unit")):
		u = &unitState{depth: p.depth, owner: el, line: p.lines.At(el.tag.start), id: attr(t, "id"), attrs: attrMap(t)}
		u.approved = u.attrs["approved"]
		if !d.v2 {
			u.segs = []entry{{}}
			u.cur = &u.segs[0]
		}
		p.unit = u
	case u == nil && !d.v2 && local == "group" && p.plural < 0 && attr(t, "restype") == "x-gettext-plurals":
		original := ""
		if p.file >= 0 {
			original = d.files[p.file].original
		}
		d.groups = append(d.groups, pluralGroup{el: el, ctx: unitContext(attr(t, "resname"), original, attr(t, "id"))})
		p.plural, p.pluralDepth = len(d.groups)-1, p.depth
	case u == nil:
		// file-level or group-level elements carry nothing we read
	case d.v2 && local == "segment" && p.depth == u.depth+1:
		u.segs = append(u.segs, entry{segment: el, state: attr(t, "state"), attrs: attrMap(t)})
		u.cur, u.segDepth = &u.segs[len(u.segs)-1], p.depth
		u.cur.stateTag = &u.cur.segment.tag
	case (local == "source" || local == "target") && u.cur != nil &&
		((!d.v2 && p.depth == u.depth+1) || (d.v2 && u.segDepth > 0 && p.depth == u.segDepth+1)):
		p.capture = &capture{depth: p.depth, kind: local, start: el.inner.start}
		if local == "target" && !d.v2 {
			u.cur.state = attr(t, "state")
		}
	case !d.v2 && local == "note" && p.depth == u.depth+1:
		p.capture = &capture{depth: p.depth, kind: "note"}
	case d.v2 && local == "note" && len(p.stack) >= 2 && p.stack[len(p.stack)-2].local == "notes" && p.depth == u.depth+2:
		p.capture = &capture{depth: p.depth, kind: "note", typ: attr(t, "category")}
	case !d.v2 && local == "context-group" && p.depth == u.depth+1 && strings.Contains(attr(t, "purpose"), "location"):
		u.locDepth, u.locFile, u.locLine = p.depth, "", ""
	case !d.v2 && local == "context" && u.locDepth > 0 && p.depth == u.locDepth+1:
		p.capture = &capture{depth: p.depth, kind: "context", typ: attr(t, "context-type")}
	}
	return nil
}

// endCapture stores captured content into the unit being read.
func (p *parser) endCapture(c *capture, el element) {
	u := p.unit
	switch c.kind {
	case "source":
		u.cur.source, u.cur.srcText, u.cur.srcPlain = &el, c.rich.String(), c.plain.String()
	case "target":
		u.cur.target, u.cur.tgtText, u.cur.tgtPlain = &el, c.rich.String(), c.plain.String()
		if !p.d.v2 {
			u.cur.stateTag = &u.cur.target.tag
		}
	case "note":
		text := c.plain.String()
		if p.d.v2 && c.typ == "location" {
			u.location = append(u.location, strings.TrimSpace(text))
		} else if text != "" {
			u.notes = append(u.notes, text)
		}
	case "context":
		switch c.typ {
		case "sourcefile":
			u.locFile = strings.TrimSpace(c.plain.String())
		case "linenumber":
			u.locLine = strings.TrimSpace(c.plain.String())
		}
	}
}

// end handles an end tag outside any captured content.
func (p *parser) end(local string, el element) {
	d := p.d
	u := p.unit
	switch {
	case u != nil && p.depth == u.depth:
		p.finishUnit(el)
	case u != nil && d.v2 && local == "segment" && p.depth == u.segDepth:
		u.cur.segment.end, u.cur.segment.inner = el.end, el.inner
		u.cur, u.segDepth = nil, 0
	case u != nil && !d.v2 && local == "context-group" && p.depth == u.locDepth:
		switch {
		case u.locFile != "" && u.locLine != "":
			u.location = append(u.location, u.locFile+":"+u.locLine)
		case u.locFile != "":
			u.location = append(u.location, u.locFile)
		}
		u.locDepth = 0
	case u == nil && p.plural >= 0 && local == "group" && p.depth == p.pluralDepth:
		d.groups[p.plural].el.end, d.groups[p.plural].el.inner = el.end, el.inner
		p.plural, p.pluralDepth = -1, 0
	case u == nil && local == "file" && p.file >= 0:
		if d.v2 && !el.selfClosing {
			d.files[p.file].close = el.inner.end
		}
		p.file = -1
	case u == nil && !d.v2 && local == "body" && p.file >= 0 && !el.selfClosing:
		d.files[p.file].close = el.inner.end
	}
}

// finishUnit turns the unit just read into entries, one per segment.
func (p *parser) finishUnit(owner element) {
	d, u := p.d, p.unit
	p.unit = nil
	u.owner = owner
	if p.file >= 0 {
		d.files[p.file].lastEnd = owner.end
	}
	original := ""
	if p.file >= 0 {
		original = d.files[p.file].original
	}
	group := -1
	if p.plural >= 0 && u.depth == p.pluralDepth+1 {
		group = p.plural
		d.groups[group].members = append(d.groups[group].members, len(d.entries))
	}
	for i := range u.segs {
		e := u.segs[i]
		e.id, e.line, e.owner = u.id, u.line, u.owner
		e.group, e.header = group, u.attrs["restype"] == "x-gettext-domain-header"
		e.notes, e.location = u.notes, u.location
		if d.v2 {
			segID := e.attrs["id"]
			attrs := make(map[string]string, len(u.attrs)+len(e.attrs))
			for k, v := range u.attrs {
				attrs[k] = v
			}
			for k, v := range e.attrs {
				attrs[k] = v
			}
			e.attrs = attrs
			e.ctx = segmentContext(u.id, segID, i, len(u.segs))
		} else {
			e.attrs, e.approved = u.attrs, u.approved
			e.ctx = unitContext(u.attrs["resname"], original, u.id)
		}
		d.entries = append(d.entries, e)
	}
}

// unitContext is a 1.2 trans-unit's Context as the reference computes it
// (weblate/formats/ttkit.py XliffUnit.context): resname when set, else
// the id prefixed with the file's original and "///" (Translate
// Toolkit's getid joins them with \x04, which Weblate shows as "///").
func unitContext(resname, original, id string) string {
	if resname != "" {
		return resname
	}
	if original != "" {
		return original + "///" + id
	}
	return id
}

// segmentContext is a 2.0 segment's Context as Translate Toolkit's
// xliff2 storage names it: the unit id for a unit of one segment,
// "unit::segment" for a segment with an id in a unit of several, and
// "unit::segment-N" (1-based) for one without.
func segmentContext(unitID, segID string, i, n int) string {
	if segID != "" {
		return unitID + "::" + segID
	}
	if n == 1 {
		return unitID
	}
	return fmt.Sprintf("%s::segment-%d", unitID, i+1)
}

// attr returns the value of the attribute with the given local name and
// any prefix but xml:, "" when absent.
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local && a.Name.Space != "xml" {
			return a.Value
		}
	}
	return ""
}

// attrMap returns the attributes by local name, but for xml: and
// namespace declarations.
func attrMap(t xml.StartElement) map[string]string {
	m := make(map[string]string, len(t.Attr))
	for _, a := range t.Attr {
		if a.Name.Space != "xml" && a.Name.Space != "xmlns" && a.Name.Local != "xmlns" {
			m[a.Name.Local] = a.Value
		}
	}
	return m
}

// escapeTo writes s with &, < and > escaped, the way lxml serializes
// text, which is how the reference shows XLIFF content with placeables.
func escapeTo(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(c)
		}
	}
}

// parseError wraps err with the line and column of byte offset off,
// counting characters as an editor shows them.
func parseError(src []byte, off int, err error) *formats.ParseError {
	return formats.ErrorAt(src, off, err)
}
