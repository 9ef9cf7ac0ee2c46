package formats

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrDoctype is wrapped (in a *ParseError) by XML decoders given a
// DOCTYPE whose internal subset they do not accept: entity expansion
// (billion laughs, or one large entity referenced many times), external
// entities (file or network reads) and markup declarations have no place
// in a translation file, so an XML codec never lets encoding/xml see one.
var ErrDoctype = errors.New("DOCTYPE declares entities or markup, which translation files may not")

// DoctypeEntities checks a DOCTYPE directive, the bytes of an
// xml.Directive that start with "DOCTYPE", and returns the names of the
// internal entities its internal subset declares. A DOCTYPE that only
// names an external DTD (Apple's plist, TBX's martif) is accepted with
// no names: Tolk never reads that DTD. In the internal subset only
// comments and plain internal entities (<!ENTITY name "text">, text
// without references) are accepted, as Android resources use them for an
// application's name; a parameter or external entity, an entity whose
// text refers to another, and any other declaration are ErrDoctype.
func DoctypeEntities(directive []byte) ([]string, error) {
	open := bytes.IndexByte(directive, '[')
	if open < 0 {
		return nil, nil
	}
	end := bytes.LastIndexByte(directive, ']')
	if end < open {
		return nil, fmt.Errorf("%w: unterminated internal subset", ErrDoctype)
	}
	subset := directive[open+1 : end]
	var names []string
	for {
		subset = bytes.TrimLeft(subset, " \t\r\n")
		if len(subset) == 0 {
			return names, nil
		}
		if rest, ok := bytes.CutPrefix(subset, []byte("<!--")); ok {
			i := bytes.Index(rest, []byte("-->"))
			if i < 0 {
				return nil, fmt.Errorf("%w: unterminated comment", ErrDoctype)
			}
			subset = rest[i+3:]
			continue
		}
		rest, ok := bytes.CutPrefix(subset, []byte("<!ENTITY"))
		if !ok {
			return nil, fmt.Errorf("%w: only plain <!ENTITY name \"text\"> declarations are accepted", ErrDoctype)
		}
		name, value, rest, err := entityDecl(rest)
		if err != nil {
			return nil, err
		}
		if bytes.ContainsAny(value, "&%<") {
			return nil, fmt.Errorf("%w: entity %s refers to other entities or holds markup", ErrDoctype, name)
		}
		names = append(names, string(name))
		subset = rest
	}
}

// entityDecl reads ` name "value">` after "<!ENTITY".
func entityDecl(b []byte) (name, value, rest []byte, err error) {
	fail := func(why string) ([]byte, []byte, []byte, error) {
		return nil, nil, nil, fmt.Errorf("%w: %s", ErrDoctype, why)
	}
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == len(b) || len(t) == 0 || t[0] == '%' {
		return fail("parameter entities are not accepted")
	}
	i := bytes.IndexAny(t, " \t\r\n")
	if i <= 0 {
		return fail("malformed entity declaration")
	}
	name, t = t[:i], bytes.TrimLeft(t[i:], " \t\r\n")
	if len(t) == 0 || (t[0] != '"' && t[0] != '\'') {
		return fail("external entities are not accepted")
	}
	j := bytes.IndexByte(t[1:], t[0])
	if j < 0 {
		return fail("unterminated entity value")
	}
	value, t = t[1:1+j], bytes.TrimLeft(t[2+j:], " \t\r\n")
	if len(t) == 0 || t[0] != '>' {
		return fail("malformed entity declaration")
	}
	return name, value, t[1:], nil
}
