package json

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// patch replaces src[start:end] with text; start == end inserts.
type patch struct {
	start, end int
	text       string
}

// node is a member Encode inserts: a string, or a new object holding
// further new members.
type node struct {
	key      string
	value    string
	isObj    bool
	children []*node
}

// Encode writes the file to w with edits applied. With no edits it writes
// the decoded bytes unchanged. Otherwise only the spans of edited values
// change, and an edit whose value equals the current one changes nothing,
// so encoding the output again with the same edits gives the same bytes.
// When edits repeat a context, the last one wins. An Edit's Target must
// hold at most one form; an empty Target means "".
//
// New values are written with JSON escapes only for '"', '\\' and control
// characters: other characters, including non-ASCII and <, > and &, stay
// raw UTF-8, and invalid UTF-8 becomes U+FFFD.
//
// An edit whose context is not in the file is inserted after the last
// member of an object, copying the whitespace in front of that member
// (indentation, blank lines, line ending), so the file's final newline or
// its absence is kept. The object is chosen as follows: a key exists in
// nested form iff its parent object exists, so the new member goes into
// the object whose context is the longest proper prefix of the edit's
// context at a ".", or into the top-level object when there is none. What
// remains of the context becomes one flat key with dots under LayoutFlat,
// and under LayoutAuto when the file holds no nested object. Otherwise each
// remaining segment but the last becomes a new nested object, except that
// a segment whose context is already taken (by an existing member, or by
// another edit in the same call) stops the nesting, and the rest is written
// as a flat key, so that no key is ever duplicated. New members of an empty
// object are indented one level deeper than the object's line, using the
// file's detected indentation (4 spaces when nothing can be detected).
//
// In a Dialect other than Plain, each edit first becomes edits of the
// members that hold the unit (see Dialect): the forms of a plural edit
// (Plural set, or several forms) go to the keys of f.Plurals in order,
// and a form that is empty and has no key yet is not inserted. A new
// go-i18n plural message or WebExtension message is a new object holding
// its fields, whatever the layout.
//
// Encode returns an error, and writes nothing, when a Plain edit has
// several forms, a plural edit's forms are not one per entry of
// f.Plurals, or an edit names a context that holds a non-string value.
// Otherwise w receives two writes per changed span plus one, so give it a
// buffer (bytes.Buffer, bufio.Writer) rather than a bare file.
func (f *File) Encode(w io.Writer, edits []formats.Edit) error {
	if len(edits) == 0 {
		_, err := io.WriteString(w, f.src)
		return err
	}
	var (
		mes []memberEdit
		err error
	)
	if f.Dialect == Plain {
		mes, err = memberEdits(edits)
	} else {
		mes, err = f.dialectEdits(edits)
	}
	if err != nil {
		return err
	}
	patches, err := f.patches(mes)
	if err != nil {
		return err
	}
	if len(patches) == 0 {
		_, err := io.WriteString(w, f.src)
		return err
	}
	// Writing the unchanged stretches straight from the source saves
	// building a copy of the whole file.
	pos := 0
	for _, pt := range patches {
		if _, err := io.WriteString(w, f.src[pos:pt.start]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, pt.text); err != nil {
			return err
		}
		pos = pt.end
	}
	_, err = io.WriteString(w, f.src[pos:])
	return err
}

// Editable reports whether Encode can write an edit of the context: the
// file holds a string there, or nothing yet. An object, a number, a
// boolean, null or an array at the context would make Encode fail.
//
// In a Dialect other than Plain the question is asked of each member the
// unit maps to: its plural keys, its message object's field.
func (f *File) Editable(context string) bool {
	mes := []memberEdit{{ctx: context}}
	if f.Dialect != Plain {
		mes, _ = f.dialectEdits([]formats.Edit{{Context: context, Target: []string{"x"}}})
	}
	for _, e := range mes {
		if mi, ok := f.index[e.ctx]; ok && f.members[mi].kind != kindString {
			return false
		}
	}
	return true
}

// memberEdit sets the string member at ctx to value. nestAt, when not -1,
// is the offset in ctx of a '.' that must become a nested object if the
// member is new, whatever the layout: the '.' between a go-i18n or
// WebExtension message's key and its field ("greeting.one").
type memberEdit struct {
	ctx    string
	value  string
	nestAt int
}

// memberEdits turns the edits of a plain JSON file into member edits;
// when edits repeat a context, the last one wins.
func memberEdits(edits []formats.Edit) ([]memberEdit, error) {
	out := make([]memberEdit, 0, len(edits))
	for _, e := range edits {
		if len(e.Target) > 1 {
			return nil, fmt.Errorf("json: edit %q: %d plural forms, a JSON value holds one", e.Context, len(e.Target))
		}
		out = append(out, memberEdit{ctx: e.Context, value: target(e), nestAt: -1})
	}
	return out, nil
}

// patches turns member edits into byte replacements sorted by offset.
// When edits repeat a context, the last one wins.
func (f *File) patches(edits []memberEdit) ([]patch, error) {
	last := make(map[string]int, len(edits))
	for i, e := range edits {
		last[e.ctx] = i
	}
	var (
		patches []patch
		fresh   []memberEdit
	)
	for i, e := range edits {
		if last[e.ctx] != i {
			continue
		}
		mi, ok := f.index[e.ctx]
		if !ok {
			fresh = append(fresh, e)
			continue
		}
		m := &f.members[mi]
		if m.kind != kindString {
			return nil, fmt.Errorf("json: edit %q: the file holds a non-string value there", e.ctx)
		}
		if f.value(m) == e.value {
			continue
		}
		patches = append(patches, patch{m.valStart, m.valEnd, string(appendQuoted(nil, e.value))})
	}
	if len(fresh) > 0 {
		patches = f.insertions(patches, fresh)
	}
	slices.SortFunc(patches, func(a, b patch) int { return cmp.Compare(a.start, b.start) })
	return patches, nil
}

func target(e formats.Edit) string {
	if len(e.Target) == 0 {
		return ""
	}
	return e.Target[0]
}

// insertions appends one patch per object that receives new members.
func (f *File) insertions(patches []patch, fresh []memberEdit) []patch {
	nested := f.Layout == LayoutNested || (f.Layout == LayoutAuto && len(f.objects) > 1)
	taken := make(map[string]bool, len(fresh))
	for _, e := range fresh {
		taken[e.ctx] = true
	}
	pending := make(map[int32][]*node)
	var order []int32 // objects in the order they first receive a member
	for _, e := range fresh {
		ctx := e.ctx
		oi, restAt := f.parent(ctx)
		if _, ok := pending[oi]; !ok {
			order = append(order, oi)
		}
		list := pending[oi]
		var outer *node // the new object list belongs to; nil for an existing one
		for {
			cut := -1 // the '.' to nest at next
			if dot := strings.IndexByte(ctx[restAt:], '.'); nested && dot >= 0 {
				cut = restAt + dot
			} else if !nested && e.nestAt >= restAt {
				cut = e.nestAt
			}
			if cut < 0 {
				break
			}
			q := ctx[:cut]
			if _, ok := f.index[q]; ok || taken[q] {
				break
			}
			seg := ctx[restAt:cut]
			var n *node
			for _, c := range list {
				if c.isObj && c.key == seg {
					n = c
					break
				}
			}
			if n == nil {
				n = &node{key: seg, isObj: true}
				list = append(list, n)
				setList(pending, oi, outer, list)
			}
			outer, list = n, n.children
			restAt = cut + 1
		}
		list = append(list, &node{key: ctx[restAt:], value: e.value})
		setList(pending, oi, outer, list)
	}
	st := f.style()
	for _, oi := range order {
		patches = append(patches, f.insert(st, &f.objects[oi], pending[oi]))
	}
	return patches
}

// setList stores list as the children of outer, or of existing object oi
// when outer is nil.
func setList(pending map[int32][]*node, oi int32, outer *node, list []*node) {
	if outer == nil {
		pending[oi] = list
	} else {
		outer.children = list
	}
}

// parent returns the object a new context goes into and the offset in ctx
// of the part that remains to be written there: the live object whose
// context is the longest proper prefix of ctx at a ".", or the top level.
func (f *File) parent(ctx string) (obj int32, restAt int) {
	for j := len(ctx); ; {
		j = strings.LastIndexByte(ctx[:j], '.')
		if j < 0 {
			return 0, 0
		}
		if mi, ok := f.index[ctx[:j]]; ok && f.members[mi].kind == kindObject {
			return f.members[mi].obj, j + 1
		}
	}
}

// style is how the file lays out its members, detected from the first
// object with several members, else the first with any.
type style struct {
	pretty bool   // members go on lines of their own
	nl     string // line ending
	unit   string // one level of indentation
	gap    string // whitespace after a comma when not pretty
	sep    string // between a key and its value, ':' included
}

func (f *File) style() style {
	st := style{pretty: true, nl: "\n", unit: "    ", sep: f.sep}
	if strings.Contains(f.src, "\r\n") {
		st.nl = "\r\n"
	}
	if st.sep == "" {
		st.sep = ": "
	}
	// Prefer a gap after a comma: the one after the '{' of a one-member
	// object need not look like the others ({"a": 1, "b": 2} vs {"a": 1}).
	first := -1
	for i := range f.objects {
		if o := &f.objects[i]; o.lastEnd >= 0 && (first < 0 || o.afterComma) {
			first = i
			if o.afterComma {
				break
			}
		}
	}
	if first < 0 {
		return st
	}
	o := &f.objects[first]
	gap := f.src[o.gapStart:o.gapEnd]
	nl := strings.LastIndexByte(gap, '\n')
	if nl < 0 {
		st.pretty, st.gap = false, gap
		return st
	}
	st.nl = "\n"
	if strings.HasSuffix(gap[:nl], "\r") {
		st.nl = "\r\n"
	}
	indent, outer := gap[nl+1:], f.lineIndent(o.open)
	if len(indent) > len(outer) && strings.HasPrefix(indent, outer) {
		st.unit = indent[len(outer):]
	}
	return st
}

// compactGap is what follows a comma inside a one-line object when the
// object itself cannot tell: the file's own gap if the file is one-line,
// else a space when the key separator has one.
func (st style) compactGap() string {
	switch {
	case !st.pretty:
		return st.gap
	case strings.Contains(st.sep, " "):
		return " "
	}
	return ""
}

// lineIndent returns the spaces and tabs that start the line holding off.
func (f *File) lineIndent(off int) string {
	start := strings.LastIndexByte(f.src[:off], '\n') + 1
	if start == 0 && strings.HasPrefix(f.src, bom) {
		start = len(bom)
	}
	end := start
	for end < off && (f.src[end] == ' ' || f.src[end] == '\t') {
		end++
	}
	return f.src[start:end]
}

// insert builds the patch that adds nodes at the end of object o.
func (f *File) insert(st style, o *object, nodes []*node) patch {
	var b []byte
	if o.lastEnd >= 0 {
		// Copy the whitespace in front of the last member, blank lines
		// and all, so new members look like their neighbours.
		gap := f.src[o.gapStart:o.gapEnd]
		indent, pretty := "", false
		if nl := strings.LastIndexByte(gap, '\n'); nl >= 0 {
			indent, pretty = gap[nl+1:], true
		} else if !o.afterComma {
			gap = st.compactGap()
		}
		for _, n := range nodes {
			b = append(b, ',')
			b = append(b, gap...)
			b = st.member(b, n, indent, gap, pretty)
		}
		return patch{o.lastEnd, o.lastEnd, string(b)}
	}
	// An empty object: replace whatever whitespace it holds.
	if st.pretty {
		outer := f.lineIndent(o.open)
		indent := outer + st.unit
		for i, n := range nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, st.nl...)
			b = append(b, indent...)
			b = st.member(b, n, indent, "", true)
		}
		b = append(b, st.nl...)
		b = append(b, outer...)
	} else {
		for i, n := range nodes {
			if i > 0 {
				b = append(b, ',')
				b = append(b, st.gap...)
			}
			b = st.member(b, n, "", st.gap, false)
		}
	}
	return patch{o.open + 1, o.close, string(b)}
}

// member appends one new key and its value. indent is the indentation of
// the member's own line when pretty; gap follows commas when not.
func (st style) member(b []byte, n *node, indent, gap string, pretty bool) []byte {
	b = appendQuoted(b, n.key)
	b = append(b, st.sep...)
	if !n.isObj {
		return appendQuoted(b, n.value)
	}
	b = append(b, '{')
	inner := indent + st.unit
	for i, c := range n.children {
		if i > 0 {
			b = append(b, ',')
			if !pretty {
				b = append(b, gap...)
			}
		}
		if pretty {
			b = append(b, st.nl...)
			b = append(b, inner...)
		}
		b = st.member(b, c, inner, gap, pretty)
	}
	if pretty {
		b = append(b, st.nl...)
		b = append(b, indent...)
	}
	return append(b, '}')
}

// appendQuoted appends s as a JSON string literal. Only '"', '\\' and
// control characters are escaped; everything else stays raw UTF-8, which is
// what Weblate and the corpus files do (no \uXXXX, no HTML escaping).
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += n
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// EncodeWithout writes the file to w without the member at context and
// reports whether the file held one; without it, w receives the decoded
// bytes unchanged. Only the member's bytes go: the key, the value, and
// the comma and whitespace that separated it from its neighbour, so the
// other members keep their bytes. An object left without members is
// written as {}. Removing several members takes one call each, decoding
// the output in between.
func (f *File) EncodeWithout(w io.Writer, context string) (bool, error) {
	mi, ok := f.index[context]
	if !ok {
		_, err := io.WriteString(w, f.src)
		return false, err
	}
	m := &f.members[mi]
	start, end := m.keyStart, m.valEnd
	next := skipWS(f.src, end)
	switch {
	case f.src[m.gapStart-1] == ',':
		// Not the first member: its comma goes with it.
		start = m.gapStart - 1
	case next < len(f.src) && f.src[next] == ',':
		// The first of several: the comma after it and the whitespace up
		// to the next key go with it.
		end = skipWS(f.src, next+1)
	default:
		// The only member: the object becomes {}.
		start, end = m.gapStart, next
	}
	if _, err := io.WriteString(w, f.src[:start]); err != nil {
		return true, err
	}
	_, err := io.WriteString(w, f.src[end:])
	return true, err
}

// skipWS returns the offset of the first byte at or after i that is not
// JSON whitespace.
func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
