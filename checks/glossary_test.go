package checks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The reference's cases (weblate/checks/tests/test_glossary_checks.py):
// every prohibited character before "glossary term" fails, the plain
// term passes, and ignore-prohibited-initial-character silences it.
func TestProhibitedInitialCharacter(t *testing.T) {
	for _, c := range []struct {
		source, target string
		want           bool
	}{
		{"glossary term", "glossary term", false},
		{"=glossary term", "term", true},
		{"+ glossary term", "term", true},
		{"- glossary term", "term", true},
		{"@ glossary term", "term", true},
		{"| glossary term", "term", true},
		{"% glossary term", "term", true},
		{" glossary term", "term", true},
		{"\u00a0glossary term", "term", true}, // no-break space: Zs
		{"\u3000glossary term", "term", true}, // ideographic space: Zs
		{"glossary term", "=SUM(A1)", true},   // the translation counts too
		{"\tglossary term", "term", false},    // tab is Cc, not in the set
		{"\rglossary term", "term", false},
		{"glossary = term", "term", false},
		{"", "", false},
	} {
		u := Unit{Source: []string{c.source}, Target: []string{c.target}}
		got := slices.Contains(ids(RunGlossary(u)), "prohibited_initial_character")
		if got != c.want {
			t.Errorf("%q → %q: %v, want %v", c.source, c.target, got, c.want)
		}
	}
	u := Unit{Source: []string{"=term"}, Target: []string{"=term"}, Flags: mustFlags(t, "ignore-prohibited-initial-character")}
	if r := RunGlossary(u); len(r) != 0 {
		t.Errorf("ignored check still fails: %v", r)
	}
	if r := Run(Unit{Source: []string{"=term"}, Target: []string{"=Begriff"}, Language: "de"}); slices.Contains(ids(r), "prohibited_initial_character") {
		t.Error("Run runs a glossary check")
	}
	if c, ok := ByID("prohibited_initial_character"); !ok || !c.Implemented || c.Kind != Glossary {
		t.Errorf("registry: %+v", c)
	}
}

// check_glossary, after the reference's GlossaryCheckTest and the term
// lookup of get_glossary_terms.
func TestCheckGlossary(t *testing.T) {
	apple := []Term{{Source: "apple", Target: "Apfel"}}
	cases := []struct {
		name           string
		source, target string
		lang           string
		terms          []Term
		want           bool
	}{
		{"term used", "I like an apple", "Ich mag einen Apfel", "de", apple, false},
		{"term not used", "I like an apple", "Ich mag eine Birne", "de", apple, true},
		{"case-insensitive both sides", "An APPLE a day", "Ein apfel am Tag", "de", apple, false},
		{"not a word of the source", "I like apples", "Ich mag Birnen", "de", apple, false},
		{"not a word of the target", "I like an apple", "Ich mag Apfelsaft", "de", apple, true},
		{"no glossary", "I like an apple", "Ich mag Birnen", "de", nil, false},
		{"one of two translations", "an apple", "ein Paradiesapfel",
			"de", []Term{{Source: "apple", Target: "Apfel"}, {Source: "apple", Target: "Paradiesapfel"}}, false},
		{"forbidden used", "an apple", "ein Apfel",
			"de", []Term{{Source: "apple", Target: "Apfel", Forbidden: true}}, true},
		{"forbidden not used", "an apple", "ein Paradiesapfel",
			"de", []Term{{Source: "apple", Target: "Apfel", Forbidden: true}}, false},
		{"read-only kept", "Open Weblate now", "Öffne Weblate jetzt",
			"de", []Term{{Source: "Weblate", ReadOnly: true}}, false},
		{"read-only translated", "Open Weblate now", "Öffne Webplatte jetzt",
			"de", []Term{{Source: "Weblate", ReadOnly: true}}, true},
		{"multi-word term", "Press the big button", "Drücke den Knopf",
			"de", []Term{{Source: "big button", Target: "großen Knopf"}}, true},
		{"no word boundaries in Japanese", "an apple", "リンゴを食べる", "ja", []Term{{Source: "apple", Target: "リンゴ"}}, false},
	}
	for _, c := range cases {
		u := Unit{Source: []string{c.source}, Target: []string{c.target}, Language: c.lang,
			Flags: mustFlags(t, "check-glossary"), Glossary: c.terms}
		if got := slices.Contains(ids(Run(u)), "check_glossary"); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Without the flag the check does not run.
	u := Unit{Source: []string{"an apple"}, Target: []string{"eine Birne"}, Language: "de", Glossary: apple}
	if slices.Contains(ids(Run(u)), "check_glossary") {
		t.Error("check_glossary runs without check-glossary")
	}
}

func TestTranslatedInPast(t *testing.T) {
	edit := func(s string) PastChange { return PastChange{Kind: PastEdit, Target: s} }
	for _, c := range []struct {
		name    string
		target  string
		history []PastChange
		want    string
	}{
		{"cleared after a translation", "", []PastChange{edit(""), edit("Hallo")}, "Hallo"},
		{"no history", "", nil, ""},
		{"history equals the current text", "Hallo", []PastChange{edit("Hallo")}, ""},
		{"source changed since", "", []PastChange{{Kind: PastBreak}, edit("Hallo")}, ""},
		{"marked for edit first", "Hallo", []PastChange{{Kind: PastBreak}, edit("Servus")}, ""},
		{"automatic translation skipped", "", []PastChange{{Kind: PastSkip, Target: "Maschine"}}, ""},
	} {
		got, ok := TranslatedInPast(c.target, c.history)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: %q %v, want %q", c.name, got, ok, c.want)
		}
	}
	u := Unit{Source: []string{"Hello"}, Target: []string{""}, History: []PastChange{edit("Hallo")}}
	if got := ids(RunUntranslated(u)); !slices.Equal(got, []string{"translated"}) {
		t.Errorf("RunUntranslated: %q", got)
	}
	u.Flags = mustFlags(t, "ignore-translated")
	if got := RunUntranslated(u); len(got) != 0 {
		t.Errorf("ignored: %v", got)
	}
	// A unit needing editing runs every target check, translated among them.
	u = Unit{Source: []string{"Hello"}, Target: []string{"Servus"}, Language: "de", History: []PastChange{edit("Hallo")}}
	if !slices.Contains(ids(Run(u)), "translated") {
		t.Error("Run leaves out translated")
	}
}

func TestReused(t *testing.T) {
	u := Unit{Source: []string{"Open"}, Target: []string{"Öffnen"}, Language: "de"}
	if slices.Contains(ids(Run(u)), "reused") {
		t.Error("reused without other units")
	}
	u.OtherSources = []string{"Open"}
	if slices.Contains(ids(Run(u)), "reused") {
		t.Error("reused by a unit of the same source")
	}
	u.OtherSources = []string{"Open", "Opening"}
	if !slices.Contains(ids(Run(u)), "reused") {
		t.Error("not reused by a unit of another source")
	}
}

// naiveGlossaryFinds is the rule GlossaryMatcher implements, read
// literally: the lower-cased term starts somewhere in the lower-cased
// forms (joined as the reference joins them) with no word character
// before it and none after it, where the language uses spaces.
func naiveGlossaryFinds(source []string, lang, term string) bool {
	var parts []string
	for _, s := range source {
		if s = strings.TrimSpace(strings.ToLower(s)); s != "" {
			parts = append(parts, s)
		}
	}
	text, term := strings.Join(parts, pluralJoin), strings.ToLower(term)
	if term == "" {
		return false
	}
	for i := range text {
		if !strings.HasPrefix(text[i:], term) {
			continue
		}
		if !usesWhitespace(lang) || (!wordBefore(text, i) && !wordAt(text, i+len(term))) {
			return true
		}
	}
	return false
}

// TestGlossaryMatcher: the compiled matcher finds what the rule read
// literally finds, term by term, over strings and terms made of a small
// alphabet (words, spaces, punctuation, a letter that changes length
// when lower-cased), in a language with spaces and one without.
func TestGlossaryMatcher(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 5))
	alphabet := []string{"a", "b", "A", " ", ",", "-", "İ", "é", "_", "1"}
	word := func(n int) string {
		var b strings.Builder
		for range 1 + rng.IntN(n) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for round := range 300 {
		terms := make([]string, 1+rng.IntN(8))
		for i := range terms {
			terms[i] = word(3)
		}
		source := []string{word(12)}
		if round%3 == 0 {
			source = append(source, word(12))
		}
		for _, lang := range []string{"en", "ja"} {
			m := NewGlossaryMatcher(terms)
			found, any := m.Found(source, lang), false
			for i, term := range terms {
				want := naiveGlossaryFinds(source, lang, term)
				any = any || want
				if found[i] != want {
					t.Fatalf("%s: term %q in %q: found %v, want %v", lang, term, source, found[i], want)
				}
			}
			if got := m.Any(source, lang); got != any {
				t.Fatalf("%s: any of %q in %q: %v, want %v", lang, terms, source, got, any)
			}
		}
	}
	// The reference's cases: case folded, whole words where the language
	// uses spaces, anywhere where it does not.
	for _, c := range []struct {
		lang, term, source string
		want               bool
	}{
		{"en", "Apple", "An APPLE a day", true},
		{"en", "apple", "apples", false},
		{"en", "c++", "Written in C++.", true},
		{"en", "file", "A file, then another", true},
		{"ja", "りんご", "りんごジュース", true},
	} {
		if got := NewGlossaryMatcher([]string{c.term}).Any([]string{c.source}, c.lang); got != c.want {
			t.Errorf("%s %q in %q: %v, want %v", c.lang, c.term, c.source, got, c.want)
		}
	}
}

// BenchmarkGlossaryMatcher: a string against 5,000 terms, the cost
// has:glossary's upkeep pays per source string.
func BenchmarkGlossaryMatcher(b *testing.B) {
	terms := make([]string, 5000)
	for i := range terms {
		terms[i] = fmt.Sprintf("term%d word", i)
	}
	m := NewGlossaryMatcher(terms)
	source := []string{"Playback of this file failed: the server sent a term4999 word that the client cannot read."}
	b.ReportAllocs()
	for b.Loop() {
		if !m.Any(source, "en") {
			b.Fatal("no term found")
		}
	}
}
