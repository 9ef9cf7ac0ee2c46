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

// TestFilemaskScope checks the part of the tree a mask can match: every
// path the mask matches lies inside it, nothing deeper is walked.
func TestFilemaskScope(t *testing.T) {
	cases := []struct {
		mask  string
		dir   string
		depth int
	}{
		{"locales/*.json", "locales", 0},
		{"*.json", "", 0},
		{"po/*/messages.json", "po", 1},
		{"*/strings.json", "", 1},
		{"src/app/locale-*/x/y.json", "src/app", 2},
		{"res/values-*.xml", "res", 0},
		{"locales/en.json", "locales", 0}, // a template
		{"en.json", "", 0},
	}
	for _, tc := range cases {
		sc := pathScope(tc.mask)
		if sc.Dir != tc.dir || sc.Depth != tc.depth {
			t.Errorf("pathScope(%q) = %+v, want {Dir:%s Depth:%d}", tc.mask, sc, tc.dir, tc.depth)
		}
	}
}
