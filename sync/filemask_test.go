package sync

import "testing"

func TestFilemask(t *testing.T) {
	cases := []struct {
		mask, regex, path string
		code              string
		ok                bool
	}{
		{"locales/*.json", "^[^.]+$", "locales/de.json", "de", true},
		{"locales/*.json", "^[^.]+$", "locales/pt_BR.json", "pt_BR", true},
		{"locales/*.json", "^[^.]+$", "locales/de.backup.json", "", false},
		{"locales/*.json", "^[^.]+$", "locales/sub/de.json", "", false},
		{"locales/*.json", "^[^.]+$", "other/de.json", "", false},
		{"locales/*.json", "", "locales/x.y.json", "x.y", true},
		{"po/*/messages.json", "^[^.]+$", "po/zh_Hans/messages.json", "zh_Hans", true},
		{"glossary/*.tbx", "^[^.]+$", "glossary/es_419.tbx", "es_419", true},
		{"a+b/*.json", "", "a+b/de.json", "de", true},
		{"a+b/*.json", "", "aab/de.json", "", false},
	}
	for _, tc := range cases {
		f, err := NewFilemask(tc.mask, tc.regex)
		if err != nil {
			t.Fatalf("NewFilemask(%q): %v", tc.mask, err)
		}
		code, ok := f.Code(tc.path)
		if code != tc.code || ok != tc.ok {
			t.Errorf("%s ~ %s: got (%q, %v), want (%q, %v)", tc.mask, tc.path, code, ok, tc.code, tc.ok)
		}
	}
	if _, err := NewFilemask("locales/en.json", ""); err == nil {
		t.Error("a filemask without '*' must be rejected")
	}
	if _, err := NewFilemask("*/*.json", ""); err == nil {
		t.Error("a filemask with two '*' must be rejected")
	}
	if _, err := NewFilemask("*.json", "("); err == nil {
		t.Error("a bad language_regex must be rejected")
	}
}
