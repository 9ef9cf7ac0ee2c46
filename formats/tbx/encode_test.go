package tbx

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// mustCorpusFile returns one corpus file by its path under corpusDir.
func mustCorpusFile(tb testing.TB, dir, name string) corpusFile {
	tb.Helper()
	for _, cf := range mustCorpus(tb, dir) {
		if filepath.Base(cf.path) == name {
			return cf
		}
	}
	tb.Skipf("%s/%s missing", dir, name)
	return corpusFile{}
}

// replaceLines returns src with the given 1-based lines replaced; a
// replacement of "\x00" deletes the line.
func replaceLines(tb testing.TB, src []byte, repl map[int]string) []byte {
	tb.Helper()
	lines := strings.SplitAfter(string(src), "\n")
	var b strings.Builder
	for i, l := range lines {
		r, ok := repl[i+1]
		switch {
		case !ok:
			b.WriteString(l)
		case r != "\x00":
			b.WriteString(r + "\n")
		}
	}
	return []byte(b.String())
}

// checkEdits applies edits to src and checks the output is want, that
// decoding it gives the edited targets and leaves every other unit as it
// was, and that applying the edits again changes nothing.
func checkEdits(t *testing.T, src []byte, source, target string, edits []Edit, want []byte) {
	t.Helper()
	f := mustDecode(t, src)
	var out bytes.Buffer
	if err := f.EncodeTerms(&out, source, target, edits); err != nil {
		t.Fatalf("EncodeTerms: %v", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("output differs from want:\n%s", firstDiff(out.Bytes(), want))
	}
	g := mustDecode(t, out.Bytes())
	before, after := f.Units(source, target), g.Units(source, target)
	if len(before) != len(after) {
		t.Fatalf("%d units after the edit, %d before", len(after), len(before))
	}
	for i := range before {
		w := before[i]
		for _, ed := range edits {
			if ed.Source == w.Source[0] && ed.Context == w.Context {
				w.Target = []string{written(ed.Target)}
			}
		}
		w.Line = after[i].Line // an inserted langSet moves later lines
		if !unitEqual(after[i], w) {
			t.Errorf("unit %d after the edit:\n got %+v\nwant %+v", i, after[i], w)
		}
	}
	var again bytes.Buffer
	if err := g.EncodeTerms(&again, source, target, edits); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), out.Bytes()) {
		t.Errorf("editing twice differs from editing once:\n%s", firstDiff(again.Bytes(), out.Bytes()))
	}
	again.Reset()
	if err := f.EncodeTerms(&again, source, target, edits); err != nil || !bytes.Equal(again.Bytes(), out.Bytes()) {
		t.Errorf("encoding the same File twice differs (err %v)", err)
	}
}

// written is the term an edit's target reads back as: nil is
// untranslated, and what XML cannot hold is U+FFFD.
func written(target []string) string {
	if len(target) == 0 {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if !isXMLChar(r) {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(target[0], "\uFFFD"))
}

// firstDiff shows where two outputs part, with some context.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-80, 0)
	return "got:  …" + string(got[lo:min(i+80, len(got))]) + "…\nwant: …" + string(want[lo:min(i+80, len(want))]) + "…"
}

func TestEditSlicer(t *testing.T) {
	de := mustCorpusFile(t, "slicer", "de.tbx")
	const ind = "                "
	line := func(term string) string {
		return ind + `<langSet xml:lang="de"><tig>` + term + `</tig></langSet>`
	}
	tests := []struct {
		name  string
		edits []Edit
		want  map[int]string // line → new text
	}{{
		name:  "translate self-closing term",
		edits: []Edit{{Source: "Add Data (or Scene)", Target: []string{"Daten hinzufügen (oder Szene)"}}},
		want:  map[int]string{31: line("<term>Daten hinzufügen (oder Szene)</term>")},
	}, {
		name:  "change a term, escaping markup",
		edits: []Edit{{Source: "scene", Target: []string{`Szene & "Bühne" <3> 'x' ]]>`}}},
		want:  map[int]string{35: line(`<term>Szene &amp; "Bühne" &lt;3&gt; 'x' ]]&gt;</term>`)},
	}, {
		name:  "translate empty start/end term",
		edits: []Edit{{Source: "plugin", Target: []string{"Plug-in ✓ 插件"}}},
		want:  map[int]string{603: line("<term>Plug-in ✓ 插件</term>")},
	}, {
		name:  "untranslate",
		edits: []Edit{{Source: "Voxel", Target: []string{""}}},
		want:  map[int]string{39: line("<term></term>")},
	}, {
		name:  "carriage return and control characters",
		edits: []Edit{{Source: "Voxel", Target: []string{"a\r\nb\tc\x00d\xffe"}}},
		want:  map[int]string{39: line("<term>a&#xD;\nb\tc\uFFFDd\uFFFDe</term>")},
	}, {
		// Two entries share ("Glyph", ""); one edit sets both, the id="1"
		// entry keeps its own value.
		name:  "duplicate key sets every entry",
		edits: []Edit{{Source: "Glyph", Target: []string{"Glyphe"}}},
		want:  map[int]string{15: line("<term>Glyphe</term>"), 599: line("<term>Glyphe</term>")},
	}, {
		name: "several edits, one restating its value",
		edits: []Edit{
			{Source: "Glyph", Context: "1", Target: []string{"Zeichen"}},
			{Source: "volume", Target: []string{"Volumen"}},
			{Source: "scene", Target: []string{"Szene"}},
			{Source: "Voxel", Target: []string{"Voxel (3D)"}},
		},
		want: map[int]string{447: line("<term>Zeichen</term>"), 39: line("<term>Voxel (3D)</term>")},
	}, {
		name:  "empty edit of an empty term changes nothing",
		edits: []Edit{{Source: "Add Data (or Scene)", Target: nil}, {Source: "plugin", Target: []string{""}}},
		want:  map[int]string{},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkEdits(t, de.data, "en", "de", tc.edits, replaceLines(t, de.data, tc.want))
		})
	}
}

func TestEditInsertsLangSet(t *testing.T) {
	// de.tbx without the German langSet of "scene" (line 35): adding the
	// translation back must give the original file byte for byte.
	de := mustCorpusFile(t, "slicer", "de.tbx")
	missing := replaceLines(t, de.data, map[int]string{35: "\x00"})
	if u := mustDecode(t, missing).Units("en", "de")[5]; u.Source[0] != "scene" || u.Target[0] != "" {
		t.Fatalf("unit 5 = %+v, want untranslated scene", u)
	}
	checkEdits(t, missing, "en", "de", []Edit{{Source: "scene", Target: []string{"Szene"}}}, de.data)
	// An empty target adds nothing.
	checkEdits(t, missing, "en", "de", []Edit{{Source: "scene", Target: []string{""}}}, missing)

	// The multi-line Weblate file gets the one-line form, indented like
	// the source langSet.
	cs := mustCorpusFile(t, "weblate-testdata", "cs.tbx")
	noCS := replaceLines(t, cs.data, map[int]string{19: "\x00", 20: "\x00", 21: "\x00", 22: "\x00", 23: "\x00"})
	want := replaceLines(t, noCS, map[int]string{18: "                </langSet>\n" +
		`                <langSet xml:lang="cs"><tig><term>adresní &lt;řádek&gt;</term></tig></langSet>`})
	checkEdits(t, noCS, "en", "cs", []Edit{{Source: "address bar", Target: []string{"adresní <řádek>"}}}, want)

	// A langSet without a term, written either way, gets one, with the
	// document's namespace prefix.
	for _, tc := range []struct{ in, want string }{
		{`<langSet xml:lang="de"/>`, `<langSet xml:lang="de"><t:tig><t:term>x&amp;y</t:term></t:tig></langSet>`},
		{`<langSet xml:lang="de"><t:note>n</t:note></langSet>`, `<langSet xml:lang="de"><t:note>n</t:note><t:tig><t:term>x&amp;y</t:term></t:tig></langSet>`},
	} {
		doc := func(target string) []byte {
			return []byte(`<t:martif xmlns:t="urn:x"><t:termEntry><t:langSet xml:lang="en"><t:tig><t:term>a</t:term></t:tig></t:langSet>` +
				strings.ReplaceAll(strings.ReplaceAll(target, "<langSet", "<t:langSet"), "</langSet", "</t:langSet") +
				`</t:termEntry></t:martif>`)
		}
		in, want := doc(tc.in), doc(tc.want)
		t.Run(tc.in, func(t *testing.T) {
			checkEdits(t, in, "en", "de", []Edit{{Source: "a", Target: []string{"x&y"}}}, want)
		})
	}
}

func TestEncodeFormatsEdit(t *testing.T) {
	fr := mustCorpusFile(t, "weblate-testdata", "fr-extended-metadata.tbx")
	f := mustDecode(t, fr.data)
	var out bytes.Buffer
	err := f.Encode(&out, "en", "fr", []formats.Edit{{Context: "e002", Target: []string{"ERREUR_SYS_406"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := replaceLines(t, fr.data, map[int]string{41: `            <term id="e002-fr">ERREUR_SYS_406</term>`})
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("Encode:\n%s", firstDiff(out.Bytes(), want))
	}
	if u := mustDecode(t, out.Bytes()).Units("en", "fr")[1]; !slices.Equal(u.Target, []string{"ERREUR_SYS_406"}) {
		t.Errorf("re-decoded target %q", u.Target)
	}

	de := mustDecode(t, mustCorpusFile(t, "slicer", "de.tbx").data)
	tests := []struct {
		name  string
		file  *File
		edits []formats.Edit
		want  error
	}{
		{"unknown context", f, []formats.Edit{{Context: "e999", Target: []string{"x"}}}, ErrUnknownUnit},
		{"plural", f, []formats.Edit{{Context: "e001", Target: []string{"x", "y"}}}, ErrPlural},
		{"context shared by many entries", de, []formats.Edit{{Context: "", Target: []string{"x"}}}, ErrAmbiguousEdit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := tc.file.Encode(&out, "en", "fr", tc.edits)
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", out.Len())
			}
		})
	}
	frOnly := mustDecode(t, []byte(`<martif><termEntry id="x"><langSet xml:lang="fr"><tig><term>a</term></tig></langSet><langSet xml:lang="it"/></termEntry></martif>`))
	if err := frOnly.Encode(&out, "en", "de", []formats.Edit{{Context: "x", Target: []string{"b"}}}); !errors.Is(err, ErrNoSourceTerm) {
		t.Errorf("entry without source langSet: err = %v, want ErrNoSourceTerm", err)
	}
	err = de.EncodeTerms(&out, "en", "de", []Edit{{Source: "no such term", Target: []string{"x"}}})
	if !errors.Is(err, ErrUnknownUnit) {
		t.Errorf("EncodeTerms unknown term: err = %v", err)
	}
}
