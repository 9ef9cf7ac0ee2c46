package sync

import (
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

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

// lprojLanguages is the path syntax of Apple's pt-BR.lproj folders, as a
// codec implementing formats.PathLanguages would give it: a hyphen for
// the index's underscore, and only what ends in .lproj names a language.
type lprojLanguages struct{}

func (lprojLanguages) CodeFromPath(seg string) (string, bool) {
	code, ok := strings.CutSuffix(seg, ".lproj")
	if !ok || code == "" || code == "Base" {
		return "", false
	}
	return strings.ReplaceAll(code, "-", "_"), true
}

func (lprojLanguages) PathSegment(code string) string {
	return strings.ReplaceAll(code, "_", "-") + ".lproj"
}

// TestFilemaskPathLanguages checks that a codec's path syntax decides
// both ways between a path and its language, and that without one the
// segment is the code.
func TestFilemaskPathLanguages(t *testing.T) {
	f, err := NewFilemask("App/*/Localizable.strings", "")
	if err != nil {
		t.Fatal(err)
	}
	f.WithPathLanguages(lprojLanguages{})
	for _, tc := range []struct {
		path, code string
		ok         bool
	}{
		{"App/pt-BR.lproj/Localizable.strings", "pt_BR", true},
		{"App/de.lproj/Localizable.strings", "de", true},
		{"App/Base.lproj/Localizable.strings", "", false},
		{"App/assets/Localizable.strings", "", false},
	} {
		if code, ok := f.Code(tc.path); code != tc.code || ok != tc.ok {
			t.Errorf("Code(%s) = %q, %v; want %q, %v", tc.path, code, ok, tc.code, tc.ok)
		}
	}
	if got, want := f.Path("zh_Hant"), "App/zh-Hant.lproj/Localizable.strings"; got != want {
		t.Errorf("Path(zh_Hant) = %s, want %s", got, want)
	}
	if code, ok := f.Code(f.Path("pt_BR")); code != "pt_BR" || !ok {
		t.Errorf("Code(Path(pt_BR)) = %q, %v", code, ok)
	}
	// A format without a path syntax (JSON, TBX) keeps today's rule.
	plain, err := componentMask(index.Component{Filemask: "locales/*.json", FileFormat: "json"})
	if err != nil {
		t.Fatal(err)
	}
	if code, ok := plain.Code("locales/pt-BR.json"); code != "pt-BR" || !ok || plain.Path("pt_BR") != "locales/pt_BR.json" {
		t.Errorf("plain mask: Code = %q, %v; Path = %s", code, ok, plain.Path("pt_BR"))
	}
}
