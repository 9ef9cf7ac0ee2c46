package checks

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// icuFails runs icu_message_format on one pair with icu-flags (colon
// separated, as Weblate's test get_mock builds them).
func icuFails(t *testing.T, src, tgt, icuFlags string) bool {
	t.Helper()
	flags := "icu-message-format"
	if icuFlags != "" {
		flags += ", icu-flags:" + icuFlags
	}
	return slices.Contains(ids(Run(Unit{Source: []string{src}, Target: []string{tgt}, Language: "de", Flags: mustFlags(t, flags)})), "icu_message_format")
}

// TestICU holds the cases of Weblate's weblate/checks/tests/test_icu.py.
// Each runs without tags, with xml and with strict-xml unless modes says
// otherwise, as Weblate's test classes inherit one another.
func TestICU(t *testing.T) {
	tests := []struct {
		name, src, tgt, flags string
		fail                  bool
		modes                 []string // "", "xml", "strict-xml"; nil = all
	}{
		{name: "plain", src: "string", tgt: "string"},
		{name: "malformed", src: "Hello, {name}!", tgt: "Hello, {name!", fail: true},
		{name: "malformed source", src: "Hello, {name!", tgt: "Hello, {name}!"},
		{name: "no formats", src: "Hello, {name}!", tgt: "Hallo, {name}!"},
		{name: "whitespace", src: "Hello, {  \t name\n  \n}!", tgt: "Hallo, {name}!"},
		{name: "missing", src: "Hello, {name}!", tgt: "Hallo, Fred!", fail: true},
		{name: "flag missing", src: "Hello, {name}!", tgt: "Hallo, Fred!", flags: "-missing"},
		{name: "extra", src: "Hello, {firstName}!", tgt: "Hallo, {firstName} {lastName}!", fail: true},
		{name: "flag extra", src: "Hello, {firstName}!", tgt: "Hallo, {firstName} {lastName}!", flags: "-extra"},
		{name: "types", src: "Cost: {value, number, ::currency/USD}", tgt: "Kosten: {value, number, ::currency/USD}"},
		{name: "wrong types", src: "Cost: {value, number, ::currency/USD}", tgt: "Kosten: {value}", fail: true},
		{name: "flag wrong types", src: "{value, number}", tgt: "{value}", flags: "-types"},
		{name: "more wrong types", src: "Cost: {value, foo}", tgt: "Kosten: {value, bar}", fail: true},
		{name: "plural types", src: "You have {count, plural, one {# message} other {# messages}}. Yes. {count, number}.",
			tgt: "Sie haben {count, plural, one {# Nachricht} other {# Nachrichten}}. Ja. {count, number}."},
		{name: "no other", src: "{count, number}", tgt: "{count, plural, one {typo}}", fail: true},
		{name: "flag no other", src: "{count, plural, one {#}}", tgt: "{count, plural, one {#}}", flags: "-require_other"},
		{name: "random submessage", src: "{count, test, one {yes} other {no}}", tgt: "{count, test, one {yes} other {no}}"},
		{name: "bad select", src: "{pronoun,select,hehim{}sheher{}other{}}", tgt: "{pronoun,select,he{}sheeher{}other{}}", fail: true},
		{name: "flag bad select", src: "{n,select,one{}two{}}", tgt: "{n,select,three{}four{}}", flags: "-require_other:-submessage_selectors"},
		{name: "bad plural", src: "{count, number}", tgt: "{count, plural, bad {typo} other {okay}}", fail: true},
		{name: "flag bad plural", src: "{n,number}", tgt: "{n,plural,bad{}other{}}", flags: "-plural_selectors"},
		{name: "good plural", src: "{count, number}", tgt: "{count, plural, zero{#} one{#} two{#} few{#} many{#} other{#} =0{#} =-12{#} =391.5{#}}"},
		// Beyond Weblate's tests: quoting, nesting, offsets, selectordinal.
		{name: "quoted braces are text", src: "Use '{name}' literally", tgt: "Verwende '{name}' wörtlich"},
		{name: "quoted placeholder missing is fine", src: "Use '{name}' and {x}", tgt: "{x}"},
		{name: "apostrophe is text", src: "Don't {do}", tgt: "Mach's nicht {do}"},
		{name: "doubled apostrophe", src: "It''s {n}", tgt: "Es ist {n}"},
		{name: "quoted hash", src: "{n, plural, one {'#'1} other {#}}", tgt: "{n, plural, one {'#'1} other {#}}"},
		{name: "nested select in plural", src: "{g, select, female {{n, plural, one {she has # cat} other {she has # cats}}} other {{n, plural, one {# cat} other {# cats}}}}",
			tgt: "{g, select, female {{n, plural, one {sie hat # Katze} other {sie hat # Katzen}}} other {{n, plural, one {# Katze} other {# Katzen}}}}"},
		{name: "nested missing inner", src: "{g, select, other {{n, plural, one {#} other {#}}}}", tgt: "{g, select, other {keine}}", fail: true},
		{name: "offset", src: "{n, plural, offset:1 =0 {none} one {# other} other {# others}}", tgt: "{n, plural, offset:1 =0 {keiner} one {# andere} other {# andere}}"},
		{name: "selectordinal", src: "{n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}", tgt: "{n, selectordinal, other {#.}}"},
		{name: "plural vs number", src: "{n, plural, one {#} other {#}}", tgt: "{n, number}"},
		{name: "unclosed sub-message", src: "{n, plural, one {#} other {#}}", tgt: "{n, plural, one {#} other {#}", fail: true},
		{name: "missing sub-message brace", src: "{n, select, a {x} other {y}}", tgt: "{n, select, a x other {y}}", fail: true},
		{name: "stray close brace", src: "{n}", tgt: "{n}}", fail: true},
		{name: "empty name", src: "{n}", tgt: "{ } {n}", fail: true},
		// ICUXMLFormatCheckTest
		{name: "tags", src: "Hello <user/>! <link>Click here!</link>", tgt: "Hallo <user />! <link>Klicke hier!</link>", modes: []string{"xml", "strict-xml"}},
		{name: "empty tags", src: "<empty />", tgt: "<empty/><empty></empty>", modes: []string{"xml", "strict-xml"}},
		{name: "incorrectly full tags", src: "<empty /><full>tag</full>", tgt: "<full /><empty>tag</empty>", fail: true, modes: []string{"xml", "strict-xml"}},
		{name: "tag vs placeholder", src: "Hello, <bold>{firstName}</bold>.", tgt: "Hello {bold} <firstName />.", fail: true, modes: []string{"xml", "strict-xml"}},
		{name: "flag tags", src: "Hello, <bold>{firstName}</bold>.", tgt: "Hello {bold} <firstName />.", flags: "-tags", modes: []string{"xml", "strict-xml"}},
		{name: "tags ignored without xml", src: "Hello, <bold>x</bold>.", tgt: "Hallo, x.", modes: []string{""}},
		{name: "not a tag", src: "I <3 Software", tgt: "I <3 Open Source", modes: []string{"", "xml"}},
		{name: "not a tag strict", src: "I <3 Software", tgt: "I <3 Open Source", fail: true, modes: []string{"strict-xml"}},
		{name: "tag prefix", src: "<bold>test", tgt: "<italic>test", flags: "", modes: []string{"xml-prefix"}},
		{name: "unclosed tag", src: "<b>x</b>", tgt: "<b>x", fail: true, modes: []string{"xml", "strict-xml"}},
		{name: "tag closed in another sub-message", src: "{n, select, a {<b>x</b>} other {y}}", tgt: "{n, select, a {<b>x} other {y</b>}}", fail: true, modes: []string{"xml", "strict-xml"}},
	}
	for _, tt := range tests {
		modes := tt.modes
		if modes == nil {
			modes = []string{"", "xml", "strict-xml"}
		}
		for _, m := range modes {
			flags := tt.flags
			extra := ""
			switch {
			case m == "xml-prefix":
				extra = `, icu-tag-prefix:"x:"`
				m = "xml"
			}
			if m != "" {
				flags = strings.Trim(m+":"+flags, ":")
			}
			f := "icu-message-format"
			if flags != "" {
				f += ", icu-flags:" + flags
			}
			f += extra
			u := Unit{Source: []string{tt.src}, Target: []string{tt.tgt}, Language: "de", Flags: mustFlags(t, f)}
			got := slices.Contains(ids(Run(u)), "icu_message_format")
			if got != tt.fail {
				t.Errorf("%s [%s]: %q → %q: fail = %v, want %v", tt.name, f, tt.src, tt.tgt, got, tt.fail)
			}
		}
	}
}

func TestICUSource(t *testing.T) {
	f := mustFlags(t, "icu-message-format")
	for _, tt := range []struct {
		src  string
		fail bool
	}{
		{"", false},
		{"Hello, {name}!", false},
		{"Hello, {name!", true},
		{"{n, plural, one {#} other {#}", true},
	} {
		got := slices.Contains(ids(RunSource(Unit{Source: []string{tt.src}, Flags: f})), "icu_message_format_syntax")
		if got != tt.fail {
			t.Errorf("%q: fail = %v, want %v", tt.src, got, tt.fail)
		}
	}
	// Weblate's test_check_target_plural.
	u := Unit{Source: []string{"{count} apple", "{count} apples"}, Target: []string{"{count} apple", "{count} apples"}, Language: "de", Flags: f}
	if got := ids(Run(u)); slices.Contains(got, "icu_message_format") {
		t.Errorf("plural unit: %q", got)
	}
}

// TestICUHostile: deep nesting is a syntax error, not a deep recursion;
// long input is linear.
func TestICUHostile(t *testing.T) {
	deep := strings.Repeat("{a, select, other {", 10_000) + "x" + strings.Repeat("}}", 10_000)
	tags := strings.Repeat("<b>", 10_000) + "x" + strings.Repeat("</b>", 10_000)
	long := strings.Repeat("{a} '{b}' {c, plural, one {#} other {# x}} ", 5_000)
	start := time.Now()
	if _, err := parseICU(deep, icuOptions{}); err == nil {
		t.Error("10,000-deep nesting parsed")
	}
	if _, err := parseICU(tags, icuOptions{tags: true}); err == nil {
		t.Error("10,000-deep tags parsed")
	}
	if vars, err := parseICU(long, icuOptions{}); err != nil || len(vars) != 2 {
		t.Errorf("long: %v, %d vars", err, len(vars))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}
