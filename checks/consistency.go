package checks

import "strings"

// Consistency checks that read other units or the unit's history
// (reference §1.3, Weblate's consistency.py). The caller reads what
// they need (Unit.History, Unit.OtherSources); RunUntranslated runs the
// one that applies to untranslated units.
var _ = register(nil, map[string]whole{
	"translated": translatedBefore,
	"reused":     reused,
})

// PastKind says how TranslatedInPast reads a past change.
type PastKind int

const (
	// PastEdit is a change that set a translation (Weblate's revertable
	// actions: 2, 5, 7, 8, 9, 27, 36, 59, 72, 77, and 6).
	PastEdit PastKind = iota
	// PastBreak ends the search: the source string changed (30) or the
	// string was deliberately marked for editing (37).
	PastBreak
	// PastSkip is ignored: an automatic translation that left the string
	// needing editing.
	PastSkip
)

// PastChange is one entry of a unit's history, as TranslatedInPast reads
// it.
type PastChange struct {
	Kind   PastKind
	Target string // the translation the change recorded, plural forms joined
}

// TranslatedInPast is the reference's TranslatedCheck on a unit that is
// not translated: walking its history newest first up to a source
// change or a marking for edit, the first recorded translation that is
// not empty and differs from target (the unit's current one). It
// returns that translation.
func TranslatedInPast(target string, history []PastChange) (string, bool) {
	for _, c := range history {
		switch c.Kind {
		case PastBreak:
			return "", false
		case PastSkip:
			continue
		}
		if c.Target != "" && c.Target != target {
			return c.Target, true
		}
	}
	return "", false
}

// RunUntranslated returns the checks failing on u, a unit that is not
// translated: the reference runs only those that opt in to untranslated
// units there (translated; inconsistent is not computed). Ignore flags
// apply as in Run.
func RunUntranslated(u Unit) []Result {
	if u.Flags.Has("ignore-all-checks") || len(u.History) == 0 {
		return nil
	}
	c := registry[byID["translated"]]
	if !enabled(c, u.Flags) {
		return nil
	}
	if translatedBefore(u) {
		return []Result{{ID: c.ID}}
	}
	return nil
}

// translatedBefore is translated: TranslatedInPast on u's history, for a unit needing
// editing (Run; RunUntranslated for an empty one).
func translatedBefore(u Unit) bool {
	if len(u.History) == 0 {
		return false
	}
	_, ok := TranslatedInPast(joinForms(u.Target), u.History)
	return ok
}

// reused: the translation is also the translation of another unit of
// the translation whose source differs (u.OtherSources).
func reused(u Unit) bool {
	if len(u.OtherSources) == 0 {
		return false
	}
	src := joinForms(u.Source)
	for _, s := range u.OtherSources {
		if s != src {
			return true
		}
	}
	return false
}

// joinForms joins plural forms as the store and Weblate keep them.
func joinForms(forms []string) string { return strings.Join(forms, pluralJoin) }
