package checks

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// runCase is one Run call and the ids it must report.
type runCase struct {
	name, src, tgt, lang, flags string
	want                        []string
}

func runCases(t *testing.T, tests []runCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lang := tt.lang
			if lang == "" {
				lang = "de"
			}
			u := Unit{Source: []string{tt.src}, Target: []string{tt.tgt}, Language: lang, Flags: mustFlags(t, tt.flags)}
			if got := ids(Run(u)); !slices.Equal(got, tt.want) {
				t.Errorf("Run(%q → %q, %s, %q) = %q, want %q", tt.src, tt.tgt, lang, tt.flags, got, tt.want)
			}
		})
	}
}

func TestMarkup(t *testing.T) {
	runCases(t, []runCase{
		{name: "markup clean", src: "Click <b>here</b> now", tgt: "Klicken Sie <b>hier</b> jetzt"},
		{name: "xml-invalid unclosed", src: "<b>Hello</b> world", tgt: "<b>Hallo Welt", want: []string{"xml-invalid"}},
		{name: "xml-invalid mismatched", src: "<b>Hello</b> world", tgt: "<b>Hallo</i> Welt", want: []string{"xml-invalid"}},
		{name: "xml-invalid bare ampersand", src: "<b>Tom</b> and Jerry", tgt: "<b>Tom</b> & Jerry", want: []string{"xml-invalid"}},
		{name: "entities are not errors", src: "<b>Tom</b>&nbsp;and Jerry", tgt: "<b>Tom</b>&nbsp;&amp; Jerry"},
		{name: "source not markup", src: "a < b", tgt: "a <b"},
		{name: "source does not parse", src: "<b>Hello", tgt: "<i>Hallo"},
		{name: "skipped under safe-html", src: "<b>Hello</b> world", tgt: "<b>Hallo Welt", flags: "safe-html"},
		{name: "xml-text forces", src: "Hello", tgt: "Hallo <b>Welt", flags: "xml-text", want: []string{"xml-invalid"}},
		{name: "ignore-xml-invalid", src: "<b>Hello</b> world", tgt: "<b>Hallo Welt", flags: "ignore-xml-invalid"},
		{name: "xml-tags missing", src: "<b>Hello</b> world", tgt: "Hallo Welt", want: []string{"xml-tags"}},
		{name: "xml-tags renamed", src: "<b>Hello</b> world", tgt: "<i>Hallo</i> Welt", want: []string{"xml-tags"}},
		{name: "xml-tags attribute", src: `<a href="x">Hello</a> world`, tgt: `<a title="x">Hallo</a> Welt`, want: []string{"xml-tags"}},
		{name: "xml-tags attribute value free", src: `<a href="/en/">Hello</a> world`, tgt: `<a href="/de/">Hallo</a> Welt`},
		{name: "xml-tags self-closing", src: "Hello<br/>world", tgt: "Hallo<br></br>Welt"},
		{name: "ignore-xml-tags", src: "<b>Hello</b> world", tgt: "Hallo Welt", flags: "ignore-xml-tags"},
		{name: "chars around: space lost", src: "Click <b>here</b> now", tgt: "Klicken Sie<b>hier</b> jetzt", want: []string{"xml-chars-around-tags"}},
		{name: "chars around: space added inside", src: "Click <b>here</b>.", tgt: "Klicken Sie <b> hier</b>.", want: []string{"xml-chars-around-tags"}},
		{name: "chars around: punctuation kind", src: "Click <b>here</b>.", tgt: "Klicken Sie <b>hier</b>:", want: []string{"end_stop", "end_colon"}},
		{name: "chars around: adjacent tags", src: "<b><i>Hello</i></b> world", tgt: "<b><i>Hallo</i></b> Welt"},
		{name: "chars around: chinese skipped", src: "Click <b>here</b> now", tgt: "点击<b>这里</b>", lang: "zh_Hans"},
		{name: "ignore-xml-chars-around-tags", src: "Click <b>here</b> now", tgt: "Klicken Sie<b>hier</b> jetzt", flags: "ignore-xml-chars-around-tags"},
		{name: "safe-html script", src: "Hello <b>world</b>", tgt: "Hallo <script>alert(1)</script>", flags: "safe-html", want: []string{"safe-html"}},
		{name: "safe-html handler", src: "Hello <b>world</b>", tgt: `Hallo <b onclick="x()">Welt</b>`, flags: "safe-html", want: []string{"safe-html"}},
		{name: "safe-html javascript url", src: "Hello world", tgt: `Hallo <a href="javascript:x()">Welt</a>`, flags: "safe-html", want: []string{"safe-html"}},
		{name: "safe-html comment", src: "Hello world", tgt: "Hallo <!-- x --> Welt", flags: "safe-html", want: []string{"safe-html"}},
		{name: "safe-html allowed", src: "Hello world", tgt: `Hallo <strong>Welt</strong> <a href="https://x.org/" title="x">Link</a><br/>`, flags: "safe-html"},
		{name: "safe-html source tag", src: `<img src="a.png"> Hello`, tgt: `<img src="a.png"> Hallo`, flags: "safe-html"},
		{name: "safe-html off without flag", src: "Hello world", tgt: "Hallo <script>x</script>"},
		{name: "ignore-safe-html", src: "Hello", tgt: "<script>x</script>", flags: "safe-html, ignore-safe-html"},
	})
}

// TestIgnoreEachMarkup joins TestIgnoreEach for this file's checks and
// its siblings': each unit fails the check, and ignore-<id> silences it.
func TestIgnoreEachMarkup(t *testing.T) {
	for _, tc := range ignoreUnits {
		u := Unit{Source: []string{tc.src}, Target: []string{tc.tgt}, Language: "de", Flags: mustFlags(t, tc.flags)}
		if !slices.Contains(ids(Run(u)), tc.id) {
			t.Errorf("%s: not reported for %q → %q", tc.id, tc.src, tc.tgt)
			continue
		}
		c, ok := ByID(tc.id)
		if !ok || !c.Implemented {
			t.Errorf("%s: not registered as implemented", tc.id)
		}
		f, err := u.Flags.Set(c.IgnoreFlag())
		if err != nil {
			t.Fatal(err)
		}
		u.Flags = f
		if slices.Contains(ids(Run(u)), tc.id) {
			t.Errorf("%s still reported under %s", tc.id, c.IgnoreFlag())
		}
	}
}

var ignoreUnits = []struct{ id, src, tgt, flags string }{
	{"xml-invalid", "<b>Hello</b> world", "<b>Hallo Welt", ""},
	{"xml-tags", "<b>Hello</b> world", "Hallo Welt", ""},
	{"xml-chars-around-tags", "Click <b>here</b> now", "Klicken Sie<b>hier</b> jetzt", ""},
	{"safe-html", "Hello", "<script>x</script>", "safe-html"},
}

// TestMarkupBounded: deep nesting and long strings finish fast, and
// malformed markup never panics.
func TestMarkupBounded(t *testing.T) {
	deep := strings.Repeat("<b>", 10_000) + "x" + strings.Repeat("</b>", 10_000)
	long := strings.Repeat("<b>a</b> ", 100_000/9)
	units := []Unit{
		{Source: []string{deep}, Target: []string{deep + "<"}},
		{Source: []string{deep}, Target: []string{strings.Repeat("<i>", 10_000)}},
		{Source: []string{"<b>x</b>"}, Target: []string{long}},
		{Source: []string{long}, Target: []string{long + "<"}},
		{Source: []string{"<b>x</b>"}, Target: []string{strings.Repeat("<", 100_000)}},
		{Source: []string{"<b>x</b>"}, Target: []string{strings.Repeat("<a href='", 10_000)}},
		{Source: []string{"<b>x</b>"}, Target: []string{"<![CDATA[", "<!DOCTYPE x [<!ENTITY a 'b'>]>&a;", "<?xml version='1.0'?><x/>", "<a:b xmlns:a='u'></a:b>", "\x00<b>"}},
	}
	for i, u := range units {
		u.Language = "de"
		start := time.Now()
		Run(u)
		u.Flags = mustFlags(t, "safe-html")
		Run(u)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("unit %d took %v", i, d)
		}
	}
}
