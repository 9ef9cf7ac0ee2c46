package checks

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFixups: each fixup, applied as the editor's script applies it,
// turns a target failing its check into one that passes it, and leaves
// the rest of the text alone.
func TestFixups(t *testing.T) {
	tests := []struct {
		id, lang, src, tgt, want string
		flags                    string
	}{
		{"begin_space", "de", "  Hello", "Hallo", "  Hallo", ""},
		{"begin_space", "de", "Hello", "   Hallo", "Hallo", ""},
		{"end_space", "de", "Hello ", "Hallo", "Hallo ", ""},
		{"end_space", "de", "Hello", "Hallo   ", "Hallo", ""},
		{"double_space", "de", "Hello world and you", "Hallo  Welt  und dich", "Hallo Welt und dich", ""},
		{"zero-width-space", "de", "Hello", "Hal\u200blo\u200b", "Hallo", ""},
		{"kashida", "ar", "Hello", "مرحـبا", "مرحبا", ""},
		{"kabyle-characters", "kab", "Good evening", "Tameddit n lxiγ ε", "Tameddit n lxiɣ ɛ", ""},
		{"punctuation_spacing", "fr", "Name: here? yes!", "Nom: ici ? oui!", "Nom\u00a0: ici\u202f? oui\u202f!", ""},
		{"punctuation_spacing", "fr", "What?!", "Quoi?!", "Quoi\u202f?!", ""},
		{"md-link", "de", "See [docs](https://x.org)", "Siehe [Doku] (https://x.org)", "Siehe [Doku](https://x.org)", "md-text"},
		{"end_stop", "de", "Save the file.", "Datei speichern", "Datei speichern.", ""},
		{"end_stop", "ja", "Save the file.", "ファイルを保存", "ファイルを保存。", ""},
		{"end_colon", "de", "Name:", "Name", "Name:", ""},
		{"end_colon", "fr", "Name:", "Nom", "Nom\u00a0:", ""},
		{"end_question", "de", "Quit?", "Beenden", "Beenden?", ""},
		{"end_question", "el", "Quit?", "Έξοδος", "Έξοδος;", ""},
		{"end_exclamation", "fr", "Done!", "Fini", "Fini\u202f!", ""},
	}
	for _, tt := range tests {
		u := Unit{Source: []string{tt.src}, Target: []string{tt.tgt}, Language: tt.lang, Flags: mustFlags(t, tt.flags)}
		if !slices.Contains(ids(Run(u)), tt.id) {
			t.Errorf("%s: %q → %q does not fail the check (%v)", tt.id, tt.src, tt.tgt, ids(Run(u)))
			continue
		}
		rs := Fixup(tt.id, u)
		if rs == nil {
			t.Errorf("%s: no fixup", tt.id)
			continue
		}
		got := applyFixup(tt.tgt, rs)
		if got != tt.want {
			t.Errorf("%s: fixed %q → %q, want %q", tt.id, tt.tgt, got, tt.want)
		}
		u.Target = []string{got}
		if slices.Contains(ids(Run(u)), tt.id) {
			t.Errorf("%s: %q still fails after the fixup", tt.id, got)
		}
		// What the script reads: JavaScript-compatible patterns (no
		// look-around, no \u escapes, no named groups).
		for _, r := range rs {
			if jsUnsafe.MatchString(r.Pattern) {
				t.Errorf("%s: pattern %q is not in the JavaScript subset", tt.id, r.Pattern)
			}
		}
	}
	// A target ending with another mark is left to the translator; the
	// checks without a fixup offer none.
	if rs := Fixup("end_stop", Unit{Source: []string{"Save."}, Target: []string{"Sichern!"}, Language: "de"}); applyFixup("Sichern!", rs) != "Sichern!" {
		t.Error("end_stop's fixup replaced another mark")
	}
	for _, id := range []string{"same", "c_format", "plurals", "end_ellipsis"} {
		if Fixup(id, Unit{Source: []string{"a…"}, Target: []string{"b"}, Language: "de"}) != nil {
			t.Errorf("%s offers a fixup", id)
		}
	}
	// Without g only the first match is replaced, as in JavaScript.
	if got := applyFixup("a a a", []Replacement{{"a", "b", "u"}}); got != "b a a" {
		t.Errorf("first-match replace = %q", got)
	}
	if got := applyFixup("ab", []Replacement{{"(a)(b)", "$2$1x", "g"}}); got != "bax" {
		t.Errorf("group references = %q", got)
	}
}

var jsUnsafe = regexp.MustCompile(`\(\?[<=!P]|\\[ux]|\\p\{`)

// applyFixup applies rs to s in order, as the editor's script does with
// String.prototype.replace. A pattern that does not compile is skipped.
func applyFixup(s string, rs []Replacement) string {
	for _, r := range rs {
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			continue
		}
		with := jsReplacement.ReplaceAllString(r.With, "$${$1}")
		if strings.Contains(r.Flags, "g") {
			s = re.ReplaceAllString(s, with)
			continue
		}
		if m := re.FindStringSubmatchIndex(s); m != nil {
			s = s[:m[0]] + string(re.ExpandString(nil, with, s, m)) + s[m[1]:]
		}
	}
	return s
}

// jsReplacement finds JavaScript's "$1" group references, which Go
// writes "${1}" (Go reads "$1x" as a group named "1x").
var jsReplacement = regexp.MustCompile(`\$(\d)`)
