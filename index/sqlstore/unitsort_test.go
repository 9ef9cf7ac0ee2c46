package sqlstore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestUnitSort pages the search fixture's translations in each order of
// sort_by and compares the keys found, on both engines.
func TestUnitSort(t *testing.T) {
	f := mustSearchFixture(t)
	ctx := context.Background()
	keys := func(lang, sortBy, q string, size int) string {
		t.Helper()
		sorts, err := index.ParseUnitSort(sortBy)
		if err != nil {
			t.Fatalf("%s: %v", sortBy, err)
		}
		var out []string
		for n := 1; ; n++ {
			units, total, err := f.db.FindUnits(ctx, index.UnitFilter{TranslationID: f.tr[lang], Query: q, Sort: sorts,
				Page: index.Page{Number: n, Size: size}})
			if err != nil {
				t.Fatalf("%s: %v", sortBy, err)
			}
			for _, u := range units {
				out = append(out, u.Context)
			}
			if len(out) >= total || len(units) == 0 {
				if len(out) != total {
					t.Errorf("%s: %d units over the pages, count %d", sortBy, len(out), total)
				}
				return strings.Join(out, " ")
			}
		}
	}
	for _, tc := range []struct{ lang, sortBy, q, want string }{
		{"de", "", "", "k0 k1 k2 k3 k4 k5 k6 k7 k8 k9"},
		{"de", "-position", "", "k9 k8 k7 k6 k5 k4 k3 k2 k1 k0"},
		// The reference's default order; k6 has priority 50.
		{"de", "-priority,position", "", "k0 k1 k2 k3 k4 k5 k7 k8 k9 k6"},
		{"de", "priority", "", "k6 k0 k1 k2 k3 k4 k5 k7 k8 k9"},
		// By code point: "" first, "S" before "W", digits before "E".
		{"de", "target", "", "k5 k7 k9 k3 k0 k2 k4 k6 k8 k1"},
		{"de", "-num_comments", "", "k3 k0 k1 k2 k4 k5 k6 k7 k8 k9"},
		{"de", "-num_failing_checks", "", "k0 k1 k2 k3 k4 k5 k6 k7 k8 k9"},
		{"de", "-last_updated", "", "k1 k3 k0 k2 k4 k5 k6 k7 k8 k9"},
		{"de", "context", "state:translated", "k0 k1 k2 k3 k4 k6"},
		{"de", "-context", "wort", "k8 k6 k4 k2 k1 k0"},
		// Labels are the source string's: k8 ui-text, k9 urgent and
		// ui-text (the greater name counts); unlabelled strings last.
		{"en", "labels", "", "k8 k9 k0 k1 k2 k3 k4 k5 k6 k7"},
		{"en", "-labels", "", "k0 k1 k2 k3 k4 k5 k6 k7 k9 k8"},
		{"de", "labels,-position", "", "k8 k9 k7 k6 k5 k4 k3 k2 k1 k0"},
		{"de", "component,-num_words,-position", "", "k9 k8 k7 k6 k5 k4 k3 k2 k1 k0"},
	} {
		for _, size := range []int{100, 3} {
			if got := keys(tc.lang, tc.sortBy, tc.q, size); got != tc.want {
				t.Errorf("%s sort_by=%s q=%s (pages of %d): %s, want %s", tc.lang, tc.sortBy, tc.q, size, got, tc.want)
			}
		}
	}
	for _, bad := range []string{"id", "position,", "-", "source,target,context,location,priority,position", "pos ition", "priority;drop"} {
		_, err := index.ParseUnitSort(bad)
		var fe *index.FieldError
		if !errors.As(err, &fe) || fe.Fields["sort_by"].Detail == "" {
			t.Errorf("sort_by=%s: %v, want a FieldError on sort_by", bad, err)
		}
	}
	if s, err := index.ParseUnitSort(" -priority , position "); err != nil || !slices.Equal(s, []index.UnitSort{{Key: "priority", Desc: true}, {Key: "position"}}) {
		t.Errorf("spaces around keys: %v %v", s, err)
	}
}
