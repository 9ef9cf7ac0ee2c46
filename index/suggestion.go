package index

import (
	"slices"
	"time"
)

// This file holds suggestions (reference workspace §2): a proposed
// target for a unit that someone with the right to edit accepts, a
// reviewer rejects, or votes accept. The rules are pure functions of the
// principal and the objects, as the unit write rules (unitrules.go), so
// that every storage engine applies them inside its write transaction.

// Suggestion is a proposed target for a unit.
type Suggestion struct {
	ID     int64
	UnitID int64
	Target []string
	// UserID is who suggested it: 0 for an anonymous suggestion or a
	// user since deleted. Username is filled by finders ("" then).
	UserID   int64
	Username string
	// Address and Agent are the suggester's client address and user
	// agent, kept for spam reports (the reference's userdetails).
	Address, Agent string
	Timestamp      time.Time
	// Votes is the net sum of the votes, +1 and -1 each.
	Votes int
}

// SuggestionFilter selects suggestions: those of one unit, or (UnitID 0)
// all of them but those of the projects in HiddenProjects, newest first.
type SuggestionFilter struct {
	UnitID         int64
	HiddenProjects []int64
	Page           Page
}

// SuggestionResult says what adding or voting did.
type SuggestionResult string

// The results of AddSuggestion and VoteSuggestion, with the reference's
// API names (weblate-workspace §2.4).
const (
	SuggestionCreated  SuggestionResult = "created"
	SuggestionVoted    SuggestionResult = "voted"
	SuggestionAccepted SuggestionResult = "accepted"
)

// SuggestionOutcome is what a suggestion write did: the suggestion as it
// now is, or nil when it was accepted (and so is gone).
type SuggestionOutcome struct {
	Result     SuggestionResult
	Suggestion *Suggestion
}

// NewSuggestion is a suggestion as the client sent it, with who sent it.
type NewSuggestion struct {
	Target         []string
	UserID         int64 // 0: anonymous
	Address, Agent string
}

// SuggestionRights is what the rules let the suggester do beyond adding:
// vote (their own +1 on what they add, or a vote for the same text
// someone else suggested).
type SuggestionRights struct {
	Vote bool
}

// MsgNoPermission is the reference framework's (DRF's) message for a
// refused permission that its check gives no reason for: suggestions'
// and comments' here, edge.DefaultDenied and ErrPermission's default
// body at the edge.
const MsgNoPermission = "You do not have permission to perform this action."

// The reference's messages for suggestions (weblate/trans/models/
// suggestion.py, weblate/auth/permissions.py, weblate/api/views.py). A
// role that lacks the permission gets its framework's default, as a
// check_permission without a reason does there.
const (
	msgSuggestionsOff = "Suggestions are turned off for this language. Ask a project administrator to enable them."
	msgSimilar        = "Your suggestion is similar to the current translation!"
	msgDuplicate      = "Your suggestion already exists!"
	msgVotingOff      = "Suggestion voting is disabled."
	msgVotingOverride = "This translation is configured for suggestion voting. Add a suggestion instead of saving a direct translation."
)

// SuggestionVotingOnly reports whether a direct save needs unit.override
// in t: suggestion voting with automatic accepting (the reference's
// check_edit_approved).
func SuggestionVotingOnly(t *Translation) bool {
	return t.Component.SuggestionVoting && t.Component.SuggestionAutoaccept > 0
}

// CheckDirectSave is the suggestion-voting rule of a direct save of u's
// target (a PATCH, the editor's save): with voting and auto-accept on,
// only who holds unit.override may save rather than suggest.
func CheckDirectSave(who *Principal, t *Translation) error {
	if SuggestionVotingOnly(t) && !who.CanTranslation(PermUnitOverride, t) {
		return denied(msgVotingOverride)
	}
	return nil
}

// CheckSuggestionAdd is the reference's check_suggestion_add for u of t:
// a read-only unit and suggestions turned off are refused whoever asks,
// then the lock, then the role. anonymous says whether anonymous users
// may suggest on public projects (the reference's Guests team; the
// operator may turn it off): on a protected or private project they may
// not, as they hold no role there.
func CheckSuggestionAdd(who *Principal, u *Unit, t *Translation, anonymous bool) (SuggestionRights, error) {
	var r SuggestionRights
	if UnitReadOnly(u, t) {
		return r, denied(msgReadOnly)
	}
	if why := SuggestionAddDenied(who, t, anonymous); why != "" {
		return r, denied(why)
	}
	if who.Anonymous() {
		return r, nil
	}
	r.Vote = t.Component.SuggestionVoting && who.CanTranslation(PermSuggestionVote, t)
	return r, nil
}

// SuggestionAddDenied is CheckSuggestionAdd on translation t short of a
// unit (an upload of suggestions asks it): why who may not suggest
// there, or "". Suggestions turned off, then the lock, then the role.
func SuggestionAddDenied(who *Principal, t *Translation, anonymous bool) string {
	switch {
	case !t.Component.EnableSuggestions:
		return msgSuggestionsOff
	case t.Component.Locked:
		return msgLocked
	case who.Anonymous():
		if !anonymous || t.Component.Project.AccessControl != AccessPublic {
			return MsgNoPermission
		}
	case !who.CanTranslation(PermSuggestionAdd, t):
		return MsgNoPermission
	}
	return ""
}

// ValidateSuggestion checks a suggested target for u as a unit edit's
// target is checked: the plural count, then the text rule (CheckText,
// the reference's TOO_LONG among it). Blank forms were refused by the
// API; the similar and duplicate rules need the stored suggestions and
// are the store's (SuggestionSimilar, SuggestionDuplicate).
func ValidateSuggestion(u *Unit, t *Translation, target []string) error {
	if len(target) != PluralCount(u, t) {
		return fieldError("target", "Number of plurals does not match")
	}
	source := u.Source
	if t.IsMonolingualSource() {
		source = nil
	}
	return TextError("target", target, source)
}

// SuggestionSimilar is the reference's SIMILAR: a suggestion of the text
// a translated unit already holds.
func SuggestionSimilar(u *Unit, target []string) error {
	if u.State.Translated() && slices.Equal(u.Target, target) {
		return fieldError("target", msgSimilar)
	}
	return nil
}

// ErrSuggestionDuplicate is the reference's DUPLICATE: the same text is
// already suggested on the unit, by the same user or with no vote to
// give it.
var ErrSuggestionDuplicate error = &FieldError{Fields: map[string]FieldProblem{
	"target": {Code: "invalid", Detail: msgDuplicate}}}

// CheckSuggestionAccept is the reference's suggestion.accept for u of t,
// which shares unit.edit's approved-string rule, and for approve (state
// 30) unit.review with reviews on. A read-only unit cannot take it.
func CheckSuggestionAccept(who *Principal, u *Unit, t *Translation, approve bool) error {
	if UnitReadOnly(u, t) {
		return denied(msgReadOnly)
	}
	switch {
	case t.Component.Locked:
		return denied(msgLocked)
	case !who.CanTranslation(PermSuggestionAccept, t):
		return denied(MsgNoPermission)
	case u.State == StateApproved && t.ReviewEnabled() && !who.CanTranslation(PermUnitReview, t):
		return denied(ApprovedOnlyMessage(&t.Component))
	case t.IsMonolingualSource() && !who.CanTranslation(PermUnitTemplate, t):
		return denied(msgNoTemplate)
	}
	if approve {
		if reason := ReviewDenied(who, t); reason != "" {
			return denied(reason)
		}
	}
	return nil
}

// AcceptState is the state an accepted suggestion gives its unit: 30
// when approving (checked by CheckSuggestionAccept), else 20. A
// template's source string keeps its state.
func AcceptState(u *Unit, t *Translation, approve bool) State {
	switch {
	case t.IsMonolingualSource():
		return u.State
	case approve:
		return StateApproved
	}
	return StateTranslated
}

// AcceptedState checks who may accept (and with approve, approve) a
// suggestion on u of t and returns the state the accepted text gives
// it: the rule every accept path (API, editor) hands the store.
func AcceptedState(who *Principal, u *Unit, t *Translation, approve bool) (State, error) {
	if err := CheckSuggestionAccept(who, u, t, approve); err != nil {
		return 0, err
	}
	return AcceptState(u, t, approve), nil
}

// CheckSuggestionDelete is the reference's suggestion.delete, or its
// check_delete_own: reviewers and administrators delete any suggestion,
// its author their own (anonymous suggestions have no author to claim
// them).
func CheckSuggestionDelete(who *Principal, s *Suggestion, t *Translation) error {
	if !who.Anonymous() && s.UserID != 0 && s.UserID == who.User.ID && who.User.IsActive &&
		who.CanTranslation(PermSuggestionAdd, t) {
		return nil
	}
	if !who.CanTranslation(PermSuggestionDelete, t) {
		return denied(MsgNoPermission)
	}
	return nil
}

// CheckSuggestionVote is the reference's vote rule: voting must be on
// for the component (403 "Suggestion voting is disabled."), then the
// role's suggestion.vote.
func CheckSuggestionVote(who *Principal, u *Unit, t *Translation) error {
	switch {
	case !t.Component.SuggestionVoting:
		return denied(msgVotingOff)
	case UnitReadOnly(u, t):
		return denied(msgReadOnly)
	case t.Component.Locked:
		return denied(msgLocked)
	case !who.CanTranslation(PermSuggestionVote, t):
		return denied(MsgNoPermission)
	}
	return nil
}

// AutoAccepts reports whether a suggestion with votes net votes is
// accepted in t: auto-accept on and reached.
func AutoAccepts(t *Translation, votes int) bool {
	n := t.Component.SuggestionAutoaccept
	return n > 0 && votes >= n
}

// Rejection is why a suggestion is deleted (DELETE /api/suggestions/<id>/,
// the editor's Delete): the reference's rejection_reason and is_spam.
// The reference reports spam to an antispam service (Akismet); Tolk
// reports it to none and keeps the mark in the change's details
// ("is_spam": true on "Suggestion removed"), where an administrator
// finds what was rejected as spam with /api/changes/?action=26.
type Rejection struct {
	Reason string
	IsSpam bool
}
