package checks

import (
	"regexp"
	"strings"
)

// Fix-string fixups: what the reference's editor offers on a failing
// check as "Fix string" (BaseCheck.get_fixup; reference §1.8, last
// paragraph): regular-expression replacements the editor's script
// applies to the text boxes on request, before the translator saves.
// They differ from the autofixes (autofix.go), which a save applies
// silently.
//
// Tolk offers the reference's fixups for begin_space, end_space,
// double_space, zero-width-space, kashida, punctuation_spacing,
// kabyle-characters and md-link, and, as the reference's newer mass
// fixups do, appends the source's final stop, colon, question or
// exclamation mark (in the target language's form) when the target ends
// without any such mark. Not offered: translated's "restore the earlier
// translation" (the history is the editor's to show; it has a revert)
// and the rest of the reference's mass-fixup engine.
//
// Patterns are written in the common subset of RE2 (Go) and JavaScript
// regular expressions — no look-around, no \u escapes (characters are
// written literally) — and replacements use JavaScript's "$1". The
// editor's script applies them (TestBrowserWorkspace presses the
// button); this package's tests apply them as it does (applyFixup).

// Replacement is one replacement of a fixup: every match of Pattern (the
// first only unless Flags holds "g") becomes With.
type Replacement struct {
	Pattern string `json:"pattern"`
	With    string `json:"replacement"`
	Flags   string `json:"flags"`
}

// Fixup returns the replacements that fix check id failing on u, or nil
// when the reference offers none for it (or none applies to u).
func Fixup(id string, u Unit) []Replacement {
	src := ""
	if len(u.Source) > 0 {
		src = u.Source[0]
	}
	switch id {
	case "begin_space":
		return []Replacement{{"^ *", src[:len(src)-len(strings.TrimLeft(src, " "))], "u"}}
	case "end_space":
		return []Replacement{{" *$", src[len(strings.TrimRight(src, " ")):], "u"}}
	case "double_space":
		// The reference replaces the first run only (no g); every run
		// is what the check complains of.
		return []Replacement{{" {2,}", " ", "gu"}}
	case "zero-width-space":
		return []Replacement{{"\u200b", "", "gu"}}
	case "kashida":
		return []Replacement{{"[" + kashida + "]", "", "gu"}}
	case "kabyle-characters":
		var out []Replacement
		for _, p := range kabyleStandard {
			out = append(out, Replacement{p[0], p[1], "gu"})
		}
		return out
	case "punctuation_spacing":
		if !isLanguage(u.Language, "fr", "br") || isFrCA(u.Language) {
			return nil
		}
		// A wrong space becomes the right one, then a missing one is
		// added — in front of a run of marks, never inside it.
		return []Replacement{
			{"([ \u2009\u202f])(:)", "\u00a0$2", "gu"},
			{"([ \u00a0\u2009])([;?!])", "\u202f$2", "gu"},
			{"([^\u00a0:;?!])(:)", "$1\u00a0$2", "gu"},
			{"([^\u202f:;?!])([;?!])", "$1\u202f$2", "gu"},
		}
	case "md-link":
		return []Replacement{{`\] +\(`, "](", "gu"}}
	case "end_stop", "end_colon", "end_question", "end_exclamation":
		return terminalFixup(id, src, u.Language)
	}
	return nil
}

// terminalMarks are the characters any of the end checks reads as a
// final mark; a target ending with one is left alone (replacing one mark
// by another is the translator's call).
const terminalMarks = ".。।۔։·෴។።|᱾။:：៖;;?？՞؟⸮፧꘏⳺;!！՜᥄႟߹…‽⁈⁉"

// terminalFixup appends the mark the source ends with, in the target
// language's form, to a target that ends with no mark at all.
func terminalFixup(id, src, lang string) []Replacement {
	want := map[string]byte{"end_stop": '.', "end_colon": ':', "end_question": '?', "end_exclamation": '!'}[id]
	if src == "" || src[len(src)-1] != want || strings.HasSuffix(src, "...") {
		return nil
	}
	mark := string(want)
	switch {
	case isLanguage(lang, "ja", "zh"):
		mark = map[byte]string{'.': "。", ':': "：", '?': "？", '!': "！"}[want]
	case want == '?' && isLanguage(lang, "el"):
		mark = ";"
	case want == '?' && isLanguage(lang, "ar", "fa", "ur"):
		mark = "؟"
	case isLanguage(lang, "fr") && !isFrCA(lang) && want == ':':
		mark = "\u00a0:"
	case isLanguage(lang, "fr") && !isFrCA(lang) && want != '.':
		mark = "\u202f" + mark
	}
	// The last character, unless it is white space or a mark, gets the
	// mark after it.
	return []Replacement{{"([^\\s" + regexp.QuoteMeta(terminalMarks) + "])$", "$1" + mark, "u"}}
}
