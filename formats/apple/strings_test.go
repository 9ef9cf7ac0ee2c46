package apple

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/tolk-project/tolk/formats"
)

func mustDecodeStrings(tb testing.TB, data []byte) []formats.Unit {
	tb.Helper()
	units, err := Strings.Decode(data, formats.File{})
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	return units
}

func stringsTargets(tb testing.TB, data []byte) map[string]string {
	tb.Helper()
	m := make(map[string]string)
	for _, u := range mustDecodeStrings(tb, data) {
		m[u.Context] = u.Target[0]
	}
	return m
}

// TestStringsCorpusCounts checks the unit counts SOURCE.md gives, and that
// every file round-trips byte for byte through Apply with no edits.
func TestStringsCorpusCounts(t *testing.T) {
	names, files := corpusFiles(t, ".strings")
	want := map[string]int{"Base": 626, "en": 614, "hy-AM": 558, "ku-TR": 365, "de": 614, "zh-Hans": 614}
	total := 0
	for _, name := range names {
		data := files[name]
		units := mustDecodeStrings(t, data)
		total += len(units)
		if n, ok := want[name]; ok && len(units) != n {
			t.Errorf("%s: %d units, want %d", name, len(units), n)
		}
		out, err := Strings.Apply(data, formats.File{}, nil)
		if err != nil || !bytes.Equal(out, data) {
			t.Errorf("%s: Apply without edits changed the file (err %v)", name, err)
		}
	}
	if len(names) != 31 || total != 18741 {
		t.Errorf("%d files, %d units; SOURCE.md says 31 files, 18,741 units", len(names), total)
	}
}

// TestStringsCorpusOneEdit edits one unit of every corpus file and checks
// that the output differs from the input only inside that value's quotes,
// that it reads back, and that applying the edit again changes nothing.
func TestStringsCorpusOneEdit(t *testing.T) {
	names, files := corpusFiles(t, ".strings")
	for _, name := range names {
		data := files[name]
		sf, err := parseStrings(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, idx := range []int{0, len(sf.pairs) / 2, len(sf.pairs) - 1} {
			p := sf.pairs[idx]
			val := "Ein \"neuer\" Wert\nmit\tTab & \\ " + name
			out, err := Strings.Apply(data, formats.File{}, []formats.Edit{{Context: p.key, Target: []string{val}}})
			if err != nil {
				t.Fatal(err)
			}
			quoted := escapeStrings(val)
			if !bytes.Equal(out[:p.valStart], data[:p.valStart]) || !bytes.Equal(out[p.valStart+len(quoted):], data[p.valEnd:]) ||
				string(out[p.valStart:p.valStart+len(quoted)]) != quoted {
				t.Fatalf("%s: edit of %q changed more than its value", name, p.key)
			}
			got := stringsTargets(t, out)
			if got[p.key] != val {
				t.Errorf("%s: %q reads back %q, want %q", name, p.key, got[p.key], val)
			}
			if len(got) != len(sf.index) {
				t.Errorf("%s: %d units after the edit, want %d", name, len(got), len(sf.index))
			}
			again, _ := Strings.Apply(out, formats.File{}, []formats.Edit{{Context: p.key, Target: []string{val}}})
			if !bytes.Equal(again, out) {
				t.Errorf("%s: applying the edit twice differs from once", name)
			}
		}
	}
}

func TestStringsDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []formats.Unit
	}{
		{"comments become notes", "/* Comment1 */\n// Comment\n\"key\" = \"value\";",
			[]formats.Unit{{Context: "key", Target: []string{"value"}, Note: "Comment1\nComment", Line: 3}}},
		{"a blank line ends a note", "/*\n  Localizable.strings\n*/\n\n/* A */\n\"a\" = \"1\";\n// section\n\n\"b\" = \"2\";",
			[]formats.Unit{{Context: "a", Target: []string{"1"}, Note: "A", Line: 6}, {Context: "b", Target: []string{"2"}, Line: 9}}},
		{"multi-line comment", "/* Foo\nBar\nBaz */\n\"key\" = \"value\";\n",
			[]formats.Unit{{Context: "key", Target: []string{"value"}, Note: "Foo\nBar\nBaz", Line: 4}}},
		{"Xcode's empty comment is no note", "/* No comment provided by engineer. */\n\"key\" = \"value\";\n",
			[]formats.Unit{{Context: "key", Target: []string{"value"}, Line: 2}}},
		{"comment after the pair", "\"key1\"=\"v1\"; /*description1*/\n\"key2\"=\"v2\"; // description2\n",
			[]formats.Unit{{Context: "key1", Target: []string{"v1"}, Note: "description1", Line: 1},
				{Context: "key2", Target: []string{"v2"}, Note: "description2", Line: 2}}},
		{"escapes", `"I am a \"key\"" = "a\\b\n\t\r\U00e9\u00E9\UD83D\UDE00\101\q";`,
			[]formats.Unit{{Context: `I am a "key"`, Target: []string{"a\\b\n\t\ré\u00e9😀Aq"}, Line: 1}}},
		{"unquoted key and value", "NSCameraUsageDescription = \"We need camera\";\nkey2 = value_2;",
			[]formats.Unit{{Context: "NSCameraUsageDescription", Target: []string{"We need camera"}, Line: 1},
				{Context: "key2", Target: []string{"value_2"}, Line: 2}}},
		{"raw line breaks inside quotes", "\"key\" = \"one\n\ntwo\";\n\"b\" = \"c\";",
			[]formats.Unit{{Context: "key", Target: []string{"one\n\ntwo"}, Line: 1}, {Context: "b", Target: []string{"c"}, Line: 4}}},
		{"key over lines", "\"key\"\n  =\n  \"v\"\n;",
			[]formats.Unit{{Context: "key", Target: []string{"v"}, Line: 1}}},
		{"equal signs and comments inside quotes", `"a = /* b */" = "c // d";`,
			[]formats.Unit{{Context: "a = /* b */", Target: []string{"c // d"}, Line: 1}}},
		{"duplicate keys: the last wins", "\"a\" = \"1\";\n\"b\" = \"2\";\n\"a\" = \"3\";\n",
			[]formats.Unit{{Context: "b", Target: []string{"2"}, Line: 2}, {Context: "a", Target: []string{"3"}, Line: 3}}},
		{"key alone stands for itself", "\"Cancel\";\n",
			[]formats.Unit{{Context: "Cancel", Target: []string{"Cancel"}, Line: 1}}},
		{"empty", "", []formats.Unit{}},
		{"comments only", "/* nothing */\n// here\n", []formats.Unit{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustDecodeStrings(t, []byte(tc.in))
			for i := range got {
				if len(got[i].Flags) == 0 {
					got[i].Flags = nil
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decode(%q)\n got %+v\nwant %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestStringsParseErrors(t *testing.T) {
	tests := []struct {
		in        string
		line, col int
	}{
		{`"key" = "value"`, 1, 16},
		{"\"a\" = \"b\";\n\"key\" \"value\";", 2, 7},
		{`"key" = "unterminated;`, 1, 9},
		{"/* open comment\n\"a\" = \"b\";", 1, 1},
		{`"a" = ;`, 1, 7},
		{"\"a\" = \"b\";\n  = \"c\";", 2, 3},
		{"\"a\xff\" = \"b\";", 1, 3},
		{"\"é\" = \"b\" x", 1, 11},
	}
	for _, tc := range tests {
		_, err := Strings.Decode([]byte(tc.in), formats.File{})
		var pe *formats.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Decode(%q) = %v, want a *formats.ParseError", tc.in, err)
			continue
		}
		if pe.Line != tc.line || pe.Column != tc.col {
			t.Errorf("Decode(%q): %v at %d:%d, want %d:%d", tc.in, err, pe.Line, pe.Column, tc.line, tc.col)
		}
	}
}

func utf16LE(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func utf16BE(s string) []byte {
	b := []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}

func TestStringsUTF16(t *testing.T) {
	src := "/* Kommentar */\n\"a\" = \"zkouška 😀\";\n\"b\" = \"x\";\n"
	want := "/* Kommentar */\n\"a\" = \"zkouška 😀\";\n\"b\" = \"neu \\\"ü\\\"\";\n"
	edit := []formats.Edit{{Context: "b", Target: []string{`neu "ü"`}}}
	for _, tc := range []struct {
		name     string
		enc      func(string) []byte
		codec    StringsCodec
		wantUnit string
	}{
		{"LE with BOM", func(s string) []byte { return utf16LE(s, true) }, Strings, "zkouška 😀"},
		{"LE without BOM", func(s string) []byte { return utf16LE(s, false) }, StringsUTF8, "zkouška 😀"},
		{"BE with BOM", utf16BE, Strings, "zkouška 😀"},
		{"UTF-8 with BOM", func(s string) []byte { return append([]byte("\xEF\xBB\xBF"), s...) }, Strings, "zkouška 😀"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.enc(src)
			got := stringsTargets(t, data)
			if got["a"] != tc.wantUnit || got["b"] != "x" {
				t.Fatalf("Decode = %q", got)
			}
			if out, _ := tc.codec.Apply(data, formats.File{}, nil); !bytes.Equal(out, data) {
				t.Errorf("Apply without edits changed the file")
			}
			out, err := tc.codec.Apply(data, formats.File{}, edit)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, tc.enc(want)) {
				t.Errorf("Apply wrote\n%q\nwant\n%q", out, tc.enc(want))
			}
		})
	}
	if _, err := Strings.Decode([]byte{0xFF, 0xFE, '"', 0, 0x00, 0xD8, '"', 0}, formats.File{}); err == nil {
		t.Error("an unpaired surrogate decoded without an error")
	}
	if _, err := Strings.Decode([]byte{0xFF, 0xFE, '"'}, formats.File{}); err == nil {
		t.Error("an odd-length UTF-16 file decoded without an error")
	}
}

func TestStringsNewFile(t *testing.T) {
	out, err := Strings.Apply(nil, formats.File{}, nil)
	if err != nil || !bytes.Equal(out, []byte{0xFF, 0xFE, '\n', 0}) {
		t.Errorf("new strings file = %q, %v; want the reference's \"\\n\" in UTF-16 with BOM", out, err)
	}
	out, _ = StringsUTF8.Apply(nil, formats.File{}, nil)
	if string(out) != "\n" {
		t.Errorf("new strings-utf8 file = %q, want \"\\n\"", out)
	}
	edits := []formats.Edit{{Context: "a", Target: []string{"1"}}, {Context: "skip", Target: []string{""}}, {Context: "b", Target: []string{"2"}}}
	out, _ = StringsUTF8.Apply(nil, formats.File{}, edits)
	if want := "\"a\" = \"1\";\n\"b\" = \"2\";\n"; string(out) != want {
		t.Errorf("new file with edits = %q, want %q", out, want)
	}
	out, _ = Strings.Apply(nil, formats.File{}, edits)
	if want := utf16LE("\"a\" = \"1\";\n\"b\" = \"2\";\n", true); !bytes.Equal(out, want) {
		t.Errorf("new UTF-16 file with edits = %q, want %q", out, want)
	}
}

func TestStringsAdd(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one pair, no final newline", `"a" = "1";`, "\"a\" = \"1\";\n\"new\" = \"v\\n\";"},
		{"blank lines between pairs", "/* A */\n\"a\" = \"1\";\n\n/* B */\n\"b\" = \"2\";\n",
			"/* A */\n\"a\" = \"1\";\n\n/* B */\n\"b\" = \"2\";\n\n\"new\" = \"v\\n\";\n"},
		{"tight spacing", "\"a\"=\"1\";\n\"b\"=\"2\";", "\"a\"=\"1\";\n\"b\"=\"2\";\n\"new\"=\"v\\n\";"},
		{"after a trailing comment", "\"a\" = \"1\"; // one\n", "\"a\" = \"1\"; // one\n\"new\" = \"v\\n\";\n"},
		{"comments only", "/* header */", "/* header */\n\"new\" = \"v\\n\";\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := StringsUTF8.Apply([]byte(tc.in), formats.File{}, []formats.Edit{{Context: "new", Target: []string{"v\n"}}})
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("Apply(%q)\n got %q\nwant %q", tc.in, out, tc.want)
			}
			if stringsTargets(t, out)["new"] != "v\n" {
				t.Errorf("the added pair does not read back")
			}
		})
	}
}

func TestStringsEditForms(t *testing.T) {
	in := "key1 = bare;\n\"Cancel\";\n\"x\" = \"one\ntwo\";\n"
	edits := []formats.Edit{
		{Context: "key1", Target: []string{"now quoted"}},
		{Context: "Cancel", Target: []string{"Abbrechen"}},
		{Context: "x", Target: []string{"one\ntwo"}}, // unchanged: the raw line break stays
	}
	out, err := StringsUTF8.Apply([]byte(in), formats.File{}, edits)
	if err != nil {
		t.Fatal(err)
	}
	want := "key1 = \"now quoted\";\n\"Cancel\" = \"Abbrechen\";\n\"x\" = \"one\ntwo\";\n"
	if string(out) != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
}

func TestStringsRemove(t *testing.T) {
	tests := []struct {
		name, in string
		keys     []string
		want     string
	}{
		{"middle with its comment", "\"a\" = \"1\";\n/* B */\n\"b\" = \"2\";\n\"c\" = \"3\";\n", []string{"b"}, "\"a\" = \"1\";\n\"c\" = \"3\";\n"},
		{"last, no final newline", "\"a\" = \"1\";\n\"b\" = \"2\";", []string{"b"}, "\"a\" = \"1\";"},
		{"blank-line separated", "\"a\" = \"1\";\n\n\"b\" = \"2\";\n\n\"c\" = \"3\";\n", []string{"b"}, "\"a\" = \"1\";\n\n\"c\" = \"3\";\n"},
		{"first", "\"a\" = \"1\";\n\n\"b\" = \"2\";\n", []string{"a"}, "\"b\" = \"2\";\n"},
		{"two neighbours", "\"a\" = \"1\";\n\"b\" = \"2\";\n\"c\" = \"3\";\n", []string{"a", "b"}, "\"c\" = \"3\";\n"},
		{"every duplicate", "\"a\" = \"1\";\n\"b\" = \"2\";\n\"a\" = \"3\";\n", []string{"a"}, "\"b\" = \"2\";\n"},
		{"file header stays", "/* Header */\n\n/* A */\n\"a\" = \"1\";\n\"b\" = \"2\";\n", []string{"a"}, "/* Header */\n\n\"b\" = \"2\";\n"},
		{"absent key", "\"a\" = \"1\";\n", []string{"zzz"}, "\"a\" = \"1\";\n"},
		{"all", "\"a\" = \"1\";\n\"b\" = \"2\";", []string{"a", "b"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var keys []formats.Key
			for _, k := range tc.keys {
				keys = append(keys, formats.Key{Context: k})
			}
			out, err := StringsUTF8.Remove([]byte(tc.in), formats.File{}, keys)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("Remove(%q, %v)\n got %q\nwant %q", tc.in, tc.keys, out, tc.want)
			}
		})
	}
}

func TestStringsCorpusRemoveAndEmptied(t *testing.T) {
	_, files := corpusFiles(t, ".strings")
	base := files["Base"]
	units := mustDecodeStrings(t, base)
	out, err := StringsUTF8.Remove(base, formats.File{}, []formats.Key{{Context: units[3].Context}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, bytes.Replace(base, []byte(strings.SplitAfter(string(base), "\n")[3]), nil, 1)) {
		t.Errorf("removing the fourth unit of Base did not remove exactly its line")
	}
	empty, err := StringsUTF8.Emptied(base, formats.File{})
	if err != nil {
		t.Fatal(err)
	}
	got := mustDecodeStrings(t, empty)
	if len(got) != 626 {
		t.Fatalf("emptied template has %d units, want 626", len(got))
	}
	for _, u := range got {
		if u.Target[0] != "" {
			t.Fatalf("emptied template keeps %q = %q", u.Context, u.Target[0])
		}
	}
}
