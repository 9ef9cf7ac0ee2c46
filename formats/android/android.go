package android

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Codec reads and writes Android string resources (file_format
// "aresource"). The zero value is ready to use and safe for concurrent
// use; it keeps no state between calls.
type Codec struct{}

var (
	_ formats.Codec         = Codec{}
	_ formats.Templater     = Codec{}
	_ formats.PathLanguages = Codec{}
)

// kind is the element a unit comes from.
type kind uint8

const (
	kindString kind = iota
	kindPlurals
)

// mode is how a value is written back, translate-toolkit's
// target_markup_mode read from the value as the file has it.
type mode uint8

const (
	// modeXML: markup in the text is written as elements, other text
	// escaped; the mode of plain values and of values holding elements.
	modeXML mode = iota
	// modePlain: the value showed < and > as entities (&lt;not set&gt;),
	// so text is always written escaped.
	modePlain
	// modeCDATA: the value was a CDATA section and is written as one.
	modeCDATA
)

// value is the content of one <string> or <item>. Offsets index the
// file's bytes.
type value struct {
	start, end  int // the content between the start and end tags
	selfClosing bool
	open, close int // '<' of the start tag; just past the element
	rawName     string
	text        string
	mode        mode
	quantity    string // <item quantity>; "" for a <string>
	itemIndent  string // white space before the item, from its line start
}

// element is one <string> or <plurals> directly under <resources>.
type element struct {
	kind     kind
	name     string
	line     int
	readOnly bool
	note     string
	// noteStart is the '<' of the first comment making up the note, or
	// start when there is none.
	noteStart  int
	start, end int // the element, start tag to end tag
	str        value
	items      []value // <plurals>'s items in file order
	// innerStart and innerEnd delimit a <plurals>'s content.
	innerStart, innerEnd int
	selfClosing          bool
	rawName              string
}

// document is a decoded resource file.
type document struct {
	src      []byte
	elements []element
	// rootOpen is just past <resources …>; rootClose is the '<' of
	// </resources>, or the '/' of a self-closing <resources/>.
	rootOpen, rootClose int
	rootSelfClosing     bool
	// lastChild is just past the last element directly under the root
	// (any element, string-array included), -1 when there is none.
	lastChild   int
	childIndent string // white space before the last child, from line start
	entities    map[string]string
}

// parse reads src into a document. Errors are *formats.ParseError.
func parse(src []byte) (*document, error) {
	doc := &document{src: src, lastChild: -1, rootClose: -1}
	d := xml.NewDecoder(bytes.NewReader(src))
	lines := formats.NewLines(src)

	var (
		depth    int
		cur      *element
		curDepth int
		val      *value
		valDepth int
		runs     []run
		// pending comments directly under the root, since the last
		// element: they become the note of the next <string>/<plurals>.
		notes     []string
		noteStart = -1
	)
	for {
		before := int(d.InputOffset())
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, parseError(src, int(d.InputOffset()), err)
		}
		after := int(d.InputOffset())
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			selfClosing := after-before >= 2 && src[after-2] == '/' && src[after-1] == '>'
			switch {
			case depth == 1:
				if t.Name.Local != "resources" {
					return nil, parseErrorf(src, before, "android: the root element is <%s>, not <resources>", t.Name.Local)
				}
				doc.rootOpen = after
				doc.rootSelfClosing = selfClosing
				if selfClosing {
					doc.rootClose = after - 2
				}
			case val != nil:
				runs = append(runs, run{raw: string(src[before:after]), markup: true})
			case depth == 2:
				doc.lastChild = -1
				doc.childIndent = indentBefore(src, before)
				name := attr(t, "name")
				k, ok := kindOf(t.Name)
				if !ok || name == "" {
					notes, noteStart = nil, -1
					break
				}
				e := element{
					kind:        k,
					name:        name,
					line:        lines.At(before),
					readOnly:    attr(t, "translatable") == "false",
					note:        strings.Join(notes, "\n"),
					noteStart:   before,
					start:       before,
					selfClosing: selfClosing,
					rawName:     formats.RawElementName(src, before),
					innerStart:  after,
				}
				if noteStart >= 0 {
					e.noteStart = noteStart
				}
				notes, noteStart = nil, -1
				doc.elements = append(doc.elements, e)
				cur, curDepth = &doc.elements[len(doc.elements)-1], depth
				if k == kindString {
					cur.str = value{start: after, open: before, selfClosing: selfClosing, rawName: cur.rawName}
					val, valDepth, runs = &cur.str, depth, runs[:0]
				}
			case depth == 3 && cur != nil && cur.kind == kindPlurals && t.Name.Local == "item" && t.Name.Space == "":
				cur.items = append(cur.items, value{
					start: after, open: before, selfClosing: selfClosing,
					rawName: formats.RawElementName(src, before), quantity: attr(t, "quantity"),
					itemIndent: indentBefore(src, before),
				})
				val, valDepth, runs = &cur.items[len(cur.items)-1], depth, runs[:0]
			}
		case xml.EndElement:
			switch {
			case val != nil && depth == valDepth:
				val.close = after
				val.end = before
				if val.selfClosing {
					val.start, val.end = after, after
				}
				val.text, val.mode = readValue(runs)
				val = nil
			case val != nil:
				runs = append(runs, run{raw: string(src[before:after]), markup: true})
			}
			if cur != nil && depth == curDepth {
				cur.end = after
				cur.innerEnd = before
				if cur.selfClosing {
					cur.innerStart, cur.innerEnd = after, after
				}
				cur = nil
			}
			if depth == 2 {
				doc.lastChild = after
			}
			if depth == 1 && !doc.rootSelfClosing {
				doc.rootClose = before
			}
			depth--
		case xml.CharData:
			if val != nil {
				raw := string(src[before:after])
				runs = append(runs, run{raw: raw, text: string(t), cdata: strings.HasPrefix(raw, "<![CDATA[")})
			}
		case xml.Comment:
			if val != nil {
				runs = append(runs, run{raw: string(src[before:after]), markup: true})
			} else if depth == 1 {
				if noteStart < 0 {
					noteStart = before
				}
				notes = append(notes, string(t))
			}
		case xml.Directive:
			if bytes.HasPrefix(t, []byte("DOCTYPE")) {
				names, err := formats.DoctypeEntities(t)
				if err != nil {
					return nil, parseError(src, before, fmt.Errorf("android: %w", err))
				}
				// The references stay as written in values, so the
				// decoder need not expand them: an empty replacement
				// keeps a large entity referenced many times cheap.
				doc.entities = make(map[string]string, len(names))
				for _, n := range names {
					doc.entities[n] = ""
				}
				d.Entity = doc.entities
			}
		case xml.ProcInst:
			if val != nil {
				runs = append(runs, run{raw: string(src[before:after]), markup: true})
			}
		}
	}
	if doc.rootClose < 0 {
		return nil, parseError(src, len(src), errNoRoot)
	}
	return doc, nil
}

// kindOf says which unit an element directly under <resources> makes.
// <string-array> is not a unit, as in translate-toolkit.
func kindOf(n xml.Name) (kind, bool) {
	if n.Space != "" {
		return 0, false
	}
	switch n.Local {
	case "string":
		return kindString, true
	case "plurals":
		return kindPlurals, true
	}
	return 0, false
}

// Decode reads a whole resource file: one unit per <string> (Context its
// name) and per <plurals> (Target one form per f.Target.Plurals category,
// "" where the file has no item), in file order. translatable="false"
// gives the flag "read-only"; the comments right before an element are
// its Note, joined with "\n". <string-array> and other resources are not
// units. Malformed XML, a root other than <resources> and an empty input
// are a *formats.ParseError.
func (Codec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	doc, err := parse(data)
	if err != nil {
		return nil, err
	}
	plurals := categories(f)
	units := make([]formats.Unit, 0, len(doc.elements))
	for i := range doc.elements {
		e := &doc.elements[i]
		u := formats.Unit{Context: e.name, Note: e.note, Line: e.line}
		if e.readOnly {
			u.Flags = []string{"read-only"}
		}
		if e.kind == kindString {
			u.Target = []string{e.str.text}
		} else {
			u.Target = e.forms(plurals)
		}
		units = append(units, u)
	}
	return units, nil
}

// categories returns the CLDR plural categories of the file's language,
// one, other when the caller gives none.
func categories(f formats.File) []string {
	if len(f.Target.Plurals) > 0 {
		return f.Target.Plurals
	}
	return []string{"one", "other"}
}

// forms returns a <plurals>'s texts in the order of cats; a category the
// file lacks is "". When an item repeats, the first one counts.
func (e *element) forms(cats []string) []string {
	out := make([]string, len(cats))
	for i, c := range cats {
		for _, it := range e.items {
			if it.quantity == c {
				out[i] = it.text
				break
			}
		}
	}
	return out
}

// attr returns the unprefixed attribute with the given name, "" when
// absent.
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// indentBefore returns the spaces and tabs between the start of off's line
// and off, "" when anything else stands there.
func indentBefore(src []byte, off int) string {
	i := off
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return ""
	}
	return string(src[i:off])
}

func parseError(src []byte, off int, err error) *formats.ParseError {
	return formats.ErrorAt(src, off, err)
}

func parseErrorf(src []byte, off int, format string, args ...any) *formats.ParseError {
	return parseError(src, off, fmt.Errorf(format, args...))
}

// errNoRoot is the parse error of a file without a <resources> element.
var errNoRoot = errors.New("android: no <resources> element")
