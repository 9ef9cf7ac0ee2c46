package xcstrings

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// FuzzDecode checks that Decode never panics, fails only with a
// *formats.ParseError carrying a position, rejects no valid catalog
// encoding/json accepts, and that Apply with no edits returns what it
// decoded while an edit of every unit either fails cleanly or reads
// back and stays valid JSON.
func FuzzDecode(f *testing.F) {
	if data, err := os.ReadFile(corpusFile); err == nil {
		// The first entries only: the 2 MB file stalls the minimizer.
		cut, end := 0, []byte("\n    },\n    \"")
		for range 8 {
			if i := bytes.Index(data[cut+1:], end); i >= 0 {
				cut += 1 + i + 6 // past the entry's '}'
			}
		}
		seed := append(data[:cut:cut], "\n  },\n  \"version\" : \"1.0\"\n}"...)
		if _, err := (Codec{}).Decode(seed, formats.File{Target: formats.Language{Code: "fr"}}); cut == 0 || err != nil {
			f.Fatalf("corpus seed (cut at %d) does not decode: %v", cut, err)
		}
		f.Add(seed)
	}
	for _, s := range []string{
		`{"sourceLanguage" : "en", "strings" : {}}`,
		`{"strings" : {"k" : {"localizations" : {"fr" : {"stringUnit" : {"state" : "new", "value" : "v"}}}}}}`,
		`{"strings" : {"k" : {"localizations" : {"fr" : {"variations" : {"plural" : {"one" : {"stringUnit" : {"state" : "translated", "value" : "a"}}}}}}}}}`,
		`{"strings" : {"k" : {"localizations" : {"fr" : {"variations" : {"device" : {"mac" : {"stringUnit" : {"value" : "m"}}}}}}}}}`,
		`{"strings" : {"k" : {"localizations" : {"fr" : {"stringUnit" : {"value" : "%#@a@"}, "substitutions" : {"a" : {"variations" : {"plural" : {}}}}}}}}}`,
		`{"strings" : {"k" : {"shouldTranslate" : false, "comment" : "c\u00e9\ud83d\ude00"}}}`,
		`{"strings" : {"k" : 1, "k" : [1, {"a" : null}], "l" : {"localizations" : []}}}`, `{"strings" : {"a" : {}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	file := formats.File{Source: formats.Language{Code: "en"}, Target: formats.Language{Code: "fr", Plurals: []string{"one", "many", "other"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		units, err := Codec{}.Decode(data, file)
		if err != nil {
			var pe *formats.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("error %T %v is not a *formats.ParseError with a position", err, err)
			}
			var v map[string]any
			if utf8.Valid(data) && stdjson.Unmarshal(data, &v) == nil {
				if _, ok := v["strings"].(map[string]any); ok && !strings.Contains(err.Error(), "nested deeper") {
					t.Fatalf("rejected a catalog encoding/json accepts: %v", err)
				}
			}
			return
		}
		if out, err := (Codec{}).Apply(data, file, nil); err != nil || !bytes.Equal(out, data) {
			t.Fatalf("Apply without edits: %v", err)
		}
		for i, u := range units {
			e := formats.Edit{Context: u.Context, Target: make([]string, len(u.Target))}
			for j := range e.Target {
				e.Target[j] = "x\"\n"
			}
			out, err := Codec{}.Apply(data, file, []formats.Edit{e})
			if err != nil {
				continue // an edit the package leaves to Xcode
			}
			if !stdjson.Valid(out) {
				t.Fatalf("edit of %q wrote invalid JSON:\n%s", u.Context, out)
			}
			again, err := Codec{}.Decode(out, file)
			if err != nil {
				t.Fatalf("edit of %q: output does not decode: %v", u.Context, err)
			}
			found := false
			for _, a := range again {
				if a.Context == u.Context {
					found = a.Target[0] == "x\"\n"
				}
			}
			if !found && i < len(again) {
				t.Fatalf("edit of %q does not read back", u.Context)
			}
		}
	})
}
