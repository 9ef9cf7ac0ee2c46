package index

import "testing"

func TestSettleState(t *testing.T) {
	hole := []string{"%d soubor", "", "%d souborů"}
	for _, tc := range []struct {
		s      State
		target []string
		format string
		want   State
	}{
		{StateTranslated, hole, "po", StateFuzzy},
		{StateApproved, hole, "i18next", StateFuzzy},
		{StateFuzzy, hole, "po", StateFuzzy},
		{StateReadOnly, hole, "po", StateReadOnly},
		{StateTranslated, []string{"a", "b", "c"}, "po", StateTranslated},
		{StateTranslated, []string{"a"}, "po", StateTranslated},
		{StateEmpty, []string{"", ""}, "po", StateEmpty},
		// Apple's formats read a missing form as "other": no hole.
		{StateTranslated, []string{"", "one", "other"}, "stringsdict", StateTranslated},
		{StateTranslated, hole, "xcstrings", StateTranslated},
	} {
		if got := SettleState(tc.s, tc.target, tc.format); got != tc.want {
			t.Errorf("SettleState(%d, %q, %s) = %d, want %d", tc.s, tc.target, tc.format, got, tc.want)
		}
	}
}
