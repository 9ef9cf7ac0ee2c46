package yaml

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/tolk-project/tolk/formats"
)

func values(units []formats.Unit) map[string][]string {
	m := make(map[string][]string, len(units))
	for _, u := range units {
		m[u.Context] = u.Target
	}
	return m
}

// TestOneEditCorpus edits, in every corpus file, one unit of each scalar
// style the file has (plain, single-quoted, double-quoted, literal
// block) with a value that fits the style and one that does not, and
// checks that only that value's bytes change and everything reads back.
func TestOneEditCorpus(t *testing.T) {
	styles := map[yamlv3.Style]string{0: "plain", yamlv3.SingleQuotedStyle: "single", yamlv3.DoubleQuotedStyle: "double", yamlv3.LiteralStyle: "literal"}
	for _, path := range corpusFiles(t) {
		data := mustRead(t, path)
		f := fileOf(path)
		units := mustDecode(t, data, f)
		d, _ := Ruby.parse(data, f.Target.Plurals)
		seen := map[yamlv3.Style]bool{}
		for _, u := range d.units {
			if u.plural || u.dead || seen[u.value.Style] {
				continue
			}
			seen[u.value.Style] = true
			start, end, ok := d.span(u.value)
			if !ok {
				t.Fatalf("%s: no span for %q", path, u.ctx)
			}
			for _, value := range []string{"Neu geändert", "Zeile: 1\n\"zwei\" # 'drei'"} {
				out := mustApply(t, Ruby, data, f, formats.Edit{Context: u.ctx, Target: []string{value}})
				if !bytes.HasPrefix(out, data[:start]) || !bytes.HasSuffix(out, data[end:]) {
					t.Fatalf("%s: the %s edit of %q changed bytes outside [%d,%d)", path, styles[u.value.Style], u.ctx, start, end)
				}
				mid := string(out[start : len(out)-(len(data)-end)])
				if value == "Neu geändert" && u.value.Style != yamlv3.DoubleQuotedStyle && strings.HasPrefix(mid, `"`) {
					t.Errorf("%s: %s value written as %s", path, styles[u.value.Style], mid)
				}
				want := values(units)
				want[u.ctx] = []string{value}
				if got := values(mustDecode(t, out, f)); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: units after the %s edit of %q differ:\n%s", path, styles[u.value.Style], u.ctx, mid)
				}
			}
		}
	}
}

// TestPluralEditCorpus edits every form of one plural hash per file.
func TestPluralEditCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		data := mustRead(t, path)
		f := fileOf(path)
		units := mustDecode(t, data, f)
		for _, u := range units {
			if len(u.Target) < 2 {
				continue
			}
			forms := make([]string, len(u.Target))
			for i := range forms {
				forms[i] = "Form " + f.Target.Plurals[i] + " %{count}"
			}
			out := mustApply(t, Ruby, data, f, formats.Edit{Context: u.Context, Target: forms, Plural: true})
			want := values(units)
			want[u.Context] = forms
			if got := values(mustDecode(t, out, f)); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: units after the plural edit of %q differ: %q", path, u.Context, values(mustDecode(t, out, f))[u.Context])
			}
			break
		}
	}
}

func TestDecode(t *testing.T) {
	in := `# licence

en:
  # about a
  a: "A"
  nested:
    b: 'B ''q'''
    c: plain text
    block: |-
      line 1
      line 2
  count:
    zero: "none"
    one: "one %{count}"
    other: "%{count}"
  list:
    - x
    - "y"
  anchored: &anc shared
  aliased: *anc
  nothing:
  number: 5
`
	units := mustDecode(t, []byte(in), formats.File{Target: formats.Language{Plurals: []string{"one", "other"}}})
	type u struct {
		ctx, note string
		target    []string
		line      int
		flags     []string
	}
	var got []u
	for _, x := range units {
		got = append(got, u{x.Context, x.Note, x.Target, x.Line, x.Flags})
	}
	want := []u{
		{"a", "about a", []string{"A"}, 5, nil},
		{"nested->b", "", []string{"B 'q'"}, 7, nil},
		{"nested->c", "", []string{"plain text"}, 8, nil},
		{"nested->block", "", []string{"line 1\nline 2"}, 9, nil},
		{"count", "", []string{"one %{count}", "%{count}"}, 12, nil},
		{"list->[0]", "", []string{"x"}, 17, nil},
		{"list->[1]", "", []string{"y"}, 18, nil},
		{"anchored", "", []string{"shared"}, 19, nil},
		{"aliased", "", []string{"shared"}, 20, []string{FlagReadOnly}},
		{"number", "", []string{"5"}, 22, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode\n got %+v\nwant %+v", got, want)
	}
	// Plain YAML keeps the root key and has no plurals.
	units, err := Plain.Decode([]byte(in), formats.File{})
	if err != nil || units[0].Context != "en->a" || len(values(units)["en->count->one"]) != 1 {
		t.Errorf("plain YAML: %v %+v", err, units[:1])
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{"en:\n  a: b: c\n", "en: [\n", "- a\n- b\n", "a: \"x\xff\"\n", "\tfoo: bar\n"} {
		_, err := Ruby.Decode([]byte(in), formats.File{})
		var pe *formats.ParseError
		if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
			t.Errorf("Decode(%q) = %v, want a *formats.ParseError with a position", in, err)
		}
	}
}

func TestApply(t *testing.T) {
	f := formats.File{Target: formats.Language{Code: "de", Plurals: []string{"one", "other"}}}
	ru := formats.File{Target: formats.Language{Code: "ru", Plurals: []string{"one", "few", "many", "other"}}}
	edit := func(k string, v ...string) formats.Edit {
		return formats.Edit{Context: k, Target: v, Plural: len(v) > 1}
	}
	base := "de:\n  a: alt\n  nested:\n    b: 'B'\n    block: |-\n      x\n      y\n  count:\n    one: \"ein\"\n    other: \"viele\"\n"
	tests := []struct {
		name  string
		f     formats.File
		in    string
		edits []formats.Edit
		want  string
	}{
		{"plain stays plain", f, base, []formats.Edit{edit("a", "neu")}, strings.Replace(base, "a: alt", "a: neu", 1)},
		{"plain that needs quotes", f, base, []formats.Edit{edit("a", "ja: #1")}, strings.Replace(base, "a: alt", `a: "ja: #1"`, 1)},
		{"plain that would be a boolean", f, base, []formats.Edit{edit("a", "yes")}, strings.Replace(base, "a: alt", `a: "yes"`, 1)},
		{"single stays single", f, base, []formats.Edit{edit("nested->b", "it's")}, strings.Replace(base, "'B'", "'it''s'", 1)},
		{"literal stays literal", f, base, []formats.Edit{edit("nested->block", "p\n\nq")}, strings.Replace(base, "|-\n      x\n      y", "|-\n      p\n\n      q", 1)},
		{"literal that cannot be", f, base, []formats.Edit{edit("nested->block", " lead\n")}, strings.Replace(base, "|-\n      x\n      y", `" lead\n"`, 1)},
		{"add under the deepest map", f, base, []formats.Edit{edit("nested->c", "C"), edit("nested->d->e", "E")},
			strings.Replace(base, "      y\n", "      y\n    c: C\n    d:\n      e: E\n", 1)},
		{"add at the top", f, base, []formats.Edit{edit("z", "Z")}, base + "  z: Z\n"},
		{"add a plural", f, base, []formats.Edit{edit("p", "1", "2")}, base + "  p:\n    one: \"1\"\n    other: \"2\"\n"},
		{"plural forms in place", f, base, []formats.Edit{edit("count", "eins", "viele")}, strings.Replace(base, `"ein"`, `"eins"`, 1)},
		{"plural category added", ru, base, []formats.Edit{edit("count", "ein", "wenige", "", "viele")},
			strings.Replace(base, "    other: \"viele\"\n", "    other: \"viele\"\n    few: wenige\n", 1)},
		{"empty new unit skipped", f, base, []formats.Edit{edit("z", "")}, base},
		{"quoted file, quoted additions", f, "en:\n  a: \"x\"\n  b: \"y\"\n", []formats.Edit{edit("c", "z")}, "en:\n  a: \"x\"\n  b: \"y\"\n  c: \"z\"\n"},
		{"no final newline", f, "de:\n  a: x", []formats.Edit{edit("b", "why")}, "de:\n  a: x\n  b: why"},
		{"YAML 1.1 boolean quoted", f, "de:\n  a: x\n", []formats.Edit{edit("b", "y")}, "de:\n  a: x\n  b: \"y\"\n"},
		{"new file", f, "", []formats.Edit{edit("a->b", "x")}, "de:\n  a:\n    b: x\n"},
		{"reference's new file", f, "{}\n", []formats.Edit{edit("a", "x")}, "de:\n  a: x\n"},
		{"empty language key", f, "de:\n", []formats.Edit{edit("a", "x")}, "de:\n  a: x\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			if tc.in != "" {
				data = []byte(tc.in)
			}
			out := mustApply(t, Ruby, data, tc.f, tc.edits...)
			if string(out) != tc.want {
				t.Fatalf("Apply\n got %q\nwant %q", out, tc.want)
			}
			got := values(mustDecode(t, out, tc.f))
			for _, e := range tc.edits {
				if !blank(e.Target) && !reflect.DeepEqual(got[e.Context], e.Target) {
					t.Errorf("%q reads back as %q, want %q", e.Context, got[e.Context], e.Target)
				}
			}
		})
	}
	if out := mustApply(t, Ruby, nil, f); string(out) != "{}\n" {
		t.Errorf("new file = %q, want the reference's %q", out, "{}\n")
	}
}

func TestApplyErrors(t *testing.T) {
	f := formats.File{Target: formats.Language{Code: "de", Plurals: []string{"one", "other"}}}
	in := []byte("de:\n  anc: &a x\n  ali: *a\n  s: x\n  m: {k: v}\n  count:\n    one: a\n    other: b\n")
	tests := []struct {
		edit formats.Edit
		err  error
	}{
		{formats.Edit{Context: "ali", Target: []string{"y"}}, ErrAlias},
		{formats.Edit{Context: "s", Target: []string{"a", "b"}}, ErrPlural},
		{formats.Edit{Context: "count", Target: []string{"a", "b", "c"}}, ErrPlural},
		{formats.Edit{Context: "s->t", Target: []string{"y"}}, ErrLayout},
		{formats.Edit{Context: "m->n", Target: []string{"y"}}, ErrLayout},
	}
	for _, tc := range tests {
		if _, err := Ruby.Apply(in, f, []formats.Edit{tc.edit}); !errors.Is(err, tc.err) {
			t.Errorf("Apply(%+v) = %v, want %v", tc.edit, err, tc.err)
		}
	}
	// The anchor itself can be edited; the alias then reads the new text.
	out := mustApply(t, Ruby, in, f, formats.Edit{Context: "anc", Target: []string{"z"}})
	if got := values(mustDecode(t, out, f)); got["ali"][0] != "z" {
		t.Errorf("alias reads %q after the anchor's edit", got["ali"])
	}
}

func TestRemove(t *testing.T) {
	in := "de:\n  a: x\n  # about b\n  b: |-\n    l1\n    l2\n  count:\n    one: a\n    other: b\n  c: z\n"
	out, err := Ruby.Remove([]byte(in), formats.File{}, []formats.Key{{Context: "b"}, {Context: "count"}, {Context: "zz"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "de:\n  a: x\n  c: z\n"; string(out) != want {
		t.Errorf("Remove = %q, want %q", out, want)
	}
}

// TestEmptiedCorpus empties en.yml for Russian: every unit is empty, the
// plural hashes keep their keys, and the root key is "ru".
func TestEmptiedCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		if !strings.HasSuffix(path, "en.yml") {
			continue
		}
		data := mustRead(t, path)
		f := formats.File{Target: formats.Language{Code: "ru", Plurals: []string{"one", "few", "many", "other"}}}
		out, err := Ruby.Emptied(data, f)
		if err != nil {
			t.Fatal(err)
		}
		before := mustDecode(t, data, fileOf(path))
		after := mustDecode(t, out, f)
		if len(after) != len(before) {
			t.Errorf("%d units after Emptied, want %d", len(after), len(before))
		}
		for _, u := range after {
			if !blank(u.Target) {
				t.Fatalf("unit %+v after Emptied", u)
			}
		}
		if !bytes.Contains(out, []byte("\nru:\n")) || bytes.Contains(out, []byte("\nen:\n")) {
			t.Errorf("root key not renamed")
		}
		var n yamlv3.Node
		if err := yamlv3.Unmarshal(out, &n); err != nil {
			t.Errorf("Emptied output does not parse: %v", err)
		}
	}
}

// TestRemoveCorpus removes one unit (and one plural hash) from every
// corpus file and checks that one contiguous run of whole lines went and
// only that unit with it.
func TestRemoveCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		data := mustRead(t, path)
		f := fileOf(path)
		units := mustDecode(t, data, f)
		pick := []formats.Unit{units[len(units)/2]}
		for _, u := range units {
			if len(u.Target) > 1 {
				pick = append(pick, u)
				break
			}
		}
		for _, u := range pick {
			out, err := Ruby.Remove(data, f, []formats.Key{{Context: u.Context}})
			if err != nil {
				t.Fatal(err)
			}
			pre := 0
			for pre < len(out) && data[pre] == out[pre] {
				pre++
			}
			pre = bytes.LastIndexByte(out[:pre], '\n') + 1 // whole lines
			if len(out) >= len(data) || !bytes.Equal(out[pre:], data[len(data)-(len(out)-pre):]) {
				t.Errorf("%s: Remove of %q changed more than one run of lines", path, u.Context)
			}
			want := values(units)
			delete(want, u.Context)
			if got := values(mustDecode(t, out, f)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: units after removing %q differ", path, u.Context)
			}
		}
	}
}

// TestRootKeyPathCode checks that a new Ruby file and an emptied template
// take the language key as the file's path spells it (File.PathCode),
// not the index's code.
func TestRootKeyPathCode(t *testing.T) {
	f := formats.File{Target: formats.Language{Code: "pt_BR", Plurals: []string{"one", "other"}}, PathCode: "pt-BR"}
	out, err := Ruby.Apply(nil, f, []formats.Edit{{Context: "hello", Target: []string{"Olá"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "pt-BR:") {
		t.Errorf("new file:\n%s", out)
	}
	out, err = Ruby.Emptied([]byte("en:\n  hello: \"Hello\"\n"), f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "pt-BR:") {
		t.Errorf("emptied template:\n%s", out)
	}
	f.PathCode = ""
	if out, _ = Ruby.Emptied([]byte("en:\n  hello: \"Hello\"\n"), f); !strings.HasPrefix(string(out), "pt_BR:") {
		t.Errorf("emptied template without PathCode:\n%s", out)
	}
}
