package android

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCodeFromQualifier(t *testing.T) {
	cases := []struct {
		q, code string
		ok      bool
	}{
		{"de", "de", true},
		{"pt-rBR", "pt_BR", true},
		{"ar-rLY", "ar_LY", true},
		{"nb-rNO", "nb_NO", true},
		{"en-rGB", "en_GB", true},
		{"es-r419", "es_419", true},
		{"zh-rCN", "zh_Hans", true},
		{"zh-rTW", "zh_Hant", true},
		{"zh-rHK", "zh_Hant_HK", true},
		{"zh-rSG", "zh_Hans_SG", true},
		{"b+uz+Latn", "uz_Latn", true},
		{"b+ast", "ast", true},
		{"b+sr+latn+RS", "sr_Latn_RS", true},
		{"b+es+419", "es_419", true},
		{"in", "id", true},
		{"iw", "he", true},
		{"ji", "yi", true},
		{"und", "und", true},
		{"night", "", false},
		{"v21", "", false},
		{"land", "", false},
		{"sw600dp", "", false},
		{"car", "", false},
		{"de-land", "", false},
		{"en-rGB-night", "", false},
		{"b+", "", false},
		{"b+en+bad_tag", "", false},
		{"", "", false},
	}
	for _, tc := range cases {
		code, ok := CodeFromQualifier(tc.q)
		if code != tc.code || ok != tc.ok {
			t.Errorf("CodeFromQualifier(%q) = %q, %v; want %q, %v", tc.q, code, ok, tc.code, tc.ok)
		}
	}
}

func TestQualifier(t *testing.T) {
	cases := map[string]string{
		"de":         "de",
		"pt_BR":      "pt-rBR",
		"zh_Hans":    "zh-rCN",
		"zh_Hant":    "zh-rTW",
		"zh_Hant_HK": "zh-rHK",
		"uz_Latn":    "b+uz+Latn",
		"sr_Latn_RS": "b+sr+Latn+RS",
		"ast":        "ast",
		"he":         "iw",
		"id":         "in",
		"yi":         "ji",
		"es_419":     "b+es+419",
	}
	for code, want := range cases {
		if got := Qualifier(code); got != want {
			t.Errorf("Qualifier(%q) = %q, want %q", code, got, want)
		}
	}
}

// TestCorpusQualifiers reads every language folder of the corpus, and
// checks that the qualifier Tolk would give a new translation in that
// language finds the same language again.
func TestCorpusQualifiers(t *testing.T) {
	for _, c := range corpusFiles(t) {
		if c.qualifier == "" {
			continue
		}
		code, ok := CodeFromQualifier(c.qualifier)
		if !ok {
			t.Errorf("%s: no language", filepath.Dir(c.path))
			continue
		}
		if back, _ := CodeFromQualifier(Qualifier(code)); back != code {
			t.Errorf("%s: %s → %s → %s", c.qualifier, code, Qualifier(code), back)
		}
		if strings.Contains(code, "-") || strings.Contains(code, "+") {
			t.Errorf("%s: code %q is not in the index's style", c.qualifier, code)
		}
	}
}
