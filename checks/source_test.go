package checks

import (
	"slices"
	"testing"
)

func TestRunSource(t *testing.T) {
	tests := []struct {
		source []string
		flags  string
		want   []string
	}{
		{source: []string{"Delete file(s)"}, want: []string{"optional_plural"}},
		{source: []string{"%d file(s) deleted."}, want: []string{"optional_plural"}},
		{source: []string{"Delete %d file", "Delete %d files"}},
		{source: []string{"Options (s) and (t)"}},
		{source: []string{"Delete file(s)"}, flags: "ignore-optional-plural"},
		{source: []string{"Loading..."}, want: []string{"ellipsis"}},
		{source: []string{"Loading…"}},
		{source: []string{"Loading..."}, flags: "ignore-ellipsis"},
		{source: []string{"Copy file(s)..."}, want: []string{"optional_plural", "ellipsis"}},
		{source: []string{"Copy file(s)..."}, flags: "ignore-all-checks"},
		{source: []string{"Hello"}, flags: "max-length:3"}, // source-max-length is not computed
	}
	for _, tt := range tests {
		u := Unit{Source: tt.source, Flags: mustFlags(t, tt.flags)}
		if got := ids(RunSource(u)); !slices.Equal(got, tt.want) {
			t.Errorf("RunSource(%q, %q) = %q, want %q", tt.source, tt.flags, got, tt.want)
		}
		// Source checks never show up among a translation's checks.
		u.Target, u.Language = []string{"x"}, "de"
		for _, id := range ids(Run(u)) {
			if c, _ := ByID(id); c.Kind != Target {
				t.Errorf("Run reported %s check %s", c.Kind, id)
			}
		}
	}
}
