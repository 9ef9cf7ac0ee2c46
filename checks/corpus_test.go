package checks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusDir is ../shared/corpus beside the checkout (see the corpus
// README); tests using it skip when it is absent.
const corpusDir = "../../shared/corpus"

// arbUnits reads a Flutter ARB template and one translation of the
// fluffychat corpus and pairs their messages, as a monolingual ARB
// component would; flags are the ARB format's (icu-message-format).
func arbUnits(tb testing.TB, lang string) []Unit {
	tb.Helper()
	dir := filepath.Join(corpusDir, "fluffychat", "lib", "l10n")
	read := func(name string) map[string]any {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Skipf("corpus absent: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		return m
	}
	en, tr := read("intl_en.arb"), read("intl_"+lang+".arb")
	flags, err := ParseFlags("icu-message-format")
	if err != nil {
		tb.Fatal(err)
	}
	var keys []string
	for k := range en {
		if !strings.HasPrefix(k, "@") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []Unit
	for _, k := range keys {
		s, ok1 := en[k].(string)
		t, ok2 := tr[k].(string)
		if ok1 && ok2 && t != "" {
			out = append(out, Unit{Source: []string{s}, Target: []string{t}, Language: lang, Flags: flags})
		}
	}
	return out
}

// TestICUCorpus runs the ICU checks over real ARB translations: every
// English message parses, and the ICU check fails on few translations
// (the ones it reports are real mistakes a reviewer would want to see).
func TestICUCorpus(t *testing.T) {
	for _, lang := range []string{"de", "fr", "ru", "ar", "ja"} {
		units := arbUnits(t, lang)
		if len(units) < 300 {
			t.Fatalf("%s: only %d units", lang, len(units))
		}
		fails := 0
		for _, u := range units {
			for _, r := range RunSource(u) {
				if r.ID == "icu_message_format_syntax" {
					t.Errorf("English message does not parse: %q", u.Source[0])
				}
			}
			for _, r := range Run(u) {
				if r.ID == "icu_message_format" {
					fails++
					if testing.Verbose() {
						t.Logf("%s: %q → %q", lang, u.Source[0], u.Target[0])
					}
				}
			}
		}
		t.Logf("%s: icu_message_format fails on %d of %d units", lang, fails, len(units))
		if fails*20 > len(units) {
			t.Errorf("%s: %d of %d units fail icu_message_format: too many to be real", lang, fails, len(units))
		}
	}
}

// BenchmarkRunCorpus runs every check over real units (fluffychat's
// German ARB translation), reporting the time per unit.
func BenchmarkRunCorpus(b *testing.B) {
	units := arbUnits(b, "de")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		Run(units[i%len(units)])
		i++
	}
}
