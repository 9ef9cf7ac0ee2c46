package checks

import (
	"net"
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

var _ = register(
	map[string]single{
		"multiple_capital": multipleCapital,
		"duplicate":        duplicate,
		"url":              isNotURL,
	},
	map[string]whole{"max-lines": maxLines},
)

// multipleCapital: the target has a word starting with two or more
// capitals followed by two or more lower-case letters ("HEllo", "THis")
// that the source does not have. Plural abbreviations ("URLs", "IDs")
// have a single lower-case letter and pass; camel case ("iPhone",
// "McDonald") starts otherwise and passes; names copied from the source
// ("OAuth") pass.
func multipleCapital(s, t, _ string) bool {
	var inSource map[string]bool
	for _, w := range strings.FieldsFunc(t, notLetter) {
		if !misCapitalised(w) {
			continue
		}
		if inSource == nil {
			inSource = map[string]bool{}
			for _, sw := range strings.FieldsFunc(s, notLetter) {
				inSource[sw] = true
			}
		}
		if !inSource[w] {
			return true
		}
	}
	return false
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsMark(r) }

func misCapitalised(w string) bool {
	upper, lower := 0, 0
	for _, r := range w {
		switch {
		case unicode.IsUpper(r) && lower == 0:
			upper++
		case unicode.IsLower(r) && upper >= 2:
			lower++
		default:
			return false
		}
	}
	return upper >= 2 && lower >= 2
}

// duplicateIgnored are words each language repeats correctly (Weblate's
// duplicate.py IGNORES): French "nous nous", "vous vous"; Frisian "jo
// jo", "mei mei"; Hindi "कर कर"; Turkish "tek tek"; Albanian "të të".
var duplicateIgnored = map[string][]string{
	"fy": {"jo", "mei"},
	"fr": {"vous", "nous"},
	"hi": {"कर"},
	"tr": {"tek"},
	"sq": {"të"},
}

// duplicate: the target repeats a word ("the the") that the source does
// not repeat. Tags and URLs are removed first. Words are runs of letters,
// digits and marks; one-character words and the target language's duplicateIgnored words are not counted,
// and comparison is case-sensitive, as in Weblate.
func duplicate(s, t, lang string) bool {
	tw := repeatedWords(t, duplicateIgnored[baseLanguage(lang)])
	if len(tw) == 0 {
		return false
	}
	sw := repeatedWords(s, nil)
	for w := range tw {
		if !sw[w] {
			return true
		}
	}
	return false
}

// urlLike finds URLs, whose path segments often repeat ("/de/de/").
var urlLike = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s<>"]*`)

// repeatedWords returns the words of text that directly follow themselves,
// once tags and URLs are removed.
func repeatedWords(text string, ignored []string) map[string]bool {
	if strings.Contains(text, "<") {
		text = replaceTags(text, " ")
	}
	if strings.Contains(text, "://") {
		text = urlLike.ReplaceAllString(text, " ")
	}
	var out map[string]bool
	prev := ""
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !wordRune(r) }) {
		if w == prev && runeLen(w) >= 2 && !contains(ignored, w) {
			if out == nil {
				out = map[string]bool{}
			}
			out[w] = true
		}
		prev = w
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// maxLines: some target form has more than max-lines:N lines. "\n",
// "\r\n" and "\r" end a line; a final line break does not start a new one.
func maxLines(u Unit) bool {
	n, ok := u.Flags.Int("max-lines")
	if !ok {
		return false
	}
	for _, t := range u.Target {
		t = strings.ReplaceAll(t, "\r\n", "\n")
		t = strings.TrimSuffix(strings.ReplaceAll(t, "\r", "\n"), "\n")
		if strings.Count(t, "\n")+1 > n {
			return true
		}
	}
	return false
}

// isNotURL (flag url): the target is not a single absolute URL, as
// Django's URLValidator accepts them: an http, https, ftp or ftps scheme,
// a host that is localhost, an IP address or a dotted name, and no
// whitespace. An empty source is not checked.
func isNotURL(s, t, _ string) bool {
	if s == "" {
		return false
	}
	if strings.IndexFunc(t, unicode.IsSpace) >= 0 {
		return true
	}
	u, err := url.Parse(t)
	if err != nil {
		return true
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ftp", "ftps":
	default:
		return true
	}
	h := u.Hostname()
	if h == "localhost" || net.ParseIP(h) != nil {
		return false
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		return true
	}
	for _, l := range labels {
		if l == "" || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			return true
		}
	}
	return false
}
