package checks

import (
	"errors"
	"regexp"
	"strings"
)

// placeholderSet is the compiled placeholders: flag. Weblate joins the
// entries into one alternation, literal text escaped and r"…" entries as
// they are, and compares the sets of matches (checks/placeholders.py).
// Literal-only sets, the common case, are matched without a regular
// expression.
type placeholderSet struct {
	lits       []string       // the entries, when none is a regex
	folded     []string       // lits, lower-cased
	re, reFold *regexp.Regexp // the alternation, when some entry is a regex
}

// compilePlaceholders builds the set; rx marks the regex entries. An
// empty entry or a regex that does not compile is an error, as in
// Weblate ("Empty placeholder").
func compilePlaceholders(params []string, rx []bool) (*placeholderSet, error) {
	var alts []string
	anyRx := false
	for i, p := range params {
		if p == "" {
			return nil, errors.New("empty placeholder")
		}
		if i < len(rx) && rx[i] {
			if _, err := regexp.Compile(p); err != nil {
				return nil, err
			}
			anyRx = true
			alts = append(alts, "(?:"+p+")")
		} else {
			alts = append(alts, regexp.QuoteMeta(p))
		}
	}
	if !anyRx {
		folded := make([]string, len(params))
		for i, p := range params {
			folded[i] = strings.ToLower(p)
		}
		return &placeholderSet{lits: params, folded: folded}, nil
	}
	pattern := strings.Join(alts, "|")
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	reFold, err := regexp.Compile("(?i)(?:" + pattern + ")")
	if err != nil {
		return nil, err
	}
	return &placeholderSet{re: re, reFold: reFold}, nil
}

// spans returns where the entries match in text, leftmost first and not
// overlapping, as Python's finditer on the alternation does. Under fold
// literal entries are matched in strings.ToLower(text), and the spans
// index that.
func (p *placeholderSet) spans(text string, fold bool) []span {
	if p.re != nil {
		re := p.re
		if fold {
			re = p.reFold
		}
		var out []span
		for _, m := range re.FindAllStringIndex(text, -1) {
			if m[1] > m[0] {
				out = append(out, span{m[0], m[1]})
			}
		}
		return out
	}
	if fold {
		text = strings.ToLower(text)
	}
	return p.literalSpans(text, fold)
}

// literalSpans matches the literal entries in text (already lower-cased
// under fold).
func (p *placeholderSet) literalSpans(text string, fold bool) []span {
	var out []span
	for i := 0; i < len(text); {
		hit := false
		for _, l := range p.literals(fold) { // the first entry that matches wins
			if l != "" && strings.HasPrefix(text[i:], l) {
				out = append(out, span{i, i + len(l)})
				i += len(l)
				hit = true
				break
			}
		}
		if !hit {
			i++
		}
	}
	return out
}

// find returns the set of matched texts, case-folded under fold; nil when
// there is none.
func (p *placeholderSet) find(text string, fold bool) map[string]bool {
	var ss []span
	if p.re == nil {
		if fold {
			text = strings.ToLower(text)
		}
		if !p.anyIn(text, fold) {
			return nil
		}
		ss = p.literalSpans(text, fold)
	} else {
		ss = p.spans(text, fold)
	}
	if len(ss) == 0 {
		return nil
	}
	out := make(map[string]bool, len(ss))
	for _, s := range ss {
		m := text[s.start:s.end]
		if fold {
			m = strings.ToLower(m)
		}
		out[m] = true
	}
	return out
}

func (p *placeholderSet) literals(fold bool) []string {
	if fold {
		return p.folded
	}
	return p.lits
}

// anyIn reports whether some literal entry occurs in text: most strings
// hold none, and strings.Contains is faster than the scan.
func (p *placeholderSet) anyIn(text string, fold bool) bool {
	for _, l := range p.literals(fold) {
		if l != "" && strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// placeholders (flag placeholders:A:B:…; reference §1.3): the target's
// matches differ from the source's. Expected are the first source form's
// matches (the last form's when the first has none). A target form with
// a match the source lacks fails; one that lacks a source match fails
// unless it stands for one count only (singleForm), as the count is often
// spelt out there. With case-insensitive, case is ignored. Empty target
// forms are left to the plurals check.
func placeholders(u Unit) bool {
	ps := u.Flags.placeholders
	if ps == nil || len(u.Source) == 0 {
		return false
	}
	fold := u.Flags.Has("case-insensitive")
	expected := ps.find(u.Source[0], fold)
	if len(expected) == 0 && len(u.Source) > 1 {
		expected = ps.find(u.Source[len(u.Source)-1], fold)
	}
	for i, t := range u.Target {
		if t == "" {
			continue
		}
		found := ps.find(t, fold)
		for m := range found {
			if !expected[m] {
				return true // extra
			}
		}
		if len(u.Target) > 1 && singleForm(&u, i) {
			continue
		}
		for m := range expected {
			if !found[m] {
				return true // missing
			}
		}
	}
	return false
}

var _ = register(nil, map[string]whole{"placeholders": placeholders})
