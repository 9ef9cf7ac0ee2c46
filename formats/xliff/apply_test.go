package xliff

import (
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// TestApply12 checks edits of a small 1.2 document: the bytes written and
// what reads back.
func TestApply12(t *testing.T) {
	cases := []struct {
		name  string
		edit  formats.Edit
		old   string // a fragment of doc12 the edit replaces…
		new   string // …with this
		fuzzy bool
		appr  bool
		read  string // the target as Decode reads it; the edit's when ""
	}{
		{"text only", formats.Edit{Context: "hello", Target: []string{"Servus"}, Approved: true},
			`<target state="final">Hallo</target>`, `<target state="final">Servus</target>`, false, true, ""},
		{"same text and state", formats.Edit{Context: "hello", Target: []string{"Hallo"}, Approved: true},
			"", "", false, true, ""},
		{"unapprove", formats.Edit{Context: "hello", Target: []string{"Hallo"}},
			`approved="yes">
        <source>Hello</source>
        <target state="final">`, `approved="no">
        <source>Hello</source>
        <target state="translated">`, false, false, ""},
		{"mark fuzzy", formats.Edit{Context: "hello", Target: []string{"Hallo"}, Fuzzy: true, Approved: true},
			`approved="yes">
        <source>Hello</source>
        <target state="final">`, `approved="no">
        <source>Hello</source>
        <target state="needs-translation">`, true, false, ""},
		{"unfuzzy keeps markup", formats.Edit{Context: "app.txt///2", Target: []string{`Ziehen &amp; <x id="1"/>ablegen!`}},
			`<target state="needs-translation">Ziehen<!-- c --> &amp; <x id="1"/>ablegen</target>`,
			`<target state="translated">Ziehen &amp; <x id="1"/>ablegen!</target>`, false, false, ""},
		{"plain text is escaped", formats.Edit{Context: "app.txt///4", Target: []string{"Tom & Jerry <3"}},
			`<target state="needs-review-translation">Leer</target>`,
			`<target state="needs-review-translation">Tom &amp; Jerry &lt;3</target>`, false, false, "Tom &amp; Jerry &lt;3"},
		{"self-closing target", formats.Edit{Context: "app.txt///5", Target: []string{"Neu"}},
			`<target state="new"/>`, `<target state="translated">Neu</target>`, false, false, ""},
		{"insert target", formats.Edit{Context: "app.txt///3", Target: []string{"Logo"}, Approved: true},
			`<trans-unit id="3" translate="no" maxwidth="80">
        <source>Logo</source>`, `<trans-unit id="3" translate="no" maxwidth="80" approved="yes">
        <source>Logo</source>
        <target state="final">Logo</target>`, false, true, ""},
		{"insert target inline", formats.Edit{Context: "x", Target: []string{"Andere"}},
			`<source>Other file</source>`, `<source>Other file</source><target state="translated">Andere</target>`, false, false, ""},
		{"empty target removes it", formats.Edit{Context: "hello"},
			`approved="yes">
        <source>Hello</source>
        <target state="final">Hallo</target>
`, `approved="no">
        <source>Hello</source>
`, false, false, ""},
	}
	for _, tc := range cases {
		if tc.read == "" {
			tc.read = target(tc.edit)
		}
		t.Run(tc.name, func(t *testing.T) {
			out := string(mustApply(t, XLIFF, []byte(doc12), de(), tc.edit))
			if tc.old != "" && !strings.Contains(doc12, tc.old) {
				t.Fatalf("fragment %q not in the document", tc.old)
			}
			if want := strings.Replace(doc12, tc.old, tc.new, 1); out != want {
				t.Errorf("got\n%s\nwant\n%s", out, want)
			}
			for _, u := range mustDecode(t, XLIFF, []byte(out), de()) {
				if u.Context != tc.edit.Context {
					continue
				}
				if u.Target[0] != tc.read || u.Fuzzy != tc.fuzzy || u.Approved != tc.appr {
					t.Errorf("reads back %q fuzzy=%v approved=%v, want %q %v %v", u.Target[0], u.Fuzzy, u.Approved, tc.read, tc.fuzzy, tc.appr)
				}
			}
		})
	}
}

// TestApply20 checks edits of a small 2.0 document.
func TestApply20(t *testing.T) {
	cases := []struct {
		name     string
		edit     formats.Edit
		old, new string
		fuzzy    bool
		appr     bool
	}{
		{"keeps padding and state", formats.Edit{Context: "a", Target: []string{" Neu <ph id=\"0\"/> "}, Fuzzy: true},
			`<target> Rembourré <ph id="0" equiv="TAG_IMG" disp="&lt;img&gt;"/> </target>`, `<target> Neu <ph id="0"/> </target>`, true, false},
		{"translated", formats.Edit{Context: "a", Target: []string{` Rembourré <ph id="0" equiv="TAG_IMG" disp="&lt;img&gt;"/> `}},
			`<segment state="initial">`, `<segment state="translated">`, false, false},
		{"approve", formats.Edit{Context: "c", Target: []string{"Groupe"}, Approved: true},
			`<segment state="translated"><source>In group`, `<segment state="reviewed"><source>In group`, false, true},
		{"final stays approved", formats.Edit{Context: "b::s1", Target: []string{"Une."}, Approved: true},
			`<target>Un.</target>`, `<target>Une.</target>`, false, true},
		{"insert target", formats.Edit{Context: "b::segment-3", Target: []string{"Trois."}},
			`<segment><source>Three.</source>`, `<segment><source>Three.</source><target>Trois.</target>`, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := string(mustApply(t, XLIFF2, []byte(doc20), de(), tc.edit))
			if !strings.Contains(doc20, tc.old) {
				t.Fatalf("fragment %q not in the document", tc.old)
			}
			if want := strings.Replace(doc20, tc.old, tc.new, 1); out != want {
				t.Errorf("got\n%s\nwant\n%s", out, want)
			}
			u := byContext(t, mustDecode(t, XLIFF2, []byte(out), de()))[tc.edit.Context]
			if u.Target[0] != target(tc.edit) || u.Fuzzy != tc.fuzzy || u.Approved != tc.appr {
				t.Errorf("reads back %q fuzzy=%v approved=%v", u.Target[0], u.Fuzzy, u.Approved)
			}
		})
	}
}

// TestInsertTargetCorpus translates a unit of pkspot's base, which has
// no targets: the target goes on its own line under the source, and the
// segment without a state already reads as translated.
func TestInsertTargetCorpus(t *testing.T) {
	corpusFiles(t, "pkspot")
	data := mustRead(t, corpusDir+"/pkspot/src/locale/messages.xlf")
	out := string(mustApply(t, XLIFF2, data, de(), formats.Edit{Context: "terms.short", Target: []string{"AGB"}}))
	want := "<segment>\n        <source>Terms</source>\n        <target>AGB</target>\n      </segment>"
	if !strings.Contains(out, want) {
		i := strings.Index(out, "terms.short")
		t.Errorf("no %q in\n%s", want, out[i:i+200])
	}
	if len(out) != len(data)+len("\n        <target>AGB</target>") {
		t.Errorf("output has %d bytes, input %d: more changed than the target and state", len(out), len(data))
	}
}

// TestAddUnits adds units the file lacks, in the file's indentation.
func TestAddUnits(t *testing.T) {
	t.Run("1.2 after the last unit", func(t *testing.T) {
		edits := []formats.Edit{
			{Context: "new.key", Source: []string{"New & improved"}, Target: []string{"Neu & besser"}},
			{Context: "app.txt///7", Source: []string{"Seven"}, Target: []string{"Sieben"}, Fuzzy: true},
			{Context: "untranslated", Source: []string{"Nothing"}},
		}
		out := string(mustApply(t, XLIFF, []byte(doc12), de(), edits...))
		want := `    <trans-unit id="x" font="Ubuntu Mono;12;bold"><source>Other file</source></trans-unit>
    <trans-unit id="new.key" resname="new.key" xml:space="preserve">
      <source>New &amp; improved</source>
      <target state="translated">Neu &amp; besser</target>
    </trans-unit>
    <trans-unit id="app.txt///7" resname="app.txt///7" xml:space="preserve">
      <source>Seven</source>
      <target state="needs-translation">Sieben</target>
    </trans-unit>
  </body></file>`
		if !strings.Contains(out, want) || !strings.HasPrefix(out, doc12[:strings.Index(doc12, "  </body></file>")]) {
			t.Errorf("got\n%s", out)
		}
		units := byContext(t, mustDecode(t, XLIFF, []byte(out), de()))
		if u := units["new.key"]; u.Target[0] != "Neu &amp; besser" || u.Source[0] != "New &amp; improved" {
			t.Errorf("new.key reads %+v", u)
		}
		if u := units["app.txt///7"]; !u.Fuzzy {
			t.Errorf("app.txt///7 reads %+v", u)
		}
		if _, ok := units["untranslated"]; ok {
			t.Error("an edit with an empty target added a unit")
		}
	})
	t.Run("kimai translation", func(t *testing.T) {
		corpusFiles(t, "kimai")
		data := mustRead(t, corpusDir+"/kimai/translations/messages.sl.xlf")
		edit := formats.Edit{Context: "tolk.added", Source: []string{"Added"}, Target: []string{"Dodano"}}
		out := string(mustApply(t, XLIFF, data, de(), edit))
		want := "      </trans-unit>\n      <trans-unit id=\"tolk.added\" resname=\"tolk.added\" xml:space=\"preserve\">\n        <source>Added</source>\n        <target state=\"translated\">Dodano</target>\n      </trans-unit>\n    </body>\n  </file>\n</xliff>\n"
		if !strings.HasSuffix(out, want) {
			t.Errorf("ends\n%s", out[len(out)-400:])
		}
		if n := len(mustDecode(t, XLIFF, []byte(out), de())); n != 140 {
			t.Errorf("%d units after adding one to 139", n)
		}
	})
	t.Run("2.0 into an empty file", func(t *testing.T) {
		f := de()
		out := string(mustApply(t, XLIFF2, nil, f, formats.Edit{Context: "k", Source: []string{"Key"}, Target: []string{"Chave"}, Approved: true}))
		want := `<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="pt-BR">
  <file id="f1">
    <unit id="k">
      <segment state="reviewed">
        <source>Key</source>
        <target>Chave</target>
      </segment>
    </unit>
  </file>
</xliff>
`
		if out != want {
			t.Errorf("got\n%s\nwant\n%s", out, want)
		}
		if u := mustDecode(t, XLIFF2, []byte(out), f)[0]; u.Target[0] != "Chave" || !u.Approved {
			t.Errorf("reads %+v", u)
		}
	})
	t.Run("1.2 new file", func(t *testing.T) {
		out := string(mustApply(t, XLIFF, nil, de(), formats.Edit{Context: "k", Source: []string{"Key"}, Target: []string{"Chave"}}))
		want := `<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file original="NoName" source-language="en" target-language="pt-BR" datatype="plaintext">
    <body>
      <trans-unit id="k" resname="k" xml:space="preserve">
        <source>Key</source>
        <target state="translated">Chave</target>
      </trans-unit>
    </body>
  </file>
</xliff>
`
		if out != want {
			t.Errorf("got\n%s\nwant\n%s", out, want)
		}
		if empty := mustApply(t, XLIFF, nil, de()); len(mustDecode(t, XLIFF, empty, de())) != 0 {
			t.Error("a new file without edits has units")
		}
	})
}

// TestRemove removes units with their lines.
func TestRemove(t *testing.T) {
	out := string(mustRemove(t, XLIFF, []byte(doc12), formats.Key{Context: "app.txt///4"}, formats.Key{Context: "hello"}, formats.Key{Context: "absent"}))
	want := strings.Replace(doc12, `      <trans-unit id="4"><source>Empty state</source><target state="needs-review-translation">Leer</target></trans-unit>
`, "", 1)
	want = strings.Replace(want, `      <trans-unit id="1" resname="hello" approved="yes">
        <source>Hello</source>
        <target state="final">Hallo</target>
        <note>greeting</note>
        <note>second</note>
      </trans-unit>
`, "", 1)
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	commented := strings.Replace(doc12, "      <trans-unit id=\"4\">", "      <!-- keep -->\n\n      <!-- about 4 -->\n      <trans-unit id=\"4\">", 1)
	out = string(mustRemove(t, XLIFF, []byte(commented), formats.Key{Context: "app.txt///4"}))
	if !strings.Contains(out, "<!-- keep -->\n\n      <trans-unit id=\"5\">") || strings.Contains(out, "about 4") {
		t.Errorf("the comment above the removed unit stays, or one apart from it goes:\n%s", out)
	}
	out = string(mustRemove(t, XLIFF2, []byte(doc20), formats.Key{Context: "b::segment-2"}))
	units := byContext(t, mustDecode(t, XLIFF2, []byte(out), de()))
	if len(units) != 2 || units["a"].Target[0] == "" || units["c"].Target[0] != "Groupe" {
		t.Errorf("after removing unit b: %+v", units)
	}
	if strings.Contains(out, "\n\n") {
		t.Errorf("removal left a blank line:\n%s", out)
	}
}

func mustRemove(tb testing.TB, c Codec, data []byte, keys ...formats.Key) []byte {
	tb.Helper()
	out, err := c.Remove(data, de(), keys)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestEmptied builds new translations from the corpus bases.
func TestEmptied(t *testing.T) {
	t.Run("kimai", func(t *testing.T) {
		corpusFiles(t, "kimai")
		base := mustRead(t, corpusDir+"/kimai/translations/messages.en.xlf")
		out, err := XLIFF.Emptied(base, de())
		if err != nil {
			t.Fatal(err)
		}
		s := string(out)
		if strings.Contains(s, "<target") || strings.Contains(s, `approved="yes"`) || !strings.Contains(s, `target-language="pt-BR"`) {
			t.Errorf("emptied file still has targets or approvals, or no language:\n%s", s[:600])
		}
		units := mustDecode(t, XLIFF, out, de())
		if len(units) != 532 {
			t.Fatalf("%d units, want 532", len(units))
		}
		for _, u := range units {
			if u.Target[0] != "" || u.Approved || u.Fuzzy {
				t.Fatalf("unit %s not empty: %+v", u.Context, u)
			}
		}
		if strings.Contains(s, "\n\n") || strings.Contains(s, "      \n") {
			t.Error("removal left blank lines")
		}
	})
	t.Run("pkspot", func(t *testing.T) {
		corpusFiles(t, "pkspot")
		base := mustRead(t, corpusDir+"/pkspot/src/locale/messages.xlf")
		out, err := XLIFF2.Emptied(base, de())
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(string(base), `srcLang="en">`, `srcLang="en" trgLang="pt-BR">`, 1)
		if string(out) != want {
			t.Error("emptied pkspot base differs from the base with trgLang added")
		}
		fr := mustRead(t, corpusDir+"/pkspot/src/locale/messages.fr.xlf")
		out, err = XLIFF2.Emptied(fr, de())
		if err != nil {
			t.Fatal(err)
		}
		if s := string(out); strings.Contains(s, "<target") || strings.Contains(s, "state=") || !strings.Contains(s, `trgLang="pt-BR"`) {
			t.Error("emptied pkspot translation keeps targets or states, or lacks the language")
		}
	})
}
