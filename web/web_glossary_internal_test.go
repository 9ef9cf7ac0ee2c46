package web

import (
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestMatchGlossaryAsTheCheck: the editor's glossary shows the terms
// check_glossary judges (checks.GlossaryMatches). Its own matcher took
// every byte past ASCII for a letter, so it missed "save" before an
// ellipsis, "file" after a guillemet and every Japanese term inside a
// sentence (no spaces between words there).
func TestMatchGlossaryAsTheCheck(t *testing.T) {
	terms := []index.Unit{
		{Source: []string{"Save"}, Target: []string{"Speichern"}},
		{Source: []string{"file"}, Target: []string{"Datei"}},
		{Source: []string{"保存"}, Target: []string{"save"}},
		{Source: []string{"app"}, Target: []string{"App"}},
		{Source: []string{""}, Target: []string{"nothing"}},
	}
	for _, tc := range []struct {
		source []string
		lang   string
		want   []string
	}{
		{[]string{"Save…"}, "en", []string{"Save"}},
		{[]string{"«File» saved"}, "en", []string{"file"}},
		{[]string{"Apples and files"}, "en", nil},
		{[]string{"ファイルを保存しました"}, "ja", []string{"保存"}},
		{[]string{"One file", "%d files"}, "en", []string{"file"}},
	} {
		var got []string
		for _, m := range matchGlossary(tc.source, tc.lang, terms) {
			got = append(got, m.Term)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q (%s): matched %q, want %q", tc.source, tc.lang, got, tc.want)
		}
	}
	if m := matchGlossary([]string{"Save"}, "en", terms); len(m) != 1 || m[0].Translation != "Speichern" {
		t.Errorf("the match's translation: %+v", m)
	}
}
