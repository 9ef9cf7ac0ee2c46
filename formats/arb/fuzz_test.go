package arb

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// head keeps the first n lines of a corpus file, closed, since whole
// files stall the fuzzer's minimizer.
func head(data []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			return data
		}
		end += i + 1
	}
	return append(data[:end:end], "\"end\": \"x\"}\n"...)
}

// FuzzDecode checks that Decode never panics and fails only with a
// positioned *formats.ParseError; that Apply without edits returns the
// input; that an edit and an added message read back and leave the rest
// alone; and that Remove and Emptied give files that decode.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "fluffychat", "lib", "l10n", "*.arb"))
	for i, p := range paths {
		if data, err := os.ReadFile(p); err == nil && i%4 == 0 {
			f.Add(head(data, 12))
		}
	}
	for _, s := range []string{
		"{}", `{"@@locale": "de", "a": "b", "@a": {"description": "d"}}`, `{"a": 1, "b": {"c": "d"}}`,
		`{"a": "x", "a": "y"}`, `{"@a": "x", "a": "\u00e9\ud83d\ude00"}`, `[]`, ``, `{"a": "b"`, "\uFEFF{\"a\": \"b\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Codec
		units, err := c.Decode(data, formats.File{})
		if err != nil {
			var pe *formats.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("error %T %v is not a *formats.ParseError with a position", err, err)
			}
			return
		}
		out, err := c.Apply(data, formats.File{}, nil)
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("Apply without edits: %v, %q", err, out)
		}
		want := targets(units)
		edits := []formats.Edit{{Context: "tolkNew", Target: []string{"x \"{n}\"\n"}}}
		if len(units) > 0 {
			edits = append(edits, formats.Edit{Context: units[0].Context, Target: []string{"é\\"}})
		}
		if _, ok := want["tolkNew"]; !ok {
			for _, e := range edits {
				want[e.Context] = e.Target[0]
			}
			out, err = c.Apply(data, formats.File{}, edits)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			back, err := c.Decode(out, formats.File{})
			if err != nil {
				t.Fatalf("Apply wrote what Decode rejects: %v\n%q", err, out)
			}
			got := targets(back)
			for k, v := range want {
				if got[k] != v || len(got) != len(want) {
					t.Fatalf("unit %q = %q after Apply, want %q (%d units, want %d)\n%q", k, got[k], v, len(got), len(want), out)
				}
			}
		}
		if len(units) > 0 {
			rm, err := c.Remove(data, formats.File{}, []formats.Key{{Context: units[0].Context}})
			if err != nil {
				t.Fatalf("Remove: %v", err)
			}
			if left, err := c.Decode(rm, formats.File{}); err != nil || len(left) != len(units)-1 {
				t.Fatalf("after Remove: %v, %d units, want %d\n%q", err, len(left), len(units)-1, rm)
			}
		}
		em, err := c.Emptied(data, formats.File{Target: formats.Language{Code: "de"}})
		if err != nil {
			t.Fatalf("Emptied: %v", err)
		}
		if back, err := c.Decode(em, formats.File{}); err != nil || len(back) != len(units) {
			t.Fatalf("Emptied: %v, %d units, want %d\n%q", err, len(back), len(units), em)
		}
	})
}
