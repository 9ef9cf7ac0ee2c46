package checks

import (
	"slices"
	"testing"
)

// TestSame covers the stripping Weblate's same check does before judging
// an unchanged translation (weblate/checks/tests/test_same.py).
func TestSame(t *testing.T) {
	tests := []struct {
		name, src, flags string
		fail             bool
	}{
		{"word", "Settings", "", true},
		{"format only", "%d", "c-format", false},
		{"format and word", "%d files", "c-format", true},
		{"format kept without flag", "%s: %s", "", false}, // no word over two letters
		{"strict format only", "%s%d", "c-format, strict-same", false},
		{"strict keeps the space", "%s %d", "c-format, strict-same", true}, // Weblate: " " is not empty
		{"strict format and word", "%s files", "c-format, strict-same", true},
		{"brace only", "{0} / {1}", "python-brace-format", false},
		{"placeholders entries", "$URL$ $NAME$", "placeholders:$URL$:$NAME$", false},
		{"placeholders regex", "%user% %host%", `placeholders:r"%\w+%"`, false},
		{"placeholders and word", "$URL$ opened", "placeholders:$URL$", true},
		{"url", "https://weblate.org/", "", false},
		{"email", "noreply@example.com", "", false},
		{"domain", "weblate.org", "", false},
		{"path", "/usr/share/doc", "", false},
		{"markup only", "<b></b>", "", false},
		{"markup and word", "<b>Settings</b>", "", true},
		{"hash tag", "#weblate", "", false},
		{"template", "{name}", "", false},
		{"abbreviation", "CSV", "", false},
		{"short words", "Tu es", "", false},
		{"emoji", "👍 ✓", "", false},
		{"copyright", "(c) Copyright 2026 Tolk", "", false},
		{"ratio", "16:9", "", false},
		{"abbreviation strict", "CSV", "strict-same", true},
	}
	for _, tt := range tests {
		u := Unit{Source: []string{tt.src}, Target: []string{tt.src}, Language: "de", Flags: mustFlags(t, tt.flags)}
		if got := slices.Contains(ids(Run(u)), "same"); got != tt.fail {
			t.Errorf("%s: %q [%s]: same = %v, want %v", tt.name, tt.src, tt.flags, got, tt.fail)
		}
	}
}
