package json

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/tolk-project/tolk/formats"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack;
// encoding/json uses the same limit and reports it as "exceeded max depth".
const maxDepth = 10000

// maxObjectDepth bounds the nesting of objects that hold units. Every
// member's context repeats the keys of all its parents, so the contexts of
// an input nested d levels deep take up to d/2 times its size; 32 levels
// keep hostile input cheap while no translation file comes anywhere near
// (the corpus nests 2 deep). Objects inside arrays are not units and only
// count against maxDepth.
const maxObjectDepth = 32

const bom = "\uFEFF"

// walker records members and objects while gjson walks a validated
// document, and builds in arena the contexts that are not plain
// substrings of the source.
type walker struct {
	s       string
	line    int32 // 1-based line of offset lineAt
	lineAt  int
	members []member
	objects []object
	// arena holds the contexts of nested and escaped keys back to back.
	// A strings.Builder never changes bytes it has written, so contexts
	// can be sliced from String() while it keeps growing.
	arena strings.Builder
	sep   [2]int // span of the first member's ':' separator; sep[1] == 0 until seen
	err   error  // why the walk stopped early
}

func decode(src string) (*File, error) {
	if !utf8.ValidString(src) {
		off := 0
		for off < len(src) {
			r, n := utf8.DecodeRuneInString(src[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		return nil, parseError(src, off, errors.New("json: invalid UTF-8"))
	}
	start := 0
	if strings.HasPrefix(src, bom) {
		start = len(bom)
	}
	doc := src[start:]
	if !valid(doc) {
		return nil, syntaxError(src, start)
	}
	top := gjson.Parse(doc)
	if top.Raw[0] != '{' {
		return nil, parseError(src, start+top.Index, errors.New("json: top-level value is not an object"))
	}
	// Every member but an object has a quoted key and, to be a unit, a
	// quoted value, and every object a '{': counting (fast, vectorised)
	// bounds both slices, so they are allocated once.
	braces := strings.Count(doc, "{")
	w := &walker{
		s:       src,
		line:    1,
		members: make([]member, 0, strings.Count(doc, `"`)/4+braces+1),
		objects: make([]object, 0, braces),
	}
	// The top level's Raw runs to the end of the input; its '}' is the
	// last one, since only whitespace may follow it.
	top.Index += start
	if err := w.object(top, strings.LastIndexByte(src, '}'), -1, "", 1); err != nil {
		return nil, err
	}
	f := &File{src: src, members: w.members, objects: w.objects}
	if w.sep[1] > 0 {
		f.sep = src[w.sep[0]:w.sep[1]]
	}
	f.link()
	return f, nil
}

// valid reports whether doc is one JSON value. gjson's validator recurses
// once per level of nesting, so a document that could nest deeper than
// maxDepth goes to encoding/json's, whose scanner is iterative and stops
// at that depth; no translation file has that many brackets.
func valid(doc string) bool {
	if strings.Count(doc, "{")+strings.Count(doc, "[") <= maxDepth {
		return gjson.Valid(doc)
	}
	return stdjson.Valid([]byte(doc))
}

// syntaxError locates what makes src[start:] invalid. gjson only answers
// yes or no, so encoding/json's scanner, which agrees with it on what is
// valid, finds the offset; it runs only for files that fail.
func syntaxError(src string, start int) error {
	var raw stdjson.RawMessage
	err := stdjson.Unmarshal([]byte(src[start:]), &raw)
	var se *stdjson.SyntaxError
	if !errors.As(err, &se) {
		// Unreachable while the two validators agree.
		return parseError(src, start, errors.New("json: invalid JSON"))
	}
	off := start + int(se.Offset)
	// At the end encoding/json feeds its scanner a space, which it may
	// then name ("invalid character ' ' in string escape code") with the
	// same Offset as an error in the last byte: either way the input
	// simply ended.
	if se.Error() == "unexpected end of JSON input" ||
		off == len(src) && src[off-1] != ' ' && strings.HasPrefix(se.Error(), "invalid character ' '") {
		return parseError(src, len(src), errors.New("json: unexpected end of input"))
	}
	// Offset counts the offending character as read; point at it.
	for off--; off > start && !utf8.RuneStart(src[off]); off-- {
	}
	return parseError(src, off, errors.New("json: "+se.Error()))
}

// parseError locates a byte offset as a 1-based line and a column counted
// in characters, not counting a byte order mark.
func parseError(src string, off int, err error) *formats.ParseError {
	off = min(off, len(src))
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	if lineStart == 0 && strings.HasPrefix(src, bom) && off >= len(bom) {
		lineStart = len(bom)
	}
	return &formats.ParseError{
		Line:   strings.Count(src[:off], "\n") + 1,
		Column: utf8.RuneCountInString(src[lineStart:off]) + 1,
		Err:    err,
	}
}

// link applies "the last occurrence wins": a member whose context was seen
// before kills the earlier member and all its descendants.
func (f *File) link() {
	f.index = make(map[string]int32, len(f.members))
	for i := range f.members {
		m := &f.members[i]
		if prev, ok := f.index[m.ctx]; ok {
			for j := prev; j < f.members[prev].end; j++ {
				d := &f.members[j]
				d.dead = true
				if k, ok := f.index[d.ctx]; ok && k == j {
					delete(f.index, d.ctx)
				}
			}
		}
		f.index[m.ctx] = int32(i)
	}
	for i := range f.members {
		if m := &f.members[i]; m.kind == kindString && !m.dead {
			f.units++
		}
	}
}

// lineOf returns the 1-based line of off, which must not precede the last
// offset asked about: members are visited in file order.
func (w *walker) lineOf(off int) int32 {
	w.line += int32(strings.Count(w.s[w.lineAt:off], "\n"))
	w.lineAt = off
	return w.line
}

// object records the object obj, whose '}' is at close, and its members.
// prefix is the context of the member holding it, and owner that member's
// index, -1 for the top level; depth counts objects from the top level,
// which is 1. Offsets from gjson are absolute because
// obj.Index is: ForEach adds it to every key's and value's Index.
func (w *walker) object(obj gjson.Result, close, owner int, prefix string, depth int) error {
	if depth > maxObjectDepth {
		return parseError(w.s, obj.Index, fmt.Errorf("json: objects nested deeper than %d levels", maxObjectDepth))
	}
	oi := len(w.objects)
	w.objects = append(w.objects, object{open: obj.Index, close: close, lastEnd: -1})
	gapStart := obj.Index + 1
	obj.ForEach(func(key, val gjson.Result) bool {
		keyStart := key.Index
		if o := &w.objects[oi]; o.lastEnd >= 0 {
			gapStart = o.lastEnd + strings.IndexByte(w.s[o.lastEnd:keyStart], ',') + 1
		}
		valStart := val.Index
		if w.sep[1] == 0 {
			w.sep = [2]int{keyStart + len(key.Raw), valStart}
		}
		// Reserve the member's slot now so that it precedes its
		// descendants; it is filled in once the value is walked.
		mi := len(w.members)
		w.members = append(w.members, member{})
		m := member{
			ctx:      w.context(owner, prefix, key),
			gapStart: gapStart,
			keyStart: keyStart,
			valStart: valStart,
			valEnd:   valStart + len(val.Raw),
			line:     w.lineOf(keyStart),
			kind:     kindOther,
		}
		switch {
		case val.Type == gjson.String:
			m.kind = kindString
			m.escaped = strings.IndexByte(val.Raw, '\\') >= 0
		case val.IsObject():
			m.kind = kindObject
			m.obj = int32(len(w.objects))
			if w.err = w.object(val, m.valEnd-1, mi, m.ctx, depth+1); w.err != nil {
				return false
			}
		}
		m.end = int32(len(w.members))
		w.members[mi] = m
		o := &w.objects[oi]
		o.lastEnd, o.gapStart, o.gapEnd = m.valEnd, gapStart, keyStart
		o.afterComma = gapStart != o.open+1
		return true
	})
	return w.err
}

// context returns the flattened context of key in the object held by
// member owner (-1 for the top level), whose context is prefix.
func (w *walker) context(owner int, prefix string, key gjson.Result) string {
	if owner < 0 && strings.IndexByte(key.Raw, '\\') < 0 {
		// The common flat case: the context is the key as written, a
		// substring of the source.
		return key.Str
	}
	if owner >= 0 && w.arena.Cap() == 0 {
		// Nested contexts take about half the file in the corpus.
		w.arena.Grow(len(w.s) / 2)
	}
	start := w.arena.Len()
	if owner >= 0 {
		w.arena.WriteString(prefix)
		w.arena.WriteByte('.')
	}
	w.arena.WriteString(key.Str)
	return w.arena.String()[start:]
}

// unescape decodes a string literal, quotes included, that validation has
// accepted. Invalid or lone UTF-16 surrogates become U+FFFD, as in
// encoding/json.
func unescape(raw string) string {
	return gjson.Parse(raw).Str
}
