package index

import (
	"strings"
	"time"
	"unicode"
)

// Unit is a source string with its target in one translation.
type Unit struct {
	ID            int64
	TranslationID int64
	// SourceUnitID is the unit of the same string in the source
	// translation; equal to ID for source units.
	SourceUnitID    int64
	Position        int
	Context         string
	Source          []string
	Target          []string
	PreviousSource  string
	IDHash          int64
	ContentHash     int64
	Location        string
	Note            string
	Flags           string
	Explanation     string
	ExtraFlags      string
	Labels          []Label // its source unit's (labels are set on source units), by id; nil: none
	State           State
	Pending         bool
	Priority        int
	NumWords        int
	HasSuggestion   bool
	HasComment      bool
	HasFailingCheck bool
	Timestamp       time.Time
	// AutomaticallyTranslated says automatic translation wrote the
	// target and no person saved it since (reference workspace §6.3).
	AutomaticallyTranslated bool
	// Fixups are the ids of the automatic fixups (checks.Fixers) the
	// write that returned this unit applied to its target; never stored.
	Fixups []string
}

// PluralSeparator joins plural forms into one string for hashing and storage.
const PluralSeparator = "\x1e\x1e"

// JoinPlural joins plural forms with PluralSeparator.
func JoinPlural(forms []string) string { return strings.Join(forms, PluralSeparator) }

// SplitPlural is the inverse of JoinPlural.
func SplitPlural(s string) []string { return strings.Split(s, PluralSeparator) }

// NumChars counts the characters of the source forms.
func (u *Unit) NumChars() int {
	n := 0
	for _, s := range u.Source {
		n += len([]rune(s))
	}
	return n
}

// CountWords counts words the way the reference does for statistics:
// runs of letters and digits separated by anything else.
func CountWords(forms []string) int {
	n := 0
	for _, s := range forms {
		in := false
		for _, r := range s {
			w := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
			if w && !in {
				n++
			}
			in = w
		}
	}
	return n
}

// UnitFilter selects units. Zero fields are not filters.
type UnitFilter struct {
	TranslationID int64
	// Query is a search in the reference's syntax (state:, key:, source:,
	// target:, plain text).
	Query string
	// HiddenProjects are the ids of projects whose units are left out:
	// the private projects the reader may not see.
	HiddenProjects []int64
	// Sort orders the list (ParseUnitSort); none is ascending id.
	Sort []UnitSort
	Page Page
}

// LanguageUnit is a string's unit in one language, as the editor lists
// the other languages of the string it shows.
type LanguageUnit struct {
	UnitID       int64
	LanguageCode string
	LanguageName string
	Direction    string
	Target       []string
	State        State
}
