package xliff

import "strings"

// fuzzyStates12 are the 1.2 target states the reference reads as needing
// edit (weblate/formats/ttkit.py XLIFF_FUZZY_STATES). needs-review-*
// is not among them: the reference shows such a unit as translated.
var fuzzyStates12 = map[string]bool{
	"new":               true,
	"needs-translation": true,
	"needs-adaptation":  true,
	"needs-l10n":        true,
}

// status returns the (Fuzzy, Approved) pair the file gives an entry
// whose target reads target.
//
// 1.2 (ttkit.py XliffUnit.is_fuzzy, is_approved): fuzzy when the target
// is not empty and its state is one of fuzzyStates12; approved when the
// trans-unit says approved="yes".
//
// 2.0 (Translate Toolkit's xliff2 storage): fuzzy when the target is not
// empty and the segment's state is "initial"; approved when the target
// is not empty and the state is "reviewed" or "final".
func (d *doc) status(e *entry, target string) (fuzzy, approved bool) {
	if d.v2 {
		if target == "" {
			return false, false
		}
		return e.state == "initial", e.state == "reviewed" || e.state == "final"
	}
	return target != "" && fuzzyStates12[e.state], e.approved == "yes"
}

// wantState normalizes an edit's state: a string needing edit is not
// approved, as the reference keeps one state per unit.
func wantState(fuzzy, approved bool) (bool, bool) {
	if fuzzy {
		return true, false
	}
	return false, approved
}

// stateValue is the state attribute Apply writes for a (fuzzy, approved)
// pair: 1.2 as ttkit.py XliffUnit.set_state, 2.0 as Translate Toolkit's
// Xliff2Unit.markfuzzy and markapproved.
func (d *doc) stateValue(fuzzy, approved bool) string {
	switch {
	case d.v2 && fuzzy:
		return "initial"
	case d.v2 && approved:
		return "reviewed"
	case d.v2:
		return "translated"
	case fuzzy:
		return "needs-translation"
	case approved:
		return "final"
	}
	return "translated"
}

// unitFlags returns the flags the unit's attributes give it, as the
// reference's Flags.parse_xml reads them, after FlagXMLText (but in PlainXLIFF):
// maxwidth with size-unit char or byte is max-length, with pixel, point
// or no unit max-size; font "family;size;weight" gives font-family,
// font-size and font-weight; weblate-flags adds its flags verbatim;
// translate="no" makes the unit read-only.
func (d *doc) unitFlags(attrs map[string]string) []string {
	flags := []string{FlagXMLText}
	if d.plain {
		flags = flags[:0]
	}
	if w := attrs["maxwidth"]; w != "" {
		switch attrs["size-unit"] {
		case "", "pixel", "point":
			flags = append(flags, "max-size:"+w)
		case "byte", "char":
			flags = append(flags, "max-length:"+w)
		}
	}
	if font := attrs["font"]; font != "" {
		parts := strings.Split(font, ";")
		flags = append(flags, "font-family:"+strings.ReplaceAll(strings.TrimSpace(parts[0]), " ", "_"))
		if len(parts) > 1 {
			flags = append(flags, "font-size:"+strings.TrimSpace(parts[1]))
		}
		if len(parts) > 2 {
			flags = append(flags, "font-weight:"+strings.TrimSpace(parts[2]))
		}
	}
	flags = append(flags, splitFlags(attrs["weblate-flags"])...)
	if strings.EqualFold(attrs["translate"], "no") {
		flags = append(flags, FlagReadOnly)
	}
	return flags
}

// splitFlags splits a flag string at the commas outside double quotes
// and trims each flag; empty flags are dropped.
func splitFlags(s string) []string {
	var out []string
	quoted, escaped, start := false, false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == '"':
			quoted = !quoted
		case s[i] == ',' && !quoted:
			if f := strings.TrimSpace(s[start:i]); f != "" {
				out = append(out, f)
			}
			start = i + 1
		}
	}
	if f := strings.TrimSpace(s[start:]); f != "" {
		out = append(out, f)
	}
	return out
}
