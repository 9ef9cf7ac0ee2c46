package android

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// shorten keeps the first n lines of a corpus file and closes it, since
// whole 60 kB files stall the fuzzer's minimizer.
func shorten(data []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			return data
		}
		end += i + 1
	}
	return append(data[:end:end], "</resources>\n"...)
}

// FuzzDecode checks that Decode never panics and fails only with a
// *formats.ParseError carrying a position; and that for what it accepts,
// Apply with no edits and with every unit's own target returns the input,
// an edited string reads back, and Remove takes one unit out.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpusRoot, "values*", "strings.xml"))
	for i, p := range paths {
		if data, err := os.ReadFile(p); err == nil && i%4 == 0 {
			f.Add(shorten(data, 8))
		}
	}
	for _, s := range []string{
		"", "<resources/>", "<resources></resources>", `<resources><string name="a"/></resources>`,
		`<resources><string name="a">"q" \' \u0041 \n <b>x</b> &amp;</string></resources>`,
		`<resources><plurals name="p"><item quantity="one">1</item><item quantity="other"/></plurals></resources>`,
		`<resources><string name="c"><![CDATA[<a href="x">y</a>]]></string><string-array name="s"><item>z</item></string-array></resources>`,
		"<!DOCTYPE resources [<!ENTITY n \"N\">]><resources><string name=\"e\">&n;</string></resources>",
		`<resources><string name="d">1</string><string name="d">2</string></resources>`,
		`<resources><string name="a">A</resources>`, `<res/>`, "<resources>\r\n\t<!--c--><string name=\"a\">A</string>\r\n</resources>",
	} {
		f.Add([]byte(s))
	}
	file := formats.File{Target: formats.Language{Code: "cs", Plurals: []string{"one", "few", "many", "other"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		units, err := Codec{}.Decode(data, file)
		if err != nil {
			var pe *formats.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("error %T %v is not a *formats.ParseError with a position", err, err)
			}
			return
		}
		if out := mustApply(t, data, file); !bytes.Equal(out, data) {
			t.Fatal("Apply with no edits changed the file")
		}
		contexts := map[string]bool{}
		dup := false
		var same []formats.Edit
		for _, u := range units {
			dup = dup || contexts[u.Context]
			contexts[u.Context] = true
			same = append(same, formats.Edit{Context: u.Context, Target: u.Target, Plural: len(u.Target) > 1})
		}
		if !dup {
			if out := mustApply(t, data, file, same...); !bytes.Equal(out, data) {
				t.Fatalf("Apply with unchanged targets changed the file:\n%s", out)
			}
		}
		if len(units) == 0 || dup {
			return
		}
		for _, u := range units {
			if len(u.Target) != 1 {
				continue
			}
			want := []string{"Tolk's \"edit\" <b>x</b>"}
			out := mustApply(t, data, file, formats.Edit{Context: u.Context, Target: want})
			got, err := Codec{}.Decode(out, file)
			if err != nil {
				t.Fatalf("edited file does not parse: %v\n%s", err, out)
			}
			if i := slices.IndexFunc(got, func(g formats.Unit) bool { return g.Context == u.Context }); i < 0 || !slices.Equal(got[i].Target, want) {
				t.Fatalf("edit of %s does not read back:\n%s", u.Context, out)
			}
			break
		}
		out, err := Codec{}.Remove(data, file, []formats.Key{{Context: units[0].Context}})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := (Codec{}).Decode(out, file); err != nil || len(got) != len(units)-1 {
			t.Fatalf("after Remove: %d units, %v, want %d\n%s", len(got), err, len(units)-1, out)
		}
	})
}
