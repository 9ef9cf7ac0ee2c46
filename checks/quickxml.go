package checks

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// quickXML decides the common case of parseXML without encoding/xml,
// whose decoder costs a few microseconds per string: text with simple
// elements (<b>, </b>, <br/>, <a href="x">) and no entities, comments,
// CDATA, processing instructions or declarations. It returns ok=false for
// anything else, and parseXML then asks encoding/xml, so the two agree:
// on this subset encoding/xml accepts exactly the properly nested texts
// and reports their elements in the same order with the same names.
func quickXML(text string) (tags []xmlTagID, err error, ok bool) {
	var stack []string
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '&':
			return nil, nil, false // a bare & (entities were replaced)
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r':
			return nil, nil, false // not an XML character
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && n == 1 || r == 0xfffe || r == 0xffff {
				return nil, nil, false
			}
			i += n
			continue
		case c == ']' && strings.HasPrefix(text[i:], "]]>"):
			return nil, nil, false
		case c != '<':
			i++
			continue
		}
		j := i + 1
		end := j < len(text) && text[j] == '/'
		if end {
			j++
		}
		n := xmlNameEnd(text, j)
		if n == j {
			return nil, nil, false // <!--, <?, < b, <3 …
		}
		name := text[j:n]
		j = n
		if end {
			if j >= len(text) || text[j] != '>' {
				return nil, nil, false
			}
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return nil, errQuickXML, true
			}
			stack = stack[:len(stack)-1]
			i = j + 1
			continue
		}
		var attrs []byte
		for {
			if j >= len(text) {
				return nil, nil, false
			}
			switch text[j] {
			case ' ', '\t', '\n', '\r':
				j++
				continue
			case '>':
				stack = append(stack, name)
				tags = append(tags, xmlTagID{name: name, attrs: string(attrs)})
				i = j + 1
			case '/':
				if j+1 >= len(text) || text[j+1] != '>' {
					return nil, nil, false
				}
				tags = append(tags, xmlTagID{name: name, attrs: string(attrs)})
				i = j + 2
			default:
				// An attribute: name="value" or name='value', after a space.
				if text[j-1] != ' ' && text[j-1] != '\t' && text[j-1] != '\n' && text[j-1] != '\r' {
					return nil, nil, false
				}
				a := xmlNameEnd(text, j)
				if a == j || a+1 >= len(text) || text[a] != '=' || (text[a+1] != '"' && text[a+1] != '\'') {
					return nil, nil, false
				}
				q := text[a+1]
				v := a + 2
				for v < len(text) && text[v] != q {
					if b := text[v]; b == '<' || b == '&' || b >= utf8.RuneSelf || b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
						return nil, nil, false // left to encoding/xml
					}
					v++
				}
				if v >= len(text) {
					return nil, nil, false
				}
				if len(attrs) > 0 {
					attrs = append(attrs, ' ')
				}
				attrs = append(attrs, text[j:a]...)
				j = v + 1
				continue
			}
			break
		}
	}
	if len(stack) > 0 {
		return nil, errQuickXML, true
	}
	return tags, nil, true
}

var errQuickXML = errors.New("xml: unbalanced elements")

// xmlNameEnd returns the end of a simple ASCII XML name starting at i
// (i itself when there is none): a letter or _, then letters, digits,
// _ - and . — no colon, so namespaces go to encoding/xml.
func xmlNameEnd(s string, i int) int {
	j := i
	for j < len(s) {
		c := s[j]
		if isLetterByte(c) || c == '_' || j > i && (c >= '0' && c <= '9' || c == '-' || c == '.') {
			j++
			continue
		}
		break
	}
	return j
}
