package checks

import (
	"regexp"
	"strings"
)

// Markdown checks (flag md-text; reference §1.3, Weblate's markdown.py).
// Go's RE2 has no look-ahead or back-references, so the patterns below
// are Weblate's without them: code spans of one to three backticks are
// spelt out, and an emphasis closer may be followed by another marker.
// All patterns run in linear time.
var _ = register(map[string]single{
	"md-reflink": mdRefLink,
	"md-link":    mdLink,
	"md-syntax":  mdSyntax,
}, nil)

var (
	// mdLink: [text](url "title"), ![alt](url), <https://…>, <a@b.c>;
	// group 1 is the inline link's URL.
	mdLinkRE = regexp.MustCompile(`!?\[(?:\[[^\[\]]*\]|[^\[\]])*\]\(\s*<?([^\s)>]*)>?(?:\s+["'][^"']*["'])?\s*\)|<https?://[^>]+>|<[^>]+@[^>]+\.[^>]+>`)
	// mdBrokenLink: a space between ] and (, which breaks an inline link.
	mdBrokenLink = regexp.MustCompile(`\] +\(`)
	// mdRefLinkRE: [text][ref] or [text] [ref]; group 1 is the reference.
	mdRefLinkRE = regexp.MustCompile(`!?\[(?:\[[^\]]*\]|[^\[\]])*\]\s*\[([^^\]]*)\]`)
	// mdSyntaxRE: emphasis, strong, code, strike-through and inline
	// HTML/autolinks; the submatch that is set names the marker.
	mdSyntaxRE = regexp.MustCompile("(__)[\\s\\S]+?__" +
		`|(\*\*)[\s\S]+?\*\*` +
		`|\b(_)(?:__|[^_])+?_\b` +
		`|(\*)(?:\*\*|[^*])+?\*` +
		"|(```)[\\s\\S]*?```|(``)[\\s\\S]*?``|(`)[^`]+`" +
		`|(~~)\S(?:[\s\S]*?\S)?~~` +
		`|(<)[^>]+>`)
)

// mdRefLink: the source uses reference links and the target's set of
// references differs.
func mdRefLink(s, t, _ string) bool {
	if strings.IndexByte(s, '[') < 0 {
		return false // no reference link in the source
	}
	src := mdRefLinkRE.FindAllStringSubmatch(s, -1)
	if len(src) == 0 {
		return false
	}
	return !sameSet(submatches(src, 1), submatches(mdRefLinkRE.FindAllStringSubmatch(t, -1), 1))
}

// mdLink: the target has a broken inline link ("[a] (b)") the source does
// not have, a different number of links, or different local link targets.
// Only targets starting with ".", "#" or "{{" are compared, because
// remote ones may be localised (a Wikipedia link in the target language).
func mdLink(s, t, _ string) bool {
	if strings.IndexByte(s, '[') < 0 && strings.IndexByte(s, '<') < 0 && strings.IndexByte(t, ']') < 0 {
		return false // no link in the source, no broken one in the target
	}
	if mdBrokenLink.MatchString(t) && !mdBrokenLink.MatchString(s) {
		return true
	}
	src := mdLinkRE.FindAllStringSubmatch(s, -1)
	if len(src) == 0 {
		return false
	}
	tgt := mdLinkRE.FindAllStringSubmatch(t, -1)
	if len(src) != len(tgt) {
		return true
	}
	return !sameSet(localLinks(src), localLinks(tgt))
}

func localLinks(ms [][]string) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		u := m[1]
		if strings.HasPrefix(u, ".") || strings.HasPrefix(u, "#") || strings.HasPrefix(u, "{{") {
			out[u] = true
		}
	}
	return out
}

// mdSyntax: the set of Markdown markers used (**, __, *, _, code spans,
// ~~, inline HTML) differs between source and target.
func mdSyntax(s, t, _ string) bool {
	return !sameSet(mdMarkers(s), mdMarkers(t))
}

func mdMarkers(text string) map[string]bool {
	if !strings.ContainsAny(text, "_*`~") {
		// Only the inline-HTML alternative can match: skip the
		// backtracking over every alternative at every position.
		if strings.IndexByte(text, '<') >= 0 && xmlTag.MatchString(text) {
			return map[string]bool{"<": true}
		}
		return nil
	}
	out := map[string]bool{}
	for _, m := range mdSyntaxRE.FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out[g] = true
				break
			}
		}
	}
	return out
}

func submatches(ms [][]string, i int) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m[i]] = true
	}
	return out
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
