package index

import "time"

// Action is the kind of a Change, with the reference's numeric codes.
type Action int

// The actions Tolk records. Labels: the spec's where it lists the code, the
// reference's current labels otherwise.
const (
	ActionUpdate             Action = 0
	ActionChange             Action = 2
	ActionComment            Action = 3
	ActionNew                Action = 5
	ActionUpload             Action = 9
	ActionLock               Action = 14
	ActionUnlock             Action = 15
	ActionCommit             Action = 17
	ActionPush               Action = 18
	ActionReset              Action = 19
	ActionMerge              Action = 20
	ActionRebase             Action = 21
	ActionFailedMerge        Action = 22
	ActionFailedRebase       Action = 23
	ActionParseError         Action = 24
	ActionFailedPush         Action = 28
	ActionTranslationRemoved Action = 25
	ActionSourceChange       Action = 30
	ActionNewSource          Action = 31
	ActionApprove            Action = 36
	ActionMarkedEdit         Action = 37
	ActionComponentRemoved   Action = 38
	ActionNewUnit            Action = 44
	ActionNewContributor     Action = 45
	ActionAlertTriggered     Action = 47 // an add-on could not do its work: its name and why as the target, instead of stopping an import or a commit
	ActionLanguageAdded      Action = 48
	ActionProjectCreated     Action = 50
	ActionComponentCreated   Action = 51
	ActionHook               Action = 53
	ActionReplaceUpload      Action = 54
	ActionStringRepoUpdate   Action = 59
	ActionCommentResolve     Action = 65
	ActionCommentDelete      Action = 64
	ActionLabelAdd           Action = 86
	ActionLabelRemove        Action = 87
	ActionStringRemove       Action = 63
	ActionExplanation        Action = 66
	ActionStringRepoAdd      Action = 71
	ActionFileUpload         Action = 78
	ActionExtraFlags         Action = 79
	ActionForceSync          Action = 83
	ActionForceScan          Action = 84
	ActionRepoCleanup        Action = 88
	ActionEnforcedCheck      Action = 76
	ActionPropagated         Action = 77 // a translation copied from the same string in another component
	// Suggestions (reference workspace §2).
	ActionSuggestion        Action = 4
	ActionSuggestionAccept  Action = 7
	ActionSuggestionDelete  Action = 26
	ActionSuggestionCleanup Action = 29
	// ActionRevert is a translation set back to an earlier change's text.
	ActionRevert Action = 8

	// Tolk's own actions, numbered far above the reference's: it records
	// no change when a check is dismissed or restored.
	ActionCheckDismissed Action = 1000
	ActionCheckRestored  Action = 1001
)

var actionNames = map[Action]string{
	0: "Resource update", 1: "Translation completed", 2: "Translation changed",
	3: "Comment added", 4: "Suggestion added", 5: "New translation",
	6: "Automatically translated", 7: "Suggestion accepted", 8: "Translation reverted",
	9: "Translation uploaded", 13: "Source string added", 14: "Component locked",
	15: "Component unlocked", 17: "Committed changes", 18: "Changes pushed",
	19: "Repository reset", 20: "Repository merged", 21: "Repository rebased",
	22: "Repository merge failed", 23: "Repository rebase failed", 24: "Parsing failed",
	25: "Translation removed", 26: "Suggestion removed", 27: "Translation replaced",
	28: "Repository push failed", 29: "Suggestion removed during cleanup",
	30: "Source string changed", 31: "New string added", 32: "Bulk status changed",
	33: "Visibility changed", 34: "User added", 35: "User removed",
	36: "Translation approved", 37: "Marked for edit", 38: "Component removed",
	39: "Project removed", 41: "Project renamed", 42: "Component renamed",
	43: "Moved component", 44: "New string to translate", 45: "New contributor",
	46: "Announcement posted", 47: "Alert triggered", 48: "Language added",
	49: "Language requested", 50: "Project created", 51: "Component created",
	53: "Repository notification received", 54: "Translation replaced file by upload",
	55: "License changed", 59: "String updated in the repository", 63: "String removed",
	64: "Comment removed", 65: "Resolved comment", 66: "Explanation updated",
	70: "Saving string failed", 71: "String added in the repository",
	72: "String updated in the upload", 73: "String added in the upload",
	77: "Propagated change", 78: "File uploaded", 76: "Applied enforced check", 79: "Extra flags updated",
	83: "Forced synchronization of translations", 84: "Forced rescan of translations",
	86: "Label added", 87: "Label removed", 88: "Repository cleanup", 1000: "Check dismissed", 1001: "Check restored",
}

// Name returns the action's label, or "" for an unknown code.
func (a Action) Name() string { return actionNames[a] }

// Valid reports whether a is a known action code.
func (a Action) Valid() bool { _, ok := actionNames[a]; return ok }

// contentActions are the actions whose author counts as a translation's
// "last author" (reference: "Reading last author").
var contentActions = map[Action]bool{2: true, 5: true, 6: true, 7: true, 8: true, 9: true,
	27: true, 32: true, 36: true, 37: true, 30: true, 66: true, 79: true, 31: true}

// IsContent reports whether the action changes translated content.
func (a Action) IsContent() bool { return contentActions[a] }

// Change is one entry of the activity log. Zero IDs mean "absent": a
// change with UnitID 0 is not tied to a unit, UserID 0 means no user.
type Change struct {
	ID            int64
	Action        Action
	Timestamp     time.Time
	ProjectID     int64
	ComponentID   int64
	TranslationID int64
	UnitID        int64
	UserID        int64
	AuthorID      int64
	Target        string
	Details       string

	// Denormalized for serialization: slugs and usernames of the links.
	ProjectSlug   string
	ComponentSlug string
	LanguageCode  string
	UserName      string
	AuthorName    string
	// CategoryPath is the component's Component.CategoryPath.
	CategoryPath string
}

// ComponentFullSlug is the change's component as Component.FullSlug
// gives it.
func (c *Change) ComponentFullSlug() string { return FullSlug(c.CategoryPath, c.ComponentSlug) }

// ChangeFilter selects changes. Zero fields are not filters.
type ChangeFilter struct {
	ProjectID     int64
	ComponentID   int64
	TranslationID int64
	UnitID        int64
	Actions       []Action
	UserName      string
	After, Before time.Time // exclusive bounds when non-zero
	// HiddenProjects are the ids of projects whose changes are left out:
	// the private projects the reader may not see. Changes tied to no
	// project stay.
	HiddenProjects []int64
	Page           Page
}
