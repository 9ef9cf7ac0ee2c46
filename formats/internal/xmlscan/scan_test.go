package xmlscan

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/tolk-project/tolk/formats/internal/corpustest"
)

// token is a token with its offsets, comparable across the two readers.
type token struct {
	tok        xml.Token
	start, end int
}

// reference reads src with encoding/xml's RawToken, the reader the
// scanner replaces.
func reference(src []byte) ([]token, error) {
	d := xml.NewDecoder(bytes.NewReader(src))
	var out []token
	for {
		start := int(d.InputOffset())
		tok, err := d.RawToken()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, token{xml.CopyToken(tok), start, int(d.InputOffset())})
	}
}

func scan(src []byte) ([]token, error) {
	s := New(src)
	var out []token
	for {
		tok, start, end, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, token{xml.CopyToken(tok), start, end})
	}
}

// same checks that the scanner reads src as RawToken does: the same
// tokens at the same offsets, and an error where RawToken has one.
func same(t *testing.T, name string, src []byte) {
	t.Helper()
	want, werr := reference(src)
	got, gerr := scan(src)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: encoding/xml says %v, the scanner %v", name, werr, gerr)
	}
	if werr != nil {
		var se *SyntaxError
		if !errors.As(gerr, &se) {
			t.Fatalf("%s: error %T %v is no *SyntaxError", name, gerr, gerr)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d tokens, encoding/xml %d", name, len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if d, ok := w.tok.(xml.Directive); ok && len(d) == 0 {
			w.tok = xml.Directive(nil)
		}
		if !reflect.DeepEqual(normal(w.tok), normal(g.tok)) || w.start != g.start || w.end != g.end {
			t.Fatalf("%s: token %d is %#v at %d–%d, encoding/xml %#v at %d–%d", name, i, g.tok, g.start, g.end, w.tok, w.start, w.end)
		}
	}
}

// normal makes empty and nil contents compare equal.
func normal(t xml.Token) xml.Token {
	switch v := t.(type) {
	case xml.CharData:
		return string(v)
	case xml.Comment:
		return "comment:" + string(v)
	case xml.Directive:
		return "directive:" + string(v)
	case xml.ProcInst:
		return "pi:" + v.Target + ":" + string(v.Inst)
	case xml.StartElement:
		if len(v.Attr) == 0 {
			v.Attr = nil
		}
		return v
	}
	return t
}

// TestCorpus reads every XML file of the corpus both ways.
func TestCorpus(t *testing.T) {
	n := 0
	for _, dir := range []string{"kimai", "pkspot", "mastodon-ios", "newpipe", "tbx"} {
		for _, ext := range []string{".xlf", ".stringsdict", ".xml", ".tbx"} {
			for _, p := range corpustest.Walk(t, dir, ext) {
				same(t, p, corpustest.Read(t, p))
				n++
			}
		}
	}
	if n < 100 {
		t.Errorf("%d corpus files read", n)
	}
}

var seeds = []string{
	`<?xml version="1.0" encoding="UTF-8"?><a x="1" y='&lt;&#x41;&#66;'>t&amp;<b/><!-- c --><![CDATA[<raw>]]></a>`,
	"<a>\r\nx\ry</a>", `<!DOCTYPE r [<!ENTITY e "x"> <!-- > -->]><r/>`, `<p:a xmlns:p="u" p:b="c">d</p:a>`,
	`<?xml version="1.1"?><a/>`, `<?xml version="1.0" encoding="latin1"?><a/>`, `<a>&unknown;</a>`, `<a b=c/>`,
	`<a b/>`, `<a><!-- -- --></a>`, `<a>` + "\x01" + `</a>`, "<a>\xff</a>", `<a b="<"/>`, `</a>`, `<a`, `<a x="1"y="2"/>`,
	`<1a/>`, `<a>&#0;</a>`, `<a>&#xD800;</a>`, `<?pi?>`, `<!x>`, `< a/>`, `<a></a >`, `<a></ a>`,
}

func TestSeeds(t *testing.T) {
	for _, s := range seeds {
		same(t, s, []byte(s))
	}
}

// FuzzScan checks that the scanner accepts exactly what RawToken
// accepts and reads it the same.
func FuzzScan(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { same(t, "fuzz", src) })
}
