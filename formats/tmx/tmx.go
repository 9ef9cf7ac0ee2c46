// Package tmx reads and writes TMX 1.4 translation memories (LISA's
// Translation Memory eXchange, https://www.gala-global.org/tmx-14b), the
// import and export format of Tolk's translation memory. It is not a
// translation file format (no Codec): a memory is a list of pairs, not a
// file Tolk keeps in a repository.
//
// Documents are read with etree after a token pass with encoding/xml
// that refuses any DOCTYPE (formats.ErrDoctype): a memory has no use for
// one, and refusing it up front keeps entity expansion and external
// entities out whatever the parser would do. Reading is bounded by the
// caller's byte limit. Writing is streamed: the Encoder builds each <tu>
// with etree and writes it as it comes, so an export of millions of
// entries holds one at a time.
package tmx

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/beevik/etree"
	"github.com/tolk-project/tolk/formats"
)

// Unit is one translation pair of a memory.
type Unit struct {
	SourceLanguage, TargetLanguage string // as the file writes them (xml:lang)
	Source, Target                 string
	Context                        string // <prop type="x-context">
	Origin                         string // <prop type="x-origin">, else the header's o-tmf
}

// Errors of Decode, wrapped with where they were found.
var (
	ErrTooLarge = errors.New("tmx: the file is larger than allowed")
	ErrNotTMX   = errors.New("tmx: not a TMX document")
)

// Decode reads a TMX document of at most maxBytes bytes and returns its
// pairs: each <tu>'s source <tuv> (the language of the tu's srclang, or
// the header's) with each of its other <tuv>s. A header srclang of
// "*all*" takes the first <tuv> of each unit as its source. Errors wrap
// ErrTooLarge, ErrNotTMX, formats.ErrDoctype (in a *formats.ParseError
// with its line) or the XML error.
func Decode(r io.Reader, maxBytes int64) ([]Unit, error) {
	src, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(src)) > maxBytes {
		return nil, ErrTooLarge
	}
	if err := checkTokens(src); err != nil {
		return nil, err
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(src); err != nil {
		return nil, fmt.Errorf("tmx: %w", err)
	}
	root := doc.Root()
	if root == nil || root.Tag != "tmx" {
		return nil, ErrNotTMX
	}
	header := root.SelectElement("header")
	body := root.SelectElement("body")
	if header == nil || body == nil {
		return nil, fmt.Errorf("%w: it needs a <header> and a <body>", ErrNotTMX)
	}
	srcLang := header.SelectAttrValue("srclang", "")
	origin := header.SelectAttrValue("o-tmf", "")
	var out []Unit
	for _, tu := range body.SelectElements("tu") {
		lang := tu.SelectAttrValue("srclang", srcLang)
		tuvs := tu.SelectElements("tuv")
		if len(tuvs) < 2 {
			continue
		}
		si := 0
		if lang != "*all*" {
			si = -1
			for i, tuv := range tuvs {
				if strings.EqualFold(tuvLang(tuv), lang) {
					si = i
					break
				}
			}
			if si < 0 {
				return nil, fmt.Errorf("%w: a <tu> has no <tuv> in the source language %q", ErrNotTMX, lang)
			}
		}
		u := Unit{SourceLanguage: tuvLang(tuvs[si]), Source: segText(tuvs[si]), Origin: origin}
		for _, p := range tu.SelectElements("prop") {
			switch p.SelectAttrValue("type", "") {
			case "x-context":
				u.Context = p.Text()
			case "x-origin":
				u.Origin = p.Text()
			}
		}
		if u.SourceLanguage == "" {
			return nil, fmt.Errorf("%w: a <tuv> has no xml:lang", ErrNotTMX)
		}
		for i, tuv := range tuvs {
			if i == si {
				continue
			}
			t := u
			t.TargetLanguage, t.Target = tuvLang(tuv), segText(tuv)
			if t.TargetLanguage == "" {
				return nil, fmt.Errorf("%w: a <tuv> has no xml:lang", ErrNotTMX)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

// checkTokens reads the document's tokens once, refusing a DOCTYPE
// before etree sees anything.
func checkTokens(src []byte) error {
	d := xml.NewDecoder(bytes.NewReader(src))
	for {
		before := d.InputOffset()
		tok, err := d.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return formats.ErrorAt(src, int(d.InputOffset()), fmt.Errorf("tmx: %w", err))
		}
		if dt, ok := tok.(xml.Directive); ok && bytes.HasPrefix(bytes.TrimSpace(dt), []byte("DOCTYPE")) {
			return formats.ErrorAt(src, int(before), fmt.Errorf("tmx: %w", formats.ErrDoctype))
		}
	}
}

// tuvLang is a <tuv>'s language: xml:lang (TMX 1.4) or lang (1.1).
func tuvLang(tuv *etree.Element) string {
	for _, a := range tuv.Attr {
		if a.Key == "lang" && (a.Space == "xml" || a.Space == "") {
			return a.Value
		}
	}
	return ""
}

// segText is the text of a <tuv>'s <seg>: its character data and that
// of the inline elements that hold translatable text (<hi>, <sub>),
// without the native codes of <bpt>, <ept>, <it>, <ph> and <ut>.
func segText(tuv *etree.Element) string {
	seg := tuv.SelectElement("seg")
	if seg == nil {
		return ""
	}
	var b strings.Builder
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		for _, t := range e.Child {
			switch t := t.(type) {
			case *etree.CharData:
				b.WriteString(t.Data)
			case *etree.Element:
				switch t.Tag {
				case "bpt", "ept", "it", "ph", "ut":
				default:
					walk(t)
				}
			}
		}
	}
	walk(seg)
	return b.String()
}

// Encoder writes a TMX document a unit at a time.
type Encoder struct {
	w       io.Writer
	started bool
	srcLang string
	tool    string
	err     error
}

// NewEncoder returns an Encoder writing to w; srcLang is the header's
// srclang ("*all*" when the units have several source languages), tool
// its creationtool and o-tmf. Close the Encoder to end the document.
func NewEncoder(w io.Writer, srcLang, tool string) *Encoder {
	if srcLang == "" {
		srcLang = "*all*"
	}
	return &Encoder{w: w, srcLang: srcLang, tool: tool}
}

func (e *Encoder) write(s string) {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}

func (e *Encoder) start() {
	if e.started {
		return
	}
	e.started = true
	header := etree.NewElement("header")
	header.CreateAttr("creationtool", e.tool)
	header.CreateAttr("creationtoolversion", "1")
	header.CreateAttr("segtype", "sentence")
	header.CreateAttr("o-tmf", e.tool)
	header.CreateAttr("adminlang", "en")
	header.CreateAttr("srclang", e.srcLang)
	header.CreateAttr("datatype", "plaintext")
	e.write(xml.Header + `<tmx version="1.4">` + "\n  " + xmlString(header) + "\n  <body>\n")
}

// Encode writes one unit as a <tu>.
func (e *Encoder) Encode(u Unit) error {
	e.start()
	tu := etree.NewElement("tu")
	if u.SourceLanguage != "" {
		tu.CreateAttr("srclang", u.SourceLanguage)
	}
	if u.Context != "" {
		p := tu.CreateElement("prop")
		p.CreateAttr("type", "x-context")
		p.SetText(clean(u.Context))
	}
	if u.Origin != "" {
		p := tu.CreateElement("prop")
		p.CreateAttr("type", "x-origin")
		p.SetText(clean(u.Origin))
	}
	for _, side := range [][2]string{{u.SourceLanguage, u.Source}, {u.TargetLanguage, u.Target}} {
		tuv := tu.CreateElement("tuv")
		tuv.CreateAttr("xml:lang", side[0])
		tuv.CreateElement("seg").SetText(clean(side[1]))
	}
	e.write("    " + xmlString(tu) + "\n")
	return e.err
}

// Close ends the document (an empty <body> when nothing was encoded).
func (e *Encoder) Close() error {
	e.start()
	e.write("  </body>\n</tmx>\n")
	return e.err
}

// writeSettings escape text canonically: &, < and > (and \r) in text,
// quotes too in attributes.
var writeSettings = etree.WriteSettings{CanonicalText: true, CanonicalAttrVal: true}

func xmlString(el *etree.Element) string {
	doc := etree.NewDocument()
	doc.WriteSettings = writeSettings
	doc.SetRoot(el)
	s, err := doc.WriteToString()
	if err != nil {
		panic("tmx: writing to a string: " + err.Error()) // a strings.Builder does not fail
	}
	return s
}

// clean replaces what XML 1.0 cannot hold (invalid UTF-8, most control
// characters) with U+FFFD: etree writes text as given, and a memory
// holds whatever was translated.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) ||
			(r >= 0x10000 && r <= 0x10FFFF) {
			return r
		}
		return '\uFFFD'
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
