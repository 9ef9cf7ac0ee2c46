package yaml

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
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

// FuzzDecode checks, for both codecs, that Decode never panics and fails
// only with a positioned *formats.ParseError; that Apply without edits
// returns the input; that an edit of an existing unit and an added unit
// either fail with one of the package's errors or read back with their
// values and every other unit as it was; and that Remove and Emptied
// give files that decode.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "diaspora", "config", "locales", "diaspora", "*.yml"))
	for i, p := range paths {
		if data, err := os.ReadFile(p); err == nil && i%4 == 0 {
			f.Add(head(data, 40))
		}
	}
	for _, s := range []string{
		"", "{}\n", "en:\n", "en:\n  a: b\n", "en:\n  a: |-\n    x\n    y\n  b: 'q''q'\n  c: \"d\\n\"\n",
		"en:\n  c:\n    one: a\n    other: b\n", "en:\n  - a\n  - b\n", "a: &x y\nb: *x\nc: {d: e}\n",
		"en:\n  a: plain\n    continued\n  b: x # c\n", "- a\n", "a: b: c", "\uFEFFen:\n  a: b\n", "en:\r\n  a: b\r\n",
	} {
		f.Add([]byte(s))
	}
	file := formats.File{Target: formats.Language{Code: "de", Plurals: []string{"one", "other"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range []Codec{Ruby, Plain} {
			units, err := c.Decode(data, file)
			if err != nil {
				var pe *formats.ParseError
				if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
					t.Fatalf("%v: error %T %v is not a *formats.ParseError with a position", c, err, err)
				}
				continue
			}
			out, err := c.Apply(data, file, nil)
			if err != nil || !bytes.Equal(out, data) && data != nil {
				t.Fatalf("%v: Apply without edits: %v, %q", c, err, out)
			}
			want := values(units)
			edits := []formats.Edit{{Context: "tolk->new", Target: []string{"x: \"y\" #z"}}}
			if _, taken := want["tolk"]; taken {
				edits = nil
			}
			if _, taken := want["tolk->new"]; taken {
				edits = nil
			}
			if len(units) > 0 && len(units[0].Target) == 1 {
				edits = append(edits, formats.Edit{Context: units[0].Context, Target: []string{"é\n'\\"}})
			}
			for _, e := range edits {
				want[e.Context] = e.Target
			}
			out, err = c.Apply(data, file, edits)
			if err != nil {
				if !errors.Is(err, ErrLayout) && !errors.Is(err, ErrAlias) && !errors.Is(err, ErrPlural) {
					t.Fatalf("%v: Apply: %v", c, err)
				}
			} else {
				back, err := c.Decode(out, file)
				if err != nil {
					t.Fatalf("%v: Apply wrote what Decode rejects: %v\n%q\n%q", c, err, data, out)
				}
				got := values(back)
				for _, u := range back {
					// An alias reads its anchor, which an edit may change.
					if len(u.Flags) > 0 {
						delete(got, u.Context)
						delete(want, u.Context)
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%v: units after Apply\n got %q\nwant %q\n%q", c, got, want, out)
				}
			}
			if len(units) > 0 {
				if _, err := c.Remove(data, file, []formats.Key{{Context: units[0].Context}}); err != nil {
					t.Fatalf("%v: Remove: %v", c, err)
				}
			}
			em, err := c.Emptied(data, file)
			if err != nil {
				if !errors.Is(err, ErrLayout) {
					t.Fatalf("%v: Emptied: %v", c, err)
				}
				continue
			}
			if _, err := c.Decode(em, file); err != nil {
				t.Fatalf("%v: Emptied wrote what Decode rejects: %v\n%q", c, err, em)
			}
		}
	})
}
