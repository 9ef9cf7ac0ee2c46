package checks

import (
	"strings"
	"testing"
	"time"
)

func TestMarkdown(t *testing.T) {
	runCases(t, []runCase{
		{name: "md clean", src: "Read **the** [guide](./guide.md)", tgt: "Lies **die** [Anleitung](./guide.md)", flags: "md-text"},
		{name: "md off without flag", src: "Read **the** guide", tgt: "Lies die Anleitung"},
		{name: "md-reflink", src: "See [the docs][docs]", tgt: "Siehe [die Doku][doku]", flags: "md-text", want: []string{"md-reflink"}},
		{name: "md-reflink same", src: "See [the docs][docs]", tgt: "Siehe [die Doku] [docs]", flags: "md-text"},
		{name: "ignore-md-reflink", src: "See [the docs][docs]", tgt: "Siehe [die Doku][doku]", flags: "md-text, ignore-md-reflink"},
		{name: "md-link local target", src: "See [guide](#install)", tgt: "Siehe [Anleitung](#installieren)", flags: "md-text", want: []string{"md-link"}},
		{name: "md-link remote localised", src: "See [Wiki](https://en.wikipedia.org/)", tgt: "Siehe [Wiki](https://de.wikipedia.org/)", flags: "md-text"},
		{name: "md-link missing", src: "See [guide](./a.md) and <https://x.org>", tgt: "Siehe [Anleitung](./a.md)", flags: "md-text", want: []string{"md-link", "md-syntax"}},
		{name: "md-link broken", src: "See [guide](./a.md)", tgt: "Siehe [Anleitung] (./a.md)", flags: "md-text", want: []string{"md-link"}},
		{name: "ignore-md-link", src: "See [guide](#install)", tgt: "Siehe [Anleitung](#x)", flags: "md-text, ignore-md-link"},
		{name: "md-syntax bold lost", src: "This is **important**", tgt: "Das ist wichtig", flags: "md-text", want: []string{"md-syntax"}},
		{name: "md-syntax bold to italic", src: "This is **important**", tgt: "Das ist *wichtig*", flags: "md-text", want: []string{"md-syntax"}},
		{name: "md-syntax code", src: "Run `make` now", tgt: "Jetzt `make` ausführen", flags: "md-text"},
		{name: "md-syntax code lost", src: "Run `make` now", tgt: "Jetzt make ausführen", flags: "md-text", want: []string{"md-syntax"}},
		{name: "md-syntax snake case", src: "Set max_value here", tgt: "Hier max_value setzen", flags: "md-text"},
		{name: "ignore-md-syntax", src: "This is **important**", tgt: "Das ist wichtig", flags: "md-text, ignore-md-syntax"},
	})
}

func init() {
	ignoreUnits = append(ignoreUnits, []struct{ id, src, tgt, flags string }{
		{"md-reflink", "See [the docs][docs]", "Siehe [die Doku][doku]", "md-text"},
		{"md-link", "See [guide](#install)", "Siehe [Anleitung](#x)", "md-text"},
		{"md-syntax", "This is **important**", "Das ist wichtig", "md-text"},
	}...)
}

func TestMarkdownBounded(t *testing.T) {
	for _, tgt := range []string{
		strings.Repeat("[", 100_000), strings.Repeat("*", 100_000), strings.Repeat("`", 100_000),
		strings.Repeat("[a](", 25_000), strings.Repeat("_a", 50_000), strings.Repeat("~~a ", 25_000),
	} {
		start := time.Now()
		Run(Unit{Source: []string{"[a][b] **c** [d](#e)"}, Target: []string{tgt}, Language: "de", Flags: mustFlags(t, "md-text")})
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%.10q… took %v", tgt, d)
		}
	}
}
