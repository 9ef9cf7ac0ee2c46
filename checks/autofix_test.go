package checks

import (
	"slices"
	"testing"
)

// TestAutofix runs the cases of Weblate's weblate/trans/tests/test_autofix.py
// through the whole chain: each case names the fixers it expects.
func TestAutofix(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		tgt   string
		lang  string
		flags string
		want  string
		fixes []string
	}{
		// test_ellipsis, test_no_ellipsis
		{name: "ellipsis", src: "Foo…", tgt: "Bar...", want: "Bar…", fixes: []string{"end-ellipsis"}},
		{name: "ellipsis trailing space kept", src: "Foo…", tgt: "Bar... ", flags: "ignore-end-space", want: "Bar... "},
		{name: "no ellipsis in source", src: "Foo...", tgt: "Bar...", want: "Bar..."},
		{name: "ellipsis already", src: "Foo...", tgt: "Bar…", want: "Bar…"},
		// test_whitespace, test_no_whitespace, test_whitespace_flags
		{name: "whitespace added", src: "Foo\n", tgt: "Bar", want: "Bar\n", fixes: []string{"end-whitespace"}},
		{name: "whitespace same", src: "Foo\n", tgt: "Bar\n", want: "Bar\n"},
		{name: "whitespace blank target", src: " ", tgt: "  ", want: "  "},
		{name: "whitespace none", src: "Foo", tgt: "Bar", want: "Bar"},
		{name: "whitespace removed", src: "Foo", tgt: "Bar\n", want: "Bar", fixes: []string{"end-whitespace"}},
		{name: "whitespace crlf source", src: "Foo\r\n", tgt: "Bar", want: "Bar\n", fixes: []string{"end-whitespace"}},
		{name: "ignore-begin-space", src: "str", tgt: "  str", flags: "ignore-begin-space", want: "  str"},
		{name: "ignore-end-space", src: "str", tgt: "  str  ", flags: "ignore-end-space", want: "str  ", fixes: []string{"end-whitespace"}},
		{name: "read-only untouched", src: "str", tgt: "  str...", flags: "read-only", want: "  str..."},
		// test_zerospace, test_no_zerospace
		{name: "zero-width in source", src: "Foo\u200b", tgt: "Bar\u200b", want: "Bar\u200b"},
		{name: "zero-width removed", src: "Foo", tgt: "Bar\u200b", want: "Bar", fixes: []string{"zero-width-space"}},
		{name: "zero-width khmer", src: "Foo", tgt: "Bar\u200bBaz", lang: "km", want: "Bar\u200bBaz"},
		// test_controlchars, test_no_controlchars
		{name: "control removed", src: "Foo\x1b", tgt: "Bar\x1b", want: "Bar", fixes: []string{"control-chars"}},
		{name: "control none", src: "Foo", tgt: "Bar\x1bBaz\x00", want: "BarBaz", fixes: []string{"control-chars"}},
		{name: "newline tab kept", src: "Foo", tgt: "Bar\tBaz\nQux", want: "Bar\tBaz\nQux"},
		{name: "noncharacter", src: "Foo", tgt: "Bar\uffff", want: "Bar", fixes: []string{"control-chars"}},
		// test_devanagaridanda
		{name: "danda source without stop", src: "Foo", tgt: "Bar.", lang: "bn", want: "Bar."},
		{name: "danda stop", src: "Foo.", tgt: "Bar.", lang: "bn", want: "Bar।", fixes: []string{"devanadari-danda"}},
		{name: "danda bar", src: "Foo.", tgt: "Bar|", lang: "bn", want: "Bar।", fixes: []string{"devanadari-danda"}},
		{name: "danda bengali numerator", src: "Foo.", tgt: "Bar\u09f7", lang: "hi", want: "Bar।", fixes: []string{"devanadari-danda"}},
		{name: "danda already", src: "Foo.", tgt: "Bar।", lang: "bn", want: "Bar।"},
		{name: "danda czech", src: "Foo.", tgt: "Bar.", lang: "cs", want: "Bar."},
		{name: "danda latin script", src: "Foo.", tgt: "Bar.", lang: "hi_Latn", want: "Bar."},
		// test_punctuation_spacing, test_punctuation_spacing_rst, _xliff
		{name: "punct bengali", src: "Foo", tgt: "Bar:", lang: "bn", want: "Bar:"},
		{name: "punct nbsp kept", src: "Foo:", tgt: "Bar\u00a0:", lang: "fr", want: "Bar\u00a0:"},
		{name: "punct space colon", src: "Foo:", tgt: "Bar :", lang: "fr", want: "Bar\u00a0:", fixes: []string{"punctuation-spacing"}},
		{name: "punct missing not added", src: "Foo:", tgt: "Bar:", lang: "fr", want: "Bar:"},
		{name: "punct fr_CA", src: "Foo :", tgt: "Bar :", lang: "fr_CA", want: "Bar :"},
		{name: "punct czech", src: "Foo :", tgt: "Bar :", lang: "cs", want: "Bar :"},
		{name: "punct narrow", src: "Foo?", tgt: "Quoi ? Oui\u00a0! Non ;", lang: "fr", want: "Quoi\u202f? Oui\u202f! Non\u202f;", fixes: []string{"punctuation-spacing"}},
		{name: "punct narrow before colon", src: "Foo:", tgt: "Bar\u202f:", lang: "fr", want: "Bar\u00a0:", fixes: []string{"punctuation-spacing"}},
		{name: "punct ignore flag", src: "Foo:", tgt: "Bar :", lang: "fr", flags: "ignore-punctuation-spacing", want: "Bar :"},
		{name: "punct rst role", src: "This :ref:`doc`", tgt: "This :ref:`doc`", lang: "fr", flags: "rst-text", want: "This :ref:`doc`"},
		{name: "punct rst plain colon", src: "This :ref:`doc`", tgt: "This :", lang: "fr", flags: "rst-text", want: "This\u00a0:", fixes: []string{"punctuation-spacing"}},
		{name: "punct inside placeholder", src: "Quota {{ q | b : 0 }} par jour", tgt: "Quota {{ q | b : 0 }} par jour", lang: "fr",
			flags: `placeholders:"{{ q | b : 0 }}"`, want: "Quota {{ q | b : 0 }} par jour"},
		{name: "punct inside regex placeholder", lang: "fr", flags: `placeholders:r"<x\s[^>]*/>"`,
			src:  `Quota <x id="INTERPOLATION" equiv-text="{{ quota | bytes : 0 }}"/> par jour`,
			tgt:  `Quota <x id="INTERPOLATION" equiv-text="{{ quota | bytes : 0 }}"/> par jour`,
			want: `Quota <x id="INTERPOLATION" equiv-text="{{ quota | bytes : 0 }}"/> par jour`},
		{name: "punct outside regex placeholder", lang: "fr", flags: `placeholders:r"<x\s[^>]*/>"`,
			src:   `Quota: <x id="INTERPOLATION" equiv-text="{{ count }}"/> items`,
			tgt:   `Quota : <x id="INTERPOLATION" equiv-text="{{ count }}"/> éléments`,
			want:  "Quota\u00a0: <x id=\"INTERPOLATION\" equiv-text=\"{{ count }}\"/> éléments",
			fixes: []string{"punctuation-spacing"}},
		// test_fix_target: several fixers at once, in Weblate's order.
		{name: "chain", src: "Foo…", tgt: " Bar\u200b...", want: "Bar…", fixes: []string{"end-whitespace", "end-ellipsis", "zero-width-space"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lang := tt.lang
			if lang == "" {
				lang = "de"
			}
			u := Unit{Source: []string{tt.src}, Target: []string{tt.tgt}, Language: lang, Flags: mustFlags(t, tt.flags)}
			got, fixes := Autofix(u)
			if len(got) != 1 || got[0] != tt.want || !slices.Equal(fixes, tt.fixes) {
				t.Errorf("Autofix(%q → %q, %s) = %q %q, want %q %q", tt.src, tt.tgt, lang, got, fixes, tt.want, tt.fixes)
			}
			if u.Target[0] != tt.tgt {
				t.Errorf("Autofix modified its input: %q", u.Target[0])
			}
		})
	}
}

func TestAutofixPlurals(t *testing.T) {
	// Every form is compared with the first source form.
	u := Unit{Source: []string{"One file…", "%d files…"}, Target: []string{"Jeden soubor...", "%d soubory...", "%d souborů…"}, Language: "cs"}
	got, fixes := Autofix(u)
	if want := []string{"Jeden soubor…", "%d soubory…", "%d souborů…"}; !slices.Equal(got, want) || !slices.Equal(fixes, []string{"end-ellipsis"}) {
		t.Errorf("got %q %q, want %q [end-ellipsis]", got, fixes, want)
	}
	if got, fixes := Autofix(Unit{Target: []string{"x"}}); !slices.Equal(got, []string{"x"}) || fixes != nil {
		t.Errorf("no source: %q %q", got, fixes)
	}
}

func TestFixers(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Fixers() {
		if f.ID == "" || f.Name == "" || f.Class == "" || seen[f.ID] {
			t.Errorf("bad fixer %+v", f)
		}
		seen[f.ID] = true
	}
	if len(seen) != 6 {
		t.Errorf("%d fixers, want 6", len(seen))
	}
}
