package index

// State is a unit's translation state, with the reference's numeric values
// (../shared/reference/weblate-core.md, "Unit states").
type State int

const (
	StateEmpty State = 0
	StateFuzzy State = 10
	// StateNeedsRewriting is "needs editing" set by an enforced check
	// (reference workspace §1.6): a save that leaves an enforced check
	// failing is kept in this state. It counts and searches as fuzzy.
	StateNeedsRewriting State = 11
	// StateNeedsChecking is the reference's needs-checking (12): a
	// state the API names but a write may not set, and a new string
	// given it (or 11) is stored as StateFuzzy. No unit is stored in it.
	StateNeedsChecking State = 12
	StateTranslated    State = 20
	StateApproved      State = 30
	StateReadOnly      State = 100
)

// Translated reports whether the state counts as translated.
func (s State) Translated() bool { return s >= StateTranslated }

// Fuzzy reports whether the state is "needs editing": 10, or 11 and 12
// (the reference's needs-rewriting and needs-checking).
func (s State) Fuzzy() bool { return s >= StateFuzzy && s < StateTranslated }

// Approved reports whether the state is approved.
func (s State) Approved() bool { return s == StateApproved }

// ParseState maps the names accepted in searches to a State.
func ParseState(name string) (State, bool) {
	switch name {
	case "empty", "untranslated":
		return StateEmpty, true
	case "needs-editing", "fuzzy":
		return StateFuzzy, true
	case "translated":
		return StateTranslated, true
	case "approved":
		return StateApproved, true
	case "readonly", "read-only":
		return StateReadOnly, true
	}
	return 0, false
}
