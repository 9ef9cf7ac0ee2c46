package tbx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// corpusDir is the shared TBX corpus, relative to this package.
const corpusDir = "../../../shared/corpus/tbx"

// corpusFile is one corpus file with the languages it is read with.
type corpusFile struct {
	path           string
	data           []byte
	source, target string
}

// mustCorpus returns every .tbx file under dir (relative to corpusDir),
// skipping the test when the corpus is not checked out.
func mustCorpus(tb testing.TB, dir string) []corpusFile {
	tb.Helper()
	root := filepath.Join(corpusDir, dir)
	if _, err := os.Stat(root); err != nil {
		tb.Skipf("corpus not available: %v", err)
	}
	var files []corpusFile
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".tbx") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// Every corpus file is en → the language its name starts with
		// (fr-extended-metadata.tbx is French).
		lang := strings.TrimSuffix(filepath.Base(path), ".tbx")
		if i := strings.Index(lang, "-"); i >= 0 {
			lang = lang[:i]
		}
		files = append(files, corpusFile{path: path, data: data, source: "en", target: lang})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Skipf("no .tbx files under %s", root)
	}
	return files
}

func mustDecode(tb testing.TB, data []byte) *File {
	tb.Helper()
	f, err := Decode(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("Decode: %v", err)
	}
	return f
}

func TestRoundTripCorpus(t *testing.T) {
	files := mustCorpus(t, "")
	if len(files) != 48 {
		t.Errorf("corpus has %d .tbx files, want 48 (46 slicer + 2 weblate)", len(files))
	}
	for _, cf := range files {
		t.Run(filepath.Base(filepath.Dir(cf.path))+"/"+filepath.Base(cf.path), func(t *testing.T) {
			t.Parallel()
			f := mustDecode(t, cf.data)
			var out bytes.Buffer
			if err := f.Encode(&out, cf.source, cf.target, nil); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), cf.data) {
				t.Fatalf("round trip differs: got %d bytes, want %d", out.Len(), len(cf.data))
			}
			// Edits that restate every target change nothing either. Keys
			// held by several entries are left out: an edit sets them all.
			units := f.Units(cf.source, cf.target)
			keys := map[[2]string]int{}
			for _, u := range units {
				keys[[2]string{u.Source[0], u.Context}]++
			}
			var same []Edit
			for _, u := range units {
				if keys[[2]string{u.Source[0], u.Context}] == 1 {
					same = append(same, Edit{Source: u.Source[0], Context: u.Context, Target: u.Target})
				}
			}
			out.Reset()
			if err := f.EncodeTerms(&out, cf.source, cf.target, same); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), cf.data) {
				t.Fatal("restating every target changed the file")
			}
		})
	}
}

func TestSlicerCounts(t *testing.T) {
	files := mustCorpus(t, "slicer")
	var entries, translated, withID int
	perFile := map[string][2]int{} // file → entries, translated
	for _, cf := range files {
		f := mustDecode(t, cf.data)
		units := f.Units(cf.source, cf.target)
		n := 0
		for _, u := range units {
			if len(u.Source) != 1 || u.Source[0] == "" {
				t.Errorf("%s line %d: source %q", cf.path, u.Line, u.Source)
			}
			if len(u.Target) != 1 {
				t.Errorf("%s line %d: target %q", cf.path, u.Line, u.Target)
			}
			if u.Target[0] != "" {
				n++
			}
			if u.Context == "1" {
				withID++
			} else if u.Context != "" {
				t.Errorf("%s line %d: context %q", cf.path, u.Line, u.Context)
			}
			if u.Note != "" || u.Explanation != "" || u.Flags != nil {
				t.Errorf("%s line %d: unexpected metadata %+v", cf.path, u.Line, u)
			}
		}
		// Cross-check against a plain count of the file's text.
		if want := bytes.Count(cf.data, []byte("<termEntry")); len(units) != want {
			t.Errorf("%s: %d units, file has %d termEntry", cf.path, len(units), want)
		}
		entries += len(units)
		translated += n
		perFile[filepath.Base(cf.path)] = [2]int{len(units), n}
	}
	if len(files) != 46 {
		t.Errorf("%d slicer files, want 46", len(files))
	}
	for _, c := range []struct {
		name string
		got  int
		want int
	}{
		{"entries", entries, 6938},
		{"translated", translated, 1105},
		{`id="1"`, withID, 469},
		{"ca.tbx entries", perFile["ca.tbx"][0], 247},
		{"ca.tbx translated", perFile["ca.tbx"][1], 205},
		{"de.tbx entries", perFile["de.tbx"][0], 148},
		// 138 written <term/> (the figure SOURCE.md gives) plus one
		// <term></term>, line 603.
		{"de.tbx untranslated", perFile["de.tbx"][0] - perFile["de.tbx"][1], 139},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestSlicerUnits(t *testing.T) {
	files := mustCorpus(t, "slicer")
	i := slices.IndexFunc(files, func(cf corpusFile) bool { return filepath.Base(cf.path) == "de.tbx" })
	if i < 0 {
		t.Skip("de.tbx missing")
	}
	units := mustDecode(t, files[i].data).Units("en", "de")
	want := []formats.Unit{
		{Source: []string{"Glyph"}, Target: []string{""}, Line: 13},
		{Source: []string{"volume"}, Target: []string{"Volumen"}, Line: 17},
		{Source: []string{"Toggle visibility"}, Target: []string{"Sichtbarkeit umschalten"}, Line: 21},
	}
	for j, w := range want {
		if got := units[j]; !unitEqual(got, w) {
			t.Errorf("unit %d = %+v, want %+v", j, got, w)
		}
	}
	// Repeated English terms stay separate units. The id="1" of the second
	// occurrence does not always make (source, context) unique: "Glyph"
	// occurs three times (lines 13, 445, 597), twice without an id, in 30
	// of the 46 files. All three must come back.
	var glyph []string
	for _, u := range units {
		if u.Source[0] == "Glyph" {
			glyph = append(glyph, fmt.Sprintf("%d:%q", u.Line, u.Context))
		}
	}
	if want := []string{`13:""`, `445:"1"`, `597:""`}; !slices.Equal(glyph, want) {
		t.Errorf("Glyph entries %v, want %v", glyph, want)
	}
}

func unitEqual(a, b formats.Unit) bool {
	return a.Context == b.Context && slices.Equal(a.Source, b.Source) && slices.Equal(a.Target, b.Target) &&
		a.Note == b.Note && a.Explanation == b.Explanation && slices.Equal(a.Flags, b.Flags) && a.Line == b.Line
}

func TestWeblateTestdata(t *testing.T) {
	files := mustCorpus(t, "weblate-testdata")
	byName := map[string]corpusFile{}
	for _, cf := range files {
		byName[filepath.Base(cf.path)] = cf
	}
	tests := []struct {
		file           string
		source, target string
		want           []formats.Unit
	}{{
		file: "cs.tbx", source: "en", target: "cs",
		want: []formats.Unit{
			{Source: []string{"address bar"}, Target: []string{"adresní řádek"}, Line: 13},
			{Source: []string{"administrator"}, Target: []string{"správce"}, Line: 25},
			{Source: []string{"administrate"}, Target: []string{"spravovat"}, Line: 37},
			{Source: []string{"always on top"}, Target: []string{"vždy navrchu"}, Line: 49},
		},
	}, {
		// Language codes match loosely: en_US finds "en", fr-FR finds "fr".
		file: "cs.tbx", source: "en_US", target: "CS-cz",
		want: []formats.Unit{
			{Source: []string{"address bar"}, Target: []string{"adresní řádek"}, Line: 13},
			{Source: []string{"administrator"}, Target: []string{"správce"}, Line: 25},
			{Source: []string{"administrate"}, Target: []string{"spravovat"}, Line: 37},
			{Source: []string{"always on top"}, Target: []string{"vždy navrchu"}, Line: 49},
		},
	}, {
		file: "fr-extended-metadata.tbx", source: "en", target: "fr",
		want: []formats.Unit{{
			Context:     "e001",
			Source:      []string{"data bus"},
			Target:      []string{"bus de données"},
			Explanation: "Superseded but still found in older manuals.\nAvoid using this term in any documentation.",
			Flags:       []string{FlagForbidden},
			Line:        13,
		}, {
			Context:     "e002",
			Source:      []string{"SYS_ERR_406"},
			Target:      []string{"SYS_ERR_406"},
			Explanation: "An internal code identifier not to be localized.",
			Note:        "Do not translate error codes.",
			Flags:       []string{FlagReadOnly},
			Line:        30,
		}},
	}}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.target, func(t *testing.T) {
			cf, ok := byName[tc.file]
			if !ok {
				t.Skipf("%s missing", tc.file)
			}
			got := mustDecode(t, cf.data).Units(tc.source, tc.target)
			if len(got) != len(tc.want) {
				t.Fatalf("%d units, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				if !unitEqual(got[i], tc.want[i]) {
					t.Errorf("unit %d:\n got %+v\nwant %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestLanguageMatching(t *testing.T) {
	doc := func(langs ...string) string {
		var b strings.Builder
		b.WriteString("<martif><text><body><termEntry>")
		for _, l := range langs {
			b.WriteString(`<langSet xml:lang="` + l + `"><tig><term>` + l + `</term></tig></langSet>`)
		}
		b.WriteString("</termEntry></body></text></martif>")
		return b.String()
	}
	tests := []struct {
		name           string
		langs          []string
		source, target string
		wantS, wantT   string
	}{
		{"exact", []string{"en", "de"}, "en", "de", "en", "de"},
		{"case and separator", []string{"en", "pt-BR"}, "en", "pt_br", "en", "pt-BR"},
		{"underscore in file", []string{"en", "pt_BR"}, "en", "pt-BR", "en", "pt_BR"},
		{"exact before primary", []string{"en", "en_US"}, "en", "en_US", "en", "en_US"},
		{"exact before primary reversed", []string{"en_US", "en"}, "en", "en_US", "en", "en_US"},
		{"primary subtag", []string{"en_US", "de"}, "en", "de_DE", "en_US", "de"},
		{"sole other langSet", []string{"en", "xx"}, "en", "de", "en", "xx"},
		{"no guess among several", []string{"en", "xx", "yy"}, "en", "de", "en", ""},
		{"target missing", []string{"en"}, "en", "de", "en", ""},
		{"source missing", []string{"de"}, "en", "de", "", "de"},
		{"same language never both", []string{"en"}, "en", "en_GB", "en", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := mustDecode(t, []byte(doc(tc.langs...))).Units(tc.source, tc.target)[0]
			if u.Source[0] != tc.wantS || u.Target[0] != tc.wantT {
				t.Errorf("langSets %q with %s→%s: source %q target %q, want %q %q",
					tc.langs, tc.source, tc.target, u.Source[0], u.Target[0], tc.wantS, tc.wantT)
			}
		})
	}
}

func TestDecodeShapes(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want formats.Unit
	}{{
		name: "ntig termGrp",
		doc: `<martif><text><body><termEntry id="x"><langSet xml:lang="en"><ntig><termGrp><term>file</term></termGrp></ntig></langSet>` +
			`<langSet xml:lang="de"><ntig><termGrp><term>Datei</term></termGrp></ntig></langSet></termEntry></body></text></martif>`,
		want: formats.Unit{Context: "x", Source: []string{"file"}, Target: []string{"Datei"}, Line: 1},
	}, {
		name: "namespace prefix and entities",
		doc: `<t:martif xmlns:t="urn:iso:std:iso:30042:ed-2"><t:text><t:body><t:termEntry>` +
			`<t:langSet xml:lang="en"><t:tig><t:term>A &amp; B</t:term></t:tig></t:langSet>` +
			`<t:langSet xml:lang="de"><t:tig><t:term><![CDATA[A & <B>]]></t:term></t:tig></t:langSet></t:termEntry></t:body></t:text></t:martif>`,
		want: formats.Unit{Source: []string{"A & B"}, Target: []string{"A & <B>"}, Line: 1},
	}, {
		name: "several notes and descrips, administrative status on the TBX picklist",
		doc: `<martif><text><body><termEntry><note>one</note><descrip type="definition">def</descrip>` +
			`<langSet xml:lang="en"><descrip type="context">ctx</descrip><tig><term>x</term>` +
			`<termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote><note>two</note></tig></langSet>` +
			`<langSet xml:lang="de"><descrip>target descrip is not the explanation</descrip><note from="translator">three</note>` +
			`<tig><term>y</term><termNote type="translationNote">no</termNote></tig></langSet></termEntry></body></text></martif>`,
		want: formats.Unit{Source: []string{"x"}, Target: []string{"y"}, Explanation: "def\nctx",
			Note: "one\ntwo\nthree", Flags: []string{FlagForbidden, FlagReadOnly}, Line: 1},
	}, {
		name: "only the first term counts",
		doc: `<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>a</term></tig><tig><term>b</term></tig></langSet>` +
			`<langSet xml:lang="de"/></termEntry></body></text></martif>`,
		want: formats.Unit{Source: []string{"a"}, Target: []string{""}, Line: 1},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			units := mustDecode(t, []byte(tc.doc)).Units("en", "de")
			if len(units) != 1 || !unitEqual(units[0], tc.want) {
				t.Errorf("got %+v\nwant %+v", units, tc.want)
			}
		})
	}
}

func TestDecodeMalformed(t *testing.T) {
	tests := []struct {
		name       string
		doc        string
		line, col  int // 0: only check that there is one
		wantSubstr string
	}{
		{"empty", "", 0, 0, "no root element"},
		{"only a declaration", `<?xml version="1.0"?>` + "\n", 0, 0, "no root element"},
		{"truncated", "<martif>\n  <text><body><termEntry>", 2, 0, "unexpected EOF"},
		{"mismatched end tag", "<martif>\n<text>\n</body></martif>", 3, 0, "</body>"},
		{"bad entity", "<martif>\n  <term>a &nope; b</term></martif>", 2, 0, "entity"},
		{"unquoted attribute", `<martif><termEntry id=1></termEntry></martif>`, 1, 0, "quoted"},
		{"latin-1 declared", `<?xml version="1.0" encoding="ISO-8859-1"?><martif/>`, 1, 0, "ISO-8859-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Decode(strings.NewReader(tc.doc))
			var pe *formats.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Decode(%q) = %v, %v; want *formats.ParseError", tc.doc, f, err)
			}
			if tc.line != 0 && pe.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", pe.Line, tc.line, err)
			}
			if tc.line != 0 && pe.Column < 1 {
				t.Errorf("column %d, want ≥ 1 (%v)", pe.Column, err)
			}
			if !strings.Contains(err.Error(), tc.wantSubstr) {
				t.Errorf("error %q does not mention %q", err, tc.wantSubstr)
			}
		})
	}
}

func TestNew(t *testing.T) {
	f := New("en", "de")
	if units := f.Units("en", "de"); len(units) != 0 {
		t.Errorf("new file has units: %+v", units)
	}
	var out bytes.Buffer
	if err := f.Encode(&out, "en", "de", nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `<martif type="TBX" xml:lang="en">`) {
		t.Errorf("new file does not name its source language:\n%s", out.String())
	}
	if _, err := Decode(&out); err != nil {
		t.Fatalf("new file does not decode: %v", err)
	}
}
