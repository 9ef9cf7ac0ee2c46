package xliff

import (
	"bytes"
	"encoding/xml"
	"io"
	"sort"
	"strings"
)

// patch replaces src[start:end] with text; start == end inserts.
type patch struct {
	start, end int
	text       string
}

// splice applies non-overlapping patches to src. Patches at the same
// offset apply in the order given, insertions before replacements.
func splice(src []byte, ps []patch) []byte {
	if len(ps) == 0 {
		return src
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].start != ps[j].start {
			return ps[i].start < ps[j].start
		}
		return ps[i].end < ps[j].end
	})
	n := len(src)
	for _, p := range ps {
		n += len(p.text) - (p.end - p.start)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, p := range ps {
		if p.start < at {
			continue // overlaps one already applied; callers avoid this
		}
		out = append(out, src[at:p.start]...)
		out = append(out, p.text...)
		at = p.end
	}
	return append(out, src[at:]...)
}

// attrSpan finds the attribute name (as written, prefix included) in the
// start tag tag and returns the span of its value between the quotes and
// the quote character.
func attrSpan(src []byte, tag span, name string) (val span, quote byte, whole span, ok bool) {
	i := tag.start + 1
	for i < tag.end && !isSpace(src[i]) && src[i] != '>' && src[i] != '/' {
		i++
	}
	for i < tag.end {
		ws := i
		for i < tag.end && isSpace(src[i]) {
			i++
		}
		if i >= tag.end || src[i] == '>' || src[i] == '/' {
			return span{}, 0, span{}, false
		}
		ns := i
		for i < tag.end && !isSpace(src[i]) && src[i] != '=' {
			i++
		}
		an := string(src[ns:i])
		for i < tag.end && (isSpace(src[i]) || src[i] == '=') {
			i++
		}
		if i >= tag.end {
			return span{}, 0, span{}, false
		}
		q := src[i]
		vs := i + 1
		ve := bytes.IndexByte(src[vs:tag.end], q)
		if ve < 0 {
			return span{}, 0, span{}, false
		}
		i = vs + ve + 1
		if an == name {
			return span{vs, vs + ve}, q, span{ws, i}, true
		}
	}
	return span{}, 0, span{}, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// setAttr returns the patch that gives the start tag's attribute name
// the value value: its value replaced in place, or the attribute added
// before the tag's closing > or />. No patch when it already has it.
func setAttr(src []byte, tag span, name, value string) []patch {
	val, q, _, ok := attrSpan(src, tag, name)
	if ok {
		if unescapeAttr(string(src[val.start:val.end])) == value {
			return nil
		}
		return []patch{{val.start, val.end, escapeAttr(value, q)}}
	}
	at := tag.end - 1
	if src[at-1] == '/' {
		at--
	}
	for at > tag.start && isSpace(src[at-1]) {
		at--
	}
	return []patch{{at, at, " " + name + `="` + escapeAttr(value, '"') + `"`}}
}

// dropAttr returns the patch that takes the attribute name, with the
// white space before it, out of the start tag.
func dropAttr(src []byte, tag span, name string) []patch {
	if _, _, whole, ok := attrSpan(src, tag, name); ok {
		return []patch{{whole.start, whole.end, ""}}
	}
	return nil
}

func unescapeAttr(s string) string {
	if !strings.ContainsRune(s, '&') {
		return s
	}
	var v struct {
		A string `xml:"a,attr"`
	}
	if err := xml.Unmarshal([]byte(`<x a="`+strings.ReplaceAll(s, `"`, "&quot;")+`"/>`), &v); err != nil {
		return s
	}
	return v.A
}

// escapeAttr escapes an attribute value for quoting with q.
func escapeAttr(s string, q byte) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '"' && q == '"':
			b.WriteString("&quot;")
		case c == '\'' && q == '\'':
			b.WriteString("&apos;")
		case c == '\n':
			b.WriteString("&#10;")
		case c == '\t':
			b.WriteString("&#9;")
		case c == '\r':
			b.WriteString("&#13;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// escapeText escapes &, < and > of s.
func escapeText(s string) string {
	var b strings.Builder
	escapeTo(&b, s)
	return b.String()
}

// markup returns what a unit string becomes inside <target>: escaped
// text in PlainXLIFF; otherwise the string
// itself when it is well-formed XML content (the reference parses it as
// placeables markup), else the string with &, < and > escaped (the
// reference's fallback when the markup does not parse, ttkit.py
// RichXliffUnit.set_target).
func (d *doc) markup(s string) string {
	if d.plain {
		return escapeText(s)
	}
	if wellFormed(s) {
		return s
	}
	return escapeText(s)
}

// wellFormed says s is XML content that can stand between a start and an
// end tag: balanced elements, known entities, no DOCTYPE.
func wellFormed(s string) bool {
	if !strings.ContainsAny(s, "<&") {
		return !strings.Contains(s, "]]>")
	}
	dec := xml.NewDecoder(strings.NewReader("<w>" + s + "</w>"))
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return depth == 0
		}
		if err != nil {
			return false
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
			if depth == 0 {
				// the wrapper closes only at the very end
				_, err := dec.Token()
				return err == io.EOF
			}
		case xml.Directive:
			return false
		}
	}
}

// wholeLines widens [start, end) to the whole lines it sits on when
// nothing but white space shares them, so that removing it leaves no
// blank line.
func wholeLines(src []byte, start, end int) (int, int) {
	s := start
	for s > 0 && (src[s-1] == ' ' || src[s-1] == '\t') {
		s--
	}
	if s > 0 && src[s-1] != '\n' {
		return start, end
	}
	e := end
	for e < len(src) && (src[e] == ' ' || src[e] == '\t' || src[e] == '\r') {
		e++
	}
	switch {
	case e < len(src) && src[e] == '\n':
		return s, e + 1
	case e == len(src):
		return s, e
	}
	return start, end
}

// lineIndent returns the white space between the start of off's line and
// off, and false when something else precedes off on its line.
func lineIndent(src []byte, off int) (string, bool) {
	s := off
	for s > 0 && (src[s-1] == ' ' || src[s-1] == '\t') {
		s--
	}
	if s > 0 && src[s-1] != '\n' {
		return "", false
	}
	return string(src[s:off]), true
}

// newline returns the file's line ending.
func newline(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// commentsAbove moves line start s up over the lines right above it that
// hold nothing but one XML comment each, the comments of what starts at s.
func commentsAbove(src []byte, s int) int {
	for s > 0 {
		prev := bytes.LastIndexByte(src[:s-1], '\n') + 1
		line := bytes.TrimSpace(src[prev : s-1])
		if len(line) < 7 || !bytes.HasPrefix(line, []byte("<!--")) || !bytes.HasSuffix(line, []byte("-->")) ||
			bytes.Contains(line[4:len(line)-3], []byte("--")) {
			return s
		}
		s = prev
	}
	return s
}
