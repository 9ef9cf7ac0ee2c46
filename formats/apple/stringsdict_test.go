package apple

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

func fileWith(plurals ...string) formats.File {
	return formats.File{Target: formats.Language{Plurals: plurals}}
}

func mustDecodeDict(tb testing.TB, data []byte, f formats.File) map[string][]string {
	tb.Helper()
	units, err := Stringsdict.Decode(data, f)
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	m := make(map[string][]string, len(units))
	for _, u := range units {
		if _, dup := m[u.Context]; dup {
			tb.Fatalf("context %q appears twice", u.Context)
		}
		m[u.Context] = u.Target
	}
	return m
}

// TestStringsdictCorpusCounts checks SOURCE.md's counts: 30 keys with 31
// variables in the template, and the 1,876 units translate-toolkit reads
// from the 31 files (923 format strings and 953 variables), and that every
// file round-trips through Apply with no edits.
func TestStringsdictCorpusCounts(t *testing.T) {
	names, files := corpusFiles(t, ".stringsdict")
	total, keys := 0, 0
	for _, name := range names {
		data := files[name]
		units, err := Stringsdict.Decode(data, fileWith("one", "other"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		total += len(units)
		df, _ := parseDict(data)
		keys += len(df.index)
		if name == "Base" {
			vars := 0
			for _, e := range df.entries {
				vars += len(e.vars)
			}
			if len(df.entries) != 30 || vars != 31 || len(units) != 61 {
				t.Errorf("Base: %d keys, %d variables, %d units; want 30, 31, 61", len(df.entries), vars, len(units))
			}
		}
		out, err := Stringsdict.Apply(data, fileWith("one", "other"), nil)
		if err != nil || !bytes.Equal(out, data) {
			t.Errorf("%s: Apply without edits changed the file (err %v)", name, err)
		}
	}
	if len(names) != 31 || total != 1876 || keys != 923 {
		t.Errorf("%d files, %d keys, %d units; SOURCE.md says 31, 923, 1,876", len(names), keys, total)
	}
}

// TestStringsdictCorpusOneEdit edits the "other" form of one variable and
// the format string of one key in every corpus file, and checks that the
// output differs from the input only inside that <string>.
func TestStringsdictCorpusOneEdit(t *testing.T) {
	names, files := corpusFiles(t, ".stringsdict")
	for _, name := range names {
		data := files[name]
		df, err := parseDict(data)
		if err != nil {
			t.Fatal(err)
		}
		e := &df.entries[len(df.entries)/2]
		v := &e.vars[len(e.vars)-1]
		ctx := varContext(e.name, v.name)
		cases := []struct {
			ctx string
			sp  *span
			f   formats.File
		}{
			{ctx, &v.cat("other").str, fileWith("other")},
			{e.name, e.format, fileWith("one", "other")},
		}
		for _, c := range cases {
			val := "neu & <b>" + name + "</b>"
			out, err := Stringsdict.Apply(data, c.f, []formats.Edit{{Context: c.ctx, Target: []string{val}}})
			if err != nil {
				t.Fatal(err)
			}
			esc := escapeXML(val)
			if !bytes.Equal(out[:c.sp.start], data[:c.sp.start]) || !bytes.Equal(out[c.sp.start+len(esc):], data[c.sp.end:]) {
				t.Fatalf("%s: edit of %s changed more than its <string>", name, c.ctx)
			}
			if got := mustDecodeDict(t, out, c.f)[c.ctx]; got[len(got)-1] != val {
				t.Errorf("%s: %s reads back %q", name, c.ctx, got)
			}
		}
	}
}

// TestStringsdictLanguageCategories reads the English template, which
// lists zero/few/many that English lacks, with English's categories, and
// checks that writing them leaves the others alone.
func TestStringsdictLanguageCategories(t *testing.T) {
	_, files := corpusFiles(t, ".stringsdict")
	base := files["Base"]
	const ctx = "a11y.plural.count.unread.notification:notification_count_unread_notification"
	en := fileWith("one", "other")
	got := mustDecodeDict(t, base, en)[ctx]
	if want := []string{"1 unread notification", "%ld unread notifications"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Base %s = %q, want %q", ctx, got, want)
	}
	if got := mustDecodeDict(t, base, fileWith(WithZero(en.Target.Plurals)...))[ctx][0]; got != "no unread notifications" {
		t.Errorf("with WithZero the zero form is %q", got)
	}
	out, err := Stringsdict.Apply(base, en, []formats.Edit{{Context: ctx, Target: []string{"one new", "%ld new"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(base), "<string>1 unread notification</string>", "<string>one new</string>", 1)
	want = strings.Replace(want, "<key>many</key>\n\t\t\t<string>%ld unread notifications</string>\n\t\t\t<key>other</key>\n\t\t\t<string>%ld unread notifications</string>",
		"<key>many</key>\n\t\t\t<string>%ld unread notifications</string>\n\t\t\t<key>other</key>\n\t\t\t<string>%ld new</string>", 1)
	if string(out) != want {
		t.Errorf("edit touched more than the one and other forms")
	}
}

const small = `<?xml version="1.0" encoding="utf-8"?>
<plist version="1.0">
  <dict>
    <key>files</key>
    <dict>
      <key>NSStringLocalizedFormatKey</key>
      <string>%#@n@</string>
      <key>n</key>
      <dict>
        <key>NSStringFormatSpecTypeKey</key>
        <string>NSStringPluralRuleType</string>
        <key>NSStringFormatValueTypeKey</key>
        <string>ld</string>
        <key>one</key>
        <string>%ld soubor</string>
        <key>other</key>
        <string>%ld souborů</string>
      </dict>
    </dict>
  </dict>
</plist>
`

func TestStringsdictAddCategories(t *testing.T) {
	cs := fileWith("one", "few", "many", "other")
	out, err := Stringsdict.Apply([]byte(small), cs, []formats.Edit{{Context: "files:n", Target: []string{"%ld soubor", "%ld soubory", "%ld souboru", ""}}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(small, `        <key>other</key>
        <string>%ld souborů</string>
`, `        <key>few</key>
        <string>%ld soubory</string>
        <key>many</key>
        <string>%ld souboru</string>
`, 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	got := mustDecodeDict(t, out, cs)["files:n"]
	if want := []string{"%ld soubor", "%ld soubory", "%ld souboru", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("reads back %q, want %q", got, want)
	}
	// A category after the last one goes after it, with its indentation.
	out, _ = Stringsdict.Apply(out, cs, []formats.Edit{{Context: "files:n", Target: []string{"%ld soubor", "%ld soubory", "%ld souboru", "%ld souborů"}}})
	if !bytes.Contains(out, []byte("<string>%ld souboru</string>\n        <key>other</key>\n        <string>%ld souborů</string>\n      </dict>")) {
		t.Errorf("other was not appended in place:\n%s", out)
	}
}

func TestStringsdictAddKeys(t *testing.T) {
	en := fileWith("one", "other")
	edits := []formats.Edit{
		{Context: "files:m", Target: []string{"1 dir", "%ld dirs"}},
		{Context: "photos", Target: []string{"%#@p@ & more"}},
		{Context: "photos:p", Target: []string{"1 photo", "%ld photos"}},
		{Context: "empty", Target: []string{""}},
	}
	out, err := Stringsdict.Apply([]byte(small), en, edits)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(small, `        <string>%ld souborů</string>
      </dict>
    </dict>
  </dict>`, `        <string>%ld souborů</string>
      </dict>
      <key>m</key>
      <dict>
        <key>NSStringFormatSpecTypeKey</key>
        <string>NSStringPluralRuleType</string>
        <key>NSStringFormatValueTypeKey</key>
        <string>ld</string>
        <key>one</key>
        <string>1 dir</string>
        <key>other</key>
        <string>%ld dirs</string>
      </dict>
    </dict>
    <key>photos</key>
    <dict>
      <key>NSStringLocalizedFormatKey</key>
      <string>%#@p@ &amp; more</string>
      <key>p</key>
      <dict>
        <key>NSStringFormatSpecTypeKey</key>
        <string>NSStringPluralRuleType</string>
        <key>NSStringFormatValueTypeKey</key>
        <string>ld</string>
        <key>one</key>
        <string>1 photo</string>
        <key>other</key>
        <string>%ld photos</string>
      </dict>
    </dict>
    <key>empty</key>
    <dict>
      <key>NSStringLocalizedFormatKey</key>
      <string></string>
    </dict>
  </dict>`, 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	got := mustDecodeDict(t, out, en)
	if got["photos"][0] != "%#@p@ & more" || got["files:m"][1] != "%ld dirs" || got["files:n"][0] != "%ld soubor" {
		t.Errorf("added units read back %q", got)
	}
}

func TestStringsdictNewFile(t *testing.T) {
	en := fileWith("one", "other")
	out, err := Stringsdict.Apply(nil, en, nil)
	if err != nil || string(out) != newDict {
		t.Fatalf("new file = %q, %v", out, err)
	}
	out, err = Stringsdict.Apply(nil, en, []formats.Edit{{Context: "k:v", Target: []string{"", "%d things"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
    <dict>
        <key>k</key>
        <dict>
            <key>NSStringLocalizedFormatKey</key>
            <string>%#@v@</string>
            <key>v</key>
            <dict>
                <key>NSStringFormatSpecTypeKey</key>
                <string>NSStringPluralRuleType</string>
                <key>NSStringFormatValueTypeKey</key>
                <string>d</string>
                <key>other</key>
                <string>%d things</string>
            </dict>
        </dict>
    </dict>
</plist>
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestStringsdictEmptyFormRemovesCategory(t *testing.T) {
	en := fileWith("one", "other")
	out, err := Stringsdict.Apply([]byte(small), en, []formats.Edit{{Context: "files:n", Target: []string{"", "%ld souborů"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(small, "        <key>one</key>\n        <string>%ld soubor</string>\n", "", 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestStringsdictRemove(t *testing.T) {
	two := strings.Replace(small, "  </dict>\n</plist>", "    <key>b</key>\n    <dict>\n      <key>NSStringLocalizedFormatKey</key>\n      <string>x</string>\n    </dict>\n  </dict>\n</plist>", 1)
	out, err := Stringsdict.Remove([]byte(two), formats.File{}, []formats.Key{{Context: "files"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<plist version=\"1.0\">\n  <dict>\n    <key>b</key>\n    <dict>\n      <key>NSStringLocalizedFormatKey</key>\n      <string>x</string>\n    </dict>\n  </dict>\n</plist>\n"
	if string(out) != want {
		t.Errorf("Remove(files) =\n%s", out)
	}
	out, _ = Stringsdict.Remove([]byte(two), formats.File{}, []formats.Key{{Context: "files:n"}, {Context: "nope"}})
	if bytes.Contains(out, []byte("<key>n</key>")) || !bytes.Contains(out, []byte("<string>%#@n@</string>\n    </dict>")) {
		t.Errorf("Remove(files:n) =\n%s", out)
	}
}

func TestStringsdictEmptied(t *testing.T) {
	_, files := corpusFiles(t, ".stringsdict")
	out, err := Stringsdict.Emptied(files["Base"], formats.File{})
	if err != nil {
		t.Fatal(err)
	}
	got := mustDecodeDict(t, out, fileWith("zero", "one", "two", "few", "many", "other"))
	if len(got) != 61 {
		t.Fatalf("%d units, want 61", len(got))
	}
	for ctx, forms := range got {
		if strings.Contains(ctx, ":") && strings.Join(forms, "") != "" {
			t.Errorf("%s keeps %q", ctx, forms)
		}
	}
	if got["a11y.plural.count.unread.notification"][0] != "%#@notification_count_unread_notification@" {
		t.Errorf("the format string was not kept")
	}
}

func TestStringsdictParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
	}{
		{"not xml", "hello", 1},
		{"empty", "", 1},
		{"no plist", "<?xml version=\"1.0\"?>\n<dict/>", 2},
		{"value not a dict", "<plist>\n<dict>\n<key>a</key>\n<string>x</string>\n</dict>\n</plist>", 4},
		{"other rule type", "<plist><dict><key>a</key><dict><key>v</key><dict>\n<key>NSStringFormatSpecTypeKey</key><string>NSStringGenderRuleType</string></dict></dict></dict></plist>", 2},
		{"unclosed", "<plist>\n<dict>\n<key>a</key>\n<dict>\n", 5},
		{"unexpected key value", "<plist><dict><key>a</key><dict>\n<key>x</key><integer>1</integer></dict></dict></plist>", 2},
		{"text in dict", "<plist><dict>\nhello<key>a</key><dict/></dict></plist>", 2},
		{"trailing content", "<plist><dict/></plist>\n<plist/>", 2},
	}
	for _, tc := range tests {
		_, err := Stringsdict.Decode([]byte(tc.in), formats.File{})
		var pe *formats.ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || pe.Column < 1 {
			t.Errorf("%s: Decode = %v (%+v), want a *formats.ParseError on line %d", tc.name, err, pe, tc.line)
		}
	}
}

func TestStringsdictSelfClosingString(t *testing.T) {
	in := "<plist><dict><key>a</key><dict><key>NSStringLocalizedFormatKey</key><string/></dict></dict></plist>"
	out, err := Stringsdict.Apply([]byte(in), formats.File{}, []formats.Edit{{Context: "a", Target: []string{"x<y"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(in, "<string/>", "<string>x&lt;y</string>", 1); string(out) != want {
		t.Errorf("got %s\nwant %s", out, want)
	}
}

// TestStringsdictCorpusRemove removes a variable and a key from every
// corpus file and checks that exactly their lines went and every other
// unit is as it was.
func TestStringsdictCorpusRemove(t *testing.T) {
	names, files := corpusFiles(t, ".stringsdict")
	en := fileWith("one", "other")
	for _, name := range names {
		data := files[name]
		before := mustDecodeDict(t, data, en)
		df, _ := parseDict(data)
		e := &df.entries[len(df.entries)-1]
		v := &df.entries[0].vars[0]
		ctxV := varContext(df.entries[0].name, v.name)
		out, err := Stringsdict.Remove(data, en, []formats.Key{{Context: ctxV}, {Context: e.name}})
		if err != nil {
			t.Fatal(err)
		}
		vs := bytes.LastIndexByte(data[:v.keyStart], '\n') + 1
		ve := v.end + bytes.IndexByte(data[v.end:], '\n') + 1
		es := bytes.LastIndexByte(data[:e.keyStart], '\n') + 1
		ee := e.end + bytes.IndexByte(data[e.end:], '\n') + 1
		want := string(data[:vs]) + string(data[ve:es]) + string(data[ee:])
		if string(out) != want {
			t.Fatalf("%s: Remove took out more or less than the lines of %s and %s", name, ctxV, e.name)
		}
		after := mustDecodeDict(t, out, en)
		delete(before, ctxV)
		for ctx := range before {
			if ctx == e.name || strings.HasPrefix(ctx, e.name+":") {
				delete(before, ctx)
			}
		}
		if !reflect.DeepEqual(after, before) {
			t.Errorf("%s: the other units changed", name)
		}
	}
}

// TestStringsdictEmptyDicts fills empty dicts, written <dict/> or
// <dict></dict>, and checks that the result is well-formed and reads back.
func TestStringsdictEmptyDicts(t *testing.T) {
	en := fileWith("one", "other")
	edits := []formats.Edit{
		{Context: "a", Target: []string{"%#@v@"}},
		{Context: "a:w", Target: []string{"1", "2"}},
		{Context: "b:v", Target: []string{"one", "other"}},
		{Context: "n", Target: []string{"%#@x@"}},
		{Context: "n:x", Target: []string{"x1", "x2"}},
	}
	for _, in := range []string{
		"<plist>\n  <dict>\n    <key>a</key>\n    <dict/>\n    <key>b</key>\n    <dict>\n      <key>NSStringLocalizedFormatKey</key>\n      <string>%#@v@</string>\n      <key>v</key>\n      <dict/>\n    </dict>\n  </dict>\n</plist>\n",
		"<plist>\n  <dict>\n    <key>a</key>\n    <dict></dict>\n    <key>b</key>\n    <dict>\n      <key>NSStringLocalizedFormatKey</key>\n      <string>%#@v@</string>\n      <key>v</key>\n      <dict></dict>\n    </dict>\n  </dict>\n</plist>\n",
		"<plist><dict/></plist>",
	} {
		out, err := Stringsdict.Apply([]byte(in), en, edits)
		if err != nil {
			t.Fatal(err)
		}
		got := mustDecodeDict(t, out, en)
		for _, e := range edits {
			if g, ok := got[e.Context]; !ok || g[len(g)-1] != e.Target[len(e.Target)-1] {
				t.Errorf("%q: %s reads back %q\n%s", in, e.Context, g, out)
			}
		}
		if strings.Contains(in, "<key>a</key>") && !strings.Contains(string(out), "\n    </dict>\n    <key>b</key>") {
			t.Errorf("the filled dict's </dict> is not on a line of its own:\n%s", out)
		}
	}
}
