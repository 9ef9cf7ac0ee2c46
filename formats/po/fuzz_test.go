package po

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// shorten keeps the first n lines of a corpus file, since whole 20 kB
// files slow the fuzzer's minimizer down.
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
// *formats.ParseError carrying a position; that what it accepts Apply
// writes back byte for byte with no edits; that an edit of the last
// unit and an added unit read back from the output, which parses; that
// removing the first unit removes exactly one; and that Emptied accepts
// the file.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "*.po"))
	for i, p := range paths {
		if data, err := os.ReadFile(p); err == nil && i%4 == 0 {
			f.Add(shorten(data, 25))
			f.Add(data[len(data)-min(len(data), 300):])
		}
	}
	for _, s := range []string{
		"", "msgid \"\"\nmsgstr \"\"\n\"Plural-Forms: nplurals=3; plural=n%3;\\n\"\n\nmsgid \"a\"\nmsgid_plural \"b\"\nmsgstr[0] \"c\"\n",
		"\uFEFF#, fuzzy\r\n#| msgid \"x\"\r\nmsgctxt \"k\"\r\nmsgid \"a\\t\\\"\\\\\"\r\nmsgstr \"\"\r\n\"b\\101\"",
		"msgid \"a\"\nmsgstr \"1\"\n\nmsgid \"a\"\nmsgstr \"2\"\n\n#~ msgid \"o\"\n#~ msgstr \"p\"\n",
		"msgid \"\"\nmsgstr \"Language: xx\\nPlural-Forms: nplurals=99999999999;\\n\"\n\nmsgid \"a\"\nmsgstr \"b\"\n",
		"msgid \"a\nmsgstr \"b\"\n", "msgstr[0] \"x\"\n", "# c\n\n\n#~ x\nmsgid \"a\"\n\nmsgstr \"\"\n",
	} {
		f.Add([]byte(s))
	}
	file := formats.File{Target: formats.Language{Code: "cs", PluralCount: 3, PluralFormula: "n==1 ? 0 : n>=2 && n<=4 ? 1 : 2"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		units, err := Codec{}.Decode(data, file)
		if err != nil {
			var pe *formats.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("error %T %v is not a *formats.ParseError with a position", err, err)
			}
			return
		}
		if len(data) > 0 {
			out, err := Codec{}.Apply(data, file, nil)
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("round trip differs (err %v)", err)
			}
		}
		edits := []formats.Edit{{Context: "tolk", Source: []string{"fuzz \"new\""}, Target: []string{"x\n\\ \"y\""}, Fuzzy: true}}
		if len(units) > 0 {
			u := units[len(units)-1]
			edits = append(edits, formats.Edit{Context: u.Context, Source: u.Source, Target: []string{"ü \"edited\"\n" + u.Target[0]}, Fuzzy: !u.Fuzzy})
		}
		out, err := Codec{}.Apply(data, file, edits)
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		again, err := Codec{}.Decode(out, file)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%q", err, out)
		}
		for _, e := range edits {
			found := false
			for _, u := range again {
				if u.Context == e.Context && u.Source[0] == e.Source[0] {
					found = true
					if u.Target[0] != e.Target[0] || u.Fuzzy != e.Fuzzy {
						t.Fatalf("unit %q reads back %q fuzzy %v, want %q %v", e.Source[0], u.Target[0], u.Fuzzy, e.Target[0], e.Fuzzy)
					}
				}
			}
			if !found {
				t.Fatalf("edit %q not in the output\n%q", e.Source[0], out)
			}
		}
		if len(units) > 0 {
			out, err := Codec{}.Remove(data, file, []formats.Key{{Context: units[0].Context, Source: units[0].Source[0]}})
			if err != nil {
				t.Fatalf("Remove: %v", err)
			}
			if left, err := (Codec{}).Decode(out, file); err != nil || len(left) != len(units)-1 {
				t.Fatalf("Remove left %d of %d units (err %v)\n%q", len(left), len(units), err, out)
			}
		}
		if _, err := (Codec{Monolingual: true}).Emptied(data, file); err != nil {
			t.Fatalf("Emptied: %v", err)
		}
	})
}
