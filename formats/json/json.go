package json

import (
	"io"
	"io/fs"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Layout says how Encode writes a dotted context that is not in the file
// yet and whose leading segments name no existing object.
type Layout int

const (
	// LayoutAuto nests when the file already holds an object below the top
	// level, and writes flat keys otherwise. It is the zero value.
	LayoutAuto Layout = iota
	// LayoutFlat always writes a new key as one flat key with dots.
	LayoutFlat
	// LayoutNested always creates nested objects for the dotted segments.
	// Use it for a nested component whose translation file is still {},
	// since such a file cannot tell its layout itself.
	LayoutNested
)

// File is a decoded JSON translation file. It keeps the bytes it was
// decoded from so that Encode can reproduce them exactly.
//
// Methods do not modify a File, so they are safe for concurrent use as long
// as nobody sets Layout at the same time.
type File struct {
	// Layout decides how Encode inserts new dotted contexts; see Layout.
	Layout Layout
	// Dialect is the convention the file follows (i18next, go-i18n,
	// WebExtension); the zero value is Plain JSON. Set it after Decode.
	Dialect Dialect
	// Plurals are the CLDR plural categories of the file's language, one
	// per plural form in the language's form order ("one", "few", "many",
	// "other" for Czech). Dialects with plurals map forms to keys with
	// them; nil means "one", "other". Plain JSON ignores them.
	Plurals []string

	src     string   // the whole file, BOM included
	members []member // every object member in file order, nested ones after their parent
	objects []object // objects[0] is the top-level object
	index   map[string]int32
	units   int // live string members
	sep     string
}

// kind is what a member's value is.
type kind uint8

const (
	kindString kind = iota
	kindObject
	kindOther // number, boolean, null or array: validated but not a unit
)

// member is one key/value pair of an object. Offsets index File.src.
type member struct {
	ctx      string // the flattened context
	gapStart int    // first byte after the '{' or ',' in front of the key
	keyStart int    // the '"' opening the key
	valStart int    // first byte of the value (the '"' of a string)
	valEnd   int    // just past the value
	end      int32  // index past the member's last descendant in File.members
	obj      int32  // index in File.objects when kind is kindObject
	line     int32  // 1-based line of the key
	kind     kind
	escaped  bool // the string value contains a backslash
	dead     bool // overridden by a later member with the same context
}

// object is one JSON object that can receive inserted members.
type object struct {
	open, close int // offsets of '{' and '}'
	lastEnd     int // just past the value of the last member; -1 when empty
	gapStart    int // whitespace before the last member's key
	gapEnd      int
	afterComma  bool // the gap follows a comma, not the '{'
}

// Decode reads a whole JSON translation file. A UTF-8 byte order mark at
// the start is accepted (and kept by Encode). Malformed JSON, invalid
// UTF-8, an empty input, objects nested more than 32 levels deep and a
// top-level value other than an object are reported as a
// *formats.ParseError with the line and column of the first offending
// character; errors from r are returned as they are.
func Decode(r io.Reader) (*File, error) {
	// Reading into a strings.Builder sized from the reader, when it can
	// tell, avoids both io.ReadAll's regrowth and a copy into a string.
	var sb strings.Builder
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, bytes.Buffer, strings.Reader
		sb.Grow(r.Len())
	case interface{ Stat() (fs.FileInfo, error) }: // os.File
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			sb.Grow(int(fi.Size()))
		}
	}
	if _, err := io.Copy(&sb, r); err != nil {
		return nil, err
	}
	return decode(sb.String())
}

// New returns the File of a new, empty translation: "{}\n". Set its Layout
// to LayoutNested for a nested component.
func New() *File {
	f, err := decode("{}\n")
	if err != nil {
		panic("json: New: " + err.Error()) // cannot happen: the input is constant
	}
	return f
}

// Len returns the number of units, that is len(f.Units()); for Plain JSON
// without building them.
func (f *File) Len() int {
	if f.Dialect != Plain {
		return len(f.dialectUnits())
	}
	return f.units
}

// Units returns the file's string leaves in file order, one unit each.
// Context is the key, prefixed by the keys of the enclosing objects and
// ".": {"menu": {"file": "File"}} gives Context "menu.file". Target holds
// the decoded value; an empty string means untranslated. Line is the line
// of the key. Source is nil: a monolingual file's source is its template.
//
// Numbers, booleans, null and arrays are not translatable strings: they
// are skipped, and nothing inside an array is a unit.
//
// When a key repeats in one object, the last occurrence wins, as in
// encoding/json and JavaScript's JSON.parse: everything the earlier one
// held, a string or a whole object, is ignored, and Encode leaves its bytes
// alone. The same holds when two members flatten to the same context, as
// {"a.b": "x", "a": {"b": "y"}} does: only the later one is a unit.
//
// The returned strings may share memory with the File's source. Each call
// builds a new slice the caller owns.
//
// In a Dialect other than Plain, units are what the dialect says (see
// Dialect): a plural unit's Target has one form per entry of Plurals,
// and a message's description is its Note.
func (f *File) Units() []formats.Unit {
	if f.Dialect != Plain {
		return f.dialectUnits()
	}
	units := make([]formats.Unit, 0, f.units)
	// One backing array for every Target avoids an allocation per unit.
	targets := make([]string, f.units)
	for i := range f.members {
		m := &f.members[i]
		if m.kind != kindString || m.dead {
			continue
		}
		n := len(units)
		targets[n] = f.value(m)
		units = append(units, formats.Unit{
			Context: m.ctx,
			Target:  targets[n : n+1 : n+1],
			Line:    int(m.line),
		})
	}
	return units
}

// value returns the decoded value of a string member.
func (f *File) value(m *member) string {
	if !m.escaped {
		return f.src[m.valStart+1 : m.valEnd-1]
	}
	return unescape(f.src[m.valStart:m.valEnd])
}
