package json

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// shorten keeps the first n members of a corpus file and closes it, since
// whole 100–270 kB files stall the fuzzer's minimizer.
func shorten(data []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			return data
		}
		end += i + 1
	}
	return append(data[:end:end], "\"end\": \"x\"}}\n"...)
}

// FuzzDecode checks that Decode never panics, fails only with a
// *formats.ParseError carrying a position, accepts exactly the valid
// JSON objects encoding/json accepts (given valid UTF-8 and a sane
// depth), agrees with encoding/json on the values, round-trips what it
// accepts byte for byte, and that an edit and an insertion read back.
func FuzzDecode(f *testing.F) {
	for _, name := range corpora {
		paths, _ := filepath.Glob(filepath.Join(corpusDir, name, "*", "*", "*.json"))
		more, _ := filepath.Glob(filepath.Join(corpusDir, name, "*", "*", "*", "*", "*", "*.json"))
		for i, p := range append(paths, more...) {
			if data, err := os.ReadFile(p); err == nil && i%10 == 0 {
				f.Add(shorten(data, 6))
			}
		}
	}
	for _, s := range []string{
		"{}", "{}\n", "\uFEFF{\"a\": \"b\"}", `{"a": {"b": {"c": "d"}}, "e": "f"}`,
		`{"a": "\u00e9\n\"\\\/\ud83d\ude00\ud800"}`, `{"n": -1.5e+3, "t": true, "z": null, "arr": [1, {"x": "y"}, []]}`,
		`{"a": "1", "a": {"b": "2"}, "a.b": "3"}`, "{\r\n\t\"a\" : \"b\"\r\n}", `{"a": "b"`, `{"a": "\x"}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(bytes.NewReader(data))
		if err != nil {
			var pe *formats.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("error %T %v is not a *formats.ParseError with a position", err, err)
			}
			if json := bytes.TrimPrefix(data, []byte(bom)); stdjson.Valid(json) && utf8.Valid(json) &&
				bytes.HasPrefix(bytes.TrimLeft(json, " \t\r\n"), []byte("{")) && !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("Decode rejects valid JSON: %v", err)
			}
			return
		}
		if !stdjson.Valid(bytes.TrimPrefix(data, []byte(bom))) {
			t.Fatalf("Decode accepts what encoding/json rejects")
		}
		if want, ok := flatten(t, data); ok && !duplicateKeys(data) {
			got := targets(t, file)
			if len(got) != len(want) {
				t.Fatalf("%d units, encoding/json finds %d", len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Fatalf("unit %q = %q, encoding/json reads %q", k, got[k], v)
				}
			}
		}
		var out bytes.Buffer
		if err := file.Encode(&out, nil); err != nil || !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("round trip differs (err %v)", err)
		}
		edits := []formats.Edit{edit("tolk.fuzz.new", "x \"<y>\"\n")}
		if units := file.Units(); len(units) > 0 {
			edits = append(edits, edit(units[len(units)-1].Context, "ü\\"))
		}
		out.Reset()
		if err := file.Encode(&out, edits); err != nil {
			return // the new context may name a non-string value
		}
		checkEdited(t, file, out.Bytes(), edits)
	})
}

// duplicateKeys reports whether data has a key twice in one object, where
// flattening encoding/json's maps cannot tell which one won.
func duplicateKeys(data []byte) bool {
	dec := stdjson.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte(bom))))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next string is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.obj && top.key
		if top != nil && top.obj {
			top.key = !top.key
		}
		switch tok := tok.(type) {
		case stdjson.Delim:
			switch tok {
			case '{':
				stack = append(stack, &frame{obj: true, keys: map[string]bool{}, key: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].obj {
					stack[len(stack)-1].key = true
				}
			}
			continue
		case string:
			if isKey {
				if top.keys[tok] {
					return true
				}
				top.keys[tok] = true
			}
		}
	}
}

// FuzzDialects reads any JSON object as each dialect and checks that
// Units never panics and gives each context once, that setting every
// unit to its own value and then one unit to a new value writes valid
// JSON (or fails with an error, writing nothing), and that applying the
// same edits to the output changes nothing more.
func FuzzDialects(f *testing.F) {
	for _, p := range []string{"i18nextv4/en.json", "i18nextv4/cs.json", "i18nextv4/ar.json", "i18next/de.json", "i18next/ru.json", "go-i18n/en.json",
		"go-i18n/cs.json", "webextension/_locales/en/messages.json"} {
		if data, err := os.ReadFile(filepath.Join("testdata", p)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"a": "x", "a_one": "y", "b": {"one": "1", "description": 2}, "c": {"message": {"x": "y"}}}`))
	f.Add([]byte(`{"a_plural": "y", "a": "x", "a_0": "z", "a_3": "w", "b_1": "v", "c": {"d_0": 1, "d_1": "u"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, d := range []Dialect{I18nextV4, GoI18n, WebExtension, I18nextV3} {
			file.Dialect, file.Plurals = d, []string{"one", "few", "other"}
			units := file.Units()
			seen := map[string]bool{}
			var edits []formats.Edit
			for _, u := range units {
				if seen[u.Context] {
					t.Fatalf("dialect %d: context %q twice", d, u.Context)
				}
				seen[u.Context] = true
				edits = append(edits, formats.Edit{Context: u.Context, Target: u.Target, Plural: len(u.Target) > 1})
			}
			if len(units) > 0 {
				last := units[len(units)-1]
				forms := make([]string, len(last.Target))
				for i := range forms {
					forms[i] = "new \"form\""
				}
				edits = append(edits, formats.Edit{Context: last.Context, Target: forms, Plural: len(forms) > 1})
			}
			edits = append(edits, formats.Edit{Context: "tolk.new", Target: []string{"a", "b", "c"}, Plural: true})
			var out bytes.Buffer
			if err := file.Encode(&out, edits); err != nil {
				if out.Len() != 0 {
					t.Fatalf("dialect %d: Encode failed (%v) but wrote %d bytes", d, err, out.Len())
				}
				continue
			}
			if !stdjson.Valid(bytes.TrimPrefix(out.Bytes(), []byte(bom))) {
				t.Fatalf("dialect %d: output is not JSON\n%s", d, out.Bytes())
			}
			again := mustDecode(t, out.Bytes())
			again.Dialect, again.Plurals = d, file.Plurals
			var twice bytes.Buffer
			if err := again.Encode(&twice, edits); err != nil || !bytes.Equal(twice.Bytes(), out.Bytes()) {
				t.Fatalf("dialect %d: not idempotent (err %v)\n%s\n%s", d, err, out.Bytes(), twice.Bytes())
			}
		}
		file.Dialect, file.Plurals = Plain, nil
		fuzzCodecV3(t, data)
	})
}

// fuzzCodecV3 applies every unit of data, read as i18next v3 for Russian,
// back as a plural of the language's keys, which moves each unit in
// another shape (File.v3Stale): the output must be JSON, read back the
// same forms, and not change when applied again.
func fuzzCodecV3(t *testing.T, data []byte) {
	c := Codec{I18nextV3}
	f := formats.File{Target: formats.Language{Code: "ru", Plurals: []string{"one", "few", "many"}}}
	units, err := c.Decode(data, f)
	if err != nil {
		return
	}
	var edits []formats.Edit
	for _, u := range units {
		if len(u.Target) > 1 {
			edits = append(edits, formats.Edit{Context: u.Context, Target: u.Target, Plural: true})
		}
	}
	out, err := c.Apply(data, f, edits)
	if err != nil {
		return
	}
	if !stdjson.Valid(bytes.TrimPrefix(out, []byte(bom))) {
		t.Fatalf("i18next v3 Apply: output is not JSON\n%s", out)
	}
	again, err := c.Apply(out, f, edits)
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("i18next v3 Apply: not idempotent (err %v)\n%s\n%s", err, out, again)
	}
}
