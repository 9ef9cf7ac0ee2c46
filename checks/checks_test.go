package checks

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustFlags(t *testing.T, s string) Flags {
	t.Helper()
	f, err := ParseFlags(s)
	if err != nil {
		t.Fatalf("ParseFlags(%q): %v", s, err)
	}
	return f
}

func ids(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// TestRun gives each implemented check a failing and a passing case.
// want lists every id Run must report, so a case also proves the other
// checks stay quiet.
func TestRun(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		tgt    string
		lang   string
		flags  string
		want   []string
		plural []string // when set, src and tgt are ignored
		tgts   []string
	}{
		{name: "clean", src: "Hello world.", tgt: "Bonjour le monde.", lang: "de"},
		{name: "begin_newline", src: "\nHello", tgt: "Hallo", lang: "de", want: []string{"begin_newline", "newline-count"}},
		{name: "begin_newline both", src: "\nHello", tgt: "\nHallo", lang: "de"},
		{name: "end_newline", src: "Hello\n", tgt: "Hallo", lang: "de", want: []string{"end_newline", "newline-count"}},
		{name: "end_newline both", src: "Hello\n", tgt: "Hallo\n", lang: "de"},
		{name: "begin_space", src: "  Hello", tgt: " Hallo", lang: "de", want: []string{"begin_space"}},
		{name: "begin_space same", src: "  Hello", tgt: "  Hallo", lang: "de"},
		{name: "begin_space one char", src: " ", tgt: ",", lang: "de"},
		{name: "end_space", src: "Hello ", tgt: "Hallo", lang: "de", want: []string{"end_space"}},
		{name: "end_space same", src: "Hello ", tgt: "Hallo ", lang: "de"},
		{name: "double_space", src: "Hello world", tgt: "Hallo  Welt", lang: "de", want: []string{"double_space"}},
		{name: "double_space in source", src: "Hello  world", tgt: "Hallo  Welt", lang: "de"},
		{name: "end_stop", src: "Hello world.", tgt: "Hallo Welt", lang: "de", want: []string{"end_stop"}},
		{name: "end_stop short source", src: "Yes.", tgt: "Ja", lang: "de"},
		{name: "end_stop thai", src: "Hello world.", tgt: "สวัสดีชาวโลก", lang: "th"},
		{name: "end_stop ellipsis", src: "Loading...", tgt: "Laden…", lang: "de"},
		{name: "end_stop cjk", src: "Hello world.", tgt: "你好世界。", lang: "zh_Hans"},
		{name: "end_stop hindi bar", src: "Hello world.", tgt: "नमस्ते दुनिया|", lang: "hi"},
		{name: "end_stop hindi danda", src: "Hello world.", tgt: "नमस्ते दुनिया।", lang: "hi"},
		{name: "end_stop armenian", src: "Hello world.", tgt: "Բարեւ աշխարհ։", lang: "hy"},
		{name: "end_stop santali", src: "Hello world.", tgt: "ᱥᱟᱱᱛᱟᱲᱤ᱾", lang: "sat"},
		{name: "end_stop both (#17128)", src: "Save the file.", tgt: "Datei speichern.", lang: "de"},
		{name: "end_colon", src: "Name:", tgt: "Name", lang: "de", want: []string{"end_colon"}},
		{name: "end_colon full width", src: "Name:", tgt: "名前：", lang: "zh"},
		{name: "end_colon japanese stop", src: "Files:", tgt: "ファイル。", lang: "ja"},
		{name: "end_question", src: "Really?", tgt: "Wirklich", lang: "de", want: []string{"end_question"}},
		{name: "end_question full width", src: "Really?", tgt: "真的？", lang: "zh"},
		{name: "end_question greek", src: "Really?", tgt: "Αλήθεια;", lang: "el"},
		{name: "end_question greek mark", src: "Really?", tgt: "Αλήθεια\u037e", lang: "el"},
		{name: "end_question greek missing", src: "Really?", tgt: "Αλήθεια", lang: "el", want: []string{"end_question"}},
		{name: "end_question armenian", src: "Really?", tgt: "Իսկապե՞ս։", lang: "hy"},
		{name: "end_exclamation", src: "Done!", tgt: "Fertig", lang: "de", want: []string{"end_exclamation"}},
		{name: "end_exclamation basque", src: "Done!", tgt: "¡Eginda!", lang: "eu"},
		{name: "end_exclamation full width", src: "Done!", tgt: "完成！", lang: "zh"},
		{name: "end_ellipsis", src: "Open…", tgt: "Öffnen", lang: "de", want: []string{"end_ellipsis"}},
		{name: "end_ellipsis dots to char", src: "Open...", tgt: "Öffnen…", lang: "de"},
		{name: "end_semicolon", src: "a; b;", tgt: "a; b", lang: "de", want: []string{"end_semicolon"}},
		{name: "end_semicolon greek question", src: "Why?", tgt: "Γιατί;", lang: "el"},
		{name: "end_interrobang", src: "What?!", tgt: "Was?", lang: "de", want: []string{"end_interrobang"}},
		{name: "end_interrobang both", src: "What?!", tgt: "Was⁈", lang: "de"},
		{name: "end_exclamation interrobang", src: "What!", tgt: "Was?!", lang: "de", want: []string{"end_interrobang"}},
		{name: "end_interrobang full width", src: "What?!", tgt: "什么？！", lang: "zh"},
		{name: "escaped_newline", src: `Line\nnext`, tgt: "Zeile nächste", lang: "de", want: []string{"escaped_newline"}},
		{name: "escaped_newline same", src: `Line\nnext`, tgt: `Zeile\nnächste`, lang: "de"},
		{name: "newline-count", src: "a\nb\nc", tgt: "a\nb c", lang: "de", want: []string{"newline-count"}},
		{name: "zero-width-space", src: "Hello", tgt: "Hal\u200blo", lang: "de", want: []string{"zero-width-space"}},
		{name: "zero-width-space khmer", src: "Hello", tgt: "សួស\u200bតី", lang: "km"},
		{name: "kashida", src: "Hello", tgt: "مرحـــبا", lang: "ar", want: []string{"kashida"}},
		{name: "punctuation_spacing", src: "Name:", tgt: "Nom:", lang: "fr", want: []string{"punctuation_spacing"}},
		{name: "punctuation_spacing ok", src: "Name:", tgt: "Nom\u202f:", lang: "fr"},
		{name: "punctuation_spacing fr_CA", src: "Name:", tgt: "Nom:", lang: "fr_CA"},
		{name: "punctuation_spacing url", src: "See https://x", tgt: "Voir https://x", lang: "fr"},
		{name: "kabyle-characters", src: "Hello world", tgt: "Azul γef umaḍal", lang: "kab", want: []string{"kabyle-characters"}},
		{name: "kabyle-characters standard", src: "Hello world", tgt: "Azul ɣef umaḍal", lang: "kab"},
		{name: "kabyle-characters greek", src: "Hello world", tgt: "γεια σου κόσμε", lang: "el"},
		{name: "same", src: "Settings", tgt: "Settings", lang: "de", want: []string{"same"}},
		{name: "same strict abbreviation", src: "URL", tgt: "URL", lang: "de", flags: "strict-same", want: []string{"same"}},
		{name: "same abbreviation", src: "URL", tgt: "URL", lang: "de"},
		{name: "same digits", src: "1:4", tgt: "1:4", lang: "de"},
		{name: "same copyright", src: "© 2026 Tolk", tgt: "© 2026 Tolk", lang: "de"},
		{name: "same english variant", src: "Colour", tgt: "Colour", lang: "en_GB"},
		{name: "same interlingua", src: "Information", tgt: "Information", lang: "ia"},
		{name: "same ignored", src: "Settings", tgt: "Settings", lang: "de", flags: "ignore-same"},
		{name: "ignore-all-checks", src: "Hello.", tgt: "Hello", lang: "de", flags: "ignore-all-checks"},
		{name: "ignore-end-stop", src: "Hello world.", tgt: "Hallo Welt", lang: "de", flags: "ignore-end-stop"},
		{name: "max-length", src: "Hello", tgt: "Guten Tag", lang: "de", flags: "max-length:5", want: []string{"max-length"}},
		{name: "max-length fits", src: "Hello", tgt: "Hallo", lang: "de", flags: "max-length:5"},
		{name: "max-length counts characters", src: "Hello", tgt: "Ĥällö", lang: "de", flags: "max-length:5"},
		{name: "max-length replacements", src: "Hi %s", tgt: "Hallo %s", lang: "de", flags: "max-length:7, replacements:%s:X"},
		{name: "regex", src: "Hello", tgt: "hallo", lang: "de", flags: "regex:^[A-Z]", want: []string{"regex"}},
		{name: "regex matches", src: "Hello", tgt: "Hallo", lang: "de", flags: "regex:^[A-Z]"},
		{name: "plurals", plural: []string{"%d file", "%d files"}, tgts: []string{"%d soubor", "", "%d souborů"}, lang: "cs", want: []string{"plurals"}},
		{name: "plurals full", plural: []string{"%d file", "%d files"}, tgts: []string{"%d soubor", "%d soubory", "%d souborů"}, lang: "cs"},
		{name: "same-plurals", plural: []string{"%d file", "%d files"}, tgts: []string{"%d soubor", "%d soubor", "%d soubor"}, lang: "cs", want: []string{"same-plurals"}},
		{name: "same-plurals one form language", plural: []string{"%d file", "%d files"}, tgts: []string{"%d 文件"}, lang: "zh"},
		{name: "untranslated", src: "Hello.", tgt: "", lang: "de"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := Unit{Source: []string{tt.src}, Target: []string{tt.tgt}, Language: tt.lang, Flags: mustFlags(t, tt.flags)}
			if tt.plural != nil {
				u.Source, u.Target = tt.plural, tt.tgts
			}
			if got := ids(Run(u)); !slices.Equal(got, tt.want) {
				t.Errorf("Run(%q → %q, %s) = %q, want %q", u.Source, u.Target, tt.lang, got, tt.want)
			}
		})
	}
}

// TestIgnoreEach: ignore-<id> silences each implemented check that fires.
func TestIgnoreEach(t *testing.T) {
	u := Unit{Source: []string{"\n  Hello world... \n"}, Target: []string{"Hallo  Welt"}, Language: "de"}
	got := ids(Run(u))
	if len(got) < 3 {
		t.Fatalf("want several failures, got %q", got)
	}
	for _, id := range got {
		c, _ := ByID(id)
		u.Flags = mustFlags(t, c.IgnoreFlag())
		if slices.Contains(ids(Run(u)), id) {
			t.Errorf("%s still reported under %s", id, c.IgnoreFlag())
		}
	}
}

func TestRegistry(t *testing.T) {
	all := All()
	seen := map[string]bool{}
	for _, c := range all {
		if seen[c.ID] {
			t.Errorf("duplicate id %q", c.ID)
		}
		seen[c.ID] = true
		if got, ok := ByID(c.ID); !ok || got != c {
			t.Errorf("ByID(%q) = %+v, %v", c.ID, got, ok)
		}
		if !c.Default && c.Flag == "" && c.ID != "unnamed_format" {
			t.Errorf("%s: neither default nor flagged", c.ID)
		}
	}
	for id := range implemented {
		if !seen[id] {
			t.Errorf("implemented %q is not registered", id)
		}
	}
	for _, id := range []string{"same", "end_stop", "newline-count", "zero-width-space", "same-plurals", "max-length", "regex", "xml-tags", "check_glossary", "prohibited_initial_character", "fluent-target-inner-html"} {
		if !seen[id] {
			t.Errorf("%q missing", id)
		}
	}
	if len(all) != 84 {
		t.Errorf("%d checks, want 84", len(all))
	}
	if c, _ := ByID("end_stop"); c.IgnoreFlag() != "ignore-end-stop" || !c.Implemented {
		t.Errorf("end_stop: %+v", c)
	}
	if c, _ := ByID("perl_format"); c.Flag != "perl-format" || !c.Implemented || c.Default {
		t.Errorf("perl_format: %+v", c)
	}
	if _, ok := ByID("end-stop"); ok {
		t.Error("ByID accepts the dashed form")
	}
}

func TestParseFlags(t *testing.T) {
	f := mustFlags(t, `max-length:80, placeholders:$URL$:"%s":r"\{\d\}", regex:^[A-Z], ignore-end-stop , font-family:'Noto \'Sans\''`)
	if n, ok := f.Int("max-length"); !ok || n != 80 {
		t.Errorf("max-length = %d, %v", n, ok)
	}
	if got := f.Params("placeholders"); !slices.Equal(got, []string{"$URL$", "%s", `\{\d\}`}) {
		t.Errorf("placeholders = %q", got)
	}
	if got := f.Params("regex"); !slices.Equal(got, []string{"^[A-Z]"}) {
		t.Errorf("regex = %q", got)
	}
	if got := f.Params("font-family"); !slices.Equal(got, []string{"Noto 'Sans'"}) {
		t.Errorf("font-family = %q", got)
	}
	if !f.Has("ignore-end-stop") {
		t.Error("ignore-end-stop missing")
	}
	if got := f.Names(); !slices.Equal(got, []string{"max-length", "placeholders", "regex", "ignore-end-stop", "font-family"}) {
		t.Errorf("names = %q", got)
	}
	// String round-trips.
	if g := mustFlags(t, f.String()); g.String() != f.String() {
		t.Errorf("round trip: %q → %q", f.String(), g.String())
	}
	// r"…" entries are regular expressions and stay so through String.
	if !f.rx["placeholders"][2] || f.rx["placeholders"][0] || f.placeholders == nil || f.placeholders.re == nil {
		t.Errorf("placeholders regex marks = %v", f.rx["placeholders"])
	}
	if got := f.String(); !strings.Contains(got, `placeholders:$URL$:%s:r"\{\d\}"`) {
		t.Errorf("String = %s", got)
	}
	// In r"…" a backslash escapes only the quote.
	if g := mustFlags(t, `placeholders:r"a\\b\"c"`); g.Params("placeholders")[0] != `a\\b"c` {
		t.Errorf("raw = %q", g.Params("placeholders"))
	} else if h := mustFlags(t, g.String()); h.Params("placeholders")[0] != `a\\b"c` || !h.rx["placeholders"][0] {
		t.Errorf("raw round trip: %s → %q", g, h.Params("placeholders"))
	}
	// SetRegex is the programmatic r"…".
	if _, err := (Flags{}).SetRegex("placeholders", "(x"); err == nil {
		t.Error("SetRegex accepts a bad regex")
	}
	if g, err := (Flags{}).SetRegex("placeholders", `\d+`); err != nil || g.String() != `placeholders:r"\d+"` {
		t.Errorf("SetRegex = %s, %v", g, err)
	}
	// A regex with colons, unquoted.
	if got := mustFlags(t, `regex:^\d+:\d+$`).Params("regex"); !slices.Equal(got, []string{`^\d+:\d+$`}) {
		t.Errorf("regex with colons = %q", got)
	}
	if mustFlags(t, "").Names() != nil || mustFlags(t, " , ").Names() != nil {
		t.Error("empty input gives flags")
	}
}

func TestParseFlagsErrors(t *testing.T) {
	tests := []struct{ in, flag, reason string }{
		{"no-such-flag", "no-such-flag", "unknown"},
		{"end_stop", "end_stop", "unknown"}, // the enable flag is dashed
		{"strict-same:yes", "strict-same", "no parameter"},
		{"max-length", "max-length", "exactly one"},
		{"max-length:abc", "max-length", "not an integer"},
		{"regex:(a", "regex", "missing closing )"},
		{"regex:", "regex", "exactly one"},
		{`placeholders:"open`, `placeholders:"open`, "unterminated"},
		{`placeholders:r"(a"`, "placeholders", "missing closing )"},
		{`placeholders:$A$:r"[z-a]"`, "placeholders", "invalid character class range"},
		{`placeholders:$A$:""`, "placeholders", "empty placeholder"},
	}
	for _, tt := range tests {
		_, err := ParseFlags(tt.in)
		var fe *FlagError
		if !errors.As(err, &fe) || fe.Flag != tt.flag || !strings.Contains(fe.Reason, tt.reason) {
			t.Errorf("ParseFlags(%q) = %v, want flag %q: %s", tt.in, err, tt.flag, tt.reason)
		}
	}
}

func TestMerge(t *testing.T) {
	project := mustFlags(t, "max-length:100, strict-same")
	format := mustFlags(t, "c-format")
	component := mustFlags(t, "max-length:80, discard:strict-same")
	source := mustFlags(t, "ignore-same, regex:^a")
	unit := mustFlags(t, "max-length:40, regex:^b")
	f := Merge(project, format, component, Flags{}, Flags{}, source, unit)
	if n, _ := f.Int("max-length"); n != 40 {
		t.Errorf("max-length = %d, want the last layer's 40", n)
	}
	if f.Has("strict-same") || f.Has("discard") {
		t.Errorf("discard not applied: %s", f)
	}
	if !f.Has("c-format") || !f.Has("ignore-same") {
		t.Errorf("lost flags: %s", f)
	}
	if f.regex == nil || !f.regex.MatchString("b") || f.regex.MatchString("a") {
		t.Errorf("regex not the last layer's: %s", f)
	}
	// Several discards in one layer; the regex marks of placeholders
	// follow the layer that wins.
	two := mustFlags(t, "discard:max-length, discard:c-format")
	if g := Merge(project, format, two); g.Has("max-length") || g.Has("c-format") || !g.Has("strict-same") {
		t.Errorf("two discards: %s", g)
	}
	ph := Merge(mustFlags(t, `placeholders:r"\d"`), mustFlags(t, "placeholders:$A$"))
	if ph.String() != "placeholders:$A$" || ph.placeholders == nil || ph.placeholders.re != nil {
		t.Errorf("placeholders merge: %s", ph)
	}
	if want := "max-length:40, strict-same"; Merge(project, unit.remove("regex")).String() != want {
		t.Errorf("got %q, want %q", Merge(project, unit.remove("regex")), want)
	}
}

// TestBounded: a long target and a pathological regex run in linear time.
func TestBounded(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	u := Unit{
		Source:   []string{strings.Repeat("b", 100_000) + "."},
		Target:   []string{long + "!"},
		Language: "de",
		Flags:    mustFlags(t, "regex:(a+)+$, max-length:10"),
	}
	start := time.Now()
	got := ids(Run(u))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %v", d)
	}
	want := []string{"end_stop", "end_exclamation", "max-length", "regex"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestEnabledByAlias: every check an enable flag turns on is turned on
// by each of the flag's other names too, through enabled (the
// consistency and source checks' test) as through enabledSet (Run's),
// and its ignore flag still wins.
func TestEnabledByAlias(t *testing.T) {
	on := make([]bool, len(registry))
	for alias, name := range flagAliases {
		n := 0
		for i, c := range registry {
			if c.Flag != name {
				continue
			}
			n++
			f := mustFlags(t, alias)
			if !enabled(c, f) || !enabledSet(f, on)[i] {
				t.Errorf("flag %q does not turn on %s (flag %q)", alias, c.ID, name)
			}
			if enabled(c, mustFlags(t, alias+", "+c.IgnoreFlag())) {
				t.Errorf("%s is on under %q and %q", c.ID, alias, c.IgnoreFlag())
			}
		}
		if n == 0 {
			t.Errorf("alias %q names flag %q, which no check has", alias, name)
		}
	}
}
