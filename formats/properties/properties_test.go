package properties

import (
	"bytes"
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

// corpora are the corpus folders, each with its codec and the folder of
// its files.
var corpora = []struct {
	name  string
	codec Codec
	dir   string
	base  string
}{
	{"jitsi", UTF8, "modules/plugin/defaultresourcepack/src/main/resources/resources/languages", "resources.properties"},
	{"portfolio-performance", Latin1, "name.abuchen.portfolio.ui/src/name/abuchen/portfolio/ui", "messages.properties"},
}

func mustDecode(tb testing.TB, c Codec, data []byte) []formats.Unit {
	tb.Helper()
	units, err := c.Decode(data, formats.File{})
	if err != nil {
		tb.Fatalf("Decode: %v\n%s", err, data)
	}
	return units
}

func mustApply(tb testing.TB, c Codec, data []byte, edits ...formats.Edit) []byte {
	tb.Helper()
	out, err := c.Apply(data, formats.File{}, edits)
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

// TestRoundTripCorpus checks that Apply without edits, and with edits
// that set every unit to its own value, returns every corpus file byte
// for byte.
func TestRoundTripCorpus(t *testing.T) {
	for _, cp := range corpora {
		t.Run(cp.name, func(t *testing.T) {
			for _, path := range corpusFiles(t, cp.name, cp.dir) {
				data := mustRead(t, path)
				units := mustDecode(t, cp.codec, data)
				if out := mustApply(t, cp.codec, data); !bytes.Equal(out, data) {
					t.Errorf("%s: Apply without edits differs from the input", path)
				}
				var same []formats.Edit
				for _, u := range units {
					same = append(same, formats.Edit{Context: u.Context, Target: u.Target})
				}
				if out := mustApply(t, cp.codec, data, same...); !bytes.Equal(out, data) {
					t.Errorf("%s: Apply with unchanged values differs from the input", path)
				}
			}
		})
	}
}

// TestCorpusCounts checks the unit counts of SOURCE.md. translate-toolkit
// counts 18,725 pairs in jitsi; 7 of them are keys repeated in
// resources_sk.properties, which java.util.Properties (and we) read once,
// with the last value.
func TestCorpusCounts(t *testing.T) {
	tests := []struct {
		corpus            string
		base, total, dups int
	}{
		{"jitsi", 1478, 18725, 7},
		{"portfolio-performance", 1078, 7375, 0},
	}
	for i, tc := range tests {
		cp := corpora[i]
		t.Run(tc.corpus, func(t *testing.T) {
			total, dups := 0, 0
			for _, path := range corpusFiles(t, cp.name, cp.dir) {
				data := mustRead(t, path)
				units := mustDecode(t, cp.codec, data)
				p, _ := cp.codec.parse(data)
				dups += len(p.entries) - len(units)
				total += len(units)
				if filepath.Base(path) == cp.base && len(units) != tc.base {
					t.Errorf("%s: %d units, SOURCE.md says %d", path, len(units), tc.base)
				}
			}
			if total != tc.total-tc.dups || dups != tc.dups {
				t.Errorf("%d units and %d repeated keys, want %d and %d", total, dups, tc.total-tc.dups, tc.dups)
			}
		})
	}
}

// TestCorpusValues spot-checks decoded values against SOURCE.md's
// statistics: continuations joined, \u escapes decoded, trailing spaces
// kept, the 5,213-character value whole.
func TestCorpusValues(t *testing.T) {
	jitsi := filepath.Join(corpusDir, "jitsi", corpora[0].dir)
	pp := filepath.Join(corpusDir, "portfolio-performance", corpora[1].dir)
	corpusFiles(t, "jitsi", corpora[0].dir)
	corpusFiles(t, "portfolio-performance", corpora[1].dir)
	tests := []struct {
		c         Codec
		path, key string
		want      string
		wantLen   int
	}{
		{UTF8, filepath.Join(jitsi, "resources.properties"), "service.gui.MSG_DELIVERY_NOT_SUPPORTED",
			"The protocol you are using doesn''t support offline messages. You could try to reach {0} through another protocol or wait until he/she becomes online.", 0},
		{UTF8, filepath.Join(jitsi, "resources.properties"), "service.gui.ABOUT", "&About", 0},
		{Latin1, filepath.Join(pp, "messages_de.properties"), "ColumnLastDate", "Letzte Ausführung ", 0},
		// SOURCE.md's 5,213 characters are the escaped text on the line;
		// its 35 \n escapes decode to one character each.
		{Latin1, filepath.Join(pp, "messages.properties"), "AboutTextContributions", "", 5213 - 35},
	}
	for _, tc := range tests {
		data := mustRead(t, tc.path)
		got := targets(mustDecode(t, tc.c, data))[tc.key]
		if tc.wantLen > 0 {
			p, _ := tc.c.parse(data)
			e := p.entries[p.index[tc.key]]
			if n := e.valEnd - e.valStart; n != 5213 {
				t.Errorf("%s %s: %d bytes of value, want 5213", tc.path, tc.key, n)
			}
			if n := len([]rune(got)); n != tc.wantLen {
				t.Errorf("%s %s: %d characters, want %d", tc.path, tc.key, n, tc.wantLen)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s %s = %q, want %q", tc.path, tc.key, got, tc.want)
		}
	}
}

// TestOneEditCorpus edits one unit of every corpus file (one with a
// continuation where there is one, and one with non-ASCII text) and
// checks that the output differs from the input only inside that value's
// bytes, and reads back with the new value and every other value as it
// was.
func TestOneEditCorpus(t *testing.T) {
	for _, cp := range corpora {
		t.Run(cp.name, func(t *testing.T) {
			for _, path := range corpusFiles(t, cp.name, cp.dir) {
				data := mustRead(t, path)
				units := mustDecode(t, cp.codec, data)
				if len(units) == 0 {
					continue
				}
				p, _ := cp.codec.parse(data)
				u := units[len(units)/2]
				for _, cand := range units {
					if !p.entries[p.index[cand.Context]].oneLine {
						u = cand
						break
					}
				}
				e := p.entries[p.index[u.Context]]
				value := "Neu: « Grüße » ✓ 😀\tx"
				out := mustApply(t, cp.codec, data, formats.Edit{Context: u.Context, Target: []string{value}})
				if !bytes.HasPrefix(out, data[:e.valStart]) || !bytes.HasSuffix(out, data[e.valEnd:]) {
					t.Fatalf("%s: the edit of %q changed bytes outside [%d,%d)", path, u.Context, e.valStart, e.valEnd)
				}
				mid := out[e.valStart : len(out)-(len(data)-e.valEnd)]
				if cp.codec == Latin1 && !bytes.Contains(mid, []byte(`\u00AB Gr\u00FC\u00DFe \u00BB \u2713 \uD83D\uDE00\tx`)) {
					t.Errorf("%s: value written as %q", path, mid)
				}
				want := targets(units)
				want[u.Context] = value
				if got := targets(mustDecode(t, cp.codec, out)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: units after the edit differ", path)
				}
				if again := mustApply(t, cp.codec, out, formats.Edit{Context: u.Context, Target: []string{value}}); !bytes.Equal(again, out) {
					t.Errorf("%s: applying the edit twice differs from once", path)
				}
			}
		})
	}
}

func TestDecode(t *testing.T) {
	type kv struct{ key, value, note string }
	tests := []struct {
		name string
		c    Codec
		in   string
		want []kv
	}{
		{"separators", Latin1, "a=1\nb:2\nc 3\nd = 4\ne\t:\t5\nf  =  = 6\ng\nh=\n", []kv{
			{"a", "1", ""}, {"b", "2", ""}, {"c", "3", ""}, {"d", "4", ""}, {"e", "5", ""}, {"f", "= 6", ""}, {"g", "", ""}, {"h", "", ""}}},
		{"continuation", Latin1, "a = one \\\n    two\\\n\tthree\nb=x\\\\\nc=y\\\\\\\n  z\n", []kv{
			{"a", "one twothree", ""}, {"b", `x\`, ""}, {"c", `y\z`, ""}}},
		{"value on the next line", Latin1, "a = \\\n   v\n", []kv{{"a", "v", ""}}},
		{"continuation at end of file", Latin1, "a=v\\", []kv{{"a", "v", ""}}},
		{"escapes", Latin1, "a=\\t\\n\\r\\f\\\\\\u00e9\\u00C9\\q\\ \nb=\\uD83D\\uDE00 \\uDE00\n", []kv{
			{"a", "\t\n\r\f\\éÉq ", ""}, {"b", "😀 \uFFFD", ""}}},
		{"escaped key characters", Latin1, "a\\=b\\:c\\ d=v\n\\#k=w\n", []kv{{"a=b:c d", "v", ""}, {"#k", "w", ""}}},
		{"latin-1 bytes", Latin1, "a=caf\xe9\n", []kv{{"a", "café", ""}}},
		{"utf-8", UTF8, "\uFEFFa=café\\u00e9\n", []kv{{"a", "caféé", ""}}},
		{"comments", Latin1, "# header\n\n# about a\n! more\na=1\n#\n\nb=2\n  # indented\nc=3\n", []kv{
			{"a", "1", "about a\nmore"}, {"b", "2", ""}, {"c", "3", "indented"}}},
		{"comment is no continuation", Latin1, "# x\\\na=1\n", []kv{{"a", "1", "x\\"}}},
		{"duplicates: last wins", Latin1, "a=1\nb=2\na=3\n", []kv{{"b", "2", ""}, {"a", "3", ""}}},
		{"CRLF and CR", Latin1, "a=1\r\nb=2 \\\r\n  3\r\nc=4\rd=5", []kv{{"a", "1", ""}, {"b", "2 3", ""}, {"c", "4", ""}, {"d", "5", ""}}},
		{"empty", Latin1, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			units := mustDecode(t, tc.c, []byte(tc.in))
			var got []kv
			for _, u := range units {
				got = append(got, kv{u.Context, u.Target[0], u.Note})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decode(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if out := mustApply(t, tc.c, []byte(tc.in)); string(out) != tc.in {
				t.Errorf("Apply without edits = %q", out)
			}
		})
	}
}

func TestDecodeLines(t *testing.T) {
	units := mustDecode(t, Latin1, []byte("# c\na=1\\\n  2\n\nb=3\n"))
	if units[0].Line != 2 || units[1].Line != 5 {
		t.Errorf("lines %d, %d; want 2, 5", units[0].Line, units[1].Line)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name      string
		c         Codec
		in        string
		line, col int
		err       error
	}{
		{"short \\u", Latin1, "a=1\nb=x\\u12", 2, 4, ErrUnicodeEscape},
		{"bad hex", Latin1, "a=\\u12G4\n", 1, 3, ErrUnicodeEscape},
		{"in key", Latin1, "\\uZZZZ=1\n", 1, 1, ErrUnicodeEscape},
		{"invalid UTF-8", UTF8, "a=é\nb=\xff\n", 2, 3, ErrUTF8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.Decode([]byte(tc.in), formats.File{})
			var pe *formats.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tc.err) || pe.Line != tc.line || pe.Column != tc.col {
				t.Fatalf("Decode(%q) = %v, want %v at %d:%d", tc.in, err, tc.err, tc.line, tc.col)
			}
			if _, err := tc.c.Apply([]byte(tc.in), formats.File{}, nil); err == nil {
				t.Errorf("Apply accepts what Decode rejects")
			}
		})
	}
}

func TestApply(t *testing.T) {
	edit := func(k, v string) formats.Edit { return formats.Edit{Context: k, Target: []string{v}} }
	tests := []struct {
		name  string
		c     Codec
		in    string
		edits []formats.Edit
		want  string
	}{
		{"replace value only", Latin1, "# c\na = old\nb=2\n", []formats.Edit{edit("a", "new")}, "# c\na = new\nb=2\n"},
		{"continuation joined when changed", Latin1, "a=x \\\n  y\nb=2\n", []formats.Edit{edit("a", "z")}, "a=z\nb=2\n"},
		{"continuation kept when unchanged", Latin1, "a=x \\\n  y\n", []formats.Edit{edit("a", "x y")}, "a=x \\\n  y\n"},
		{"value on the next line", Latin1, "a = \\\n  v\n", []formats.Edit{edit("a", "w")}, "a = w\n"},
		{"escapes", Latin1, "a=1\n", []formats.Edit{edit("a", " lead\\ tab\tnl\nü€\x01")}, "a=\\ lead\\\\ tab\\tnl\\n\\u00FC\\u20AC\\u0001\n"},
		{"lower-case hex kept", Latin1, "a=\\u00e9\nb=1\n", []formats.Edit{edit("b", "€")}, "a=\\u00e9\nb=\\u20ac\n"},
		{"lower-case hex after a digits-only escape", Latin1, "a=\\u2211\\u00e9\nb=1\n", []formats.Edit{edit("b", "€")}, "a=\\u2211\\u00e9\nb=\\u20ac\n"},
		{"raw latin-1 kept", Latin1, "a=caf\xe9\nb=1\n", []formats.Edit{edit("b", "é€")}, "a=caf\xe9\nb=\xe9\\u20AC\n"},
		{"utf-8 raw", UTF8, "a=1\n", []formats.Edit{edit("a", "é😀\\")}, "a=é😀\\\\\n"},
		{"duplicate: last occurrence", Latin1, "a=1\na=2\n", []formats.Edit{edit("a", "3")}, "a=1\na=3\n"},
		{"trailing space kept", Latin1, "a=1\n", []formats.Edit{edit("a", "x  ")}, "a=x  \n"},
		{"add with the file's separator", Latin1, "a = 1\n", []formats.Edit{edit("new key", "v=w")}, "a = 1\nnew\\ key = v=w\n"},
		{"add after missing final newline", Latin1, "a=1", []formats.Edit{edit("b", "2")}, "a=1\nb=2\n"},
		{"add blank-separated", Latin1, "a = 1\n\nb = 2", []formats.Edit{edit("c", "3"), edit("d", "4")}, "a = 1\n\nb = 2\n\nc = 3\n\nd = 4\n"},
		{"add after a continuation at the end", Latin1, "a=1\\", []formats.Edit{edit("b", "2")}, "a=1\\\n\nb=2\n"},
		{"add CRLF", Latin1, "a=1\r\n", []formats.Edit{edit("b", "2")}, "a=1\r\nb=2\r\n"},
		{"add key escapes", Latin1, "", []formats.Edit{edit("#a:b=c", "1")}, "\\#a\\:b\\=c=1\n"},
		{"empty target not added", Latin1, "a=1\n", []formats.Edit{edit("b", "")}, "a=1\n"},
		{"last edit wins", Latin1, "a=1\n", []formats.Edit{edit("a", "2"), edit("a", "3")}, "a=3\n"},
		{"empty value", Latin1, "a=1\nb=2\n", []formats.Edit{edit("a", "")}, "a=\nb=2\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustApply(t, tc.c, []byte(tc.in), tc.edits...)
			if string(out) != tc.want {
				t.Fatalf("Apply(%q)\n got %q\nwant %q", tc.in, out, tc.want)
			}
			got := targets(mustDecode(t, tc.c, out))
			want := map[string]string{}
			for _, e := range tc.edits {
				want[e.Context] = e.Target[0]
			}
			for k, v := range want {
				if g, ok := got[k]; g != v || !ok && v != "" {
					t.Errorf("unit %q reads back as %q, want %q", k, g, v)
				}
			}
		})
	}
}

func TestApplyNew(t *testing.T) {
	for _, c := range []Codec{Latin1, UTF8} {
		if out := mustApply(t, c, nil); string(out) != "\n" {
			t.Errorf("%v: new file = %q, want the reference's %q", c, out, "\n")
		}
		out := mustApply(t, c, nil, formats.Edit{Context: "a", Target: []string{"é"}})
		want := "a=\\u00E9\n"
		if c.UTF8 {
			want = "a=é\n"
		}
		if string(out) != want {
			t.Errorf("%v: new file with an edit = %q, want %q", c, out, want)
		}
	}
}

func TestRemove(t *testing.T) {
	in := "# header\n\n# about a\na=1\nb=2 \\\n  more\n# about c\nc=3\na=4\n"
	out, err := Latin1.Remove([]byte(in), formats.File{}, []formats.Key{{Context: "a"}, {Context: "b"}, {Context: "zz"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# header\n\n# about c\nc=3\n"; string(out) != want {
		t.Errorf("Remove = %q, want %q", out, want)
	}
	out, _ = Latin1.Remove([]byte(in), formats.File{}, []formats.Key{{Context: "zz"}})
	if string(out) != in {
		t.Errorf("Remove of an absent key changed the file: %q", out)
	}
}

func TestEmptied(t *testing.T) {
	in := "# c\na = one \\\n  two\nb:2\nc\n"
	out, err := Latin1.Emptied([]byte(in), formats.File{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# c\na = \nb:\nc\n"; string(out) != want {
		t.Errorf("Emptied = %q, want %q", out, want)
	}
	for _, u := range mustDecode(t, Latin1, out) {
		if u.Target[0] != "" {
			t.Errorf("unit %q keeps %q", u.Context, u.Target[0])
		}
	}
}

// TestEmptiedCorpus empties each corpus base: every key stays, every
// value goes, and the comments stay.
func TestEmptiedCorpus(t *testing.T) {
	for _, cp := range corpora {
		paths := corpusFiles(t, cp.name, cp.dir)
		_ = paths
		data := mustRead(t, filepath.Join(corpusDir, cp.name, cp.dir, cp.base))
		out, err := cp.codec.Emptied(data, formats.File{})
		if err != nil {
			t.Fatal(err)
		}
		before, after := mustDecode(t, cp.codec, data), mustDecode(t, cp.codec, out)
		if len(after) != len(before) {
			t.Errorf("%s: %d units after Emptied, want %d", cp.name, len(after), len(before))
		}
		for i, u := range after {
			if u.Target[0] != "" || u.Context != before[i].Context || u.Note != before[i].Note {
				t.Fatalf("%s: unit %+v after Emptied", cp.name, u)
			}
		}
		if !strings.HasPrefix(string(out), "#") {
			t.Errorf("%s: header comment lost", cp.name)
		}
	}
}

// TestRemoveCorpus removes one unit from every corpus file and checks
// that one contiguous run of bytes went and only that unit with it.
func TestRemoveCorpus(t *testing.T) {
	for _, cp := range corpora {
		for _, path := range corpusFiles(t, cp.name, cp.dir) {
			data := mustRead(t, path)
			units := mustDecode(t, cp.codec, data)
			if len(units) == 0 {
				continue
			}
			u := units[len(units)/2]
			out, err := cp.codec.Remove(data, formats.File{}, []formats.Key{{Context: u.Context}})
			if err != nil {
				t.Fatal(err)
			}
			if !oneCut(data, out) {
				t.Errorf("%s: Remove of %q changed more than one run of bytes", path, u.Context)
			}
			want := targets(units)
			delete(want, u.Context)
			if got := targets(mustDecode(t, cp.codec, out)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: units after removing %q differ", path, u.Context)
			}
		}
	}
}

// oneCut says out is data with one contiguous run of bytes taken out.
func oneCut(data, out []byte) bool {
	pre := 0
	for pre < len(out) && data[pre] == out[pre] {
		pre++
	}
	return len(out) < len(data) && bytes.Equal(out[pre:], data[len(data)-(len(out)-pre):])
}

// corpusFiles returns every .properties file of a corpus folder's dir.
func corpusFiles(tb testing.TB, name, dir string) []string {
	tb.Helper()
	return corpustest.Glob(tb, name, filepath.Join(dir, "*.properties"))
}

// mustRead reads a corpus or test file.
var mustRead = corpustest.Read
