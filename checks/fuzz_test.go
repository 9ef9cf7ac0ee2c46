package checks

import (
	"slices"
	"testing"
)

// FuzzParseICU: any input parses or fails without panicking, in every
// tag mode.
func FuzzParseICU(f *testing.F) {
	for _, s := range []string{"{n, plural, one {#} other {# x}}", "<b>{a}</b>", "'{'}", "{a, select, x {<i>y</i>} other {}}", "{", "}", "<3", "{a,b,c{d}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, o := range []icuOptions{{}, {tags: true}, {tags: true, strict: true}, {tags: true, prefix: "x:"}} {
			parseICU(s, o)
		}
	})
}

// FuzzQuickXML: wherever quickXML decides, encoding/xml agrees.
func FuzzQuickXML(f *testing.F) {
	for _, s := range []string{"<b>x</b>", "<a href=\"x\">y</a>", "<br/>", "a < b", "<b>x</i>", "]]>", "<b title='\x01'/>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tags, err, ok := quickXML(s)
		if !ok {
			return
		}
		want, werr := decodeXML("<weblate>" + s + "</weblate>")
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: quick err %v, encoding/xml err %v", s, err, werr)
		}
		if err == nil && !slices.Equal(tags, want[1:]) {
			t.Fatalf("%q: quick %v, encoding/xml %v", s, tags, want[1:])
		}
	})
}

// FuzzParseFlags: no panic, and what parses prints to text that parses
// to the same flags.
func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{`max-length:80, placeholders:$URL$:"%s":r"\{\d\}", regex:^[A-Z]`, `discard:a, discard:b`, `placeholders:r"a\\b\"c"`, `font-family:'x\'y'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fl, err := ParseFlags(s)
		if err != nil {
			return
		}
		again, err := ParseFlags(fl.String())
		if err != nil {
			t.Fatalf("%q → %q does not parse: %v", s, fl.String(), err)
		}
		if again.String() != fl.String() {
			t.Fatalf("%q: %q → %q", s, fl.String(), again.String())
		}
	})
}
