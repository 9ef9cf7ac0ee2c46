package xliff

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// shorten keeps the first n lines of a corpus file; whole files of
// 100 kB and more stall the fuzzer's minimizer. The cut file is not
// well-formed, which exercises the error path.
func shorten(data []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			return data
		}
		end += i + 1
	}
	return data[:end:end]
}

// FuzzDecode checks that Decode never panics and fails only with a
// *formats.ParseError carrying a position, and that for what it accepts
// Apply without edits returns the input, an edit of every unit yields a
// file that reads back with the new targets, and Remove and Emptied
// yield files that parse.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{
		"kimai/translations/validators.uk.xlf", "kimai/translations/messages.de_CH.xlf",
		"pkspot/src/locale/messages.fr.xlf", "pkspot/src/locale/messages.xlf",
	} {
		if data, err := os.ReadFile(corpusDir + "/" + p); err == nil {
			f.Add(shorten(data, 40))
		}
	}
	for _, s := range []string{
		doc12, doc20, "", "<xliff/>", `<xliff version="2.0"><file><unit id="a"><segment/></unit></file></xliff>`,
		`<xliff version="1.2"><file><body><trans-unit id="a"/></body></file></xliff>`,
		`<xliff version="1.2"><file original="o"><body/></file></xliff>`,
		`<xliff version="1.2"><file><body><trans-unit id="a"><source>x</source><target/></trans-unit></body></file></xliff>`,
		`<xliff version="1.2"><file><body><group restype="x-gettext-plurals" id="1"><note>n</note>` +
			`<trans-unit id="1[0]"><source>a</source><target>b</target></trans-unit>` +
			`<trans-unit id="1[1]"><source>as</source></trans-unit></group>` +
			`<trans-unit id="h" restype="x-gettext-domain-header"><source>H</source></trans-unit></body></file></xliff>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range []Codec{XLIFF, XLIFF2, PlainXLIFF, POXLIFF} {
			units, err := c.Decode(data, de())
			if err != nil {
				var pe *formats.ParseError
				if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
					t.Fatalf("error %T %v is not a *formats.ParseError with a position", err, err)
				}
				continue
			}
			out, err := c.Apply(data, de(), nil)
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("Apply without edits: %v, changed=%v", err, !bytes.Equal(out, data))
			}
			var edits []formats.Edit
			for _, u := range units {
				edits = append(edits, formats.Edit{Context: u.Context, Source: u.Source, Target: []string{"T <x id=\"1\"/> &amp; u"}, Fuzzy: true})
			}
			edits = append(edits, formats.Edit{Context: "fuzz-new", Source: []string{"S"}, Target: []string{"N"}})
			out, err = c.Apply(data, de(), edits)
			if errors.Is(err, ErrNoPlace) {
				continue
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			after, err := c.Decode(out, de())
			if err != nil {
				t.Fatalf("edited file does not parse: %v\n%s", err, out)
			}
			for _, u := range after {
				if u.Context == "fuzz-new" {
					continue
				}
				if u.Target[0] != "T <x id=\"1\"/> &amp; u" || !u.Fuzzy {
					t.Fatalf("unit %q reads %q fuzzy=%v after the edit\n%s", u.Context, u.Target[0], u.Fuzzy, out)
				}
			}
			if len(units) > 0 {
				out, err := c.Remove(data, de(), []formats.Key{{Context: units[0].Context}})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Decode(out, de()); err != nil {
					t.Fatalf("file after Remove does not parse: %v\n%s", err, out)
				}
			}
			out, err = c.Emptied(data, de())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Decode(out, de()); err != nil {
				t.Fatalf("emptied file does not parse: %v\n%s", err, out)
			}
		}
	})
}
