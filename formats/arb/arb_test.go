package arb

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

func mustDecode(tb testing.TB, data []byte) []formats.Unit {
	tb.Helper()
	units, err := Codec{}.Decode(data, formats.File{})
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	return units
}

func mustApply(tb testing.TB, data []byte, edits ...formats.Edit) []byte {
	tb.Helper()
	out, err := Codec{}.Apply(data, formats.File{}, edits)
	if err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	return out
}

func targets(units []formats.Unit) map[string]string {
	m := make(map[string]string, len(units))
	for _, u := range units {
		m[u.Context] = u.Target[0]
	}
	return m
}

// TestRoundTripCorpus checks that Apply without edits, and with every
// unit set to its own value, returns each corpus file byte for byte.
func TestRoundTripCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		data := mustRead(t, path)
		units := mustDecode(t, data)
		if out := mustApply(t, data); !bytes.Equal(out, data) {
			t.Errorf("%s: Apply without edits differs from the input", path)
		}
		var same []formats.Edit
		for _, u := range units {
			same = append(same, formats.Edit{Context: u.Context, Target: u.Target})
		}
		if out := mustApply(t, data, same...); !bytes.Equal(out, data) {
			t.Errorf("%s: Apply with unchanged values differs from the input", path)
		}
	}
}

// TestCorpusCounts checks SOURCE.md: 768 messages in the template and
// 12,205 in all files. translate-toolkit 3.8.4 reads 769 and 12,225: it
// adds one header unit for the globals ("@@locale", "@@last_modified")
// of each of the 20 files that has any. They are not text to translate,
// so they are no units here (translate-toolkit's current ARBJsonFile
// makes them a header too).
func TestCorpusCounts(t *testing.T) {
	total, withGlobals, notes := 0, 0, 0
	for _, path := range corpusFiles(t) {
		data := mustRead(t, path)
		units := mustDecode(t, data)
		total += len(units)
		if bytes.Contains(data, []byte(`"@@`)) {
			withGlobals++
		}
		for _, u := range units {
			if strings.HasPrefix(u.Context, "@") || u.Line < 2 {
				t.Fatalf("%s: unit %+v", path, u)
			}
			if u.Note != "" {
				notes++
			}
		}
		if filepath.Base(path) == "intl_en.arb" && len(units) != 768 {
			t.Errorf("template: %d units, want 768", len(units))
		}
	}
	if total != 12205 || total+withGlobals != 12225 {
		t.Errorf("%d units in %d files with globals, want 12,205 and 12,225 - 12,205 = 20", total, withGlobals)
	}
	if notes == 0 {
		t.Errorf("no description read as a note")
	}
}

// TestOneEditCorpus edits one message of every corpus file and checks
// that only that value's bytes change and that the file reads back with
// the new value and every other one as it was.
func TestOneEditCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		data := mustRead(t, path)
		units := mustDecode(t, data)
		u := units[len(units)/2]
		value := "Neu: \"zitiert\" \\ {count, plural, =1{ein} other{{count}}}\n✓"
		out := mustApply(t, data, formats.Edit{Context: u.Context, Target: []string{value}})
		old, _ := stdjson.Marshal(u.Target[0])
		oldRaw := bytes.ReplaceAll(old, []byte(`\u0026`), []byte("&"))
		start := bytes.Index(data, append([]byte(`"`+u.Context+`": `), oldRaw...))
		if start < 0 {
			t.Fatalf("%s: cannot find %q's value", path, u.Context)
		}
		start += len(u.Context) + 4
		end := start + len(oldRaw)
		if !bytes.HasPrefix(out, data[:start]) || !bytes.HasSuffix(out, data[end:]) {
			t.Fatalf("%s: the edit of %q changed bytes outside its value", path, u.Context)
		}
		want := targets(units)
		want[u.Context] = value
		if got := targets(mustDecode(t, out)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: units after the edit differ", path)
		}
		var v map[string]any
		if err := stdjson.Unmarshal(out, &v); err != nil || v[u.Context] != value {
			t.Errorf("%s: encoding/json reads %q (%v)", path, v[u.Context], err)
		}
	}
}

func TestDecode(t *testing.T) {
	in := `{
  "@@locale": "de",
  "@@last_modified": "2021-08-14",
  "hello": "Hallo {name}",
  "@hello": {"description": "Greeting", "placeholders": {"name": {"type": "String", "description": "who"}}},
  "count": "{count, plural, =1{Ein Teilnehmer} other{{count} Teilnehmer}}",
  "@orphan": {"description": "metadata of a missing message"},
  "n": 5,
  "dup": "first",
  "dup": "second"
}`
	units := mustDecode(t, []byte(in))
	type kv struct {
		key, value, note string
		line             int
	}
	var got []kv
	for _, u := range units {
		got = append(got, kv{u.Context, u.Target[0], u.Note, u.Line})
	}
	want := []kv{
		{"hello", "Hallo {name}", "Greeting", 4},
		{"count", "{count, plural, =1{Ein Teilnehmer} other{{count} Teilnehmer}}", "", 6},
		{"dup", "second", "", 10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode\n got %+v\nwant %+v", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		err       error
	}{
		{"object message", "{\n  \"a\": {\"b\": \"c\"}\n}", 2, 8, ErrMessage},
		{"null message", `{"a": null}`, 1, 7, ErrMessage},
		{"syntax", "{\n  \"a\": \"b\",\n}", 3, 1, nil},
		{"not an object", `["a"]`, 1, 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Codec{}.Decode([]byte(tc.in), formats.File{})
			var pe *formats.ParseError
			if !errors.As(err, &pe) || pe.Line != tc.line || pe.Column != tc.col || tc.err != nil && !errors.Is(err, tc.err) {
				t.Fatalf("Decode(%q) = %v, want a ParseError at %d:%d", tc.in, err, tc.line, tc.col)
			}
		})
	}
}

func TestApply(t *testing.T) {
	edit := func(k, v string) formats.Edit { return formats.Edit{Context: k, Target: []string{v}} }
	in := "{\n    \"@@locale\": \"de\",\n    \"a\": \"1\",\n    \"@a\": {\n        \"description\": \"d\"\n    }\n}"
	tests := []struct {
		name  string
		in    string
		edits []formats.Edit
		want  string
	}{
		{"replace", in, []formats.Edit{edit("a", "2 \"x\"")}, strings.Replace(in, `"1"`, `"2 \"x\""`, 1)},
		{"add after the last member", in, []formats.Edit{edit("b", "neu")},
			"{\n    \"@@locale\": \"de\",\n    \"a\": \"1\",\n    \"@a\": {\n        \"description\": \"d\"\n    },\n    \"b\": \"neu\"\n}"},
		{"empty target not added", in, []formats.Edit{edit("b", "")}, in},
		{"new file", "", []formats.Edit{edit("b", "x")}, "{\n    \"b\": \"x\"\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			if tc.in != "" {
				data = []byte(tc.in)
			}
			if out := mustApply(t, data, tc.edits...); string(out) != tc.want {
				t.Errorf("Apply\n got %q\nwant %q", out, tc.want)
			}
		})
	}
	if out := mustApply(t, nil); string(out) != "{}\n" {
		t.Errorf("new file = %q, want the reference's %q", out, "{}\n")
	}
	if _, err := (Codec{}).Apply([]byte(in), formats.File{}, []formats.Edit{edit("@@locale", "fr")}); !errors.Is(err, ErrMetadata) {
		t.Errorf("an edit of @@locale gives %v, want ErrMetadata", err)
	}
}

func TestRemove(t *testing.T) {
	in := "{\n  \"a\": \"1\",\n  \"@a\": {\"description\": \"d\"},\n  \"b\": \"2\",\n  \"c\": \"3\"\n}\n"
	out, err := Codec{}.Remove([]byte(in), formats.File{}, []formats.Key{{Context: "a"}, {Context: "c"}, {Context: "zz"}, {Context: "@@locale"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"b\": \"2\"\n}\n"; string(out) != want {
		t.Errorf("Remove = %q, want %q", out, want)
	}
}

// TestEmptiedCorpus empties the template for German: every message is
// "", its metadata stays, and @@locale names the new language.
func TestEmptiedCorpus(t *testing.T) {
	corpusFiles(t)
	data := mustRead(t, filepath.Join(corpusDir, "fluffychat", "lib", "l10n", "intl_en.arb"))
	out, err := Codec{}.Emptied(data, formats.File{Target: formats.Language{Code: "de"}})
	if err != nil {
		t.Fatal(err)
	}
	before, after := mustDecode(t, data), mustDecode(t, out)
	if len(after) != len(before) {
		t.Fatalf("%d units after Emptied, want %d", len(after), len(before))
	}
	for i, u := range after {
		if u.Target[0] != "" || u.Context != before[i].Context || u.Note != before[i].Note {
			t.Fatalf("unit %+v after Emptied", u)
		}
	}
	var v map[string]any
	if err := stdjson.Unmarshal(out, &v); err != nil || v["@@locale"] != "de" || v["@@last_modified"] == nil {
		t.Errorf("globals after Emptied: %v %v", v["@@locale"], err)
	}
	if !bytes.Contains(out, []byte(`"placeholders": {`)) {
		t.Errorf("metadata lost")
	}
	out, _ = Codec{}.Emptied([]byte(`{"a": "x"}`), formats.File{Target: formats.Language{Code: "pt_BR"}})
	if want := `{"a": "","@@locale": "pt_BR"}`; string(out) != want { // formats/json copies the gap after "{"
		t.Errorf("Emptied without @@locale = %q, want %q", out, want)
	}
}

// TestRemoveCorpus removes one message from every corpus file and checks
// that only it (and its metadata) went.
func TestRemoveCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		data := mustRead(t, path)
		units := mustDecode(t, data)
		u := units[len(units)/2]
		out, err := Codec{}.Remove(data, formats.File{}, []formats.Key{{Context: u.Context}})
		if err != nil {
			t.Fatal(err)
		}
		want := targets(units)
		delete(want, u.Context)
		if got := targets(mustDecode(t, out)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: units after removing %q differ", path, u.Context)
		}
		if bytes.Contains(out, []byte(`"@`+u.Context+`"`)) || len(out) >= len(data) {
			t.Errorf("%s: %q's metadata or bytes stay", path, u.Context)
		}
		var v map[string]any
		if err := stdjson.Unmarshal(out, &v); err != nil {
			t.Errorf("%s: output is not JSON: %v", path, err)
		}
	}
}

// corpusFiles returns fluffychat's ARB files.
func corpusFiles(tb testing.TB) []string {
	tb.Helper()
	return corpustest.Glob(tb, "fluffychat", filepath.Join("lib", "l10n", "*.arb"))
}

// mustRead reads a corpus or test file.
var mustRead = corpustest.Read
