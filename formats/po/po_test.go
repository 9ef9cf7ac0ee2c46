package po

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/internal/corpustest"
)

// corpusDir is the kooha corpus seen from this package's directory.
var corpusDir = filepath.Join(corpustest.Root, "kooha", "po")

func mustDecode(tb testing.TB, c Codec, data []byte) []formats.Unit {
	tb.Helper()
	units, err := c.Decode(data, formats.File{})
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	return units
}

func mustApply(tb testing.TB, c Codec, data []byte, f formats.File, edits ...formats.Edit) []byte {
	tb.Helper()
	out, err := c.Apply(data, f, edits)
	if err != nil {
		tb.Fatalf("Apply(%v): %v", edits, err)
	}
	return out
}

// TestCorpusCounts checks the decoder against SOURCE.md's counts, made
// with Translate Toolkit and msgfmt --statistics: 103 entries per file,
// 3 plural and 14 with msgctxt in the template, 2,847 translated, 97
// fuzzy and 661 untranslated entries over the 35 translations, and the
// number of plural forms each header's nplurals gives.
func TestCorpusCounts(t *testing.T) {
	var translated, fuzzy, untranslated, files, obsolete, obsoleteFuzzy int
	nforms := map[int]int{}
	for _, path := range corpusFiles(t, true) {
		data := mustRead(t, path)
		units := mustDecode(t, Codec{}, data)
		d, err := parse(string(data))
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.blocks {
			if b := &d.blocks[i]; b.kind == kindObsolete {
				obsolete++
				if d.isFuzzy(b) {
					obsoleteFuzzy++
				}
			}
		}
		if len(units) != 103 {
			t.Errorf("%s: %d units, want 103", path, len(units))
		}
		if strings.HasSuffix(path, ".pot") {
			var plural, ctx, extracted int
			for _, u := range units {
				if len(u.Source) == 2 {
					plural++
				}
				if u.Context != "" {
					ctx++
					if u.Context != "shortcut window" {
						t.Errorf("context %q", u.Context)
					}
				}
				if strings.Contains(u.Note, "Translators:") {
					extracted++
				}
			}
			if plural != 3 || ctx != 14 || extracted != 8 {
				t.Errorf("template: %d plural, %d msgctxt, %d extracted comments; want 3, 14, 8", plural, ctx, extracted)
			}
			continue
		}
		files++
		for _, u := range units {
			switch {
			case u.Fuzzy:
				fuzzy++
			case slices.ContainsFunc(u.Target, func(s string) bool { return s != "" }):
				translated++
			default:
				untranslated++
			}
			if len(u.Source) == 2 {
				nforms[len(u.Target)]++
			}
		}
	}
	if files != 35 || translated != 2847 || fuzzy != 97 || untranslated != 661 {
		t.Errorf("%d files: %d translated, %d fuzzy, %d untranslated; want 35: 2847, 97, 661", files, translated, fuzzy, untranslated)
	}
	if obsolete != 2716 || obsoleteFuzzy != 20 {
		t.Errorf("%d obsolete entries, %d of them fuzzy; want 2716, 20", obsolete, obsoleteFuzzy)
	}
	// Three plural entries per file: nplurals 1 ×5, 2 ×21, 3 ×5, 4 ×2, 5 ×1, 6 ×1.
	want := map[int]int{1: 15, 2: 63, 3: 15, 4: 6, 5: 3, 6: 3}
	if !reflect.DeepEqual(nforms, want) {
		t.Errorf("plural forms per entry: %v, want %v", nforms, want)
	}
}

// TestCorpusUnits checks one file's units field by field.
func TestCorpusUnits(t *testing.T) {
	corpusFiles(t, false)
	units := mustDecode(t, Codec{}, mustRead(t, filepath.Join(corpusDir, "de.po")))
	first := units[0]
	want := formats.Unit{
		Source: []string{"Kooha"}, Target: []string{"Kooha"}, Line: 32,
		Location: "data/io.github.seadve.Kooha.desktop.in.in:2, data/io.github.seadve.Kooha.metainfo.xml.in.in:7, src/about.rs:24, src/main.rs:61",
	}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("first unit\n got %#v\nwant %#v", first, want)
	}
	var hour, general []formats.Unit
	for _, u := range units {
		if u.Source[0] == "{time}\u202fhour" {
			hour = append(hour, u)
		}
		if u.Source[0] == "General" {
			general = append(general, u)
		}
	}
	if len(hour) != 1 || !reflect.DeepEqual(hour[0].Source, []string{"{time}\u202fhour", "{time}\u202fhours"}) ||
		!reflect.DeepEqual(hour[0].Target, []string{"{time}\u202fStunde", "{time}\u202fStunden"}) ||
		!strings.HasPrefix(hour[0].Note, "Translators: Do NOT translate") {
		t.Errorf("plural unit: %#v", hour)
	}
	if len(general) != 2 || general[0].Context == general[1].Context {
		t.Errorf("General twice under different msgctxt: %#v", general)
	}
	// sr@latin: Plural-Forms over two lines, no trailing ";", 4 forms.
	sr := mustDecode(t, Codec{}, mustRead(t, filepath.Join(corpusDir, "sr@latin.po")))
	for _, u := range sr {
		if len(u.Source) == 2 && len(u.Target) != 4 {
			t.Errorf("sr@latin %q: %d forms, want 4", u.Source[0], len(u.Target))
		}
	}
	// The monolingual reading keys by msgctxt\x04msgid.
	mono := mustDecode(t, Codec{Monolingual: true}, mustRead(t, filepath.Join(corpusDir, "de.po")))
	keys := map[string]bool{}
	for _, u := range mono {
		if u.Source != nil || keys[u.Context] {
			t.Fatalf("mono unit %q: source %q or key twice", u.Context, u.Source)
		}
		keys[u.Context] = true
	}
	if !keys["General"] || !keys["shortcut window\x04General"] {
		t.Errorf("mono keys lack General and its msgctxt form")
	}
}

// TestCorpusRoundTrip: Apply with no edits, and with every unit set to
// what it has, returns every file byte for byte.
func TestCorpusRoundTrip(t *testing.T) {
	for _, path := range corpusFiles(t, true) {
		data := mustRead(t, path)
		for _, c := range []Codec{{}, {Monolingual: true}} {
			if out := mustApply(t, c, data, testFile()); string(out) != string(data) {
				t.Errorf("%s (mono %v): Apply(nil) changed the file", path, c.Monolingual)
			}
			var same []formats.Edit
			for _, u := range mustDecode(t, c, data) {
				same = append(same, formats.Edit{Context: u.Context, Source: u.Source, Target: u.Target, Fuzzy: u.Fuzzy})
			}
			if out := mustApply(t, c, data, testFile(), same...); string(out) != string(data) {
				t.Errorf("%s (mono %v): Apply of unchanged units changed the file", path, c.Monolingual)
			}
		}
	}
}

func testFile() formats.File {
	return formats.File{Target: formats.Language{Code: "de", PluralCount: 2, PluralFormula: "n != 1"}}
}

// TestParseErrors checks that malformed files are *formats.ParseError
// with the position of the fault.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src  string
		line, col  int
		msgContain string
	}{
		{"unterminated", "msgid \"a\nmsgstr \"b\"\n", 1, 7, "unterminated"},
		{"bad escape", "msgid \"a\\q\"\nmsgstr \"\"\n", 1, 9, "invalid escape"},
		{"msgstr alone", "msgstr \"b\"\n", 1, 1, "without a msgid"},
		{"no msgstr", "msgid \"a\"\n", 1, 1, "without a msgstr"},
		{"plural without index", "msgid \"a\"\nmsgid_plural \"b\"\nmsgstr \"c\"\n", 3, 1, "needs an index"},
		{"index without plural", "msgid \"a\"\nmsgstr[0] \"c\"\n", 2, 1, "without a msgid_plural"},
		{"index order", "msgid \"a\"\nmsgid_plural \"b\"\nmsgstr[1] \"c\"\n", 3, 1, "msgstr[0] was expected"},
		{"garbage", "msgid \"a\"\nmsgstr \"b\"\nhello\n", 3, 1, "unexpected"},
		{"after string", "msgid \"a\" x\nmsgstr \"b\"\n", 1, 11, "after a string"},
		{"comment inside", "msgid \"a\"\n# c\nmsgstr \"b\"\n", 2, 1, "comment inside"},
		{"invalid utf-8", "msgid \"a\"\nmsgstr \"\xff\"\n", 2, 9, "UTF-8"},
		{"keyword without string", "msgid\nmsgstr \"\"\n", 1, 6, "without a string"},
		{"string outside", "\"a\"\n", 1, 1, "outside an entry"},
		{"unknown keyword", "# : projects.py:136\n\nmsgid \"View\"\nms \"Bekyk\"\n", 4, 1, "unexpected"},
		{"msgxyz", "msgid \"Test\"\nmsgxyz \"Translation\"\n", 2, 1, "unexpected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Codec{}.Decode([]byte(tc.src), formats.File{})
			var pe *formats.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *formats.ParseError", err)
			}
			if pe.Line != tc.line || pe.Column != tc.col || !strings.Contains(pe.Error(), tc.msgContain) {
				t.Errorf("got %d:%d %v, want %d:%d containing %q", pe.Line, pe.Column, pe.Err, tc.line, tc.col, tc.msgContain)
			}
		})
	}
}

// TestDecodeEdgeCases covers the spellings of PO the corpus lacks.
func TestDecodeEdgeCases(t *testing.T) {
	header := "msgid \"\"\nmsgstr \"\"\n\"Language: cs\\n\"\n\"Plural-Forms: nplurals=3; \"\n\"plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;\\n\"\n\n"
	cases := []struct {
		name string
		src  string
		want []formats.Unit
	}{
		{"escapes and continuation", "msgid \"\"\n\"a \\\"q\\\" \\\\ \\t\"\n\"b\\n\\101\\x42\"\nmsgstr \"x\"\n",
			[]formats.Unit{{Source: []string{"a \"q\" \\ \tb\nAB"}, Target: []string{"x"}, Line: 1}}},
		{"crlf", "# note\r\n#. extracted\r\n#: a.c:1 b.c:2\r\n#: c.c:3\r\n#, fuzzy, c-format\r\nmsgctxt \"k\"\r\nmsgid \"a\"\r\nmsgstr \"b\"\r\n",
			[]formats.Unit{{Context: "k", Source: []string{"a"}, Target: []string{"b"}, Line: 1, Note: "note\nextracted",
				Location: "a.c:1, b.c:2, c.c:3", Flags: []string{"c-format"}, Fuzzy: true}}},
		{"no final newline", "msgid \"a\"\nmsgstr \"b\"", []formats.Unit{{Source: []string{"a"}, Target: []string{"b"}, Line: 1}}},
		{"bom", "\uFEFFmsgid \"a\"\nmsgstr \"b\"\n", []formats.Unit{{Source: []string{"a"}, Target: []string{"b"}, Line: 1}}},
		{"split header, missing forms", header + "msgid \"f\"\nmsgid_plural \"fs\"\nmsgstr[0] \"x\"\n",
			[]formats.Unit{{Source: []string{"f", "fs"}, Target: []string{"x", "", ""}, Line: 7}}},
		{"same msgid, other msgctxt", "msgid \"a\"\nmsgstr \"1\"\n\nmsgctxt \"c\"\nmsgid \"a\"\nmsgstr \"2\"\n",
			[]formats.Unit{{Source: []string{"a"}, Target: []string{"1"}, Line: 1}, {Context: "c", Source: []string{"a"}, Target: []string{"2"}, Line: 4}}},
		{"duplicate: first wins", "msgid \"a\"\nmsgstr \"1\"\n\nmsgid \"a\"\nmsgstr \"2\"\n",
			[]formats.Unit{{Source: []string{"a"}, Target: []string{"1"}, Line: 1}}},
		{"obsolete and previous", "#, fuzzy\n#| msgid \"old\"\nmsgid \"a\"\nmsgstr \"b\"\n\n#, fuzzy\n#~ msgid \"o\"\n#~ msgstr \"p\"\n",
			[]formats.Unit{{Source: []string{"a"}, Target: []string{"b"}, Line: 1, Fuzzy: true}}},
		{"no blank lines, tabs", "msgid\t\"a\"\nmsgstr\t\"b\"\n#: x\nmsgid \"c\"\n  msgstr \"d\"\n",
			[]formats.Unit{{Source: []string{"a"}, Target: []string{"b"}, Line: 1}, {Source: []string{"c"}, Target: []string{"d"}, Line: 3, Location: "x"}}},
		{"empty", "", []formats.Unit{}},
		// Translate Toolkit's test_po.py cases that msgfmt accepts too.
		{"comment after a string", "msgid \"test\"\nmsgstr \"rest\" # comment\n", []formats.Unit{{Source: []string{"test"}, Target: []string{"rest"}, Line: 1}}},
		{"msgctxt with empty msgid", "msgctxt \"CONTEXT\"\nmsgid \"\"\nmsgstr \"\"\n", []formats.Unit{{Context: "CONTEXT", Source: []string{""}, Target: []string{""}, Line: 1}}},
		{"uniforum comments, no blank lines", "# File: a.cpp, line: 33\nmsgid \"thing\"\nmsgstr \"ding\"\n#\n# File: b.cpp, line: 34\nmsgid \"second\"\nmsgstr \"tweede\"\n",
			[]formats.Unit{{Source: []string{"thing"}, Target: []string{"ding"}, Line: 1, Note: "File: a.cpp, line: 33"},
				{Source: []string{"second"}, Target: []string{"tweede"}, Line: 4, Note: "\nFile: b.cpp, line: 34"}}},
		{"obsolete runs without blank lines", "msgid \"thing\"\nmsgstr \"ding\"\n\n#~ msgid \"Second\"\n#~ msgstr \"Tweede\"\n#~ msgid \"Third\"\n#~ msgstr \"Derde\"\n",
			[]formats.Unit{{Source: []string{"thing"}, Target: []string{"ding"}, Line: 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustDecode(t, Codec{}, []byte(tc.src))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("\n got %#v\nwant %#v", got, tc.want)
			}
			if out := mustApply(t, Codec{}, []byte(tc.src), testFile()); tc.src != "" && string(out) != tc.src {
				t.Errorf("round trip changed the file:\n%q", out)
			}
		})
	}
}

// TestEscapeRoundTrip: every value, control characters and bytes that
// are not UTF-8 included, is written as valid UTF-8 and reads back.
func TestEscapeRoundTrip(t *testing.T) {
	for _, v := range []string{"", "plain", "a\"b\\c", "\n\t\r\a\b\f\v", "\x00\x01\x1f\x7f", "\x80\xff é \u202f 漢字", `\n\\n\"`,
		strings.Repeat("lang ", 40) + "\n" + strings.Repeat("x", 100)} {
		for _, wrap := range []bool{false, true} {
			src := strings.Join(append([]string{`msgid "k"`}, quoteLines("msgstr", v, wrap)...), "\n") + "\n"
			units, err := Codec{}.Decode([]byte(src), formats.File{})
			if err != nil || units[0].Target[0] != v {
				t.Errorf("%q (wrap %v) → %q → %v, %v", v, wrap, src, units, err)
			}
		}
	}
}

// corpusFiles returns the corpus's .po files (and the .pot when pot is
// set).
func corpusFiles(tb testing.TB, pot bool) []string {
	tb.Helper()
	paths := corpustest.Glob(tb, "kooha", filepath.Join("po", "*.po"))
	if pot {
		paths = append(paths, filepath.Join(corpusDir, "kooha.pot"))
	}
	return paths
}

// mustRead reads a corpus or test file.
var mustRead = corpustest.Read
