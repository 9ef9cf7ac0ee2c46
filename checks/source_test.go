package checks

import (
	"slices"
	"strings"
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
		{source: []string{"Hello"}, flags: "max-length:3", want: []string{"source-max-length"}},
		{source: []string{"Hello"}, flags: "max-length:10"},
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

func TestSourceMaxLengthAndUnnamedFormat(t *testing.T) {
	flags := func(s string) Flags {
		f, err := ParseFlags(s)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	failing := func(u Unit) []string {
		var ids []string
		for _, r := range RunSource(u) {
			ids = append(ids, r.ID)
		}
		return ids
	}
	for _, tc := range []struct {
		source, lang, flags string
		want                []string
	}{
		{"Sixteen letters!", "en", "max-length:20", nil},                            // 16 < 17
		{"Seventeen letters", "en", "max-length:20", []string{"source-max-length"}}, // 17 ≥ 85% of 20
		{"Siebzehn Zeichen!", "de", "max-length:20", nil},                           // only 100% for other sources
		{"Zwanzig Zeichen hier", "de", "max-length:20", []string{"source-max-length"}},
		{"%s of %s", "en", "c-format", []string{"unnamed_format"}},
		{"%1$s of %2$s", "en", "c-format", nil},
		{"%s files", "en", "c-format", nil},
		{"%(n)s of %(total)s", "en", "python-format", nil},
		{"%s of %s", "en", "", nil}, // no format flag, no check
		{"{} of {}", "en", "python-brace-format", []string{"unnamed_format"}},
		{"{0} of {1}", "en", "python-brace-format", nil},
		{"100%% of %d", "en", "c-format", nil},
	} {
		got := failing(Unit{Source: []string{tc.source}, SourceLanguage: tc.lang, Flags: flags(tc.flags)})
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q (%s, %q): %q, want %q", tc.source, tc.lang, tc.flags, got, tc.want)
		}
	}
}
