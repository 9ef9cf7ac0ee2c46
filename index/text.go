package index

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds the one rule on the text a write stores in a unit, the
// same for every write path: a unit PATCH or PUT, an added string, an
// upload, the editor's save, and the suggestions and automatic
// translation to come, which are to call CheckText before they store a
// text as well.

// Bounds of a unit's text. The reference caps a translation relative to
// its source (get_max_length: max(100, 10 × the source's length) in
// characters, the "Translation text too long!" rule that
// LIMIT_TRANSLATION_LENGTH_BY_SOURCE_LENGTH turns on by default;
// ../shared/reference/weblate-workspace.md §2.2), and source strings at
// 10,000 characters. Tolk keeps the relative rule for translations and
// adds an absolute cap in bytes on every form, source strings included,
// since bytes are what a stored text costs every reader of its history.
const (
	// MaxTextBytes is the absolute cap of one form of a unit's text:
	// 64 KiB. The largest value of the test corpus (fourteen projects,
	// every format) is 5.2 kB, a Java properties message; the largest of
	// a JSON file 1.3 kB: the cap is ten times the first and keeps a
	// change list page of 50 rows under a few MiB.
	MaxTextBytes = 64 << 10
	// minTextLimit is the relative rule's floor, in characters: a
	// translation of a short source may always be this long.
	minTextLimit = 100
	// textLimitFactor is how many times its source a translation may be.
	textLimitFactor = 10
)

// The problems of a text, in the reference's words: its framework's
// refusal of a NUL, and its editor's refusal of a text too long.
var (
	// NullCharacters is every text field's refusal of a NUL character
	// (the reference framework's ProhibitNullCharactersValidator): no
	// text the reference stores holds one, and PostgreSQL cannot.
	NullCharacters = FieldProblem{Code: "null_characters_not_allowed", Detail: "Null characters are not allowed."}
	// InvalidText is a text that is not UTF-8. JSON bodies are checked
	// as they are read; form values and uploaded files of some formats
	// may still carry such bytes.
	InvalidText = FieldProblem{Code: "invalid", Detail: "The text is not valid UTF-8."}
	// TextTooLong is a text over its limit (TextLimit, MaxTextBytes).
	TextTooLong = FieldProblem{Code: "max_length", Detail: "Translation text too long!"}
)

// TextLimit is how many characters one form of a translation of source
// may have: ten times the source's longest form, and at least 100. The
// reference measures the first form; the longest is kinder to plural
// strings whose singular is short.
func TextLimit(source []string) int {
	n := 0
	for _, f := range source {
		n = max(n, utf8.RuneCountInString(f))
	}
	return max(minTextLimit, textLimitFactor*n)
}

// CheckText validates the forms of a text a write is about to store in
// a unit: no NUL, valid UTF-8, at most MaxTextBytes per form and, for a
// translation, at most TextLimit(source) characters per form. source is
// the unit's source string; nil means the text is a source string itself
// (a template's, or one being added), which only the absolute cap bounds.
// It returns the index of the first form at fault and its problem, or
// ok.
func CheckText(forms, source []string) (form int, problem FieldProblem, ok bool) {
	limit := -1
	if source != nil {
		limit = TextLimit(source)
	}
	for i, f := range forms {
		switch {
		case strings.IndexByte(f, 0) >= 0:
			return i, NullCharacters, false
		case !utf8.ValidString(f):
			return i, InvalidText, false
		case len(f) > MaxTextBytes:
			return i, TextTooLong, false
		// A form of at most limit bytes has at most limit characters.
		case limit >= 0 && len(f) > limit && utf8.RuneCountInString(f) > limit:
			return i, TextTooLong, false
		}
	}
	return 0, FieldProblem{}, true
}

// TextError is CheckText's answer as the API gives it: nil, or a
// FieldError on the form at fault, named attr.<index> ("target.0") as
// the reference names the items of a list field.
func TextError(attr string, forms, source []string) error {
	i, p, ok := CheckText(forms, source)
	if ok {
		return nil
	}
	return &FieldError{Fields: map[string]FieldProblem{attr + "." + strconv.Itoa(i): p}}
}
