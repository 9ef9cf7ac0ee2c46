package checks

import (
	"regexp"
	"strings"
	"unicode"
)

// same (reference §1.4, Weblate's checks/same.py) reports a translation
// identical to its source unless the source is something commonly left
// as it is. Before judging, the source loses its format placeholders (of
// the format flag set), the placeholders: flag's entries, markup, URLs,
// e-mail addresses, domains, paths, hash tags, templates and emoji.
// Under strict-same only the placeholders go, and a source that was
// nothing else is ignored. Not modelled: the per-language "often
// identical" word lists and language names, the project's and
// component's names, glossary terms and DocBook notes; words of one or
// two letters are ignored as Weblate's test_word does.
func same(u Unit) bool {
	src := u.SourceLanguage
	if src == "" {
		src = "en"
	}
	sb, tb := baseLanguage(src), baseLanguage(u.Language)
	if sb == tb || (sb == "en" && tb == "ia") {
		return false
	}
	return eachPair(u, func(s, t, _ string) bool {
		if s != t || short(s, t) {
			return false
		}
		return !sameIgnored(s, u.Flags)
	})
}

// formatStrip maps a format flag to what stripFormat removes; the first
// flag set, in this order, wins, as in Weblate's strip_format.
var formatStrip = []struct {
	flag string
	re   *regexp.Regexp
}{
	{"c-format", printfRE}, {"objc-format", printfRE}, {"php-format", printfRE},
	{"python-format", printfRE}, {"perl-format", printfRE}, {"javascript-format", printfRE},
	{"lua-format", printfRE}, {"object-pascal-format", printfRE}, {"java-printf-format", printfRE},
	{"scheme-format", regexp.MustCompile(`~[-,'0-9@:]*[aswdbxoferpc~%&|]`)},
	{"python-brace-format", braceRE}, {"perl-brace-format", braceRE},
	{"c-sharp-format", braceRE}, {"java-format", braceRE}, {"vue-format", regexp.MustCompile(`%?\{[^{}]*\}|@:[\w.]+`)},
	{"i18next-interpolation", regexp.MustCompile(`\{\{[^{}]*\}\}|\$t\([^)]*\)`)},
	{"angularjs-format", regexp.MustCompile(`\{\{[^{}]*\}\}`)},
	{"es-format", regexp.MustCompile(`\$\{[^{}]*\}`)},
	{"laravel-format", regexp.MustCompile(`:[A-Za-z_]\w*`)},
	{"qt-format", regexp.MustCompile(`%L?\d+`)}, {"qt-plural-format", regexp.MustCompile(`%L?n`)},
	{"ruby-format", regexp.MustCompile(`%\{[^}]*\}|%<[^>]*>[a-zA-Z]|` + printfRE.String())},
	{"percent-placeholders", regexp.MustCompile(`%[^%\s]+%`)},
}

var (
	printfRE = regexp.MustCompile(`%(?:\d+\$|\([^)]*\))?[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|ll|[hlLqjzt])?[diouxXeEfFgGaAcspn@%]`)
	braceRE  = regexp.MustCompile(`\{[^{}]*\}`)

	sameEmoji    = regexp.MustCompile(`[\x{2600}-\x{27bf}]|[\x{1f000}-\x{1fffd}]`)
	sameEmail    = regexp.MustCompile(`(?i)[a-z0-9_.-]+@[a-z0-9_.-]+\.[a-z0-9-]{2,}`)
	sameURL      = regexp.MustCompile(`(?i)(?:http|ftp)s?://(?:[a-z0-9_.-]*|localhost|\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(?::\d+)?(?:/?|[/?]\S+)$`)
	sameHash     = regexp.MustCompile(`#[A-Za-z0-9_-]*`)
	sameDomain   = regexp.MustCompile(`(?i)(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+(?:[A-Z]{2,6}\.?|[A-Z0-9-]{2,}\.?)`)
	samePath     = regexp.MustCompile(`(?:^|[ ])(?:/[a-zA-Z0-9=:?._-]+)+`)
	sameTemplate = regexp.MustCompile(`(?i)\{[a-z_-]+\}|@[A-Z_]@`)
	sameSplit    = regexp.MustCompile("(?i)(?:&(?:nbsp|rsaquo|lt|gt|amp|ldquo|rdquo|times|quot);|[() ,.^`\"'\\\\/_<>!?;:|{}*@%#&~=+\\r\\n✓—‑…\\[\\]0-9-])+")
)

// sameStrippers are what sameIgnored strips before judging, in order,
// each with the characters without which it cannot match.
var sameStrippers = []struct {
	re    *regexp.Regexp
	needs string
}{
	{sameEmail, "@"}, {sameURL, ":"}, {sameHash, "#"}, {sameDomain, "."}, {samePath, "/"}, {sameTemplate, "{@"},
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// stripFormat removes the placeholders of the first format flag set.
func stripFormat(s string, f Flags) string {
	for _, fs := range formatStrip {
		if f.Has(fs.flag) {
			return fs.re.ReplaceAllString(s, "")
		}
	}
	return s
}

// sameIgnored: s, identical in source and target, is commonly left as it
// is.
func sameIgnored(s string, f Flags) bool {
	stripped := stripFormat(s, f)
	if ps := f.placeholders; ps != nil {
		stripped = cutSpans(stripped, ps.spans(stripped, f.Has("case-insensitive")))
	}
	if f.Has("strict-same") {
		return stripped == ""
	}
	// Numbers and separators ("1:4", "1/2"), copyright lines.
	if runeLen(strings.Trim(s, "0123456789:/,.")) <= 1 ||
		strings.Contains(strings.ToLower(s), "(c) copyright") || strings.Contains(s, "©") {
		return true
	}
	// Each pattern runs only where the character it needs is: most
	// strings hold none, and a regular expression's scan is the cost.
	if strings.IndexByte(stripped, '<') >= 0 {
		stripped = xmlTag.ReplaceAllString(stripped, "")
	}
	if !isASCII(stripped) {
		stripped = sameEmoji.ReplaceAllString(stripped, " ")
	}
	for _, p := range sameStrippers {
		if strings.ContainsAny(stripped, p.needs) {
			stripped = p.re.ReplaceAllString(stripped, "")
		}
	}
	if runeLen(stripped) <= 1 || isUpper(stripped) {
		return true // nothing left, a unit letter, an abbreviation
	}
	for _, w := range sameSplit.Split(strings.ToLower(stripped), -1) {
		if runeLen(w) > 2 && strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			return false // a word to translate
		}
	}
	return true
}

func cutSpans(s string, ss []span) string {
	if len(ss) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range ss {
		b.WriteString(s[at:sp.start])
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}
