package index

import (
	"slices"
	"strings"
	"testing"
)

// TestQueryWords: every word offered for completion parses as the start
// of a query term, and the field names, is: and has: terms are there.
func TestQueryWords(t *testing.T) {
	words := QueryWords()
	for _, want := range []string{"has:", "has:check", "is:translated", "key:", "source:", "changed_by:", "state:"} {
		if !slices.Contains(words, want) {
			t.Errorf("QueryWords lacks %q", want)
		}
	}
	if !slices.IsSorted(words) {
		t.Error("QueryWords is not sorted")
	}
	for _, w := range words {
		q := w
		if field, ok := strings.CutSuffix(w, ":"); ok {
			// A value each kind of field takes.
			q += map[fieldKind]string{fieldNum: "1", fieldDate: "2026-01-01", fieldState: "translated",
				fieldBool: "yes", fieldIs: "translated", fieldHas: "check", fieldAction: "2"}[queryFields[field]]
			if q == w {
				q += "x"
			}
		}
		if _, err := ParseUnitQuery(q); err != nil {
			t.Errorf("completion %q: %q does not parse: %v", w, q, err)
		}
	}
	if QueryWordList() != strings.Join(words, " ") {
		t.Error("QueryWordList differs from QueryWords")
	}
}
