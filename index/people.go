package index

import (
	"slices"
	"time"
)

// UserStats is what a user has done, as the reference's user statistics
// report it, counted from the change log over the projects a reader may
// see.
type UserStats struct {
	Translated int // changes to translations credited to the user
	Suggested  int // suggestions added
	Uploaded   int // translation files uploaded
	Commented  int // comments added
	Languages  int // distinct languages of the Translated changes
}

// The actions each UserStats field counts. Translated follows the
// reference, which adds one to its author's counter for every unit it
// saves (an edit, an approval, an accepted suggestion, each unit an
// upload writes); Tolk counts the changes those saves record instead of
// keeping a counter, so the count can leave out projects a reader may
// not see.
var (
	StatsTranslatedActions = []Action{ActionChange, ActionNew, ActionSuggestionAccept, ActionUpload,
		ActionSourceChange, ActionApprove, ActionMarkedEdit}
	StatsSuggestedAction = ActionSuggestion
	StatsUploadedAction  = ActionFileUpload
	StatsCommentedAction = ActionComment
)

// ContentActions returns the actions that change translated content (see
// Action.IsContent), in ascending order: the changes that credit their
// author in translator credits.
func ContentActions() []Action {
	out := make([]Action, 0, len(contentActions))
	for a := range contentActions {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// CreditFilter selects the changes a credits report counts: content
// changes (ContentActions) within one project, component or translation
// (the first non-zero ID), with Start <= timestamp <= End.
type CreditFilter struct {
	ProjectID     int64
	ComponentID   int64
	TranslationID int64
	Start, End    time.Time
	// LanguageCode, when set, keeps only changes in that language.
	LanguageCode string
	// AuthorID, when set, keeps only the changes credited to that user:
	// what a reader who may not see everyone's credits gets.
	AuthorID int64
}

// Credit is one author's count of changes in one language.
type Credit struct {
	Language    string // the language's name
	Email       string
	FullName    string
	ChangeCount int
}
