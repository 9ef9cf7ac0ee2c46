package json

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/internal/corpustest"
)

// corpusDir is the shared corpus seen from this package's directory.
var corpusDir = corpustest.Root

func mustDecode(tb testing.TB, data []byte) *File {
	tb.Helper()
	f, err := Decode(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	return f
}

func mustEncode(tb testing.TB, f *File, edits ...formats.Edit) []byte {
	tb.Helper()
	var out bytes.Buffer
	if err := f.Encode(&out, edits); err != nil {
		tb.Fatalf("Encode(%v): %v", edits, err)
	}
	return out.Bytes()
}

// targets maps each unit's context to its value.
func targets(tb testing.TB, f *File) map[string]string {
	tb.Helper()
	m := make(map[string]string)
	for _, u := range f.Units() {
		if _, dup := m[u.Context]; dup {
			tb.Fatalf("context %q appears twice in Units", u.Context)
		}
		m[u.Context] = u.Target[0]
	}
	return m
}

var corpora = []string{"jellyfin-web", "kavita"}

// TestRoundTripCorpus decodes every corpus file and checks that Encode
// without edits, and with edits that set every unit to its own value,
// writes the input back byte for byte.
func TestRoundTripCorpus(t *testing.T) {
	for _, name := range corpora {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, path := range corpusFiles(t, name) {
				data := mustRead(t, path)
				f := mustDecode(t, data)
				if out := mustEncode(t, f); !bytes.Equal(out, data) {
					t.Errorf("%s: Encode without edits differs from the input", path)
				}
				var same []formats.Edit
				for _, u := range f.Units() {
					same = append(same, formats.Edit{Context: u.Context, Target: u.Target})
				}
				if out := mustEncode(t, f, same...); !bytes.Equal(out, data) {
					t.Errorf("%s: Encode with unchanged values differs from the input", path)
				}
			}
		})
	}
}

// TestCorpusCounts checks unit counts against the statistics in each
// corpus's SOURCE.md.
func TestCorpusCounts(t *testing.T) {
	tests := []struct {
		corpus   string
		template string
		keys     int
		total    int
		nested   bool
	}{
		{"jellyfin-web", "src/strings/en-us.json", 1946, 124760, false},
		{"kavita", "UI/Web/src/assets/langs/en.json", 2063, 37408, true},
	}
	for _, tc := range tests {
		t.Run(tc.corpus, func(t *testing.T) {
			total := 0
			for _, path := range corpusFiles(t, tc.corpus) {
				f := mustDecode(t, mustRead(t, path))
				units := f.Units()
				if len(units) != f.Len() {
					t.Errorf("%s: Len() = %d, len(Units()) = %d", path, f.Len(), len(units))
				}
				total += len(units)
				for _, u := range units {
					// jellyfin has flat keys with dots ("LogLevel.Warning"),
					// kavita only nested ones.
					if tc.nested && !strings.Contains(u.Context, ".") {
						t.Fatalf("%s: context %q, nested = %v", path, u.Context, tc.nested)
					}
					if u.Line < 2 || len(u.Target) != 1 || u.Target[0] == "" {
						t.Fatalf("%s: unit %+v", path, u)
					}
				}
			}
			if total != tc.total {
				t.Errorf("units over all files = %d, want %d", total, tc.total)
			}
			f := mustDecode(t, mustRead(t, filepath.Join(corpusDir, tc.corpus, tc.template)))
			if n := len(f.Units()); n != tc.keys {
				t.Errorf("template %s has %d units, want %d", tc.template, n, tc.keys)
			}
		})
	}
	// Spot checks of known template units, their lines included (the
	// corpus files skip the test where the corpus is absent).
	corpusFiles(t, "jellyfin-web")
	f := mustDecode(t, mustRead(t, filepath.Join(corpusDir, "jellyfin-web", "src/strings/en-us.json")))
	if got := targets(t, f)["Alternate"]; got != "Alternate" {
		t.Errorf(`jellyfin "Alternate" = %q`, got)
	}
	if u := f.Units()[0]; u.Line != 2 {
		t.Errorf("first jellyfin unit %+v, want line 2", u)
	}
}

// TestCorpusMatchesEncodingJSON compares Units with what encoding/json
// decodes from the same file, flattened with ".".
func TestCorpusMatchesEncodingJSON(t *testing.T) {
	for _, name := range corpora {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, path := range corpusFiles(t, name) {
				data := mustRead(t, path)
				want, ok := flatten(t, data)
				if !ok {
					t.Fatalf("%s: flattened contexts collide", path)
				}
				if got := targets(t, mustDecode(t, data)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: Units differ from encoding/json (%d vs %d units)", path, len(got), len(want))
				}
			}
		})
	}
}

// flatten decodes data with encoding/json and flattens its string leaves
// the way Units does. ok is false when two leaves flatten to one context,
// where Go's random map order makes the winner unknowable.
func flatten(tb testing.TB, data []byte) (m map[string]string, ok bool) {
	tb.Helper()
	var v map[string]any
	if err := stdjson.Unmarshal(bytes.TrimPrefix(data, []byte(bom)), &v); err != nil {
		tb.Fatalf("encoding/json: %v", err)
	}
	m, ok = make(map[string]string), true
	var walk func(prefix string, obj map[string]any)
	walk = func(prefix string, obj map[string]any) {
		for k, v := range obj {
			switch v := v.(type) {
			case string:
				if _, dup := m[prefix+k]; dup {
					ok = false
				}
				m[prefix+k] = v
			case map[string]any:
				walk(prefix+k+".", v)
			}
		}
	}
	walk("", v)
	return m, ok
}

type wantUnit struct {
	ctx, value string
	line       int
}

func TestUnits(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []wantUnit
	}{
		{"empty object", "{}", nil},
		{"empty object with newline", "{}\n", nil},
		{"flat", "{\n    \"a\": \"A\",\n    \"b\": \"B\"\n}\n", []wantUnit{{"a", "A", 2}, {"b", "B", 3}}},
		{"file order kept", `{"z":"1","a":"2","m":"3"}`, []wantUnit{{"z", "1", 1}, {"a", "2", 1}, {"m", "3", 1}}},
		{"nested", "{\n \"menu\": {\n  \"file\": \"File\",\n  \"sub\": {\"x\": \"X\"}\n },\n \"top\": \"T\"\n}",
			[]wantUnit{{"menu.file", "File", 3}, {"menu.sub.x", "X", 4}, {"top", "T", 6}}},
		{"escapes", `{"a": "\u00e9\n\"q\"\\ \/ \t\b\f\r", "b": "\ud83d\ude00", "c": "\ud800x"}`,
			[]wantUnit{{"a", "é\n\"q\"\\ / \t\b\f\r", 1}, {"b", "😀", 1}, {"c", "\uFFFDx", 1}}},
		{"escaped keys", `{"k\u00e9y": "v", "o\"": {"i\n": "w"}}`, []wantUnit{{"kéy", "v", 1}, {"o\".i\n", "w", 1}}},
		{"raw unicode", `{"ta": "தமிழ் 😀"}`, []wantUnit{{"ta", "தமிழ் 😀", 1}}},
		{"empty value is untranslated", `{"a": ""}`, []wantUnit{{"a", "", 1}}},
		{"non-string leaves skipped", `{"n": 1.5e-3, "t": true, "f": false, "z": null, "arr": ["s", {"x": "y"}], "s": "S", "o": {"n": -0, "s": "T"}}`,
			[]wantUnit{{"s", "S", 1}, {"o.s", "T", 1}}},
		{"empty nested object", `{"a": {}, "b": "B"}`, []wantUnit{{"b", "B", 1}}},
		{"duplicate string, last wins", `{"a": "1", "b": "B", "a": "2"}`, []wantUnit{{"b", "B", 1}, {"a", "2", 1}}},
		{"duplicate object replaces object", `{"a": {"x": "1", "y": "2"}, "a": {"z": "3"}}`, []wantUnit{{"a.z", "3", 1}}},
		{"object replaces string", `{"a": "1", "a": {"b": "2"}}`, []wantUnit{{"a.b", "2", 1}}},
		{"number hides string", `{"a": "1", "a": 2}`, nil},
		{"flattened collision, later wins", `{"a.b": "flat", "a": {"b": "nested"}}`, []wantUnit{{"a.b", "nested", 1}}},
		{"flattened collision reversed", `{"a": {"b": "nested"}, "a.b": "flat"}`, []wantUnit{{"a.b", "flat", 1}}},
		{"BOM", "\uFEFF{\"a\": \"b\"}", []wantUnit{{"a", "b", 1}}},
		{"CRLF", "{\r\n  \"a\": \"b\",\r\n  \"c\": \"d\"\r\n}\r\n", []wantUnit{{"a", "b", 2}, {"c", "d", 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mustDecode(t, []byte(tc.in))
			var got []wantUnit
			for _, u := range f.Units() {
				if len(u.Target) != 1 || u.Source != nil {
					t.Fatalf("unit %+v: want one target and no source", u)
				}
				got = append(got, wantUnit{u.Context, u.Target[0], u.Line})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Units(%q)\n got %+v\nwant %+v", tc.in, got, tc.want)
			}
			if f.Len() != len(got) {
				t.Errorf("Len() = %d, want %d", f.Len(), len(got))
			}
			if out := mustEncode(t, f); string(out) != tc.in {
				t.Errorf("round trip gives %q", out)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		msg       string
	}{
		{"empty input", "", 1, 1, "unexpected end of input"},
		{"only whitespace", "  \n ", 2, 2, "unexpected end of input"},
		{"truncated object", "{\n  \"a\": \"b\",\n", 3, 1, "unexpected end of input"},
		{"truncated string", "{\n  \"a\": \"bc", 2, 11, "unexpected end of input"},
		{"truncated escape", `{"a": "b\`, 1, 10, "unexpected end of input"},
		{"trailing garbage", "{\"a\": \"b\"}\n}", 2, 1, "after top-level value"},
		{"second object", "{}{}", 1, 3, "after top-level value"},
		{"bad escape", "{\n  \"a\": \"x\\qy\"\n}", 2, 11, `invalid character 'q' in string escape code`},
		{"bad unicode escape", `{"a": "\u12G4"}`, 1, 12, `invalid character 'G' in \u hexadecimal character escape`},
		{"raw newline in string", "{\"a\": \"x\ny\"}", 1, 9, `invalid character '\n' in string literal`},
		{"trailing comma", "{\"a\": \"b\",\n}", 2, 1, "beginning of object key"},
		{"missing colon", `{"a" "b"}`, 1, 6, "after object key"},
		{"missing comma", "{\"a\": \"b\"\n \"c\": \"d\"}", 2, 2, "after object key:value pair"},
		{"unquoted key", `{a: "b"}`, 1, 2, "beginning of object key"},
		{"single quotes", `{'a': 'b'}`, 1, 2, "beginning of object key"},
		{"top-level array", `["a"]`, 1, 1, "not an object"},
		{"top-level string", `  "a"`, 1, 3, "not an object"},
		{"bad literal", `{"a": nul}`, 1, 10, "in literal null"},
		{"bad number", `{"a": 01}`, 1, 8, "after object key:value pair"},
		{"bad fraction", `{"a": 1.}`, 1, 9, "after decimal point"},
		{"invalid UTF-8", "{\"a\": \"é\xff\"}", 1, 9, "invalid UTF-8"},
		{"BOM not counted in column", "\uFEFF{\"a\" 1}", 1, 6, "after object key"},
		{"column counts characters", `{"été": "x" x}`, 1, 13, "after object key:value pair"},
		{"objects too deep", strings.Repeat(`{"a":`, maxObjectDepth+1) + `""` + strings.Repeat("}", maxObjectDepth+1), 1, 5*maxObjectDepth + 1, "objects nested deeper"},
		{"objects in arrays too deep", `{"a":` + strings.Repeat(`[{"a":`, maxDepth), 1, 5 + 6*(maxDepth/2-1) + 2, "exceeded max depth"},
		{"deep array", `{"a":` + strings.Repeat("[", maxDepth+1), 1, 5 + maxDepth, "exceeded max depth"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := Decode(strings.NewReader(tc.in))
			var pe *formats.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Decode(%.40q) = %v, %v; want *formats.ParseError", tc.in, f, err)
			}
			if pe.Line != tc.line || pe.Column != tc.col || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Decode(%.40q): %v (line %d, column %d); want line %d, column %d, %q",
					tc.in, err, pe.Line, pe.Column, tc.line, tc.col, tc.msg)
			}
		})
	}
}

// TestDecodeReadError checks that an I/O error is returned as it is, not
// as a ParseError.
func TestDecodeReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Decode(errReader{boom})
	if !errors.Is(err, boom) {
		t.Fatalf("Decode = %v, want %v", err, boom)
	}
	var pe *formats.ParseError
	if errors.As(err, &pe) {
		t.Fatalf("Decode = %T, want the reader's error", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestNew(t *testing.T) {
	f := New()
	if f.Len() != 0 {
		t.Fatalf("New has %d units", f.Len())
	}
	if out := mustEncode(t, f); string(out) != "{}\n" {
		t.Fatalf("New encodes to %q", out)
	}
	f.Layout = LayoutNested
	out := mustEncode(t, f, formats.Edit{Context: "g.k", Target: []string{"v"}})
	want := "{\n    \"g\": {\n        \"k\": \"v\"\n    }\n}\n"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

// corpusFiles returns every .json file under corpus folder name.
func corpusFiles(tb testing.TB, name string) []string {
	tb.Helper()
	return corpustest.Walk(tb, name, ".json")
}

// mustRead reads a corpus or test file.
var mustRead = corpustest.Read
