package index

import (
	"slices"
	"time"
)

// Automatic translation (reference workspace §6.3): the strings of a
// translation matching a search are filled from other components' current
// translations ("others") or from machine translation services ("mt").

// AutoMode is what an automatic translation does with each result.
type AutoMode string

// The reference's modes.
const (
	AutoSuggest   AutoMode = "suggest"
	AutoTranslate AutoMode = "translate"
	AutoFuzzy     AutoMode = "fuzzy"
	AutoApproved  AutoMode = "approved"
)

// AutoModes are the modes in the reference's order.
var AutoModes = []AutoMode{AutoSuggest, AutoTranslate, AutoFuzzy, AutoApproved}

// Automatic translation sources.
const (
	AutoSourceOthers = "others"
	AutoSourceMT     = "mt"
)

// AutoDefaultQuery is the search the reference's form offers, which Tolk
// takes when a request gives none.
const AutoDefaultQuery = "state:<translated"

// AutoTranslateParams are an automatic translation's request.
type AutoTranslateParams struct {
	Mode AutoMode `json:"mode"`
	// Query selects the units (the reference's q).
	Query string `json:"q"`
	// Source is AutoSourceOthers or AutoSourceMT.
	Source string `json:"auto_source"`
	// ComponentID restricts "others" to one component of the project; 0
	// is every other component.
	ComponentID int64 `json:"component,omitempty"`
	// Engines are the machinery service identifiers for "mt".
	Engines []string `json:"engines,omitempty"`
	// Threshold is the lowest quality taken, 1–100.
	Threshold int `json:"threshold"`
	// Personal lets the asking user's personal memory scope answer an
	// "mt" run's memory lookups (their own translations in other
	// projects they may read, MemoryQuery.UserID), as the reference's
	// automatic translation passes its user to the memory. Whoever
	// starts the job sets it: not for an add-on's run (no user), nor
	// for a token narrowed to one project, which reads no other
	// project's strings.
	Personal bool `json:"personal,omitempty"`
}

// State is the state a result is saved in by a mode other than
// AutoSuggest: fuzzy 10, approved 30 when review is on (20 otherwise),
// translated 20.
func (p AutoTranslateParams) State(review bool) State {
	switch {
	case p.Mode == AutoFuzzy:
		return StateFuzzy
	case p.Mode == AutoApproved && review:
		return StateApproved
	}
	return StateTranslated
}

// AutoTranslateJob is an automatic translation as it is stored, so that
// one killed midway resumes where its last batch ended.
type AutoTranslateJob struct {
	// ID is the task's UUID.
	ID            string
	ProjectID     int64
	ComponentID   int64
	TranslationID int64
	// UserID is who asked; 0 for an add-on's run.
	UserID int64
	Params AutoTranslateParams
	// Cursor is the id of the last unit done: units are taken in id
	// order.
	Cursor int64
	// Total is how many units matched when the job started; Done how
	// many it has looked at, Updated how many it changed.
	Total, Done, Updated int
	Completed            bool
	Err                  string
	Created, Finished    time.Time
}

// Progress is the job's 0–100.
func (j *AutoTranslateJob) Progress() int {
	if j.Completed {
		return 100
	}
	if j.Total <= 0 {
		return 0
	}
	return min(100, j.Done*100/j.Total)
}

// AutoResult is one unit's result: the text and the user whose string
// it copies (0 when unknown), who is credited with the change as in the
// reference.
type AutoResult struct {
	UnitID int64
	Target []string
	UserID int64
}

// AutoBatch is one batch of a job: its results, the cursor after it and
// how many units it looked at.
type AutoBatch struct {
	Results []AutoResult
	Cursor  int64
	Seen    int
}

// ValidAutoMode reports whether m is one of AutoModes.
func ValidAutoMode(m AutoMode) bool { return slices.Contains(AutoModes, m) }

// ActionAutoTranslated is the change an automatic translation records
// for each string it writes ("Automatically translated").
const ActionAutoTranslated Action = 6
