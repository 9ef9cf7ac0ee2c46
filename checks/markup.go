package checks

import (
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Markup checks (reference §1.3, Weblate's markup.py).
//
// xml-invalid, xml-tags and xml-chars-around-tags run only when every
// source form looks like markup (holds a <…> tag) and parses as XML once
// wrapped in a root element, or when the xml-text flag is set; all three
// are skipped under safe-html. Entities (&amp;, &#10;, &nbsp;) are
// replaced by a space before parsing, so undeclared HTML entities do not
// make a string invalid. Parsing uses encoding/xml's streaming decoder:
// its work is linear in the input and a syntax error is an error value,
// never a panic.

// xmlTag finds tag-like spans, as Weblate's XML_MATCH. tagSpans is the
// same search without the regexp engine, for the hot paths.
var xmlTag = regexp.MustCompile(`<[^>]+>`)

// tagSpans returns the matches of xmlTag in s: from a "<" to the next
// ">", with at least one character between.
func tagSpans(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			break
		}
		lt += i
		gt := strings.IndexByte(s[lt+1:], '>')
		if gt < 0 {
			break
		}
		if gt == 0 { // "<>": no match here
			i = lt + 1
			continue
		}
		end := lt + 1 + gt + 1
		out = append(out, [2]int{lt, end})
		i = end
	}
	return out
}

// replaceTags is xmlTag.ReplaceAllString(s, repl).
func replaceTags(s, repl string) string {
	spans := tagSpans(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString(repl)
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// xmlEntity finds character and entity references, as Weblate's
// XML_ENTITY_MATCH.
var xmlEntity = regexp.MustCompile(`&(#[0-9]+|#x[0-9a-fA-F]+|[_:A-Za-z][_:A-Za-z0-9.-]*);`)

// xmlTagID is one element as xml-tags compares it: its name and its
// attribute names, in document order.
type xmlTagID struct {
	name  string
	attrs string
}

// xmlParse is one memoised parseXML result.
type xmlParse struct {
	text string
	tags []xmlTagID
	err  error
}

// parseXML is the package-level parseXML, memoised for the length of one
// Run: the three markup checks parse each source form up to eight times.
func (u *Unit) parseXML(text string) ([]xmlTagID, error) {
	if u.memo == nil {
		return parseXML(text)
	}
	for _, p := range u.memo.xml {
		if p.text == text {
			return p.tags, p.err
		}
	}
	tags, err := parseXML(text)
	u.memo.xml = append(u.memo.xml, xmlParse{text, tags, err})
	return tags, err
}

// parseXML parses text wrapped in a root element (or, for a text with an
// XML declaration, as it is) and returns its elements in document order.
func parseXML(text string) ([]xmlTagID, error) {
	if !strings.ContainsAny(text, "<&") {
		return nil, nil // character data only: no elements, always valid
	}
	if strings.IndexByte(text, '&') >= 0 {
		text = xmlEntity.ReplaceAllString(text, " ")
	}
	if tags, err, ok := quickXML(text); ok {
		return tags, err
	}
	tags, err := decodeXML("<weblate>" + text + "</weblate>")
	if err != nil && strings.HasPrefix(strings.TrimSpace(text), "<?xml") {
		return decodeXML(text)
	}
	if err != nil {
		return nil, err
	}
	return tags[1:], nil // drop the wrapper
}

func decodeXML(text string) ([]xmlTagID, error) {
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = true
	var tags []xmlTagID
	depth, roots := 0, 0
	for {
		tok, err := d.Token() // Token checks that end tags match start tags
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
			var b strings.Builder
			for i, a := range el.Attr {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(qname(a.Name))
			}
			tags = append(tags, xmlTagID{name: qname(el.Name), attrs: b.String()})
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && strings.TrimSpace(string(el)) != "" {
				return nil, errors.New("xml: text outside the root element")
			}
		}
	}
	if roots != 1 {
		return nil, errors.New("xml: not exactly one root element")
	}
	return tags, nil
}

func qname(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

// markupSource reports whether the markup checks apply to u: not under
// safe-html, and either xml-text is set or every source form holds a tag
// and parses.
func markupSource(u *Unit) bool {
	if u.Flags.Has("safe-html") || len(u.Source) == 0 {
		return false
	}
	if u.Flags.Has("xml-text") {
		return true
	}
	for _, s := range u.Source {
		if !strings.Contains(s, "<") || len(tagSpans(s)) == 0 {
			return false
		}
		if _, err := u.parseXML(s); err != nil {
			return false
		}
	}
	return true
}

// xmlInvalid: the source parses, the target does not.
func xmlInvalid(u Unit) bool {
	if !markupSource(&u) {
		return false
	}
	return eachPair(u, func(s, t, _ string) bool {
		if _, err := u.parseXML(s); err != nil {
			return false
		}
		_, err := u.parseXML(t)
		return err != nil
	})
}

// xmlTags: both parse, and the target's elements (names and attribute
// names, in document order) differ from the source's.
func xmlTags(u Unit) bool {
	if !markupSource(&u) {
		return false
	}
	return eachPair(u, func(s, t, _ string) bool { return tagsDiffer(&u, s, t) })
}

func tagsDiffer(u *Unit, s, t string) bool {
	st, err := u.parseXML(s)
	if err != nil {
		return false
	}
	tt, err := u.parseXML(t)
	if err != nil {
		return false
	}
	if len(st) != len(tt) {
		return true
	}
	for i := range st {
		if st[i] != tt[i] {
			return true
		}
	}
	return false
}

// xmlCharsAroundTags: both forms parse with the same elements, and the
// character right before or right after some tag is of a different kind
// in the target than in the source. There are two kinds: a word
// character (letter, digit, mark, "_") and anything else, where the start
// or end of the string and a neighbouring tag count as "anything else".
// So "Click <b>here</b>." → "Klicken Sie <b>hier</b>." passes and
// "Click <b>here</b>." → "Klicken Sie<b>hier</b>." fails.
// Languages written without spaces (zh, ja, ko, th, lo, km, my) are
// skipped: their words legitimately touch tags.
func xmlCharsAroundTags(u Unit) bool {
	if !markupSource(&u) || isLanguage(u.Language, "zh", "ja", "th", "lo", "km", "my", "bo") {
		return false
	}
	return eachPair(u, func(s, t, lang string) bool {
		if _, err := u.parseXML(t); err != nil || tagsDiffer(&u, s, t) {
			return false
		}
		if _, err := u.parseXML(s); err != nil {
			return false
		}
		a, b := tagNeighbours(s), tagNeighbours(t)
		if len(a) != len(b) {
			return false // comments or declarations differ; xml-tags' domain
		}
		for i := range a {
			if a[i] != b[i] {
				return true
			}
		}
		return false
	})
}

// tagNeighbours returns, for each tag of text, whether the character
// before it and the character after it are word characters.
func tagNeighbours(text string) [][2]bool {
	locs := tagSpans(text)
	out := make([][2]bool, len(locs))
	for i, l := range locs {
		if i == 0 || locs[i-1][1] != l[0] {
			r, _ := utf8.DecodeLastRuneInString(text[:l[0]])
			out[i][0] = l[0] > 0 && wordRune(r)
		}
		if i == len(locs)-1 || locs[i+1][0] != l[1] {
			r, _ := utf8.DecodeRuneInString(text[l[1]:])
			out[i][1] = l[1] < len(text) && wordRune(r)
		}
	}
	return out
}

func wordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// safeHTMLTags is safe-html's allowlist: inline formatting, lists,
// paragraphs and links, the markup translations commonly carry. Scripts,
// styles, frames, forms, media and embedded objects are not on it, and
// neither are comments, processing instructions or declarations. A tag
// the source itself uses is allowed too (with the attributes the source
// gives it).
var safeHTMLTags = map[string]bool{
	"a": true, "abbr": true, "b": true, "bdi": true, "bdo": true,
	"blockquote": true, "br": true, "cite": true, "code": true,
	"del": true, "dfn": true, "div": true, "em": true, "h1": true,
	"h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"hr": true, "i": true, "ins": true, "kbd": true, "li": true,
	"mark": true, "ol": true, "p": true, "pre": true, "q": true,
	"s": true, "samp": true, "small": true, "span": true,
	"strong": true, "sub": true, "sup": true, "time": true, "u": true,
	"ul": true, "var": true,
}

// safeHTMLAttrs are the attributes allowed on any allowed tag; href is
// allowed on a when its value is relative or uses http, https or mailto.
var safeHTMLAttrs = map[string]bool{"title": true, "lang": true, "dir": true, "hreflang": true}

// htmlTagName reads a tag's name and attributes (lower-cased names; the
// raw value for href).
var (
	htmlTagName = regexp.MustCompile(`^</?\s*([A-Za-z][A-Za-z0-9:-]*)`)
	htmlAttr    = regexp.MustCompile(`([^\s"'<>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>` + "`" + `]+))?`)
)

// safeHTML: the target holds a tag outside the allowlist, an attribute
// outside it (any on… handler, style, src…), an href with another scheme
// (javascript:, data:), or a comment/declaration.
func safeHTML(s, t, _ string) bool {
	allowed := map[string]bool{}
	for _, tag := range xmlTag.FindAllString(s, -1) {
		allowed[tagKey(tag)] = true
	}
	for _, tag := range xmlTag.FindAllString(t, -1) {
		if allowed[tagKey(tag)] {
			continue
		}
		if !safeTag(tag) {
			return true
		}
	}
	return false
}

// tagKey normalises a tag for comparison with the source's tags.
func tagKey(tag string) string { return strings.ToLower(strings.Join(strings.Fields(tag), " ")) }

func safeTag(tag string) bool {
	m := htmlTagName.FindStringSubmatch(tag)
	if m == nil {
		return false // <!-- -->, <!DOCTYPE>, <?pi?>, < b>
	}
	name := strings.ToLower(m[1])
	if !safeHTMLTags[name] {
		return false
	}
	rest := strings.TrimSuffix(tag[len(m[0]):], ">")
	rest = strings.TrimSuffix(strings.TrimSpace(rest), "/")
	for _, a := range htmlAttr.FindAllStringSubmatch(rest, -1) {
		key := strings.ToLower(a[1])
		switch {
		case safeHTMLAttrs[key]:
		case key == "href" && name == "a":
			if !safeURL(strings.Trim(a[2], `"'`)) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func safeURL(v string) bool {
	v = strings.ToLower(strings.TrimSpace(xmlEntity.ReplaceAllString(v, "")))
	i := strings.IndexAny(v, ":/?#")
	if i < 0 || v[i] != ':' {
		return true // relative
	}
	switch v[:i] {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// The checks of this file and its siblings register themselves here
// rather than in the singles and wholes literals, so that parallel work on
// those literals merges cleanly. Package variables are initialised before
// run.go's init builds implemented from both maps.
var _ = register(
	map[string]single{"safe-html": safeHTML},
	map[string]whole{
		"xml-invalid":           xmlInvalid,
		"xml-tags":              xmlTags,
		"xml-chars-around-tags": xmlCharsAroundTags,
	},
)
