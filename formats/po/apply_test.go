package po

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/formats"
)

// deFile is what sync passes for a German translation.
func deFile() formats.File {
	return formats.File{
		Target:     formats.Language{Code: "de", Plurals: []string{"one", "other"}, PluralCount: 2, PluralFormula: "n != 1"},
		Translator: "Tolk Test <test@example.org>",
		Revised:    time.Date(2026, 11, 27, 4, 5, 0, 0, time.FixedZone("", 3600)),
	}
}

func mustParse(tb testing.TB, data []byte) *doc {
	tb.Helper()
	d, err := parse(string(data))
	if err != nil {
		tb.Fatalf("parse: %v\n%s", err, data)
	}
	return d
}

// findBlock returns the live entry with msgctxt ctx and msgid id.
func findBlock(tb testing.TB, d *doc, ctx, id string) *block {
	tb.Helper()
	for i := range d.blocks {
		b := &d.blocks[i]
		if b.kind == kindEntry && b.ctx == ctx && b.id == id {
			return b
		}
	}
	tb.Fatalf("no entry %q/%q", ctx, id)
	return nil
}

// TestApplyChangesOnlyTheValue edits one unit of every corpus file (the
// last plain one, then a plural one) and checks that the output differs
// from the input only inside that entry's msgstr lines and the header's
// msgstr, and that it reads back with the new value.
func TestApplyChangesOnlyTheValue(t *testing.T) {
	for _, path := range corpusFiles(t, false) {
		data := mustRead(t, path)
		units := mustDecode(t, Codec{}, data)
		var plain, plural formats.Unit
		for _, u := range units {
			if len(u.Source) == 2 {
				plural = u
			} else if !u.Fuzzy {
				plain = u
			}
		}
		forms := make([]string, len(plural.Target))
		for i := range forms {
			forms[i] = "{time} \"form\" " + strings.Repeat("long words ", i*5)
		}
		for _, e := range []formats.Edit{
			{Context: plain.Context, Source: plain.Source, Target: []string{"Tolk \"edit\"\t\\ ü\nzweite Zeile"}},
			{Context: plural.Context, Source: plural.Source, Target: forms, Fuzzy: plural.Fuzzy},
		} {
			out := mustApply(t, Codec{}, data, deFile(), e)
			in, got := mustParse(t, data), mustParse(t, out)
			hi, ho := in.blocks[in.header], got.blocks[got.header]
			bi, bo := findBlock(t, in, e.Context, e.Source[0]), findBlock(t, got, e.Context, e.Source[0])
			src, dst := in.src, got.src
			if src[:hi.strStart] != dst[:ho.strStart] || src[hi.strEnd:bi.strStart] != dst[ho.strEnd:bo.strStart] ||
				src[bi.strEnd:] != dst[bo.strEnd:] {
				t.Fatalf("%s: bytes outside the header and the edited msgstr changed:\n%s", path, out)
			}
			want := forms
			if len(e.Source) == 1 {
				want = e.Target
			}
			if !reflect.DeepEqual(bo.strs, want) {
				t.Errorf("%s: reads back %q, want %q", path, bo.strs, want)
			}
			if again := mustApply(t, Codec{}, out, deFile(), e); !bytes.Equal(again, out) {
				t.Errorf("%s: applying the same edit twice changed the file again", path)
			}
		}
	}
}

func TestApplyHeader(t *testing.T) {
	corpusFiles(t, false)
	data := mustRead(t, filepath.Join(corpusDir, "de.po"))
	out := string(mustApply(t, Codec{}, data, deFile(), formats.Edit{Source: []string{"Kooha"}, Target: []string{"Kooha!"}}))
	for _, want := range []string{
		"\"PO-Revision-Date: 2026-11-27 04:05+0100\\n\"\n\"Last-Translator: Tolk Test <test@example.org>\\n\"\n",
		// Language-Team's two lines are kept as they were.
		"\"Language-Team: German <https://hosted.weblate.org/projects/seadve/kooha/de/>\"\n\"\\n\"\n\"Language: de\\n\"\n",
		"\"Plural-Forms: nplurals=2; plural=n != 1;\\n\"\n\"X-Generator: Tolk\\n\"\n\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("header lacks %q:\n%s", want, out[:900])
		}
	}
	// sr@latin: a Plural-Forms over two lines is kept (it is present);
	// Language is corrected from "sr" to the file's code.
	sr := mustRead(t, filepath.Join(corpusDir, "sr@latin.po"))
	f := deFile()
	f.Target.Code = "sr@latin"
	out = string(mustApply(t, Codec{}, sr, f, formats.Edit{Source: []string{"Kooha"}, Target: []string{"Kuha"}}))
	if !strings.Contains(out, "\"Language: sr@latin\\n\"") || !strings.Contains(out, "\"Plural-Forms: nplurals=4; plural=n==1? 3 : n%10==1 && n%100!=11 ? 0 : \"\n\"n%10>=2") {
		t.Errorf("sr@latin header:\n%s", out[:1200])
	}
	// A header on one line is rewritten one field per line, and a missing
	// Plural-Forms is added.
	one := "msgid \"\"\nmsgstr \"Language: xx\\nX-Generator: Weblate 5\\n\"\n\nmsgid \"a\"\nmsgstr \"\"\n"
	got := string(mustApply(t, Codec{}, []byte(one), deFile(), formats.Edit{Source: []string{"a"}, Target: []string{"b"}}))
	want := "msgid \"\"\nmsgstr \"\"\n\"PO-Revision-Date: 2026-11-27 04:05+0100\\n\"\n\"Last-Translator: Tolk Test <test@example.org>\\n\"\n" +
		"\"Language: de\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Plural-Forms: nplurals=2; plural=n != 1;\\n\"\n\"X-Generator: Tolk\\n\"\n\nmsgid \"a\"\nmsgstr \"b\"\n"
	if got != want {
		t.Errorf("one-line header:\n got %q\nwant %q", got, want)
	}
	// Fields a header lacks go where gettext orders them; the others keep
	// their lines.
	lines := "msgid \"\"\nmsgstr \"\"\n\"Project-Id-Version: x\\n\"\n\"Language-Team: none\\n\"\n\"MIME-Version: 1.0\\n\"\n\n" +
		"msgid \"a\"\nmsgstr \"\"\n"
	got = string(mustApply(t, Codec{}, []byte(lines), formats.File{Target: formats.Language{Code: "fr"}}, formats.Edit{Source: []string{"a"}, Target: []string{"b"}}))
	want = "msgid \"\"\nmsgstr \"\"\n\"Project-Id-Version: x\\n\"\n\"Language-Team: none\\n\"\n\"Language: fr\\n\"\n\"MIME-Version: 1.0\\n\"\n" +
		"\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"X-Generator: Tolk\\n\"\n\nmsgid \"a\"\nmsgstr \"b\"\n"
	if got != want {
		t.Errorf("missing fields:\n got %q\nwant %q", got, want)
	}
}

func TestApplyFuzzy(t *testing.T) {
	f := formats.File{}
	cases := []struct {
		name, in string
		edit     formats.Edit
		want     string
	}{
		{"set, no flags line", "#: a.c:1\nmsgid \"a\"\nmsgstr \"b\"\n",
			formats.Edit{Source: []string{"a"}, Target: []string{"b"}, Fuzzy: true},
			"#: a.c:1\n#, fuzzy\nmsgid \"a\"\nmsgstr \"b\"\n"},
		{"set, with flags", "#, c-format\nmsgid \"a\"\nmsgstr \"b\"\n",
			formats.Edit{Source: []string{"a"}, Target: []string{"b"}, Fuzzy: true},
			"#, fuzzy, c-format\nmsgid \"a\"\nmsgstr \"b\"\n"},
		{"clear, only flag, drops previous", "#, fuzzy\n#| msgid \"old\"\nmsgid \"a\"\nmsgstr \"b\"\n",
			formats.Edit{Source: []string{"a"}, Target: []string{"c"}},
			"msgid \"a\"\nmsgstr \"c\"\n"},
		{"clear, keeps other flags", "#, fuzzy, python-format\nmsgctxt \"k\"\nmsgid \"a\"\nmsgstr \"b\"\n",
			formats.Edit{Context: "k", Source: []string{"a"}, Target: []string{"b"}},
			"#, python-format\nmsgctxt \"k\"\nmsgid \"a\"\nmsgstr \"b\"\n"},
		{"set before previous", "#| msgid \"old\"\nmsgid \"a\"\nmsgstr \"b\"\n",
			formats.Edit{Source: []string{"a"}, Target: []string{"b"}, Fuzzy: true},
			"#, fuzzy\n#| msgid \"old\"\nmsgid \"a\"\nmsgstr \"b\"\n"},
		{"crlf", "#, fuzzy\r\nmsgid \"a\"\r\nmsgstr \"b\"\r\n",
			formats.Edit{Source: []string{"a"}, Target: []string{"x\ny"}},
			"msgid \"a\"\r\nmsgstr \"\"\r\n\"x\\n\"\r\n\"y\"\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The file has no header: Apply adds one; compare what follows it.
			got := string(mustApply(t, Codec{}, []byte(tc.in), f, tc.edit))
			eol := map[bool]string{true: "\r\n", false: "\n"}[strings.Contains(tc.in, "\r")]
			_, body, _ := strings.Cut(got, "X-Generator: Tolk\\n\""+eol+eol)
			if body != tc.want {
				t.Errorf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestApplyWrapping(t *testing.T) {
	long := strings.Repeat("word ", 30) + "end"
	cases := []struct {
		name, in, target, want string
	}{
		{"wraps like gettext", "msgid \"a\"\nmsgstr \"\"\n", long + "\nsecond line",
			"msgstr \"\"\n\"" + strings.Repeat("word ", 15) + "\"\n\"" + strings.Repeat("word ", 15) + "\"\n\"end\\n\"\n\"second line\"\n"},
		{"no-wrap file stays unwrapped", "msgid \"" + long + "\"\nmsgstr \"\"\n", long + "\nx",
			"msgstr \"" + long + "\\nx\"\n"},
		{"trailing newline stays on one line", "msgid \"a\"\nmsgstr \"\"\n", "x\n", "msgstr \"x\\n\"\n"},
		{"escaped backslash-n is not a newline", "msgid \"a\"\nmsgstr \"\"\n", `a\nb`, "msgstr \"a\\\\nb\"\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"X-Generator: Tolk\\n\"\n\n" + tc.in
			got := string(mustApply(t, Codec{}, []byte(src), formats.File{}, formats.Edit{Source: mustDecode(t, Codec{}, []byte(src))[0].Source, Target: []string{tc.target}}))
			if _, tail, _ := strings.Cut(got, "\"X-Generator: Tolk\\n\"\n\n"); !strings.HasSuffix(tail, tc.want) {
				t.Errorf("\n got %q\nwant suffix %q", got, tc.want)
			}
			for _, line := range strings.Split(got, "\n") {
				if tc.name == "wraps like gettext" && len(line) > wrapWidth {
					t.Errorf("line longer than %d: %q", wrapWidth, line)
				}
			}
			if u := mustDecode(t, Codec{}, []byte(got)); u[0].Target[0] != tc.target {
				t.Errorf("reads back %q", u[0].Target[0])
			}
		})
	}
}

func TestApplyAdd(t *testing.T) {
	corpusFiles(t, false)
	data := mustRead(t, filepath.Join(corpusDir, "nl.po")) // 130 obsolete entries at its end
	edits := []formats.Edit{
		{Context: "shortcut window", Source: []string{"Tolk new"}, Target: []string{"Nieuw"}, Fuzzy: true},
		{Source: []string{"{n} file", "{n} files"}, Target: []string{"{n} bestand"}, Plural: true},
	}
	out := mustApply(t, Codec{}, data, deFile(), edits...)
	d := mustParse(t, out)
	lastLive, firstObsolete := -1, -1
	for i, b := range d.blocks {
		if b.kind == kindEntry {
			lastLive = i
		}
		if b.kind == kindObsolete && firstObsolete < 0 {
			firstObsolete = i
		}
	}
	if lastLive > firstObsolete {
		t.Errorf("new entries after the obsolete ones")
	}
	want := "\n#, fuzzy\nmsgctxt \"shortcut window\"\nmsgid \"Tolk new\"\nmsgstr \"Nieuw\"\n\n" +
		"msgid \"{n} file\"\nmsgid_plural \"{n} files\"\nmsgstr[0] \"{n} bestand\"\nmsgstr[1] \"\"\n\n#~ "
	if !strings.Contains(string(out), want) {
		t.Errorf("added entries not as expected:\n%s", out)
	}
	units := mustDecode(t, Codec{}, out)
	if len(units) != 105 {
		t.Errorf("%d units after adding 2 to 103", len(units))
	}
	// The obsolete tail keeps its bytes.
	in := mustParse(t, data)
	tail := in.src[in.appendAt():]
	if !strings.HasSuffix(string(out), tail) {
		t.Errorf("obsolete tail changed")
	}
	// A bilingual edit without a msgid cannot be added.
	if _, err := (Codec{}).Apply(data, deFile(), []formats.Edit{{Target: []string{"x"}}}); err == nil {
		t.Errorf("an edit without a source was added")
	}
	// No trailing newline, CRLF: the new entry follows a line end.
	got := string(mustApply(t, Codec{}, []byte("msgid \"\"\r\nmsgstr \"\"\r\n\"X-Generator: Tolk\\n\"\r\n\r\nmsgid \"a\"\r\nmsgstr \"b\""), formats.File{},
		formats.Edit{Source: []string{"c"}, Target: []string{"d"}}))
	if want := "msgid \"a\"\r\nmsgstr \"b\"\r\n\r\nmsgid \"c\"\r\nmsgstr \"d\"\r\n"; !strings.HasSuffix(got, want) {
		t.Errorf("got %q, want suffix %q", got, want)
	}
}

func TestApplyMono(t *testing.T) {
	src := "msgid \"\"\nmsgstr \"\"\n\"Plural-Forms: nplurals=3; plural=n%10==1 ? 0 : n%10>=2 && n%10<=4 ? 1 : 2;\\n\"\n\n" +
		"msgctxt \"menu\"\nmsgid \"file\"\nmsgstr \"Soubor\"\n\nmsgid \"files\"\nmsgid_plural \"files\"\nmsgstr[0] \"a\"\nmsgstr[1] \"b\"\nmsgstr[2] \"c\"\n"
	c := Codec{Monolingual: true}
	units := mustDecode(t, c, []byte(src))
	if len(units) != 2 || units[0].Context != "menu\x04file" || units[1].Context != "files" || len(units[1].Target) != 3 {
		t.Fatalf("units %#v", units)
	}
	out := string(mustApply(t, c, []byte(src), formats.File{},
		formats.Edit{Context: "menu\x04file", Source: []string{"File"}, Target: []string{"Složka"}},
		formats.Edit{Context: "day\x04monday", Source: []string{"Monday"}, Target: []string{"pondělí"}},
		formats.Edit{Context: "items", Target: []string{"1", "2", "3"}, Plural: true}))
	for _, want := range []string{"msgctxt \"menu\"\nmsgid \"file\"\nmsgstr \"Složka\"\n",
		"msgctxt \"day\"\nmsgid \"monday\"\nmsgstr \"pondělí\"\n",
		"msgid \"items\"\nmsgid_plural \"items\"\nmsgstr[0] \"1\"\nmsgstr[1] \"2\"\nmsgstr[2] \"3\"\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	removed := string(mustRemove(t, c, []byte(out), formats.Key{Context: "menu\x04file"}))
	if strings.Contains(removed, "Složka") || len(mustDecode(t, c, []byte(removed))) != 3 {
		t.Errorf("mono remove:\n%s", removed)
	}
}

func TestNewFile(t *testing.T) {
	f := deFile()
	f.Target = formats.Language{Code: "cs", PluralCount: 3, PluralFormula: "(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2"}
	out := string(mustApply(t, Codec{}, nil, f,
		formats.Edit{Context: "k", Source: []string{"a"}, Target: []string{"b"}},
		formats.Edit{Source: []string{"f", "fs"}, Target: []string{"1", "2", "3"}}))
	want := "msgid \"\"\nmsgstr \"\"\n\"Project-Id-Version: PACKAGE VERSION\\n\"\n\"PO-Revision-Date: 2026-11-27 04:05+0100\\n\"\n" +
		"\"Last-Translator: Tolk Test <test@example.org>\\n\"\n\"Language: cs\\n\"\n\"MIME-Version: 1.0\\n\"\n" +
		"\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Content-Transfer-Encoding: 8bit\\n\"\n" +
		"\"Plural-Forms: nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;\\n\"\n\"X-Generator: Tolk\\n\"\n\n" +
		"msgctxt \"k\"\nmsgid \"a\"\nmsgstr \"b\"\n\nmsgid \"f\"\nmsgid_plural \"fs\"\nmsgstr[0] \"1\"\nmsgstr[1] \"2\"\nmsgstr[2] \"3\"\n"
	if out != want {
		t.Errorf("\n got %q\nwant %q", out, want)
	}
	msgfmt(t, "new.po", []byte(out))
}

func mustRemove(tb testing.TB, c Codec, data []byte, keys ...formats.Key) []byte {
	tb.Helper()
	out, err := c.Remove(data, formats.File{}, keys)
	if err != nil {
		tb.Fatalf("Remove(%q): %v", keys, err)
	}
	return out
}

func TestRemove(t *testing.T) {
	src := "msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\n# c\n#: x\nmsgid \"a\"\nmsgstr \"1\"\n\nmsgctxt \"k\"\nmsgid \"a\"\nmsgstr \"2\"\n\nmsgid \"b\"\nmsgstr \"3\"\n\n#~ msgid \"o\"\n#~ msgstr \"p\"\n"
	cases := []struct {
		name string
		keys []formats.Key
		want string
	}{
		{"first, with comments", []formats.Key{{Source: "a"}},
			"msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\nmsgctxt \"k\"\nmsgid \"a\"\nmsgstr \"2\"\n\nmsgid \"b\"\nmsgstr \"3\"\n\n#~ msgid \"o\"\n#~ msgstr \"p\"\n"},
		{"by msgctxt", []formats.Key{{Context: "k", Source: "a"}},
			"msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\n# c\n#: x\nmsgid \"a\"\nmsgstr \"1\"\n\nmsgid \"b\"\nmsgstr \"3\"\n\n#~ msgid \"o\"\n#~ msgstr \"p\"\n"},
		{"all, obsolete stays", []formats.Key{{Source: "a"}, {Context: "k", Source: "a"}, {Source: "b"}, {Source: "o"}},
			"msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\n#~ msgid \"o\"\n#~ msgstr \"p\"\n"},
		{"absent key", []formats.Key{{Source: "zzz"}}, src},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(mustRemove(t, Codec{}, []byte(src), tc.keys...)); got != tc.want {
				t.Errorf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	// The last entry of a file: the blank line before it goes with it.
	last := "msgid \"a\"\nmsgstr \"1\"\n\nmsgid \"b\"\nmsgstr \"2\""
	if got := string(mustRemove(t, Codec{}, []byte(last), formats.Key{Source: "b"})); got != "msgid \"a\"\nmsgstr \"1\"\n" {
		t.Errorf("remove last: %q", got)
	}
	// Every corpus file: removing one unit removes exactly one.
	for _, path := range corpusFiles(t, false) {
		data := mustRead(t, path)
		units := mustDecode(t, Codec{}, data)
		u := units[len(units)/2]
		out := mustRemove(t, Codec{}, data, formats.Key{Context: u.Context, Source: u.Source[0]})
		if n := len(mustDecode(t, Codec{}, out)); n != len(units)-1 {
			t.Errorf("%s: %d units after removing one of %d", path, n, len(units))
		}
		// Exactly the entry's lines, from its first comment to the blank
		// line after it, are gone.
		d := mustParse(t, data)
		for i := range d.blocks {
			if b := &d.blocks[i]; b.kind == kindEntry && b.ctx == u.Context && b.id == u.Source[0] {
				if want := d.src[:b.start] + d.src[d.blocks[i+1].start:]; string(out) != want {
					t.Errorf("%s: Remove changed more than the entry's lines", path)
				}
			}
		}
	}
}

func TestEmptied(t *testing.T) {
	corpusFiles(t, true)
	pot := mustRead(t, filepath.Join(corpusDir, "kooha.pot"))
	f := deFile()
	f.Target = formats.Language{Code: "pl", PluralCount: 3, PluralFormula: "n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2"}
	for _, c := range []Codec{{}, {Monolingual: true}} {
		out, err := c.Emptied(pot, f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(out)
		for _, want := range []string{"\"Language: pl\\n\"", "\"Plural-Forms: nplurals=3; plural=n==1 ? 0 :", "\"Last-Translator: Tolk Test <test@example.org>\\n\"",
			"msgstr[0] \"\"\nmsgstr[1] \"\"\nmsgstr[2] \"\"\n"} {
			if !strings.Contains(s, want) {
				t.Errorf("lacks %q", want)
			}
		}
		if strings.Contains(s, "#, fuzzy") || strings.Contains(s, "INTEGER") {
			t.Errorf("header still a template's")
		}
		units := mustDecode(t, c, out)
		if len(units) != 103 {
			t.Errorf("%d units", len(units))
		}
		for _, u := range units {
			for _, v := range u.Target {
				if v != "" {
					t.Errorf("%q not emptied", u.Context)
				}
			}
		}
		msgfmt(t, "pl.po", out)
	}
	// A monolingual template in the source language: its values go.
	tmpl := "msgid \"\"\nmsgstr \"\"\n\"Language: en\\n\"\n\n#, fuzzy\n#| msgid \"x\"\nmsgid \"day-monday\"\nmsgstr \"Monday\"\n"
	out, err := Codec{Monolingual: true}.Emptied([]byte(tmpl), formats.File{Target: formats.Language{Code: "cs"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "msgid \"day-monday\"\nmsgstr \"\"\n"; !strings.HasSuffix(string(out), "\n\n"+want) {
		t.Errorf("got %q", out)
	}
}

// TestWrapLikeGettext re-renders every wrapped msgid and msgstr of the
// corpus, which gettext's tools wrote, and expects the same lines. Values
// gettext broke inside a word (a URL after its "/", by Unicode's line
// breaking rules) are skipped: quoteLines breaks after spaces only.
func TestWrapLikeGettext(t *testing.T) {
	checked, differ := 0, 0
	for _, path := range corpusFiles(t, true) {
		d := mustParse(t, mustRead(t, path))
		for _, b := range d.blocks {
			if b.kind != kindEntry || b.hasPlural {
				continue
			}
			orig := d.src[b.strStart:b.strEnd]
			lines := strings.Split(orig, "\n")
			if len(lines) < 2 {
				continue
			}
			inWord := false
			for _, l := range lines[1 : len(lines)-1] {
				if !strings.HasSuffix(l, ` "`) && !strings.HasSuffix(l, `\n"`) {
					inWord = true
				}
			}
			if inWord {
				continue
			}
			checked++
			if got := strings.Join(quoteLines("msgstr", b.strs[0], true), "\n"); got != orig {
				differ++
				t.Logf("%s line %d:\n got %s\nwant %s", path, b.strLine, got, orig)
			}
		}
	}
	// The files were written by several tools and versions (msgmerge,
	// Translate Toolkit under Weblate, Gtranslator), which measure a few
	// characters (emoji) differently; one value in a hundred may differ.
	if checked < 100 || differ*100 > checked {
		t.Errorf("%d of %d wrapped values differ from gettext's wrapping", differ, checked)
	}
}

// TestApplyBOMAndCRLF: the BOM stays first and every line written,
// header lines and new entries included, ends in CRLF like the file's.
func TestApplyBOMAndCRLF(t *testing.T) {
	for _, src := range []string{
		"\uFEFFmsgid \"\"\r\nmsgstr \"\"\r\n\"Language: xx\\n\"\r\n\r\n#, fuzzy\r\nmsgid \"a\"\r\nmsgid_plural \"as\"\r\nmsgstr[0] \"b\"\r\n",
		"\uFEFFmsgid \"a\"\r\nmsgstr \"b\"\r\n", // no header: one is added after the BOM
	} {
		out := string(mustApply(t, Codec{}, []byte(src), deFile(),
			formats.Edit{Source: []string{"a", "as"}, Target: []string{"x", strings.Repeat("long line ", 10)}},
			formats.Edit{Context: "k", Source: []string{"new"}, Target: []string{"y\nz"}}))
		if !strings.HasPrefix(out, "\uFEFFmsgid \"\"\r\n") || strings.Count(out, "\uFEFF") != 1 {
			t.Errorf("BOM not kept first: %q", out)
		}
		if strings.Count(out, "\n") != strings.Count(out, "\r\n") {
			t.Errorf("a line end without CR: %q", out)
		}
		units := mustDecode(t, Codec{}, []byte(out))
		if len(units) != 2 || units[0].Fuzzy || units[1].Target[0] != "y\nz" || !strings.Contains(out, "\"Language: de\\n\"\r\n") {
			t.Errorf("units %#v\n%q", units, out)
		}
		// msgfmt 0.21 rejects a BOM (a syntax error at 1:2) whoever wrote it.
		msgfmt(t, "crlf.po", []byte(strings.TrimPrefix(out, "\uFEFF")))
		removed := string(mustRemove(t, Codec{}, []byte(out), formats.Key{Source: "a"}))
		if len(mustDecode(t, Codec{}, []byte(removed))) != 1 || !strings.HasPrefix(removed, "\uFEFF") {
			t.Errorf("remove: %q", removed)
		}
	}
}
