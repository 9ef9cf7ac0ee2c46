package apple

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

// cldrOrder is the order of the CLDR plural categories; new categories
// are inserted in it.
var cldrOrder = []string{"zero", "one", "two", "few", "many", "other"}

func cldrRank(c string) int {
	for i, k := range cldrOrder {
		if k == c {
			return i
		}
	}
	return -1
}

const formatKey = "NSStringLocalizedFormatKey"

// span is a <string> element. Offsets index the file.
type span struct {
	tagStart, start, end, tagEnd int // '<' of <string>, content, just past </string>
	value                        string
	selfClosing                  bool // <string/>: start == end == tagEnd
}

// category is one plural category of a variable: <key>one</key><string>…
type category struct {
	name     string
	keyStart int // '<' of its <key>
	str      span
}

// block is a <key>name</key><dict>…</dict> pair: an entry of the top
// dict, or a variable inside an entry.
type block struct {
	name      string
	keyStart  int // '<' of <key>
	end       int // just past </dict>
	dictOpen  int // just past <dict>
	dictClose int // '<' of </dict>
	lastEnd   int // just past the last child; dictOpen when empty
	lastKey   int // '<' of the last child <key>; -1 when empty
	line      int
}

// variable is a plural variable of an entry.
type variable struct {
	block
	cats      []category
	valueType string
}

// entry is one localized string of a .stringsdict file.
type entry struct {
	block
	format *span
	vars   []variable
	dead   bool // a later entry has the same key
}

// dictFile is a parsed .stringsdict file.
type dictFile struct {
	text    string
	top     block // the top <dict> (name and keyStart unused)
	entries []entry
	index   map[string]int // entry key → index of its live entry
}

// parser walks a plist token by token; the decoder's InputOffset gives
// each token's byte range in the file.
type parser struct {
	d     *decoder
	start int // offset of the last token's first byte
}

// decoder is the part of xml.Decoder the parser uses, over xmlscan's
// byte-level scanner (the tokens xml.Decoder.Token gives a plist, end
// tags matched), which reads a file several times faster.
type decoder struct {
	s   *xmlscan.Scanner
	src []byte
}

func newDecoder(src []byte) *decoder {
	s := xmlscan.New(src)
	s.Ends = true
	return &decoder{s: s, src: src}
}

// Token returns the next token; see xml.Decoder.Token.
func (d *decoder) Token() (xml.Token, error) {
	t, _, _, err := d.s.Next()
	return t, err
}

// InputOffset is the offset just past the last token.
func (d *decoder) InputOffset() int64 { return int64(d.s.Offset()) }

// InputPos is InputOffset's line and column as xml.Decoder counts them
// (column 0 right after a line break).
func (d *decoder) InputPos() (line, col int) { return position(d.src, d.s.Offset()) }

func position(src []byte, off int) (line, col int) {
	off = min(off, len(src))
	return bytes.Count(src[:off], []byte{'\n'}) + 1, off - (bytes.LastIndexByte(src[:off], '\n') + 1)
}

// Skip passes over the rest of the element whose start was just read.
func (d *decoder) Skip() error {
	for depth := 0; ; {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				return nil
			}
			depth--
		}
	}
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := p.pos()
	return &formats.ParseError{Line: line, Column: col, Err: fmt.Errorf("apple: "+format, args...)}
}

// pos is the decoder's position, at least 1:1 (encoding/xml reports
// column 0 right after a line break).
func (p *parser) pos() (line, col int) {
	line, col = p.d.InputPos()
	return max(line, 1), max(col, 1)
}

// next returns the next element boundary, skipping whitespace, comments,
// processing instructions and the DOCTYPE; text elsewhere is an error.
func (p *parser) next() (xml.Token, error) {
	for {
		p.start = int(p.d.InputOffset())
		t, err := p.d.Token()
		if err == io.EOF {
			return nil, p.errorf("unexpected end of file")
		}
		if err != nil {
			var se *xmlscan.SyntaxError
			if errors.As(err, &se) {
				line, col := position(p.d.src, se.Offset)
				return nil, &formats.ParseError{Line: max(line, 1), Column: max(col, 1), Err: fmt.Errorf("apple: %s", se.Msg)}
			}
			return nil, p.errorf("%v", err)
		}
		switch t := t.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return nil, p.errorf("unexpected text %q", shorten(string(t)))
			}
		case xml.Directive:
			// The plist DOCTYPE names Apple's DTD, never read; any
			// declaration of entities or markup is refused.
			if names, err := formats.DoctypeEntities(t); err != nil || len(names) > 0 {
				if err == nil {
					err = formats.ErrDoctype
				}
				return nil, p.errorf("%w", err)
			}
		case xml.StartElement, xml.EndElement:
			return t, nil
		}
	}
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// text reads the character data of an element whose start was just
// read, up to its end tag, into a span.
func (p *parser) text(tagStart int) (span, error) {
	sp := span{tagStart: tagStart, start: int(p.d.InputOffset())}
	var b strings.Builder
	for {
		at := int(p.d.InputOffset())
		t, err := p.d.Token()
		if err != nil {
			if err == io.EOF {
				return sp, p.errorf("unexpected end of file")
			}
			return sp, p.errorf("%v", err)
		}
		switch t := t.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.Comment, xml.ProcInst:
		case xml.EndElement:
			sp.end, sp.tagEnd = at, int(p.d.InputOffset())
			sp.selfClosing = sp.end == sp.tagEnd
			sp.value = b.String()
			return sp, nil
		default:
			return sp, p.errorf("unexpected element inside <string> or <key>")
		}
	}
}

// skip passes over the element whose start was just read.
func (p *parser) skip() error {
	if err := p.d.Skip(); err != nil {
		return p.errorf("%v", err)
	}
	return nil
}

// dict reads the children of a <dict> whose start was just read as
// key/value pairs, calling fn with each key's span and line and the start
// of its value; fn reads or skips the value. It fills b's dict offsets.
func (p *parser) dict(b *block, fn func(key span, line int, val xml.StartElement, valStart int) error) error {
	b.dictOpen, b.lastEnd, b.lastKey = int(p.d.InputOffset()), int(p.d.InputOffset()), -1
	for {
		t, err := p.next()
		if err != nil {
			return err
		}
		if _, ok := t.(xml.EndElement); ok {
			b.dictClose, b.end = p.start, int(p.d.InputOffset())
			return nil
		}
		st := t.(xml.StartElement)
		if st.Name.Local != "key" {
			return p.errorf("expected <key> in <dict>, found <%s>", st.Name.Local)
		}
		line, _ := p.pos()
		key, err := p.text(p.start)
		if err != nil {
			return err
		}
		t, err = p.next()
		if err != nil {
			return err
		}
		val, ok := t.(xml.StartElement)
		if !ok {
			return p.errorf("<key>%s</key> has no value", shorten(key.value))
		}
		if err := fn(key, line, val, p.start); err != nil {
			return err
		}
		b.lastKey, b.lastEnd = key.tagStart, int(p.d.InputOffset())
	}
}

// parseDict reads a .stringsdict file.
func parseDict(data []byte) (*dictFile, error) {
	df := &dictFile{text: string(data), index: make(map[string]int)}
	p := &parser{d: newDecoder(data)}
	t, err := p.next()
	if err != nil {
		return nil, err
	}
	if st, ok := t.(xml.StartElement); !ok || st.Name.Local != "plist" {
		return nil, p.errorf("expected <plist>")
	}
	t, err = p.next()
	if err != nil {
		return nil, err
	}
	if st, ok := t.(xml.StartElement); !ok || st.Name.Local != "dict" {
		return nil, p.errorf("expected <dict> in <plist>")
	}
	df.top.keyStart = p.start
	err = p.dict(&df.top, func(key span, line int, val xml.StartElement, valStart int) error {
		if val.Name.Local != "dict" {
			return p.errorf("%s is not a <dict>", shorten(key.value))
		}
		e := entry{block: block{name: key.value, keyStart: key.tagStart, line: line}}
		if err := p.entry(&e); err != nil {
			return err
		}
		if i, dup := df.index[e.name]; dup {
			df.entries[i].dead = true
		}
		df.index[e.name] = len(df.entries)
		df.entries = append(df.entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	t, err = p.next()
	if err != nil {
		return nil, err
	}
	if _, ok := t.(xml.EndElement); !ok {
		return nil, p.errorf("expected </plist> after the top <dict>")
	}
	for {
		t, err := p.d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, p.errorf("%v", err)
		}
		if c, ok := t.(xml.CharData); ok && len(bytes.TrimSpace(c)) == 0 {
			continue
		}
		if _, ok := t.(xml.Comment); ok {
			continue
		}
		return nil, p.errorf("content after </plist>")
	}
	return df, nil
}

// entry reads the <dict> of one localized string.
func (p *parser) entry(e *entry) error {
	return p.dict(&e.block, func(key span, line int, val xml.StartElement, valStart int) error {
		if key.value == formatKey {
			if val.Name.Local != "string" {
				return p.errorf("%s of %s is not a <string>", formatKey, shorten(e.name))
			}
			sp, err := p.text(valStart)
			if err != nil {
				return err
			}
			e.format = &sp
			return nil
		}
		if val.Name.Local != "dict" {
			return p.errorf("unexpected key %s in %s", shorten(key.value), shorten(e.name))
		}
		v := variable{block: block{name: key.value, keyStart: key.tagStart, line: line}}
		err := p.dict(&v.block, func(key span, line int, val xml.StartElement, valStart int) error {
			if val.Name.Local != "string" {
				return p.skip()
			}
			sp, err := p.text(valStart)
			if err != nil {
				return err
			}
			switch {
			case key.value == "NSStringFormatSpecTypeKey":
				if sp.value != "NSStringPluralRuleType" {
					return p.errorf("%s in %s is not of NSStringPluralRuleType", shorten(v.name), shorten(e.name))
				}
			case key.value == "NSStringFormatValueTypeKey":
				v.valueType = sp.value
			case cldrRank(key.value) >= 0:
				v.cats = append(v.cats, category{name: key.value, keyStart: key.tagStart, str: sp})
			}
			return nil
		})
		if err != nil {
			return err
		}
		e.vars = append(e.vars, v)
		return nil
	})
}

// varContext is the Context of a variable's unit: the entry's key and the
// variable's name joined by ':', as the reference names it.
func varContext(entry, variable string) string { return entry + ":" + variable }

// cat returns the variable's category by name, nil when absent.
func (v *variable) cat(name string) *category {
	for i := range v.cats {
		if v.cats[i].name == name {
			return &v.cats[i]
		}
	}
	return nil
}

// units returns the file's units: for each entry its format string, then
// one plural unit per variable with a form per plural category.
func (df *dictFile) units(plurals []string) []formats.Unit {
	var units []formats.Unit
	for i := range df.entries {
		e := &df.entries[i]
		if e.dead {
			continue
		}
		if e.format != nil {
			units = append(units, formats.Unit{Context: e.name, Target: []string{e.format.value}, Line: e.line})
		}
		for j := range e.vars {
			v := &e.vars[j]
			target := make([]string, len(plurals))
			for k, c := range plurals {
				if cp := v.cat(c); cp != nil {
					target[k] = cp.str.value
				}
			}
			units = append(units, formats.Unit{Context: varContext(e.name, v.name), Target: target, Line: v.line})
		}
	}
	return units
}
