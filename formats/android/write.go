package android

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// newFile is what the reference writes for a new translation without a
// base file (AndroidFormat.new_translation in weblate/formats/ttkit.py).
const newFile = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources></resources>"

// cldrOrder is the order translate-toolkit writes plural items in.
var cldrOrder = []string{"zero", "one", "two", "few", "many", "other"}

// patch replaces src[start:end] with text.
type patch struct {
	start, end int
	text       string
}

// Apply writes edits into data. An edited <string> gets new content and
// nothing else changes; an edited <plurals> gets its items rewritten, one
// per category of f.Target.Plurals with a non-empty form (plus other,
// copied from the last form, when the language has many but no other, as
// translate-toolkit does so that Android does not crash). An edit whose
// target equals what the file already reads as leaves the bytes alone.
// A key the file lacks is added after the last resource, indented like
// it, unless its target is empty. An empty target for a key the file has
// empties the value, as translate-toolkit does; Android then shows an
// empty string rather than the template's, so a caller that means
// "untranslated" removes the unit instead (the reference's Remove blank
// strings add-on does that after the fact). Nil data is a new file for
// f.Target.
//
// Text is escaped as translate-toolkit escapes it; markup in the text
// (<b>, <xliff:g …>) is written as markup when it is well-formed and the
// value was not written with &lt; entities. Text that XML cannot hold is
// an error.
func (c Codec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	if data == nil {
		data = []byte(newFile)
	}
	if len(edits) == 0 {
		return data, nil
	}
	doc, err := parse(data)
	if err != nil {
		return nil, err
	}
	cats := categories(f)
	nl := newline(data)
	byName := make(map[string][]int, len(doc.elements))
	for i := range doc.elements {
		byName[doc.elements[i].name] = append(byName[doc.elements[i].name], i)
	}
	var (
		patches []patch
		added   []string
		seen    = map[string]bool{}
	)
	for _, e := range edits {
		if seen[e.Context] {
			continue // the first edit of a key wins
		}
		seen[e.Context] = true
		idx, ok := byName[e.Context]
		if !ok {
			if allEmpty(e.Target) {
				continue // absence already says untranslated
			}
			indent := doc.childIndent
			if indent == "" {
				indent = "    "
			}
			el, err := doc.newElement(e, cats, indent, nl)
			if err != nil {
				return nil, fmt.Errorf("android: %s: %w", e.Context, err)
			}
			added = append(added, el)
			continue
		}
		for _, i := range idx {
			p, changed, err := doc.edit(&doc.elements[i], e, cats, nl)
			if err != nil {
				return nil, fmt.Errorf("android: %s: %w", e.Context, err)
			}
			if changed {
				patches = append(patches, p)
			}
		}
	}
	if len(added) > 0 {
		patches = append(patches, doc.insertion(added, nl))
	}
	return splice(data, patches), nil
}

// edit returns the patch writing e into the element, and whether there is
// one.
func (doc *document) edit(el *element, e formats.Edit, cats []string, nl string) (patch, bool, error) {
	if el.kind == kindString && len(e.Target) <= 1 {
		target := first(e.Target)
		if target == el.str.text {
			return patch{}, false, nil
		}
		inner, err := encodeValue(target, el.str.mode, doc.entities)
		if err != nil {
			return patch{}, false, err
		}
		return valuePatch(&el.str, inner), true, nil
	}
	if el.kind == kindString {
		// A <string> edited with plural forms becomes a <plurals>, as
		// translate-toolkit's fixup_tag does.
		indent := indentBefore(doc.src, el.start)
		text, err := pluralsElement(el.name, e.Target, cats, el.str.mode, indent, nl, doc.entities)
		if err != nil {
			return patch{}, false, err
		}
		return patch{el.start, el.end, text}, true, nil
	}
	if slices.Equal(el.forms(cats), pad(e.Target, len(cats))) {
		return patch{}, false, nil
	}
	indent := indentBefore(doc.src, el.start)
	itemIndent := indent + indentUnit(indent)
	if len(el.items) > 0 && el.items[0].itemIndent != "" {
		itemIndent = el.items[0].itemIndent
	}
	m := modeXML
	for _, it := range el.items {
		if it.mode != modeXML {
			m = it.mode
		}
	}
	items, err := pluralItems(e.Target, cats, m, itemIndent, nl, doc.entities)
	if err != nil {
		return patch{}, false, err
	}
	// The end tag keeps the indentation it has on its own line.
	closeIndent := indentBefore(doc.src, el.innerEnd)
	if el.selfClosing || closeIndent == "" && (el.innerEnd == 0 || doc.src[el.innerEnd-1] != '\n') {
		closeIndent = indent
	}
	inner := items + nl + closeIndent
	if el.selfClosing {
		return patch{el.end - 2, el.end, ">" + inner + "</" + el.rawName + ">"}, true, nil
	}
	return patch{el.innerStart, el.innerEnd, inner}, true, nil
}

// valuePatch replaces a value's content, opening a self-closing element.
func valuePatch(v *value, inner string) patch {
	if v.selfClosing {
		if inner == "" {
			return patch{v.close, v.close, ""}
		}
		return patch{v.close - 2, v.close, ">" + inner + "</" + v.rawName + ">"}
	}
	return patch{v.start, v.end, inner}
}

// newElement writes a <string> or <plurals> for a key the file lacks.
func (doc *document) newElement(e formats.Edit, cats []string, indent, nl string) (string, error) {
	if e.Plural || len(e.Source) > 1 || len(e.Target) > 1 {
		return pluralsElement(e.Context, e.Target, cats, modeXML, indent, nl, doc.entities)
	}
	inner, err := encodeValue(first(e.Target), modeXML, doc.entities)
	if err != nil {
		return "", err
	}
	return `<string name="` + escapeAttr(e.Context) + `">` + inner + "</string>", nil
}

// pluralsElement writes a whole <plurals> element.
func pluralsElement(name string, forms, cats []string, m mode, indent, nl string, entities map[string]string) (string, error) {
	items, err := pluralItems(forms, cats, m, indent+indentUnit(indent), nl, entities)
	if err != nil {
		return "", err
	}
	return `<plurals name="` + escapeAttr(name) + `">` + items + nl + indent + "</plurals>", nil
}

// pluralItems writes the items of a <plurals>, each on its own line.
func pluralItems(forms, cats []string, m mode, indent, nl string, entities map[string]string) (string, error) {
	type item struct{ quantity, text string }
	forms = pad(forms, len(cats))
	items := make([]item, 0, len(cats)+1)
	for i, c := range cats {
		items = append(items, item{c, forms[i]})
	}
	if !slices.Contains(cats, "other") && slices.Contains(cats, "many") && len(forms) > 0 {
		items = append(items, item{"other", forms[len(forms)-1]})
	}
	sort.SliceStable(items, func(i, j int) bool {
		return cldrIndex(items[i].quantity) < cldrIndex(items[j].quantity)
	})
	var b strings.Builder
	for _, it := range items {
		if it.text == "" {
			continue
		}
		inner, err := encodeValue(it.text, m, entities)
		if err != nil {
			return "", err
		}
		b.WriteString(nl + indent + `<item quantity="` + escapeAttr(it.quantity) + `">` + inner + "</item>")
	}
	return b.String(), nil
}

func cldrIndex(c string) int {
	if i := slices.Index(cldrOrder, c); i >= 0 {
		return i
	}
	return len(cldrOrder)
}

// insertion places new elements after the last resource, or inside an
// empty <resources>.
func (doc *document) insertion(elems []string, nl string) patch {
	if doc.lastChild >= 0 {
		indent := doc.childIndent
		if indent == "" {
			indent = "    "
		}
		var b strings.Builder
		for _, el := range elems {
			b.WriteString(nl + indent + el)
		}
		return patch{doc.lastChild, doc.lastChild, b.String()}
	}
	var b strings.Builder
	for _, el := range elems {
		b.WriteString(nl + "    " + el)
	}
	b.WriteString(nl)
	if doc.rootSelfClosing {
		return patch{doc.rootClose, doc.rootClose + 2, ">" + b.String() + "</" + formats.RawElementName(doc.src, bytes.LastIndexByte(doc.src[:doc.rootClose], '<')) + ">"}
	}
	// Replace the white space before </resources> so that it ends up on a
	// line of its own once.
	ws := doc.rootClose
	for ws > doc.rootOpen && isSpace(doc.src[ws-1]) {
		ws--
	}
	return patch{ws, doc.rootClose, b.String()}
}

// encodeValue writes the content of a <string> or <item> holding target.
func encodeValue(target string, m mode, entities map[string]string) (string, error) {
	switch m {
	case modeCDATA:
		inner, ok := encodeMarkup(target, entities)
		if !ok {
			inner = escape(target, true)
			for _, r := range inner {
				if !isXMLChar(r) {
					return "", errInvalidChar
				}
			}
		}
		return "<![CDATA[" + strings.ReplaceAll(inner, "]]>", "]]]]><![CDATA[>") + "]]>", nil
	case modeXML:
		if strings.ContainsAny(target, "<&") {
			if inner, ok := encodeMarkup(target, entities); ok {
				return inner, nil
			}
		}
	}
	return escapeXMLText(escape(target, true))
}

// encodeMarkup writes a target holding well-formed markup: tags,
// comments, CDATA and entity references as they are, each run of text
// between them escaped for Android without quotes (two spaces become
// " \u0020"), as translate-toolkit's EncodingXMLParser does. ok is false
// when target is not well-formed XML content.
func encodeMarkup(target string, entities map[string]string) (string, bool) {
	src := "<x>" + target + "</x>"
	d := xml.NewDecoder(strings.NewReader(src))
	d.Entity = entities
	var b strings.Builder
	depth := 0
	for {
		before := int(d.InputOffset())
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", false
		}
		after := int(d.InputOffset())
		raw := src[before:after]
		switch tok.(type) {
		case xml.StartElement:
			depth++
			if depth > 1 && !(before == after) {
				b.WriteString(raw)
			}
		case xml.EndElement:
			if depth > 1 && before != after {
				b.WriteString(raw)
			}
			depth--
		case xml.CharData:
			if strings.HasPrefix(raw, "<![CDATA[") {
				b.WriteString(raw)
			} else {
				b.WriteString(escape(raw, false))
			}
		default:
			b.WriteString(raw)
		}
	}
	return b.String(), true
}

// escapeAttr escapes a value for a double-quoted attribute.
func escapeAttr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) //nolint:errcheck // a strings.Builder does not fail
	return b.String()
}

// Remove takes the <string> and <plurals> elements with the given keys
// out of data, with the comments right before them (their notes, as
// translate-toolkit's removeunit removes them), and the lines they stood
// on when nothing else did. Keys the file lacks are ignored.
func (Codec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	if len(keys) == 0 {
		return data, nil
	}
	doc, err := parse(data)
	if err != nil {
		return nil, err
	}
	drop := make(map[string]bool, len(keys))
	for _, k := range keys {
		drop[k.Context] = true
	}
	var patches []patch
	for i := range doc.elements {
		e := &doc.elements[i]
		if !drop[e.name] {
			continue
		}
		start, end := e.noteStart, e.end
		ls := start
		for ls > 0 && (data[ls-1] == ' ' || data[ls-1] == '\t') {
			ls--
		}
		le := end
		for le < len(data) && (data[le] == ' ' || data[le] == '\t' || data[le] == '\r') {
			le++
		}
		if (ls == 0 || data[ls-1] == '\n') && le < len(data) && data[le] == '\n' {
			start, end = ls, le+1
		}
		patches = append(patches, patch{start, end, ""})
	}
	return splice(data, patches), nil
}

// Emptied returns the file of a new translation made from template: its
// XML declaration, the comments before the root and the <resources> start
// tag as written, with no resources inside. Android falls back to the
// template for every string a translation lacks, so an untranslated
// string is left out rather than written empty; the reference reaches the
// same file through its "Remove blank strings" add-on, which it installs
// on every aresource component. String arrays are not translated here,
// so they are not copied either.
func (Codec) Emptied(template []byte, f formats.File) ([]byte, error) {
	doc, err := parse(template)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if doc.rootSelfClosing {
		b.Write(template[:doc.rootClose+2])
	} else {
		b.Write(template[:doc.rootOpen])
		closeStart := doc.rootClose
		closeEnd := closeStart + bytes.IndexByte(template[closeStart:], '>') + 1
		b.Write(template[closeStart:closeEnd])
	}
	if bytes.HasSuffix(template, []byte("\n")) {
		b.WriteString(newline(template))
	}
	return b.Bytes(), nil
}

// splice applies non-overlapping patches to data.
func splice(data []byte, patches []patch) []byte {
	if len(patches) == 0 {
		return data
	}
	sort.SliceStable(patches, func(i, j int) bool { return patches[i].start < patches[j].start })
	var b bytes.Buffer
	b.Grow(len(data) + 256)
	pos := 0
	for _, p := range patches {
		if p.start < pos {
			continue // overlaps an earlier patch of the same element
		}
		b.Write(data[pos:p.start])
		b.WriteString(p.text)
		pos = p.end
	}
	b.Write(data[pos:])
	return b.Bytes()
}

// newline is the file's line ending.
func newline(data []byte) string {
	if bytes.Contains(data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// indentUnit is one more level of indentation after indent.
func indentUnit(indent string) string {
	if strings.HasPrefix(indent, "\t") {
		return "\t"
	}
	if indent == "" {
		return "    "
	}
	return indent
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// pad returns s cut or extended with "" to n forms.
func pad(s []string, n int) []string {
	out := make([]string, n)
	copy(out, s)
	return out
}

func allEmpty(s []string) bool {
	for _, v := range s {
		if v != "" {
			return false
		}
	}
	return true
}
