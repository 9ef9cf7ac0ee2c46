package tbx

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// shorten keeps the first n termEntries of a corpus file and its closing
// lines. Whole 30–50 kB Slicer files stall the fuzzer: minimizing an
// input of that size takes longer than a short -fuzztime run.
func shorten(data []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.Index(data[end:], []byte("</termEntry>"))
		if i < 0 {
			return data
		}
		end += i + len("</termEntry>")
	}
	tail := bytes.LastIndex(data, []byte("</termEntry>"))
	if tail < end {
		return data
	}
	return append(data[:end:end], data[tail+len("</termEntry>"):]...)
}

// FuzzDecode checks that Decode never panics, fails only with a
// *formats.ParseError, round-trips what it accepts byte for byte, and that
// an edit of the first unit produces a document that decodes to it, and
// that taking the first unit out leaves a document without it.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*.tbx"))
	more, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*", "*.tbx"))
	for _, p := range append(paths, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(shorten(data, 3))
		}
	}
	f.Add([]byte(`<martif><termEntry id="a"><langSet xml:lang="en"><ntig><termGrp><term>x</term></termGrp></ntig></langSet><langSet xml:lang="de"/></termEntry></martif>`))
	f.Add([]byte("<martif><termEntry><langSet xml:lang=\"en\"><tig><term>a</term></tig></langSet>\r\n</termEntry>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(bytes.NewReader(data))
		if err != nil {
			var pe *formats.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *formats.ParseError", err, err)
			}
			return
		}
		var out bytes.Buffer
		if err := file.Encode(&out, "en", "de", nil); err != nil || !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("round trip differs (err %v)", err)
		}
		units := file.Units("en", "de")
		const text = `x & <y> "z"`
		// An added entry reads back as the last unit.
		out.Reset()
		added := Edit{Source: "tolk <added>", Context: "n&1", Target: []string{text}, Add: true}
		if err := file.EncodeTerms(&out, "en", "de", []Edit{added}); err == nil {
			g, err := Decode(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatalf("output with an added entry does not decode: %v\n%s", err, out.Bytes())
			}
			after := g.Units("en", "de")
			if len(after) != len(units)+1 || after[len(units)].Source[0] != added.Source ||
				after[len(units)].Context != added.Context || after[len(units)].Target[0] != text {
				t.Fatalf("added entry reads back as %+v (%d units before)\n%s", after, len(units), out.Bytes())
			}
		} else if !errors.Is(err, ErrNoBody) {
			t.Fatalf("EncodeTerms adding: %v", err)
		}
		if len(units) == 0 {
			return
		}
		out.Reset()
		first := Term{Source: units[0].Source[0], Context: units[0].Context}
		n, err := file.EncodeWithout(&out, "en", "de", []Term{first})
		if err != nil || n == 0 {
			t.Fatalf("EncodeWithout of the first unit: %d entries, %v", n, err)
		}
		// Taking out a termEntry that is the root leaves no document.
		if g, err := Decode(bytes.NewReader(out.Bytes())); err == nil {
			if len(g.Units("en", "de")) != len(units)-n {
				t.Fatalf("%d units after removing %d of %d\n%s", len(g.Units("en", "de")), n, len(units), out.Bytes())
			}
		} else if !strings.Contains(err.Error(), "no root element") {
			t.Fatalf("output without the first unit does not decode: %v\n%s", err, out.Bytes())
		}
		out.Reset()
		edit := Edit{Source: units[0].Source[0], Context: units[0].Context, Target: []string{text}}
		if err := file.EncodeTerms(&out, "en", "de", []Edit{edit}); err != nil {
			if errors.Is(err, ErrNoSourceTerm) {
				return
			}
			t.Fatalf("EncodeTerms: %v", err)
		}
		g, err := Decode(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("edited output does not decode: %v\n%s", err, out.Bytes())
		}
		if got := g.Units("en", "de")[0].Target[0]; got != text {
			t.Fatalf("edited target reads back as %q\n%s", got, out.Bytes())
		}
	})
}
