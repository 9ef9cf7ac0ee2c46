package web

import (
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index/langdata"
)

// TestPluralLabels: forms are named by the language's CLDR categories
// with the first numbers that take them.
func TestPluralLabels(t *testing.T) {
	for code, want := range map[string][]string{
		"cs": {"one — 1", "few — 2, 3, 4", "other — 0, 5, 6, 7, …"},
		"pl": {"one — 1", "few — 2, 3, 4, 22, …", "many — 0, 5, 6, 7, …"},
		"de": {"one — 1", "other — 0, 2, 3, 4, …"},
	} {
		l, ok := langdata.Default().Get(code)
		if !ok {
			t.Fatalf("no language %s", code)
		}
		if got := pluralLabels(&l, l.Plural.Number); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
}

// TestSourceParts: placeholders, markup and the whitespace a translator
// would not see become clickable parts that insert what they stand for.
func TestSourceParts(t *testing.T) {
	got := sourceParts(" Hi <b>{name}</b>,\tsee  %d\n")
	want := []textPart{{"·", "ws", " "}, {"Hi ", "", ""}, {"<b>", "markup", "<b>"}, {"{name}", "ph", "{name}"},
		{"</b>", "markup", "</b>"}, {",", "", ""}, {"→", "ws", "\t"}, {"see", "", ""}, {"·", "ws", " "}, {"·", "ws", " "},
		{"%d", "ph", "%d"}, {"↵\n", "nl", "\n"}}
	if !slices.Equal(got, want) {
		t.Errorf("parts\n got %q\nwant %q", got, want)
	}
}

// TestLocationLinks: repoweb's placeholders are filled; only http(s)
// links are made.
func TestLocationLinks(t *testing.T) {
	got := locationLinks("https://git.example/r/blob/{{branch}}/{{filename}}#L{{line}}", "main", "src/a.c:12, b.py")
	want := []webLink{{Name: "src/a.c:12", URL: "https://git.example/r/blob/main/src/a.c#L12"},
		{Name: "b.py", URL: "https://git.example/r/blob/main/b.py#L"}}
	if !slices.Equal(got, want) {
		t.Errorf("links %v, want %v", got, want)
	}
	if got := locationLinks("javascript:alert({{line}})", "main", "a.c:1"); got[0].URL != "" {
		t.Errorf("a javascript: repoweb made a link: %v", got)
	}
}

// TestWordDiff: the words removed and added, in order.
func TestWordDiff(t *testing.T) {
	got := wordDiff("Save the file", "Save a file now")
	want := []diffPart{{"Save ", ""}, {"the", "del"}, {"a", "ins"}, {" file", ""}, {" now", "ins"}}
	if !slices.Equal(got, want) {
		t.Errorf("diff %q, want %q", got, want)
	}
}

// TestJoinForms: an untranslated plural shows nothing, not " | ".
func TestJoinForms(t *testing.T) {
	if got := joinForms([]string{"", ""}); got != "" {
		t.Errorf("blank forms = %q", got)
	}
	if got := joinForms([]string{"den", "dny"}); got != "den | dny" {
		t.Errorf("forms = %q", got)
	}
}

// TestLangTag: Weblate's language codes become the BCP 47 tags HTML's
// lang attribute takes (axe-core's valid-lang failed on lang="pt_BR").
func TestLangTag(t *testing.T) {
	for code, want := range map[string]string{"de": "de", "pt_BR": "pt-BR", "zh_Hant": "zh-Hant", "sr@latin": "sr-latin", "be_Latn": "be-Latn"} {
		if got := langTag(code); got != want {
			t.Errorf("langTag(%q) = %q, want %q", code, got, want)
		}
	}
}
