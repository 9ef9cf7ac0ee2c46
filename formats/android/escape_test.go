package android

import (
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// escapeCases are translate-toolkit's test_escape_* cases
// (tests/translate/storage/test_aresource.py): a target and the content
// it is written as. lossy marks the ones the reference does not read
// back unchanged (leading and trailing space next to markup).
var escapeCases = []struct {
	name, text, xml string
	lossy           bool
}{
	{"newline", "message\nwith newline", `message\nwith newline`, false},
	{"quotes with newline", "'message'\nwith newline", `\'message\'\nwith newline`, false},
	{"newlines", "message\n\nwith newline in xml\n", `message\n\nwith newline in xml\n`, false},
	{"twitter", "@twitterescape", `\@twitterescape`, false},
	{"quote", "quote 'escape'", `quote \'escape\'`, false},
	{"question", "?question?", `\?question?`, false},
	{"double space", "double  space", `"double  space"`, false},
	{"leading space", " leading space", `" leading space"`, false},
	{"trailing space", "tailing space ", `"tailing space "`, false},
	{"xml entities", ">xml&entities", `&gt;xml&amp;entities`, false},
	{"html code", "some <b>html code</b> here", `some <b>html code</b> here`, false},
	{"html code quote", "some <b>html code</b> 'here'", `some <b>html code</b> \'here\'`, false},
	{"html code quote newline", "some \n<b>html code</b> 'here'", `some \n<b>html code</b> \'here\'`, false},
	{"arrows", "<<< arrow", `&lt;&lt;&lt; arrow`, false},
	{"link", `<a href="https://example.net">link</a>`, `<a href="https://example.net">link</a>`, false},
	{"link and text", `<a href="https://example.net">link</a> and text`, `<a href="https://example.net">link</a> and text`, false},
	{"blank", "", ``, false},
	{"html quote", "start 'here' <b>html code 'to escape'</b> also 'here'", `start \'here\' <b>html code \'to escape\'</b> also \'here\'`, false},
	{"html leading space", " <b>html code 'to escape'</b> some 'here'", ` <b>html code \'to escape\'</b> some \'here\'`, true},
	{"html trailing space", "<b>html code 'to escape'</b> some 'here' ", `<b>html code \'to escape\'</b> some \'here\' `, true},
	{"html with ampersand", "<b>html code 'to escape'</b> some 'here' with &amp; char", `<b>html code \'to escape\'</b> some \'here\' with &amp; char`, false},
	{"html double space", "<b>html code 'to  escape'</b> some 'here'", `<b>html code \'to \u0020escape\'</b> some \'here\'`, false},
	{"html deep double space", "<b>html code 'to  <i>escape</i>'</b> some 'here'", `<b>html code \'to \u0020<i>escape</i>\'</b> some \'here\'`, false},
	{"complex xml", `<g:test xmlns:g="ttt" g:somevalue="aaaa  &quot;  aaa">value</g:test> &amp; outer &gt; <br/>text`, `<g:test xmlns:g="ttt" g:somevalue="aaaa  &quot;  aaa">value</g:test> &amp; outer &gt; <br/>text`, false},
	{"quoted newlines", "\n\nstring with newlines", `\n\nstring with newlines`, false},
	{"backslash", `C:\dir`, `C:\\dir`, false},
	{"tab", "a\tb", `a\tb`, false},
}

func TestEscape(t *testing.T) {
	for _, tc := range escapeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := encodeValue(tc.text, modeXML, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.xml {
				t.Errorf("encode %q = %q, want %q", tc.text, got, tc.xml)
			}
		})
	}
}

// TestEscapeRoundTrip writes each case through Apply and reads it back.
func TestEscapeRoundTrip(t *testing.T) {
	src := []byte("<resources>\n    <string name=\"x\">old</string>\n</resources>\n")
	for _, tc := range escapeCases {
		if tc.lossy {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			out := mustApply(t, src, en, formats.Edit{Context: "x", Target: []string{tc.text}})
			if got := mustDecode(t, out, en)[0].Target[0]; got != tc.text {
				t.Errorf("%q reads back as %q from %s", tc.text, got, out)
			}
		})
	}
}

// parseCases are translate-toolkit's test_parse_* cases: an element and
// the text it reads as.
var parseCases = []struct{ name, xml, text string }{
	{"newline", `<string name="t">message\nwith newline</string>`, "message\nwith newline"},
	{"newline in xml", "<string name=\"t\">message\n\\nwith\\n\nnewline\\n\nin xml</string>", "message \nwith\n newline\n in xml"},
	{"twitter", `<string name="t">\@twitterescape</string>`, "@twitterescape"},
	{"question", `<string name="t">\?</string>`, "?"},
	{"quote", `<string name="t">quote \'escape\'</string>`, "quote 'escape'"},
	{"double space", `<string name="t">"double  space"</string>`, "double  space"},
	{"leading space", `<string name="t">" leading space"</string>`, " leading space"},
	{"quoted newlines", "<string name=\"t\">\"\n\\n\n\\nstring with newlines\"</string>", "\n\n\n\nstring with newlines"},
	{"xml entities", `<string name="t">&gt;xml&amp;entities</string>`, ">xml&entities"},
	{"html code", `<string name="t">some <b>html code</b> here</string>`, "some <b>html code</b> here"},
	{"escaped html", `<string name="t">some &lt;b&gt;html code&lt;/b&gt; here</string>`, "some <b>html code</b> here"},
	{"escaped angle text", `<string name="t">&lt;not set&gt;</string>`, "<not set>"},
	{"cdata", `<string name="t"><![CDATA[<a href="%1$s">Terms</a>]]></string>`, `<a href="%1$s">Terms</a>`},
	{"arrows", `<string name="t">&lt;&lt;&lt; arrow</string>`, "<<< arrow"},
	{"link", `<string name="t"><a href="https://example.net">link</a></string>`, `<a href="https://example.net">link</a>`},
	{"blank", `<string name="t"></string>`, ""},
	{"trailing space", `<string name="t">test </string>`, "test"},
	{"trailing spaces", `<string name="t">test    </string>`, "test"},
	{"trailing escaped newline", `<string name="t">test\n</string>`, "test\n"},
	{"leading escaped newline", `<string name="t">\ntest</string>`, "\ntest"},
	{"leading spaces", `<string name="t">    test</string>`, "test"},
	{"trailing newline", "<string name=\"t\">test\n</string>", "test"},
	{"many quotes", `<string name="t">""""""""""test"""""""</string>`, "test"},
	{"self-closing", `<string name="t"/>`, ""},
	{"double quoted", `<string name="t">"double quoted text"</string>`, "double quoted text"},
	{"not translatable", `<string name="t" translatable="false">string</string>`, "string"},
	{"html quote", `<string name="t">start \'here\' <b>html code \'to escape\'</b> also \'here\'</string>`, "start 'here' <b>html code 'to escape'</b> also 'here'"},
	{"html leading space", `<string name="t"> <b>html code \'to escape\'</b> some \'here\'</string>`, "<b>html code 'to escape'</b> some 'here'"},
	{"html leading space quoted", `<string name="t">" "<b>"html code 'to escape'"</b>" some 'here'"</string>`, " <b>html code 'to escape'</b> some 'here'"},
	{"html trailing space", `<string name="t"><b>html code \'to escape\'</b> some \'here\' </string>`, "<b>html code 'to escape'</b> some 'here'"},
	{"html trailing space quoted", `<string name="t"><b>"html code 'to escape'"</b>" some 'here' "</string>`, "<b>html code 'to escape'</b> some 'here' "},
	{"html with ampersand", `<string name="t"><b>html code \'to escape\'</b> some \'here\' with &amp; char</string>`, "<b>html code 'to escape'</b> some 'here' with &amp; char"},
	{"html double space", `<string name="t"><b>html code 'to \u0020escape'</b> some 'here'</string>`, "<b>html code 'to  escape'</b> some 'here'"},
	{"html deep double space quoted", `<string name="t"><b>"html code 'to  "<i>"  escape"</i>\'</b> some \'here\'</string>`, "<b>html code 'to  <i>  escape</i>'</b> some 'here'"},
	{"complex xml", `<string name="t"><g:test xmlns:g="ttt" g:somevalue="aaaa  &quot;  aaa">value</g:test> outer &amp; text</string>`, `<g:test xmlns:g="ttt" g:somevalue="aaaa  &quot;  aaa">value</g:test> outer &amp; text`},
	{"bad unicode", `<string name="t">\utest</string>`, "test"},
	{"unicode", `<string name="t">\u0230</string>`, "\u0230"},
	{"surrogate pair", `<string name="t">\uD83D\uDE00</string>`, "\U0001F600"},
	{"unescaped", "<string name=\"t\">a\nb\tc d</string>", "a b c d"},
	{"escaped alone", "<string name=\"t\">a\"\n\"b\"\t\"c\" \"d</string>", "a\nb\tc d"},
	{"escaped full", "<string name=\"t\">\"a\nb\tc d\"</string>", "a\nb\tc d"},
	{"quoted escaped percent", `<string name="t">You are about to remove \"%s\" from your library</string>`, `You are about to remove "%s" from your library`},
	{"quoted percent", `<string name="t">You are about to remove "%s" from your library</string>`, "You are about to remove %s from your library"},
	{"quoted quote", `<string name="t">You are about to "remove \"%s\" from" your library</string>`, `You are about to remove "%s" from your library`},
	{"unpaired quote start", `<string name="t">"You can view it here soon: %s</string>`, "You can view it here soon: %s"},
	{"unpaired quote end", `<string name="t">You can view it here soon: %s"</string>`, "You can view it here soon: %s"},
	{"escape slash", `<string name="t">účtu \\<g id="account">%s</g>\\</string>`, `účtu \<g id="account">%s</g>\`},
	{"escape ignored", `<string name="t">účtu \\<g id="account">%s</g>\x</string>`, `účtu \<g id="account">%s</g>`},
	{"escaped quote end", `<string name="t">No file %1$s found in archive \"%2$s\"</string>`, `No file %1$s found in archive "%2$s"`},
	{"quoted xml", "<string name=\"t\">\"Your phone\n\n<g example=\"Corona-Warn\">%1$s</g> can notify you.\"</string>", "Your phone\n\n<g example=\"Corona-Warn\">%1$s</g> can notify you."},
	{"no-break space kept", "<string name=\"t\">a\u00a0:</string>", "a\u00a0:"},
	{"plural item", "<plurals name=\"t\">\n    <!-- c -->\n    <item quantity=\"one\">one message\\nwith newline</item>\n    <item quantity=\"other\">other</item>\n</plurals>", "one message\nwith newline"},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			src := "<resources xmlns:xliff=\"urn:oasis:names:tc:xliff:document:1.2\">\n" + tc.xml + "\n</resources>"
			units := mustDecode(t, []byte(src), en)
			if len(units) != 1 {
				t.Fatalf("%d units, want 1", len(units))
			}
			if got := units[0].Target[0]; got != tc.text {
				t.Errorf("%s reads %q, want %q", tc.xml, got, tc.text)
			}
		})
	}
}

func TestUnescapeTwoPasses(t *testing.T) {
	// translate-toolkit replaces \uXXXX before the other escapes, so an
	// escaped backslash before u0041 still reads the \u0041 escape.
	if got := unescapeChars(unescapeUnicode(`\\u0041`)); got != "" {
		t.Errorf("got %q, want \"\" (\\A with an unknown escape dropped)", got)
	}
	if got := unescapeChars(`a\` + "\n" + `b\`); got != "a\\\nb\\" {
		t.Errorf("got %q: a backslash before a newline or at the end stays", got)
	}
}
