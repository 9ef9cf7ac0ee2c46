package android

import (
	"regexp"
	"strings"
)

// run is one token inside a <string> or <item>: character data (raw as
// written and decoded), a CDATA section, or markup (a child element's tag,
// a comment) kept as written.
type run struct {
	raw, text string
	markup    bool
	cdata     bool
}

// markupTag is translate-toolkit's MARKUP_TAG: something that reads as an
// XML start, end or empty tag.
var markupTag = regexp.MustCompile(`</?[A-Za-z_][A-Za-z0-9_.:-]*(?:\s+[A-Za-z_][A-Za-z0-9_.:-]*\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/?>`)

// readValue returns the text a translator sees for a value, the way
// translate-toolkit's get_xml_text_value reads it, and the mode it is
// written back in:
//   - text only: the XML-decoded text read as Android reads it (quotes,
//     white space, escapes);
//   - CDATA only: its content, read the same way unless it holds markup,
//     where only the backslash escapes are read;
//   - anything with elements (or an entity the DOCTYPE declares): the
//     markup as written, entities included, with Android's reading
//     applied to each run of text between tags.
func readValue(runs []run) (string, mode) {
	hasMarkup, hasCDATA, onlyCDATA := false, false, len(runs) > 0
	for _, r := range runs {
		switch {
		case r.markup:
			hasMarkup = true
			onlyCDATA = false
		case r.cdata:
			hasCDATA = true
		default:
			onlyCDATA = false
			if hasCustomEntity(r.raw) {
				hasMarkup = true
			}
		}
	}
	if !hasMarkup && !hasCDATA {
		text := ""
		if len(runs) == 1 {
			text = runs[0].text
		} else {
			var b strings.Builder
			for _, r := range runs {
				b.WriteString(r.text)
			}
			text = b.String()
		}
		s := processTrim(text)
		if strings.Contains(s, "<") && strings.Contains(s, ">") {
			return s, modePlain
		}
		return s, modeXML
	}
	if onlyCDATA {
		var b strings.Builder
		for _, r := range runs {
			b.WriteString(r.text)
		}
		text := b.String()
		if markupTag.MatchString(text) {
			return unescapeChars(unescapeUnicode(text)), modeCDATA
		}
		return processTrim(text), modeCDATA
	}
	var (
		st      textState
		out     []string
		cleanup bool
	)
	for _, r := range runs {
		if r.markup || r.cdata {
			out = append(out, r.raw)
			cleanup = false
			continue
		}
		s, cs, ce := st.process(r.raw)
		if cs && len(out) == 0 {
			s = strings.TrimLeft(s, spaces)
		}
		out = append(out, s)
		cleanup = ce
	}
	if cleanup && len(out) > 0 {
		out[len(out)-1] = strings.TrimRight(out[len(out)-1], spaces)
	}
	m := modeXML
	if !hasMarkup {
		m = modeCDATA
	}
	return strings.Join(out, ""), m
}

// processTrim reads one whole text the way Android does and trims the
// white space the reading allows.
func processTrim(text string) string {
	var st textState
	s, cs, ce := st.process(text)
	if cs {
		s = strings.TrimLeft(s, spaces)
	}
	if ce {
		s = strings.TrimRight(s, spaces)
	}
	return s
}

// hasCustomEntity reports a reference to an entity other than XML's five
// and character references: one a DOCTYPE declares.
func hasCustomEntity(raw string) bool {
	for i := strings.IndexByte(raw, '&'); i >= 0; {
		j := strings.IndexByte(raw[i:], ';')
		if j < 0 {
			return false
		}
		switch name := raw[i+1 : i+j]; {
		case name == "amp", name == "lt", name == "gt", name == "quot", name == "apos", strings.HasPrefix(name, "#"):
		default:
			return true
		}
		k := strings.IndexByte(raw[i+j:], '&')
		if k < 0 {
			return false
		}
		i += j + k
	}
	return false
}
