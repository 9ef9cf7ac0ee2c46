package properties

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// head keeps the first n lines of a corpus file: whole files stall the
// fuzzer's minimizer.
func head(data []byte, n int) []byte {
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

// FuzzDecode checks, for both variants, that Decode never panics and
// fails only with a positioned *formats.ParseError; that Apply without
// edits returns the input; that an edit of an existing key and an added
// key read back with their values and leave every other unit alone; and
// that Remove and Emptied give files that decode.
func FuzzDecode(f *testing.F) {
	for _, cp := range corpora {
		paths, _ := filepath.Glob(filepath.Join(corpusDir, cp.name, cp.dir, "*.properties"))
		for i, p := range paths {
			if data, err := os.ReadFile(p); err == nil && i%3 == 0 {
				f.Add(head(data, 60))
			}
		}
	}
	for _, s := range []string{
		"", "a=1", "a = b \\\n  c\n", "# c\n! d\na:b\r\nc d\re", "\\u00e9\\=k=\\uD83D\\uDE00\\", "a=\\u12", "a=\xff\xfe",
		"a=1\na=2\n", "\uFEFFa=b", "  \\\n\\\n", "=\n:\n \\ =x", "a\\\n", "a\\\r\n\tb=c\\\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range []Codec{Latin1, UTF8} {
			units, err := c.Decode(data, formats.File{})
			if err != nil {
				var pe *formats.ParseError
				if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
					t.Fatalf("%v: error %T %v is not a *formats.ParseError with a position", c, err, err)
				}
				continue
			}
			out, err := c.Apply(data, formats.File{}, nil)
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("%v: Apply without edits: %v, %q", c, err, out)
			}
			want := targets(units)
			edits := []formats.Edit{{Context: "tolk new", Target: []string{" x\\y\n€😀 "}}}
			if len(units) > 0 {
				edits = append(edits, formats.Edit{Context: units[0].Context, Target: []string{"é\t#!= "}})
			}
			for _, e := range edits {
				want[e.Context] = e.Target[0]
			}
			out, err = c.Apply(data, formats.File{}, edits)
			if err != nil {
				t.Fatalf("%v: Apply: %v", c, err)
			}
			back, err := c.Decode(out, formats.File{})
			if err != nil {
				t.Fatalf("%v: Apply wrote what Decode rejects: %v\n%q", c, err, out)
			}
			got := targets(back)
			if len(got) != len(want) {
				t.Fatalf("%v: %d units after Apply, want %d\n%q", c, len(got), len(want), out)
			}
			for k, v := range want {
				if got[k] != v {
					t.Fatalf("%v: unit %q = %q after Apply, want %q\n%q", c, k, got[k], v, out)
				}
			}
			if len(units) > 0 {
				rm, err := c.Remove(data, formats.File{}, []formats.Key{{Context: units[0].Context}})
				if err != nil {
					t.Fatalf("%v: Remove: %v", c, err)
				}
				left, err := c.Decode(rm, formats.File{})
				if err != nil || len(left) != len(units)-1 {
					t.Fatalf("%v: after Remove: %v, %d units, want %d\n%q", c, err, len(left), len(units)-1, rm)
				}
			}
			em, err := c.Emptied(data, formats.File{})
			if err != nil {
				t.Fatalf("%v: Emptied: %v", c, err)
			}
			if back, err := c.Decode(em, formats.File{}); err != nil || len(back) != len(units) {
				t.Fatalf("%v: Emptied: %v, %d units, want %d\n%q", c, err, len(back), len(units), em)
			}
		}
	})
}
