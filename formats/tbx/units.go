package tbx

import (
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Flags the format derives from TBX metadata. Weblate's docs/formats/tbx.rst
// maps administrativeStatus forbidden/obsolete to "forbidden" and
// translationNote "no" to read-only; the glossary-wide "terminology" flag
// is the importer's business, not the file's.
const (
	FlagForbidden = "forbidden"
	FlagReadOnly  = "read-only"
)

// Units returns one unit per termEntry, in document order, even when two
// entries share the same (Source, Context): the importer decides what to
// do with such duplicates.
//
// Context is the termEntry's id attribute ("" when absent). Source holds
// the term of the langSet matching sourceLang and Target that of the
// langSet matching targetLang (see matchLang); a missing target langSet or
// an empty term gives Target []string{""}, untranslated. Only the first
// term of a langSet counts.
//
// Explanation joins, with newlines, the descrip elements of the termEntry
// and of the source langSet and its tig, except descrip type="Translation
// needed", which only sets a flag. Note joins the note elements of the
// termEntry and of both langSets. Flags holds FlagForbidden and FlagReadOnly
// as the metadata of the termEntry and both langSets asks.
func (f *File) Units(sourceLang, targetLang string) []formats.Unit {
	units := make([]formats.Unit, 0, len(f.entries))
	for i := range f.entries {
		e := &f.entries[i]
		si, ti := e.pick(sourceLang, targetLang)
		u := formats.Unit{
			Context: e.id,
			Source:  []string{e.termText(si)},
			Target:  []string{e.termText(ti)},
			Line:    e.line,
		}
		var expl, notes []string
		var forbidden, readOnly bool
		scan := func(m *metadata, source bool) {
			for _, d := range m.descrips {
				if isTranslationNote(d.typ) {
					readOnly = readOnly || strings.EqualFold(d.text, "no")
					continue
				}
				if source && d.text != "" {
					expl = append(expl, d.text)
				}
			}
			for _, n := range m.notes {
				if n != "" {
					notes = append(notes, n)
				}
			}
			for _, n := range m.termNotes {
				switch {
				case strings.EqualFold(n.typ, "administrativeStatus"):
					forbidden = forbidden || isForbiddenStatus(n.text)
				case isTranslationNote(n.typ):
					readOnly = readOnly || strings.EqualFold(n.text, "no")
				}
			}
		}
		scan(&e.meta, true)
		if si >= 0 {
			scan(&e.langSets[si].meta, true)
		}
		if ti >= 0 {
			scan(&e.langSets[ti].meta, false)
		}
		u.Explanation = strings.Join(expl, "\n")
		u.Note = strings.Join(notes, "\n")
		if forbidden {
			u.Flags = append(u.Flags, FlagForbidden)
		}
		if readOnly {
			u.Flags = append(u.Flags, FlagReadOnly)
		}
		units = append(units, u)
	}
	return units
}

// isTranslationNote reports whether a descrip or termNote type says whether
// the term needs translating: Weblate writes descrip type="Translation
// needed", the TBX data category is translationNote.
func isTranslationNote(typ string) bool {
	return strings.EqualFold(typ, "Translation needed") || strings.EqualFold(typ, "translationNote")
}

// isForbiddenStatus accepts Weblate's values and the TBX picklist values
// of administrativeStatus that mean "do not use".
func isForbiddenStatus(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "forbidden", "obsolete", "forbiddenterm-admn-sts", "supersededterm-admn-sts", "deprecatedterm-admn-sts":
		return true
	}
	return false
}

func (e *entry) termText(i int) string {
	if i < 0 || e.langSets[i].term == nil {
		return ""
	}
	return e.langSets[i].term.text
}

// pick returns the indexes of the source and target langSets, -1 for
// none. The target is never the source langSet; when no langSet matches
// targetLang but the source was found and exactly one other langSet
// exists, that one is the target (a file whose langSet codes differ from
// the component's language code, say "de-DE" for "de", still works).
func (e *entry) pick(sourceLang, targetLang string) (si, ti int) {
	si = matchLang(e.langSets, sourceLang, -1)
	ti = matchLang(e.langSets, targetLang, si)
	if ti < 0 && si >= 0 && len(e.langSets) == 2 {
		ti = 1 - si
	}
	return si, ti
}

// matchLang returns the index of the langSet whose language matches code,
// skipping index skip, or -1. Codes compare case-insensitively with "-"
// and "_" equivalent; an exact match wins over a match of the primary
// subtag alone ("en" matches "en_US" and "en-GB" only when no "en" exists).
func matchLang(sets []langSet, code string, skip int) int {
	want := normLang(code)
	for i := range sets {
		if i != skip && normLang(sets[i].lang) == want {
			return i
		}
	}
	primary := primaryTag(want)
	for i := range sets {
		if i != skip && primaryTag(normLang(sets[i].lang)) == primary {
			return i
		}
	}
	return -1
}

func normLang(code string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(code)), "_", "-")
}

func primaryTag(norm string) string {
	if i := strings.IndexByte(norm, '-'); i >= 0 {
		return norm[:i]
	}
	return norm
}
