package android

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// corpusRoot is the newpipe corpus's res folder seen from this package.
var corpusRoot = filepath.Join("..", "..", "..", "shared", "corpus", "newpipe", "app", "src", "main", "res")

// corpusFile is one strings.xml of the corpus with its qualifier.
type corpusFile struct {
	path, qualifier string
	data            []byte
}

// corpusFiles reads every strings.xml of the newpipe corpus, skipping the
// test when the corpus is not checked out beside the repository.
func corpusFiles(tb testing.TB) []corpusFile {
	tb.Helper()
	if _, err := os.Stat(corpusRoot); err != nil {
		tb.Skipf("corpus %s not found (%v); it lives in shared/corpus beside the checkout", corpusRoot, err)
	}
	paths, err := filepath.Glob(filepath.Join(corpusRoot, "values*", "strings.xml"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no strings.xml under %s (%v)", corpusRoot, err)
	}
	var files []corpusFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		dir := filepath.Base(filepath.Dir(p))
		files = append(files, corpusFile{path: p, qualifier: strings.TrimPrefix(strings.TrimPrefix(dir, "values"), "-"), data: data})
	}
	return files
}

// pluralsOf gives the CLDR categories of the corpus languages, as the
// index would pass them in File.Target.Plurals.
func pluralsOf(qualifier string) []string {
	code, _ := CodeFromQualifier(qualifier)
	lang, _, _ := strings.Cut(code, "_")
	switch lang {
	case "ar":
		return []string{"zero", "one", "two", "few", "many", "other"}
	case "cs", "sk":
		return []string{"one", "few", "many", "other"}
	case "be", "pl", "ru", "uk":
		return []string{"one", "few", "many", "other"}
	case "he":
		return []string{"one", "two", "many", "other"}
	case "es", "fr", "pt":
		return []string{"one", "many", "other"}
	case "id", "ja", "ko", "zh":
		return []string{"other"}
	}
	return []string{"one", "other"}
}

func fileFor(c corpusFile) formats.File {
	code, _ := CodeFromQualifier(c.qualifier)
	lang := formats.Language{Code: code, Plurals: pluralsOf(c.qualifier)}
	return formats.File{Source: formats.Language{Code: "en", Plurals: []string{"one", "other"}}, Target: lang, Template: c.qualifier == ""}
}

func mustDecode(tb testing.TB, data []byte, f formats.File) []formats.Unit {
	tb.Helper()
	units, err := Codec{}.Decode(data, f)
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	return units
}

func mustApply(tb testing.TB, data []byte, f formats.File, edits ...formats.Edit) []byte {
	tb.Helper()
	out, err := Codec{}.Apply(data, f, edits)
	if err != nil {
		tb.Fatalf("Apply(%v): %v", edits, err)
	}
	return out
}

func byContext(units []formats.Unit) map[string]formats.Unit {
	m := make(map[string]formats.Unit, len(units))
	for _, u := range units {
		m[u.Context] = u
	}
	return m
}

var en = formats.File{Source: formats.Language{Code: "en", Plurals: []string{"one", "other"}}, Target: formats.Language{Code: "en", Plurals: []string{"one", "other"}}}

// TestCorpusCounts checks the unit counts SOURCE.md gives from
// translate-toolkit: 765 in the template, 18,023 over all 29 files.
func TestCorpusCounts(t *testing.T) {
	files := corpusFiles(t)
	if len(files) != 29 {
		t.Fatalf("%d files, want 29", len(files))
	}
	total := 0
	for _, c := range files {
		units := mustDecode(t, c.data, fileFor(c))
		total += len(units)
		if c.qualifier == "" && len(units) != 765 {
			t.Errorf("template: %d units, want 765", len(units))
		}
	}
	if total != 18023 {
		t.Errorf("%d units over the corpus, want 18023", total)
	}
}

// TestCorpusTemplate checks values the template holds: escapes, the
// quoted value, the inline link, the read-only reference, plurals and a
// note.
func TestCorpusTemplate(t *testing.T) {
	files := corpusFiles(t)
	var tmpl corpusFile
	for _, c := range files {
		if c.qualifier == "" {
			tmpl = c
		}
	}
	units := mustDecode(t, tmpl.data, en)
	m := byContext(units)
	checks := map[string]string{
		"tab_about": "About & FAQ",
		"preferred_player_fetcher_notification_message": "Loading requested content",
		"manual_update_title":                           "@string/check_for_updates",
		"main_bg_subtitle":                              "Tap the magnifying glass to get started.",
	}
	for ctx, want := range checks {
		if got := m[ctx].Target; len(got) != 1 || got[0] != want {
			t.Errorf("%s: Target %q, want %q", ctx, got, want)
		}
	}
	bot := m["sign_in_confirm_not_bot_error"].Target[0]
	if !strings.Contains(bot, `Please see <a href="%2$s">this FAQ entry</a> for more information.`) || !strings.Contains(bot, "bot.\n\nYour IP") {
		t.Errorf("sign_in_confirm_not_bot_error: %q, want the link as markup and real newlines", bot)
	}
	if got := m["manual_update_title"].Flags; !slices.Equal(got, []string{"read-only"}) {
		t.Errorf("manual_update_title flags %q, want read-only", got)
	}
	readOnly := 0
	for _, u := range units {
		if len(u.Flags) > 0 {
			readOnly++
		}
	}
	if readOnly != 1 {
		t.Errorf("%d read-only units, want 1", readOnly)
	}
	if got := m["subscribers"].Target; !slices.Equal(got, []string{"%s subscriber", "%s subscribers"}) {
		t.Errorf("subscribers: %q", got)
	}
	if got := m["no_subscribers"].Note; !strings.Contains(got, `Zero don't get selected`) {
		t.Errorf("no_subscribers note %q", got)
	}
	if m["main_bg_subtitle"].Line != 3 {
		t.Errorf("main_bg_subtitle on line %d, want 3", m["main_bg_subtitle"].Line)
	}
	if _, ok := m["limit_data_usage_description_list"]; ok {
		t.Error("a string-array became a unit")
	}
}

// TestCorpusPlurals checks plural forms land in the language's CLDR
// order, with "" for a category the file lacks.
func TestCorpusPlurals(t *testing.T) {
	for _, c := range corpusFiles(t) {
		if c.qualifier != "pl" && c.qualifier != "ar" {
			continue
		}
		f := fileFor(c)
		for _, u := range mustDecode(t, c.data, f) {
			if len(u.Target) > 1 && len(u.Target) != len(f.Target.Plurals) {
				t.Errorf("%s %s: %d forms, want %d", c.qualifier, u.Context, len(u.Target), len(f.Target.Plurals))
			}
		}
	}
	src := []byte(`<resources><plurals name="p"><item quantity="many">M</item><item quantity="one">O</item></plurals></resources>`)
	f := formats.File{Target: formats.Language{Code: "pl", Plurals: []string{"one", "few", "many", "other"}}}
	u := mustDecode(t, src, f)
	if !slices.Equal(u[0].Target, []string{"O", "", "M", ""}) {
		t.Errorf("forms %q", u[0].Target)
	}
}

// TestCorpusNoEdits checks that Apply without edits, and with edits that
// repeat what every unit reads as, returns every file byte for byte.
func TestCorpusNoEdits(t *testing.T) {
	for _, c := range corpusFiles(t) {
		f := fileFor(c)
		if out := mustApply(t, c.data, f); !bytes.Equal(out, c.data) {
			t.Errorf("%s: Apply with no edits changed the file", c.path)
		}
		var edits []formats.Edit
		for _, u := range mustDecode(t, c.data, f) {
			edits = append(edits, formats.Edit{Context: u.Context, Target: u.Target, Plural: len(u.Target) > 1})
		}
		if out := mustApply(t, c.data, f, edits...); !bytes.Equal(out, c.data) {
			t.Errorf("%s: Apply with unchanged targets changed the file", c.path)
		}
	}
}

// TestCorpusEditOne edits one string of every file and checks that the
// output differs from the input only inside that value, that the edit
// reads back and that every other unit reads as before.
func TestCorpusEditOne(t *testing.T) {
	const target = "Tolk's \"edit\" <b>bold</b> & more\nline"
	for _, c := range corpusFiles(t) {
		f := fileFor(c)
		doc, err := parse(c.data)
		if err != nil {
			t.Fatal(err)
		}
		var el *element
		for i := len(doc.elements) / 2; i < len(doc.elements); i++ {
			if doc.elements[i].kind == kindString {
				el = &doc.elements[i]
				break
			}
		}
		if el == nil {
			continue // the empty files
		}
		out := mustApply(t, c.data, f, formats.Edit{Context: el.name, Target: []string{target}})
		if !bytes.Equal(out[:el.str.start], c.data[:el.str.start]) || !bytes.Equal(out[len(out)-(len(c.data)-el.str.end):], c.data[el.str.end:]) {
			t.Errorf("%s: bytes outside %s's value changed", c.path, el.name)
		}
		before := byContext(mustDecode(t, c.data, f))
		after := mustDecode(t, out, f)
		if len(after) != len(before) {
			t.Fatalf("%s: %d units after the edit, want %d", c.path, len(after), len(before))
		}
		for _, u := range after {
			want := before[u.Context].Target
			if u.Context == el.name {
				want = []string{target}
			}
			if !slices.Equal(u.Target, want) {
				t.Errorf("%s: %s reads %q, want %q", c.path, u.Context, u.Target, want)
			}
		}
	}
}

// TestCorpusEditPlural rewrites a plural of every full translation in the
// language's categories and checks only its items changed.
func TestCorpusEditPlural(t *testing.T) {
	for _, c := range corpusFiles(t) {
		f := fileFor(c)
		doc, err := parse(c.data)
		if err != nil {
			t.Fatal(err)
		}
		var el *element
		for i := range doc.elements {
			if doc.elements[i].kind == kindPlurals {
				el = &doc.elements[i]
				break
			}
		}
		if el == nil {
			continue
		}
		forms := make([]string, len(f.Target.Plurals))
		for i, cat := range f.Target.Plurals {
			forms[i] = "%d " + cat
		}
		out := mustApply(t, c.data, f, formats.Edit{Context: el.name, Target: forms, Plural: true})
		if !bytes.Equal(out[:el.innerStart], c.data[:el.innerStart]) || !bytes.Equal(out[len(out)-(len(c.data)-el.innerEnd):], c.data[el.innerEnd:]) {
			t.Errorf("%s: bytes outside %s's items changed", c.path, el.name)
		}
		got := byContext(mustDecode(t, out, f))[el.name].Target
		if !slices.Equal(got, forms) {
			t.Errorf("%s: %s reads %q, want %q", c.path, el.name, got, forms)
		}
	}
}

func TestApplyPluralLayout(t *testing.T) {
	src := "<resources>\n    <plurals name=\"days\">\n        <item quantity=\"one\">%d day</item>\n        <item quantity=\"other\">%d days</item>\n    </plurals>\n</resources>\n"
	cs := formats.File{Target: formats.Language{Code: "cs", Plurals: []string{"one", "few", "other"}}}
	out := mustApply(t, []byte(src), cs, formats.Edit{Context: "days", Target: []string{"%d den", "%d dny", "%d dní"}, Plural: true})
	want := "<resources>\n    <plurals name=\"days\">\n        <item quantity=\"one\">%d den</item>\n        <item quantity=\"few\">%d dny</item>\n        <item quantity=\"other\">%d dní</item>\n    </plurals>\n</resources>\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// A language with many but no other gets other copied from the last
	// form, and empty forms are left out.
	odd := formats.File{Target: formats.Language{Code: "xx", Plurals: []string{"one", "few", "many"}}}
	out = mustApply(t, []byte(src), odd, formats.Edit{Context: "days", Target: []string{"1", "", "M"}, Plural: true})
	want = "<resources>\n    <plurals name=\"days\">\n        <item quantity=\"one\">1</item>\n        <item quantity=\"many\">M</item>\n        <item quantity=\"other\">M</item>\n    </plurals>\n</resources>\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestApplyAdd(t *testing.T) {
	cases := []struct {
		name, src string
		edits     []formats.Edit
		want      string
	}{
		{
			name:  "after the last resource",
			src:   "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n\t<string name=\"a\">A</string>\n\t<string-array name=\"arr\"><item>x</item></string-array>\n</resources>\n",
			edits: []formats.Edit{{Context: "b", Target: []string{"It's"}}, {Context: "empty", Target: []string{""}}},
			want:  "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n\t<string name=\"a\">A</string>\n\t<string-array name=\"arr\"><item>x</item></string-array>\n\t<string name=\"b\">It\\'s</string>\n</resources>\n",
		},
		{
			name:  "empty file without final newline",
			src:   "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources></resources>",
			edits: []formats.Edit{{Context: "a", Target: []string{"A"}}, {Context: "p", Source: []string{"one", "many"}, Target: []string{"1", "n"}, Plural: true}},
			want:  "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n    <string name=\"a\">A</string>\n    <plurals name=\"p\">\n        <item quantity=\"one\">1</item>\n        <item quantity=\"other\">n</item>\n    </plurals>\n</resources>",
		},
		{
			name:  "self-closing root",
			src:   "<resources/>\n",
			edits: []formats.Edit{{Context: "a&b", Target: []string{"@x"}}},
			want:  "<resources>\n    <string name=\"a&amp;b\">\\@x</string>\n</resources>\n",
		},
		{
			name:  "CRLF",
			src:   "<resources>\r\n  <string name=\"a\">A</string>\r\n</resources>\r\n",
			edits: []formats.Edit{{Context: "b", Target: []string{"B"}}},
			want:  "<resources>\r\n  <string name=\"a\">A</string>\r\n  <string name=\"b\">B</string>\r\n</resources>\r\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(mustApply(t, []byte(tc.src), en, tc.edits...)); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestApplyNewFile(t *testing.T) {
	out := mustApply(t, nil, en, formats.Edit{Context: "hello", Target: []string{"Hello"}})
	want := "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n    <string name=\"hello\">Hello</string>\n</resources>"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if out := mustApply(t, nil, en); string(out) != newFile {
		t.Errorf("empty new file %q, want %q", out, newFile)
	}
}

func TestApplySelfClosingValue(t *testing.T) {
	src := `<resources><string name="a"/><string name="b" /></resources>`
	out := mustApply(t, []byte(src), en, formats.Edit{Context: "a", Target: []string{"A"}}, formats.Edit{Context: "b", Target: []string{""}})
	if want := `<resources><string name="a">A</string><string name="b" /></resources>`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
}

func TestApplyKeepsModes(t *testing.T) {
	cases := []struct{ name, value, target, want string }{
		{"escaped markup stays escaped", `&lt;not set&gt;`, "<b>x</b>", `&lt;b&gt;x&lt;/b&gt;`},
		{"markup written as markup", `Multimedia tab`, "Other <b>tab</b>", `Other <b>tab</b>`},
		{"markup dropped", `<u>Datenschutz</u>`, "Datenschutz", `Datenschutz`},
		{"cdata stays cdata", `<![CDATA[<a href="%1$s">Terms</a>]]>`, `<a href="%1$s">Bedingungen</a>`, `<![CDATA[<a href="%1$s">Bedingungen</a>]]>`},
		{"bad markup escaped", `x`, "a < b & c", `a &lt; b &amp; c`},
		{"entity kept", `x`, "a &amp; b", `a &amp; b`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := `<resources><string name="id">` + tc.value + `</string></resources>`
			out := mustApply(t, []byte(src), en, formats.Edit{Context: "id", Target: []string{tc.target}})
			if want := `<resources><string name="id">` + tc.want + `</string></resources>`; string(out) != want {
				t.Errorf("got %s, want %s", out, want)
			}
		})
	}
}

func TestApplyInvalidChar(t *testing.T) {
	_, err := Codec{}.Apply([]byte(`<resources><string name="a">x</string></resources>`), en, []formats.Edit{{Context: "a", Target: []string{"bell\x07"}}})
	if !errors.Is(err, errInvalidChar) {
		t.Errorf("error %v, want errInvalidChar", err)
	}
}

func TestRemove(t *testing.T) {
	src := "<resources>\n    <!-- section -->\n    <string name=\"a\">A</string>\n    <string name=\"b\">B</string><string name=\"c\">C</string>\n    <string-array name=\"arr\"><item>x</item></string-array>\n</resources>\n"
	out, err := Codec{}.Remove([]byte(src), en, []formats.Key{{Context: "a"}, {Context: "c"}, {Context: "missing"}, {Context: "arr"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "<resources>\n    <string name=\"b\">B</string>\n    <string-array name=\"arr\"><item>x</item></string-array>\n</resources>\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestCorpusRemove(t *testing.T) {
	for _, c := range corpusFiles(t) {
		f := fileFor(c)
		units := mustDecode(t, c.data, f)
		if len(units) == 0 {
			continue
		}
		victim := units[len(units)/3].Context
		out, err := Codec{}.Remove(c.data, f, []formats.Key{{Context: victim}})
		if err != nil {
			t.Fatal(err)
		}
		after := mustDecode(t, out, f)
		if len(after) != len(units)-1 {
			t.Errorf("%s: %d units after removing %s, want %d", c.path, len(after), victim, len(units)-1)
		}
		if bytes.Contains(out, []byte(`name="`+victim+`"`)) {
			t.Errorf("%s: %s still there", c.path, victim)
		}
		// Removal is a deletion: what is left is a subsequence of lines.
		if lines(out) > lines(c.data) || len(out) >= len(c.data) {
			t.Errorf("%s: removal added bytes", c.path)
		}
	}
}

func lines(b []byte) int { return bytes.Count(b, []byte("\n")) }

func TestEmptied(t *testing.T) {
	for _, c := range corpusFiles(t) {
		if c.qualifier != "" {
			continue
		}
		out, err := Codec{}.Emptied(c.data, en)
		if err != nil {
			t.Fatal(err)
		}
		want := "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources xmlns:tools=\"http://schemas.android.com/tools\" tools:ignore=\"MissingTranslation\"></resources>\n"
		if string(out) != want {
			t.Errorf("got %q, want %q", out, want)
		}
		if units := mustDecode(t, out, en); len(units) != 0 {
			t.Errorf("%d units in the emptied file", len(units))
		}
		out = mustApply(t, out, en, formats.Edit{Context: "a", Target: []string{"A"}})
		if !bytes.Contains(out, []byte("\">\n    <string name=\"a\">A</string>\n</resources>\n")) {
			t.Errorf("adding to the emptied file gave %s", out)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ name, src string }{
		{"empty", ""},
		{"not XML", "hello"},
		{"wrong root", "<root><string name=\"a\">A</string></root>"},
		{"unclosed", "<resources>\n<string name=\"a\">A</resources>"},
		{"bad entity", "<resources><string name=\"a\">&nope;</string></resources>"},
		{"latin1", "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?><resources/>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Codec{}.Decode([]byte(tc.src), en)
			var pe *formats.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("error %v (%T), want a *formats.ParseError with a position", err, err)
			}
			if _, err := (Codec{}).Apply([]byte(tc.src), en, []formats.Edit{{Context: "a", Target: []string{"x"}}}); !errors.As(err, &pe) {
				t.Errorf("Apply error %v, want a *formats.ParseError", err)
			}
		})
	}
}

func TestDecodeEntities(t *testing.T) {
	src := "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE resources [\n<!ENTITY appName \"Linphone\">\n]>\n<resources>\n    <string name=\"app_name\">&appName;</string>\n    <string name=\"app_core\">&appName; Core</string>\n</resources>\n"
	units := mustDecode(t, []byte(src), en)
	if units[0].Target[0] != "&appName;" || units[1].Target[0] != "&appName; Core" {
		t.Errorf("targets %q %q, want the entity references as written", units[0].Target, units[1].Target)
	}
	out := mustApply(t, []byte(src), en, formats.Edit{Context: "app_core", Target: []string{"&appName; Kern"}})
	if want := strings.Replace(src, "&appName; Core", "&appName; Kern", 1); string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestApplyKeepsAttributes checks that an edit changes the content only:
// translatable, formatted and tools: attributes and the comment before
// stay.
func TestApplyKeepsAttributes(t *testing.T) {
	src := "<resources xmlns:tools=\"http://schemas.android.com/tools\">\n    <!-- note -->\n    <string name=\"a\" formatted=\"false\" tools:ignore=\"MissingTranslation\">%d%%</string>\n</resources>\n"
	units := mustDecode(t, []byte(src), en)
	if units[0].Note != " note " || units[0].Target[0] != "%d%%" {
		t.Fatalf("unit %+v", units[0])
	}
	out := mustApply(t, []byte(src), en, formats.Edit{Context: "a", Target: []string{"%d %%"}})
	if want := strings.Replace(src, ">%d%%<", ">%d %%<", 1); string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	var _ interface {
		CodeFromQualifier(string) (string, bool)
		Qualifier(string) string
	} = Codec{}
}
