package tbx

import (
	"strings"

	"github.com/beevik/etree"
)

// The markup Tolk adds to a glossary, new documents, term entries,
// langSets and tigs, is built here as etree elements and serialized with
// the settings below; the span writer (encode.go) then places it in the
// file's bytes, so the rest of the file keeps its bytes.

// writeSettings escape text as escapeText does (only &, < and >, \r as a
// reference) and attributes canonically (& < " and white space).
var writeSettings = etree.WriteSettings{CanonicalText: true, CanonicalAttrVal: true}

// xmlString serializes el alone.
func xmlString(el *etree.Element) string {
	doc := etree.NewDocument()
	doc.WriteSettings = writeSettings
	doc.SetRoot(el)
	s, err := doc.WriteToString()
	if err != nil {
		panic("tbx: writing to a string: " + err.Error()) // a strings.Builder does not fail
	}
	return s
}

// clean replaces what an XML document cannot hold (invalid UTF-8, control
// characters) with U+FFFD, as escapeText does, since etree writes text as
// it is given.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if !isXMLChar(r) {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// tigElement is <p:tig><p:term>text</p:term></p:tig>; an empty text gives
// <p:term/>, the reference's untranslated term. p is the document's
// namespace prefix with its colon, or "".
func tigElement(p, text string) *etree.Element {
	tig := etree.NewElement(p + "tig")
	term := tig.CreateElement(p + "term")
	if text != "" {
		term.SetText(clean(text))
	}
	return tig
}

// langSetElement is a one-line langSet of lang holding text, as
// Translate Toolkit writes one.
func langSetElement(p, lang, text string) *etree.Element {
	ls := etree.NewElement(p + "langSet")
	ls.CreateAttr("xml:lang", clean(lang))
	ls.AddChild(tigElement(p, text))
	return ls
}

// side is one language of a new entry: its code and term.
type side struct{ lang, text string }

// entryElement is a new termEntry with one langSet per side. The id
// attribute is left out when id is "". inner goes before each langSet and
// outer before the end tag: a line break and indentation, or "" for an
// entry on one line.
func entryElement(p, id string, sides []side, inner, outer string) *etree.Element {
	e := etree.NewElement(p + "termEntry")
	if id != "" {
		e.CreateAttr("id", clean(id))
	}
	for _, s := range sides {
		if inner != "" {
			e.CreateText(inner)
		}
		e.AddChild(langSetElement(p, s.lang, s.text))
	}
	if outer != "" {
		e.CreateText(outer)
	}
	return e
}

// newDocument is an empty glossary laid out as Translate Toolkit writes
// one for Weblate, so that files Tolk creates look like their siblings.
func newDocument(sourceLang string) []byte {
	doc := etree.NewDocument()
	doc.WriteSettings = writeSettings
	doc.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	doc.CreateDirective(`DOCTYPE martif PUBLIC "ISO 12200:1999A//DTD MARTIF core (DXFcdV04)//EN" "TBXcdv04.dtd"`)
	martif := doc.CreateElement("martif")
	martif.CreateAttr("type", "TBX")
	martif.CreateAttr("xml:lang", clean(sourceLang))
	martif.CreateElement("martifHeader").CreateElement("fileDesc").CreateElement("sourceDesc").
		CreateElement("p").SetText("Tolk")
	body := martif.CreateElement("text").CreateElement("body")
	doc.Indent(4)
	// An empty body would be written <body/>; the new entries go before
	// its end tag, on the line Indent gives it.
	body.SetText("\n        ")
	b, err := doc.WriteToBytes()
	if err != nil {
		panic("tbx: writing to bytes: " + err.Error())
	}
	return b
}
