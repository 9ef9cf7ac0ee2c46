package checks

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func fluentFlags(t *testing.T, typ string) Flags {
	t.Helper()
	return mustFlags(t, "fluent-source-syntax, fluent-target-syntax, fluent-parts, fluent-references, "+
		"fluent-source-inner-html, fluent-target-inner-html, fluent-type:"+typ)
}

// TestFluentSyntax: the reference's syntax examples
// (test_fluent_checks.py), on the source and the target, for messages
// and terms, as a value and as an attribute.
func TestFluentSyntax(t *testing.T) {
	ok := []string{
		"Test string", "Test string!", "🍄", "A -> B", "test [string]", "test.string", "] test string",
		"test * string", "test = string", "test <p string", "with\n  new line", "reference a { message }",
		"reference a { message.attr }", "reference a { -term }", `reference a { -term(tense: "past") }`,
		"reference a { $variable }", `call a { FUNCTION($n, val1: "hello", val2: -3.5) }`,
		`{ "[" } literals { 3 }`, `{ "with\"quote and \\backslash" } in literal`, `literal { "with \u27BDunicode" }`,
		`using { "\u27bdlower case" } hex`, `longer { "unicode\U01F700number" }`, `{ "my\UFFFFFFbad unicode" }`,
		"{ $var ->\n*[other] ok\n}", "{ -term.attr ->\n*[other] ok\n}",
	}
	bad := []string{
		"open { ref", "close } ref", "ref { with gap }", "ref { -term.attr }", "invalid { message@id }",
		"invalid number { .5 } literal", `invalid escape { "\a" } literal`, `unicode { "\u123x" } hex character missing`,
		`unicode sequence { "\U0012b" } too short`, " ", "\n", "lower case { function($n) }",
		"{ $var ->\n[other] ok\n}", "{ $var -> *[other] ok\n}", "{ $var ->\n*[other] ok }",
		"{ message ->\n*[other] ok\n}", "{ message.attr ->\n*[other] ok\n}", "{ -term ->\n*[other] ok\n}",
	}
	run := func(typ, src, tgt string) (source, target bool) {
		f := fluentFlags(t, typ)
		source = slices.Contains(ids(RunSource(Unit{Source: []string{src}, Flags: f})), "fluent-source-syntax")
		target = slices.Contains(ids(Run(Unit{Source: []string{"ok"}, Target: []string{tgt}, Language: "fr", Flags: f})), "fluent-target-syntax")
		return
	}
	for _, typ := range []string{"Message", "Term"} {
		for _, v := range ok {
			for _, text := range []string{v, "ok\n.attribute=" + v} {
				if s, tg := run(typ, text, text); s || tg {
					t.Errorf("%s %q: source fails %v, target fails %v; want both to pass", typ, text, s, tg)
				}
			}
		}
		for _, v := range bad {
			for _, text := range []string{v, "ok\n.attribute=" + v} {
				if s, tg := run(typ, text, text); !s || !tg {
					t.Errorf("%s %q: source fails %v, target fails %v; want both to fail", typ, text, s, tg)
				}
			}
		}
		for _, text := range []string{"[test string", "*test string", ".test string"} {
			if s, tg := run(typ, text, text); !s || !tg {
				t.Errorf("%s %q: want a syntax error", typ, text)
			}
		}
	}
	for _, c := range []struct {
		typ, text string
		fail      bool
	}{
		{"Message", ".attr = ok", false}, {"Term", ".attr = ok", true},
		{"Message", "ok\n.attr = ok\n.attr = ok", true}, {"Message", ".9attr = ok", true},
	} {
		if s, tg := run(c.typ, c.text, c.text); s != c.fail || tg != c.fail {
			t.Errorf("%s %q: source %v, target %v; want %v", c.typ, c.text, s, tg, c.fail)
		}
	}
}

// TestFluentChecks: parts, references and inner HTML on the reference's
// examples and Tolk's own.
func TestFluentChecks(t *testing.T) {
	tests := []struct {
		id, typ, src, tgt string
		fail              bool
	}{
		// fluent-parts
		{"fluent-parts", "Message", "source", "target", false},
		{"fluent-parts", "Message", ".attr = source", ".attr = target", false},
		{"fluent-parts", "Message", "source\n.attr = ok", "target\n .attr=val", false},
		{"fluent-parts", "Message", "source\n.title = ok\n.alt = val", "target\n.alt = val2\n.title = val", false},
		{"fluent-parts", "Message", ".title = ok\n.alt = val", ".title = val\n.alt = val2", false},
		{"fluent-parts", "Message", "source\n.attr = ok", "target", true},
		{"fluent-parts", "Message", "source", "target\n.attr = ok", true},
		{"fluent-parts", "Message", "source\n.title = ok", ".title = target", true},
		{"fluent-parts", "Term", "source\n.gender = masculine", "cible", false}, // terms' attributes are the locale's
		// fluent-references
		{"fluent-references", "Message", "Hello { $name }", "Bonjour { $name }", false},
		{"fluent-references", "Message", "Hello { $name }", "Bonjour", true},
		{"fluent-references", "Message", "Hello", "Bonjour { $name }", true},
		{"fluent-references", "Message", "Use { -brand }", "Utilisez { -brand }", false},
		{"fluent-references", "Message", "Use { -brand }", "Utilisez { brand }", true},
		{"fluent-references", "Message", "{ $n } and { $n }", "{ $n }", true},
		{"fluent-references", "Message", "Hi { $name }\n.title = { $count } new", "Salut { $name }\n.title = nouveau", true},
		// A count the selector reads need not be repeated in the "one" variant.
		{"fluent-references", "Message", "{ $n ->\n [one] One file\n*[other] { $n } files\n}", "{ $n ->\n [one] Un fichier\n*[other] { $n } fichiers\n}", false},
		{"fluent-references", "Message", "{ $n } files", "{ $n ->\n [one] Un fichier\n*[other] { $n } fichiers\n}", false},
		{"fluent-references", "Message", "{ $n } files", "{ $n ->\n [one] Un fichier\n*[other] fichiers\n}", true},
		{"fluent-references", "Message", "{ $n } files", "{ $x ->\n [one] { $n } fichier\n*[other] { $n } fichiers\n}", false},
		// fluent-target-inner-html
		{"fluent-target-inner-html", "Message", "Click <a data-l10n-name=\"link\">here</a>", "Cliquez <a data-l10n-name=\"link\">ici</a>", false},
		{"fluent-target-inner-html", "Message", "Click <a data-l10n-name=\"link\">here</a>", "Cliquez <a data-l10n-name=\"lien\">ici</a>", true},
		{"fluent-target-inner-html", "Message", "Click <a data-l10n-name=\"link\">here</a>", "Cliquez <a data-l10n-name=\"link\">ici", true},
		{"fluent-target-inner-html", "Message", "A<br>B", "A<br>B", false},
		{"fluent-target-inner-html", "Message", "A<br>B", "A<br></br>B", true},
		{"fluent-target-inner-html", "Message", "<em>a</em>", "<em/>a", true},
		{"fluent-target-inner-html", "Message", "a &amp; b", "a &amp b", true},
		{"fluent-target-inner-html", "Message", "a & b", "a & b", false},
		{"fluent-target-inner-html", "Message", "a <b>{ $x }</b>", "a <{ $x }>", true},
		{"fluent-target-inner-html", "Message", "Tom & Jerry", "Tom &{ $x };", true},
		{"fluent-target-inner-html", "Message", "<strong>a</strong> <em>b</em>", "<em>b</em> <strong>a</strong>", false},
		{"fluent-target-inner-html", "Message", "x < 3", "x < 3", false},
	}
	for _, tt := range tests {
		u := Unit{Source: []string{tt.src}, Target: []string{tt.tgt}, Language: "fr", Flags: fluentFlags(t, tt.typ)}
		if got := slices.Contains(ids(Run(u)), tt.id); got != tt.fail {
			t.Errorf("%s [%s]: %q → %q: fail = %v, want %v (%v)", tt.id, tt.typ, tt.src, tt.tgt, got, tt.fail, ids(Run(u)))
		}
	}
	// The source's own inner HTML.
	for src, fail := range map[string]bool{"<a>x</a>": false, "<a>x": true, "</a>": true, "<!-- x -->": true, "&nbsp x": true} {
		got := slices.Contains(ids(RunSource(Unit{Source: []string{src}, Flags: fluentFlags(t, "Message")})), "fluent-source-inner-html")
		if got != fail {
			t.Errorf("fluent-source-inner-html %q = %v, want %v", src, got, fail)
		}
	}
	// Without their flags they do not run.
	if got := ids(Run(Unit{Source: []string{"a { $x }"}, Target: []string{"a } b"}, Language: "fr"})); slices.ContainsFunc(got, func(id string) bool { return len(id) > 7 && id[:7] == "fluent-" }) {
		t.Errorf("Fluent checks ran without their flags: %v", got)
	}
}

// TestFluentHostile: random strings over Fluent's syntax never panic the
// parser, and 100,000 hostile characters are checked quickly.
func TestFluentHostile(t *testing.T) {
	alphabet := "{}$-.[]*\n ->\"\\uU0aZ(),:<>/&;="
	randomStrings(alphabet, 3, 14, func(s string) {
		for _, term := range []bool{false, true} {
			if ps, ok := parseFluent(s, term); ok {
				for _, p := range ps {
					for _, v := range flVariants(p.pattern) {
						parseInnerHTML(v.text)
					}
				}
			}
		}
	})
	f := fluentFlags(t, "Message")
	for _, h := range []string{strings.Repeat("{ $a ->\n*[b] ", 8000), strings.Repeat("a { $b } <i>", 10000), strings.Repeat("\n.a = x", 15000)} {
		for _, n := range []int{9000, len(h)} {
			start := time.Now()
			RunDetailed(Unit{Source: []string{h[:n]}, Target: []string{h[:n] + "x"}, Language: "fr", Flags: f})
			RunSource(Unit{Source: []string{h[:n]}, Flags: f})
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%d hostile bytes took %v", n, d)
			}
		}
	}
}

// TestFluentTypeFromKey: without fluent-type, a unit whose key starts
// with "-" is a term, as the reference guesses from the id (its
// test_untyped): ".attr = ok" is a message's valid body and a term's
// syntax error (a term needs a value); the flag, when set, wins.
func TestFluentTypeFromKey(t *testing.T) {
	untyped := mustFlags(t, "fluent-source-syntax, fluent-target-syntax")
	if !NeedsContext(untyped) || NeedsContext(fluentFlags(t, "Message")) || NeedsContext(mustFlags(t, "c-format")) {
		t.Error("NeedsContext: want it only for Fluent checks without fluent-type")
	}
	// Each of the six Fluent checks' flags, alone, reads the key.
	for _, f := range []string{"fluent-source-syntax", "fluent-target-syntax", "fluent-parts", "fluent-references",
		"fluent-source-inner-html", "fluent-target-inner-html"} {
		if !NeedsContext(mustFlags(t, f)) {
			t.Errorf("NeedsContext(%s) = false", f)
		}
	}
	for _, tc := range []struct {
		key   string
		flags Flags
		fails bool
	}{
		{"message", untyped, false},
		{"-term", untyped, true},
		{"-term", fluentFlags(t, "Message"), false},
		{"message", fluentFlags(t, "Term"), true},
	} {
		src := slices.Contains(ids(RunSource(Unit{Source: []string{".attr = ok"}, Flags: tc.flags, Context: tc.key})),
			"fluent-source-syntax")
		tgt := slices.Contains(ids(Run(Unit{Source: []string{"ok"}, Target: []string{".attr = ok"}, Language: "fr",
			Flags: tc.flags, Context: tc.key})), "fluent-target-syntax")
		if src != tc.fails || tgt != tc.fails {
			t.Errorf("key %q: source fails %v, target fails %v; want %v", tc.key, src, tgt, tc.fails)
		}
	}
}
