package index

import (
	"slices"
	"strings"
	"time"
)

// This file holds comments on strings (../shared/reference/
// weblate-workspace.md §3): their scopes, who may add, resolve and
// remove them, and the mentions they carry. Like unitrules.go, the rules
// are pure functions, run by the store inside its write transaction.

// CommentScope is where a comment belongs, chosen when it is added.
type CommentScope string

// The reference's three scopes (§3.1).
const (
	// ScopeGlobal comments are stored on the source unit, and so seen
	// from every language.
	ScopeGlobal CommentScope = "global"
	// ScopeTranslation comments are stored on the unit itself; source
	// units take none.
	ScopeTranslation CommentScope = "translation"
	// ScopeReport reports a bug in the source string: stored on the
	// source unit, only with the project's source review on, and marking
	// the source string as needing review.
	ScopeReport CommentScope = "report"
)

// CommentScopes are the scopes in the reference's order.
var CommentScopes = []string{string(ScopeGlobal), string(ScopeTranslation), string(ScopeReport)}

// SourceNeedsReview is the label a report comment puts on a bilingual
// component's source string, created red on demand (§3.1, §7.1).
const (
	SourceNeedsReview      = "Source needs review"
	SourceNeedsReviewColor = "red"
)

// Comment is a remark on a unit. Global and report comments are stored
// on the source unit, translation comments on the unit itself.
type Comment struct {
	ID     int64
	UnitID int64
	// Comment is the text, Markdown.
	Comment string
	// UserID is the author, 0 once the account is removed; Username is
	// filled by finders.
	UserID    int64
	Username  string
	Timestamp time.Time
	Resolved  bool
}

// NewComment is a comment to add, as the API read it: the text and scope
// required, the time and the author's e-mail optional (importing
// history).
type NewComment struct {
	Scope   CommentScope
	Comment string
	// Timestamp, when not zero, is when the comment was made.
	Timestamp time.Time
	// UserEmail, when not "", names its author by e-mail address.
	UserEmail string
}

// CommentFilter selects comments. Zero fields are not filters.
type CommentFilter struct {
	// UnitID keeps the comments stored on this unit.
	UnitID int64
	// SourceUnitID, with UnitID, also keeps those stored on this unit
	// (a translation's unit with its source string's comments).
	SourceUnitID int64
	Page         Page
}

// Messages of refused comment writes. The reference's, but for the two
// it lacks: it has no API to resolve or remove a comment (§3.4). A
// refused comment.add is the framework's default (MsgNoPermission), as
// the reference's check gives it no reason.
const (
	msgReportDisabled = `"report" is not a valid choice as source review is disabled.`
	msgSourceScope    = `"translation" is not a valid choice for source units.`
	msgResolveDenied  = "You do not have permission to resolve this comment."
	msgDeleteDenied   = "You do not have permission to remove this comment."
)

// CheckAddComment decides a comment on u (of translation t) by who, in
// the reference's order (its UnitViewSet.comments and CommentSerializer):
// comment.add on the translation first (403), then the scope (400 on
// scope), then project.edit for a given time or author (403). It returns
// the unit the comment is stored on: u for the translation scope, its
// source unit otherwise.
func CheckAddComment(who *Principal, u *Unit, t *Translation, c *NewComment) (int64, error) {
	if err := CheckCanComment(who, t); err != nil {
		return 0, err
	}
	pid := t.Component.ProjectID
	switch {
	case c.Scope == ScopeReport && !t.Component.Project.SourceReview:
		return 0, fieldError("scope", msgReportDisabled)
	case c.Scope == ScopeTranslation && t.IsSource:
		return 0, fieldError("scope", msgSourceScope)
	}
	if (!c.Timestamp.IsZero() || c.UserEmail != "") && !who.Can(PermProjectEdit, pid) {
		return 0, denied(MsgNoPermission)
	}
	if c.Scope == ScopeTranslation || u.SourceUnitID == 0 {
		return u.ID, nil
	}
	return u.SourceUnitID, nil
}

// CheckCanComment is comment.add on translation t, the reference's first
// check of a comment, before it reads the comment's fields.
func CheckCanComment(who *Principal, t *Translation) error {
	if !who.CanTranslation(PermCommentAdd, t) {
		return denied(MsgNoPermission)
	}
	return nil
}

// CheckResolveComment is the reference's comment.resolve: the resolvers'
// permission in the comment's project, or being its author.
func CheckResolveComment(who *Principal, c *Comment, t *Translation) error {
	if isAuthor(who, c, t.Component.ProjectID) || who.CanTranslation(PermCommentResolve, t) {
		return nil
	}
	return denied(msgResolveDenied)
}

// CheckDeleteComment is the reference's comment.delete: the permission
// in the comment's project, or being its author.
func CheckDeleteComment(who *Principal, c *Comment, t *Translation) error {
	if isAuthor(who, c, t.Component.ProjectID) || who.CanTranslation(PermCommentDelete, t) {
		return nil
	}
	return denied(msgDeleteDenied)
}

// isAuthor reports whether who wrote c, a comment in the project with
// the given id, and may act there: a read token changes nothing, not
// even its user's own comments, and a project's token acts in its
// project only.
func isAuthor(who *Principal, c *Comment, projectID int64) bool {
	if who.Anonymous() || !who.User.IsActive || c.UserID == 0 || c.UserID != who.User.ID {
		return false
	}
	return who.Scope != ScopeRead && (who.ScopeProjectID == 0 || who.ScopeProjectID == projectID)
}

// Mentions returns the usernames a comment mentions with @username, each
// once, in the order first mentioned. A mention is an @ at the start or
// after a character that cannot be part of a username (so that e-mail
// addresses are not mentions), followed by username characters; a
// trailing full stop ends the sentence, not the name.
func Mentions(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && isUsernameByte(text[i-1])) {
			continue
		}
		j := i + 1
		for j < len(text) && isUsernameByte(text[j]) {
			j++
		}
		name := strings.TrimRight(text[i+1:j], ".")
		if name != "" && CheckUsername(name) == nil && !slices.Contains(out, name) {
			out = append(out, name)
		}
		i = j - 1
	}
	return out
}

// isUsernameByte reports whether b may be part of a username (CheckUsername).
func isUsernameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("@.+-_", b) >= 0
}
