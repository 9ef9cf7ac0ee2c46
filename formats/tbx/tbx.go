package tbx

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

// xmlNamespace is what encoding/xml turns the reserved "xml" prefix into,
// so xml:lang arrives as {Space: xmlNamespace, Local: "lang"}.
const xmlNamespace = "http://www.w3.org/XML/1998/namespace"

// File is a decoded TBX glossary. It keeps the bytes it was decoded from so
// that Encode can reproduce them exactly. A File is not modified by its
// methods and is safe for concurrent use.
type File struct {
	src     []byte
	entries []entry
	// bodyEnd is the offset of the '<' of </body>, where new entries go
	// when the file has none; -1 when there is no such end tag.
	bodyEnd  int
	bodyName string // the body element's name as written
}

// entry is one termEntry. Offsets index File.src.
type entry struct {
	id       string
	line     int
	start    int // '<' of the start tag
	end      int // just past the element
	langSets []langSet
	meta     metadata // descrip, note, termNote directly under the termEntry
}

// langSet is one langSet of an entry.
type langSet struct {
	lang    string // xml:lang as written
	rawName string // element name as written, with any prefix
	start   int    // '<' of the start tag
	end     int    // just past the element
	endTag  int    // '<' of the end tag; -1 when self-closing
	term    *term  // the first term; nil when there is none
	meta    metadata
}

// term is the first term of a langSet.
type term struct {
	text    string
	rawName string
	// start and end delimit the content between <term> and </term>. For a
	// self-closing <term/> they delimit the closing "/>" instead.
	start, end  int
	selfClosing bool
}

// metadata collects descrip, note and termNote elements with their type
// attribute, in document order.
type metadata struct {
	descrips  []typedText
	notes     []string
	termNotes []typedText
}

type typedText struct{ typ, text string }

// Decode reads a whole TBX document. Malformed XML, including an empty
// input or one declaring an encoding other than UTF-8, is reported as a
// *formats.ParseError with the line and column where the parser stopped.
func Decode(r io.Reader) (*File, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return decode(src)
}

// collector accumulates the character data of one element (term, descrip,
// note or termNote), including that of any children.
type collector struct {
	depth int // element depth at which it started; 0 when idle
	kind  string
	typ   string
	buf   strings.Builder
}

func decode(src []byte) (*File, error) {
	f := &File{src: src, bodyEnd: -1}
	// xmlscan gives xml.Decoder.Token's tokens, end tags matched,
	// several times faster; the xml: prefix is the only namespace TBX
	// attributes are read in (xml:lang), translated as Token does.
	d := xmlscan.New(src)
	d.Ends = true
	lines := formats.NewLines(src)

	var (
		depth    int
		sawRoot  bool
		cur      *entry
		entryDep int
		ls       *langSet
		lsDep    int
		tm       *term
		col      collector
		bodyDep  int
	)
	for {
		tok, before, after, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xmlscan.SyntaxError
			if errors.As(err, &se) {
				return nil, parseError(src, se.Offset, err)
			}
			return nil, parseError(src, after, err)
		}
		if st, ok := tok.(xml.StartElement); ok {
			for i := range st.Attr {
				if st.Attr[i].Name.Space == "xml" {
					st.Attr[i].Name.Space = xmlNamespace
				}
			}
		}
		if dt, ok := tok.(xml.Directive); ok && bytes.HasPrefix(dt, []byte("DOCTYPE")) {
			// TBX names its DTD (martif) and declares no entities: any
			// declaration is refused.
			if names, err := formats.DoctypeEntities(dt); err != nil || len(names) > 0 {
				if err == nil {
					err = formats.ErrDoctype
				}
				return nil, parseError(src, before, fmt.Errorf("tbx: %w", err))
			}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			sawRoot = true
			selfClosing := after-before >= 2 && src[after-2] == '/' && src[after-1] == '>'
			if col.depth > 0 {
				continue // inside a term or note: children only add text
			}
			switch {
			case t.Name.Local == "body" && bodyDep == 0 && cur == nil:
				bodyDep, f.bodyName = depth, formats.RawElementName(src, before)
			case t.Name.Local == "termEntry" && cur == nil:
				f.entries = append(f.entries, entry{
					id:    attr(t, "", "id"),
					line:  lines.At(before),
					start: before,
				})
				cur, entryDep = &f.entries[len(f.entries)-1], depth
			case t.Name.Local == "langSet" && cur != nil && ls == nil:
				lang := attr(t, xmlNamespace, "lang")
				if lang == "" {
					lang = attr(t, "", "lang")
				}
				endTag := 0
				if selfClosing {
					endTag = -1
				}
				cur.langSets = append(cur.langSets, langSet{
					lang:    lang,
					rawName: formats.RawElementName(src, before),
					start:   before,
					endTag:  endTag,
				})
				ls, lsDep = &cur.langSets[len(cur.langSets)-1], depth
			case t.Name.Local == "term" && ls != nil && ls.term == nil:
				tm = &term{rawName: formats.RawElementName(src, before), start: after, selfClosing: selfClosing}
				if selfClosing {
					tm.start = after - 2
				}
				ls.term = tm
				col = collector{depth: depth, kind: "term"}
			case (t.Name.Local == "descrip" || t.Name.Local == "note" || t.Name.Local == "termNote") && cur != nil:
				col = collector{depth: depth, kind: t.Name.Local, typ: attr(t, "", "type")}
			}
		case xml.EndElement:
			switch {
			case col.depth == depth:
				text := col.buf.String()
				m := &cur.meta
				if ls != nil {
					m = &ls.meta
				}
				switch col.kind {
				case "term":
					tm.text = text
					// encoding/xml reports the end of a self-closing
					// element at the offset just past "/>", so before is
					// the end of the content only for a real end tag.
					tm.end = before
					if tm.selfClosing {
						tm.end = after
					}
					tm = nil
				case "descrip":
					m.descrips = append(m.descrips, typedText{col.typ, strings.TrimSpace(text)})
				case "note":
					m.notes = append(m.notes, strings.TrimSpace(text))
				case "termNote":
					m.termNotes = append(m.termNotes, typedText{col.typ, strings.TrimSpace(text)})
				}
				col = collector{}
			case ls != nil && depth == lsDep:
				ls.end = after
				if ls.endTag != -1 {
					ls.endTag = before
				}
				ls = nil
			case cur != nil && depth == entryDep:
				cur.end = after
				cur = nil
			case depth == bodyDep && cur == nil:
				if after-before > 2 && src[before] == '<' && src[before+1] == '/' {
					f.bodyEnd = before
				}
				bodyDep = -1 // only the first body counts
			}
			depth--
		case xml.CharData:
			if col.depth > 0 {
				col.buf.Write(t)
			}
		}
	}
	if !sawRoot {
		return nil, &formats.ParseError{Err: errors.New("tbx: no root element")}
	}
	return f, nil
}

// attr returns the value of the attribute with the given namespace and
// local name, "" when absent.
func attr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value
		}
	}
	return ""
}

func parseError(src []byte, off int, err error) *formats.ParseError {
	return formats.ErrorAt(src, off, err)
}

// New returns an empty glossary whose martif element names sourceLang, for
// a target language that has no file yet. It holds no entries, so Units
// returns none and Encode writes the document newDocument builds. targetLang
// is accepted for symmetry with the other calls; an empty TBX file does
// not record it.
func New(sourceLang, targetLang string) *File {
	f, err := decode(newDocument(sourceLang))
	if err != nil {
		panic("tbx: new document does not parse: " + err.Error()) // a bug, not input
	}
	return f
}
