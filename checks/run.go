package checks

import (
	"strings"
	"unicode/utf8"
)

// Unit is what the checks read of one unit.
type Unit struct {
	Source []string // source plural forms; one for a non-plural string
	Target []string // target plural forms, in the target language's order
	// Language is the target language code ("fr", "pt_BR", "zh_Hans").
	Language string
	// SourceLanguage is the source language code; "en" when empty.
	SourceLanguage string
	Flags          Flags // merged flags (see Merge)

	// SourcePlurals and TargetPlurals are the CLDR plural categories
	// ("one", "few", "other") of the source and target languages' forms,
	// in form order. When both are set, forms pair by category (see
	// sourceIndex); nil keeps the form-by-form pairing.
	SourcePlurals, TargetPlurals []string
	// PluralMap, when set, pairs forms exactly as Weblate does from the
	// plural formulas (NewPluralMap); it wins over the categories.
	PluralMap *PluralMap

	// Glossary are the terms of the glossaries in the target language
	// (translated or read-only ones), for check_glossary; the check
	// picks those occurring in the source (GlossaryMatches).
	Glossary []Term
	// History is the unit's past changes, newest first, for translated
	// (TranslatedInPast); a caller gives it only for a unit that is not
	// translated (empty or needing editing).
	History []PastChange
	// OtherSources are the sources of the other translated units of the
	// same translation whose target is this unit's, for reused; a caller
	// leaves it empty for a language with one plural form.
	OtherSources []string
	// Context is the unit's key: the Fluent checks take a unit whose
	// flags set no fluent-type for a term when its key starts with "-",
	// as the reference (FluentUnitConverter.fluent_type). A caller needs
	// to give it only where NeedsContext says so.
	Context string

	memo *memo // set by Run: results shared between checks
}

// memo holds what several checks of one Run compute from the same
// strings. It lives for one call and is not shared between goroutines.
type memo struct {
	xml []xmlParse
}

// Result is one failing check.
type Result struct {
	ID string
}

// single checks one source form against one target form.
type single func(src, tgt, lang string) bool

// whole checks all forms at once.
type whole func(u Unit) bool

// implemented maps each computed check id to its function: a single or a
// whole.
var implemented = map[string]any{}

func init() {
	for id, fn := range singles {
		implemented[id] = fn
	}
	for id, fn := range wholes {
		implemented[id] = fn
	}
	implAt = make([]any, len(registry))
	boundAt = make([]*bound, len(registry))
	for i, c := range registry {
		implAt[i] = implemented[c.ID]
		if b, ok := bounds[c.ID]; ok {
			boundAt[i] = &b
		}
	}
}

// implAt and boundAt are implemented and bounds indexed like registry.
var (
	implAt  []any
	boundAt []*bound
)

// Run returns the target checks that fail on u, in registry order (see
// All). Checks that need a flag run only when it is set; ignore-<id>
// silences one check and ignore-all-checks all of them. A unit whose
// target forms are all empty is untranslated and gets no result. Run does
// not consider read-only state or glossary components: callers choose
// which units to check. A check skipped for its size bound is not
// reported; RunDetailed reports it.
func Run(u Unit) []Result { return RunDetailed(u).Failed }

// Report is what RunDetailed found.
type Report struct {
	Failed []Result // the failing checks, as Run returns them
	// Skipped lists, in registry order, the enabled checks that did not
	// run because u exceeds their size bound (see Bounds); they neither
	// pass nor fail.
	Skipped []string
}

// RunDetailed is Run, also reporting the checks skipped for their size
// bound, so a caller can store or show "not checked" rather than "passed".
func RunDetailed(u Unit) Report {
	var r Report
	if u.Flags.Has("ignore-all-checks") || !translated(u.Target) {
		return r
	}
	u.memo = &memo{}
	var buf [128]bool // the registry has about 90 rows; no allocation
	on := buf[:0]
	if len(registry) > len(buf) {
		on = make([]bool, 0, len(registry))
	}
	on = enabledSet(u.Flags, on[:len(registry)])
	for i, c := range registry {
		if c.Kind != Target || !on[i] {
			continue
		}
		fn := implAt[i]
		if fn == nil {
			continue
		}
		if b := boundAt[i]; b != nil && b.exceeded(&u) {
			r.Skipped = append(r.Skipped, c.ID)
			continue
		}
		var fail bool
		switch fn := fn.(type) {
		case single:
			fail = eachPair(u, fn)
		case whole:
			fail = fn(u)
		}
		if fail {
			r.Failed = append(r.Failed, Result{ID: c.ID})
		}
	}
	return r
}

func translated(target []string) bool {
	for _, t := range target {
		if t != "" {
			return true
		}
	}
	return false
}

// flagChecks maps a flag name to the registry rows it turns on (its
// enable flag) or off (ignore-…, as a negative index minus one), so Run
// reads the unit's few flags rather than looking up two per check.
var flagChecks = func() map[string][]int {
	m := map[string][]int{}
	for i, c := range registry {
		if c.Flag != "" {
			m[c.Flag] = append(m[c.Flag], i)
		}
		m[c.IgnoreFlag()] = append(m[c.IgnoreFlag()], -i-1)
	}
	for alias, name := range flagAliases {
		for _, i := range m[name] {
			if i >= 0 {
				m[alias] = append(m[alias], i)
			}
		}
	}
	return m
}()

// enabledSet fills on (indexed like registry) with enabled for every
// row and returns it.
func enabledSet(f Flags, on []bool) []bool {
	for i := range registry {
		on[i] = registry[i].Default
	}
	var off []int
	for _, n := range f.names {
		for _, i := range flagChecks[n] {
			if i >= 0 {
				on[i] = true
			} else {
				off = append(off, -i-1)
			}
		}
	}
	for _, i := range off {
		on[i] = false
	}
	return on
}

func enabled(c Check, f Flags) bool {
	if f.Has(c.IgnoreFlag()) {
		return false
	}
	if c.Default || (c.Flag != "" && f.Has(c.Flag)) {
		return true
	}
	for _, alias := range aliasesOf[c.Flag] {
		if f.Has(alias) {
			return true
		}
	}
	return false
}

// aliasesOf lists the other names of each enable flag (flagAliases
// turned round), so enabled looks up its check's flag once.
var aliasesOf = func() map[string][]string {
	m := map[string][]string{}
	for alias, name := range flagAliases {
		m[name] = append(m[name], alias)
	}
	return m
}()

// eachPair runs fn on each target form and the source form it pairs
// with (sourceIndex), stopping at the first failure.
func eachPair(u Unit, fn single) bool {
	if len(u.Source) == 0 {
		return false
	}
	for i, t := range u.Target {
		if fn(u.Source[sourceIndex(&u, i)], t, u.Language) {
			return true
		}
	}
	return false
}

// isLanguage reports whether code's base language is one of bases:
// "pt_BR" and "pt-BR" have base "pt".
func isLanguage(code string, bases ...string) bool {
	b := baseLanguage(code)
	for _, x := range bases {
		if b == x {
			return true
		}
	}
	return false
}

func baseLanguage(code string) string {
	// A byte loop: strings.IndexAny builds its set on every call, and
	// every check of every unit asks (a tenth of the checks' time).
	for i := 0; i < len(code); i++ {
		if c := code[i]; c == '_' || c == '-' || c == '@' {
			code = code[:i]
			break
		}
	}
	return strings.ToLower(code)
}

// runeLen counts characters, as Weblate's len does on Python strings.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// register adds checks to singles and wholes; an id registered twice is a
// programming error.
func register(s map[string]single, w map[string]whole) bool {
	for id, fn := range s {
		if _, dup := singles[id]; dup {
			panic("checks: " + id + " registered twice")
		}
		singles[id] = fn
	}
	for id, fn := range w {
		if _, dup := wholes[id]; dup {
			panic("checks: " + id + " registered twice")
		}
		wholes[id] = fn
	}
	return true
}

// Enabled says whether the check id runs on a unit with flags f: it is
// known, on by default or by its flag, and neither it nor every check is
// ignored. For the checks a caller computes itself (multiple_failures,
// long_untranslated: the store's daily pass).
func Enabled(id string, f Flags) bool {
	c, ok := ByID(id)
	return ok && !f.Has("ignore-all-checks") && enabled(c, f)
}
