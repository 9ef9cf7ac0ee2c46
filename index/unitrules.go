package index

import (
	"fmt"
	"slices"
	"strings"
)

// This file holds the rules of unit writes: who may edit, add and remove
// strings, and which edits are valid, in the reference's order and with
// its messages (../shared/reference/weblate-writes.md §1.1–1.3, §4.3,
// §5.5; the reference's weblate/auth/permissions.py). They are pure
// functions of the principal and the objects, so that every storage
// engine applies the same rules inside its own write transaction.

// The reference's messages for refused unit writes.
const (
	msgReadOnly     = "The string is read-only."
	msgLocked       = "This translation is currently locked."
	msgNoPrivileges = "Insufficient privileges for saving translations."
	msgNoTemplate   = "Insufficient privileges for editing source strings."
	msgApprovedOnly = "Only reviewers can change approved strings."
	// msgAddSuggestion follows msgApprovedOnly where the component takes
	// suggestions, as the reference always says it.
	msgAddSuggestion   = " Please add a suggestion if you think the string should be changed."
	msgNoReview        = "Insufficient privileges for approving translations."
	msgReviewOff       = "Translation reviews are turned off."
	msgSourceReviewOff = "Source-string reviews are turned off."
	msgReadOnlyTrans   = "The translation is read-only."
	msgSourceProps     = "Source strings properties can be set only on source strings"
	msgSourceLanguage  = "Add the string to the source language instead."
	msgUnitsDisabled   = "Adding strings is disabled in the component configuration."
	// msgBaseFileOff departs from the reference, which answers
	// msgUnitsDisabled here too and so sends an administrator to
	// manage_units when edit_template ("Edit base file") is what is off.
	msgBaseFileOff = "Editing the base file is disabled in the component configuration."
	msgTerminology = "Cannot remove terminology translation. Remove the source string instead."
	msgBothFields  = "Please provide both state and target for a partial update"
)

// UnitPatch is a unit write (PATCH or PUT of /api/units/<id>/) as the
// client sent it, its fields already of the right types: nil means not
// sent. State holds any state the API accepts as a value (0, 10, 11, 12,
// 20, 30, 100); which of them may be set is a rule, checked here.
type UnitPatch struct {
	Target      *[]string
	State       *State
	Explanation *string
	ExtraFlags  *string
	// Labels are the ids of the labels a source unit is to have.
	Labels *[]int64
}

// UnitUpdate is what a unit write changes, as the rules settled it: nil
// fields are left alone.
type UnitUpdate struct {
	// Edit is the new target and state. For a monolingual template unit
	// the target is the new source string of every translation, and the
	// state stays what it was (source strings are read-only in
	// statistics).
	Edit        *UnitEdit
	Explanation *string
	ExtraFlags  *string
	// Labels are the ids of the labels the source unit is to have: the
	// store refuses those of other projects.
	Labels *[]int64
	// SameLabels are label ids sent to a translation's unit, which takes
	// none: the store accepts them only as the labels the unit shows
	// (its source unit's), which is what wlc's Unit.put sends back, and
	// refuses others with ErrSourceProperties.
	SameLabels *[]int64
}

// ErrSourceProperties is the reference's refusal of source string
// properties on a unit that is not a source unit, or without
// source.edit.
var ErrSourceProperties = denied(msgSourceProps)

// IsMonolingualSource reports whether the translation holds the
// component's source strings in a template (the source translation of a
// monolingual component): editing one of its units edits the source
// string of every translation.
func (t *Translation) IsMonolingualSource() bool { return t.IsSource && t.Component.IsMonolingual() }

// ReviewEnabled reports whether approving strings is possible in the
// translation: source review for a source translation, translation
// review otherwise, as the project sets them.
func (t *Translation) ReviewEnabled() bool {
	if t.IsSource {
		return t.Component.Project.SourceReview
	}
	return t.Component.Project.TranslationReview
}

// HasFlag reports whether a comma-separated flag list ("read-only,
// max-length:10") holds the flag name.
func HasFlag(flags, name string) bool {
	for _, f := range strings.Split(flags, ",") {
		f, _, _ = strings.Cut(strings.TrimSpace(f), ":")
		if f == name {
			return true
		}
	}
	return false
}

// UnitReadOnly reports whether a unit's target may not be edited: it is
// flagged read-only, it is a bilingual source string (the reference
// flags those read-only itself), it is a template's source string while
// the component does not allow editing them, or its state says so.
func UnitReadOnly(u *Unit, t *Translation) bool {
	switch {
	case HasFlag(u.Flags, "read-only") || HasFlag(u.ExtraFlags, "read-only"):
		return true
	case t.IsMonolingualSource():
		return !t.Component.EditTemplate
	case t.IsSource:
		return true
	}
	return u.State == StateReadOnly
}

// PluralCount is how many target forms a unit takes: the language's
// plural count for a plural string, one otherwise.
func PluralCount(u *Unit, t *Translation) int {
	if n := t.Language.Plural.Number; n > 0 {
		return PluralForms(u, n)
	}
	return 1
}

// denied is a refusal with the reference's 403 message.
func denied(msg string) error { return Errorf(ErrPermission, "%s", msg) }

// fieldError is a 400 naming one field.
func fieldError(attr, msg string) error {
	return &FieldError{Fields: map[string]FieldProblem{attr: {Code: "invalid", Detail: msg}}}
}

// CheckCanEdit is the reference's check_can_edit for a write needing
// perm in a translation: a locked component refuses every edit, then the
// permission, then (for a template's source strings) unit.template. The
// reference also requires an e-mail address; Tolk's users need none.
// A missing unit.review is named as such: the reference says "saving"
// for every permission, which sends a translator who may save looking
// for the wrong thing.
func CheckCanEdit(who *Principal, t *Translation, perm Permission) error {
	switch {
	case t.Component.Locked:
		return denied(msgLocked)
	case !who.CanTranslation(perm, t) && perm == PermUnitReview:
		return denied(msgNoReview)
	case !who.CanTranslation(perm, t):
		return denied(msgNoPrivileges)
	case t.IsMonolingualSource() && !who.CanTranslation(PermUnitTemplate, t):
		return denied(msgNoTemplate)
	}
	return nil
}

// CheckUnitEdit is the unit.edit check of a unit (the reference's
// check_edit_approved and check_can_edit; PATCH check 9): besides
// CheckCanEdit, an approved string is the reviewers' while reviews are
// on. Turning reviews off keeps the strings approved but drops the rule.
// The lock is checked first, where the reference would name the approval
// (its reviewer check fails on the lock too): the lock is the real
// reason. The API, the editor and uploads all ask this.
func CheckUnitEdit(who *Principal, u *Unit, t *Translation) error {
	if t.Component.Locked {
		return denied(msgLocked)
	}
	if u.State == StateApproved && t.ReviewEnabled() && !who.CanTranslation(PermUnitReview, t) {
		return denied(ApprovedOnlyMessage(&t.Component))
	}
	return CheckCanEdit(who, t, PermUnitEdit)
}

// ApprovedOnlyMessage is the refusal of an approved string to a
// translator. The reference always tells them to add a suggestion; Tolk
// does only where the component takes suggestions.
func ApprovedOnlyMessage(c *Component) string {
	if c.EnableSuggestions {
		return msgApprovedOnly + msgAddSuggestion
	}
	return msgApprovedOnly
}

// ReviewDenied is the reference's unit.review check on a translation
// (check_unit_review): why who may not approve or unapprove its strings,
// or "". Reviews must be on for the translation's side (source_review
// for the source strings, translation_review for the others), the
// translation must take edits at all (a bilingual source, or a template
// whose component does not let it be edited, is read-only), then
// CheckCanEdit for unit.review. The API's PATCH (a 400 on state), the
// editor's approve box and uploads (method=approve,
// conflicts=replace-approved) all ask this.
func ReviewDenied(who *Principal, t *Translation) string {
	switch {
	case !t.ReviewEnabled() && t.IsSource:
		return msgSourceReviewOff
	case !t.ReviewEnabled():
		return msgReviewOff
	case t.IsSource && (!t.IsMonolingualSource() || !t.Component.EditTemplate):
		return msgReadOnlyTrans
	}
	if err := CheckCanEdit(who, t, PermUnitReview); err != nil {
		return ErrorMessage(err)
	}
	return ""
}

// CheckUnitPatch decides a unit write by who, in the reference's order
// of checks (weblate-writes.md §1.1, checks 1–10; check 0, the fields'
// types, is the API's): 403 for what who may not do, a FieldError for
// what is invalid, else the update to apply. Two departures, keeping the
// wire shape: a locked component refuses source properties too (the
// reference checks its lock for translations only), and a state-only
// write gets the "provide both" answer rather than a plural count
// mismatch of a target nobody sent.
func CheckUnitPatch(who *Principal, u *Unit, t *Translation, p UnitPatch) (UnitUpdate, error) {
	var upd UnitUpdate
	if p.Labels != nil && !t.IsSource {
		// Better than the reference, which refuses any labels here and so
		// every PUT of a translation's unit (weblate-writes.md §1.1).
		upd.SameLabels, p.Labels = p.Labels, nil
	}
	if p.Explanation != nil || p.ExtraFlags != nil || p.Labels != nil {
		if !t.IsSource || !who.CanTranslation(PermSourceEdit, t) {
			return upd, ErrSourceProperties
		}
		if t.Component.Locked {
			return upd, denied(msgLocked)
		}
		if p.ExtraFlags != nil {
			if err := FlagsError("extra_flags", *p.ExtraFlags); err != nil {
				return upd, err
			}
		}
		upd.Explanation, upd.ExtraFlags, upd.Labels = p.Explanation, p.ExtraFlags, p.Labels
	}
	if p.Target == nil && p.State == nil {
		return upd, nil
	}
	var target []string
	if p.Target != nil {
		target = *p.Target
		if len(target) != PluralCount(u, t) {
			return upd, fieldError("target", "Number of plurals does not match")
		}
		// A template's target is the source string itself.
		source := u.Source
		if t.IsMonolingualSource() {
			source = nil
		}
		if err := TextError("target", target, source); err != nil {
			return upd, err
		}
	}
	if UnitReadOnly(u, t) {
		return upd, denied(msgReadOnly)
	}
	if len(target) == 0 || p.State == nil {
		return upd, &FieldError{Fields: map[string]FieldProblem{
			"state": {Code: "invalid", Detail: msgBothFields}, "target": {Code: "invalid", Detail: msgBothFields}}}
	}
	state := *p.State
	switch {
	case state == StateNeedsRewriting || state == StateNeedsChecking:
		return upd, fieldError("state", "This state cannot be set manually.")
	case state != StateEmpty && state != StateFuzzy && state != StateTranslated && state != StateApproved:
		return upd, fieldError("state", "Invalid state")
	case state == StateEmpty && !IsBlank(target):
		return upd, fieldError("state", "Can not use empty state with non empty target")
	case state != StateEmpty && IsBlank(target):
		return upd, fieldError("state", "Can not use non empty state with empty target")
	}
	if err := CheckUnitEdit(who, u, t); err != nil {
		return upd, err
	}
	if err := CheckDirectSave(who, t); err != nil {
		return upd, err
	}
	if state == StateApproved {
		if reason := ReviewDenied(who, t); reason != "" {
			return upd, fieldError("state", reason)
		}
	}
	if t.IsMonolingualSource() && !t.ReviewEnabled() {
		// Source strings keep their state (read-only in statistics)
		// unless the project reviews them.
		state = u.State
	}
	// With source review on, a template's string takes the review
	// states as a translation's does (the reference's source-string
	// review of monolingual formats): approved (30) by a reviewer as
	// ReviewDenied says, waiting for review (20) or needing editing (10).
	// A template's target is its source string: nothing to fix it by.
	upd.Edit = &UnitEdit{Target: target, State: state, Autofix: !t.IsMonolingualSource()}
	return upd, nil
}

// IsBlank reports whether every form of a text is empty.
func IsBlank(forms []string) bool {
	for _, f := range forms {
		if f != "" {
			return false
		}
	}
	return true
}

// ManageUnitsDenied is the reference's check_manage_units, shared by
// adding and removing strings (by the API, by upload): why t's strings
// may not be managed, or "". A monolingual component's strings live in
// its template, and the component must allow managing them: manage_units
// on and, for a template, edit_template on.
func ManageUnitsDenied(t *Translation) string {
	c := &t.Component
	mono := c.IsMonolingual()
	switch {
	case mono && !t.IsSource:
		return msgSourceLanguage
	case !c.ManageUnits:
		return msgUnitsDisabled
	case mono && !c.EditTemplate:
		return msgBaseFileOff
	}
	return ""
}

func checkManageUnits(t *Translation) error {
	if why := ManageUnitsDenied(t); why != "" {
		return denied(why)
	}
	return nil
}

// CheckAddUnit is the permission to add strings to t (403), checked
// before the payload is validated, as the reference does.
func CheckAddUnit(who *Principal, t *Translation) error {
	if err := checkManageUnits(t); err != nil {
		return err
	}
	return CheckCanEdit(who, t, PermUnitAdd)
}

// CheckDeleteUnit is the permission to remove u from t (403). Removing a
// translation's unit of a monolingual component is refused even to
// superusers: the string lives in the template.
func CheckDeleteUnit(who *Principal, u *Unit, t *Translation) error {
	if err := checkManageUnits(t); err != nil {
		return err
	}
	if t.Component.IsGlossary && !t.IsSource && HasFlag(u.Flags, "terminology") {
		return denied(msgTerminology)
	}
	return CheckCanEdit(who, t, PermUnitDelete)
}

// UnitAdd is a new string as the client sent it (POST .../units/):
// Context and Source are a monolingual key and value or a bilingual
// context and source; Target and State are nil when not sent.
type UnitAdd struct {
	Context string
	Source  []string
	Target  *[]string
	State   *State
}

// NewUnit is a string to add as the rules settled it: the target and
// state it takes in the translation it is added to. Added to a source
// translation, it is the source string (target = source, read-only) and
// every other translation of the component receives it untranslated;
// added to a bilingual translation, its source string is added to the
// source translation too when missing.
type NewUnit struct {
	Context string
	Source  []string
	Target  []string
	State   State
}

// ValidateNewUnit checks a new string against the reference's rules
// (weblate-writes.md §1.3) once CheckAddUnit passed, and settles its
// target and state. Whether it already exists is the store's check.
func ValidateNewUnit(who *Principal, t *Translation, a UnitAdd) (NewUnit, error) {
	n := NewUnit{Context: a.Context, Source: a.Source}
	if len(n.Source) == 0 {
		n.Source = []string{""}
	}
	var target []string
	if a.Target != nil {
		target = *a.Target
	}
	// The reference checks the source and the context; Tolk checks the
	// target too, since any of them ends up in a file.
	for _, s := range append(append([]string{a.Context}, n.Source...), target...) {
		if i := strings.IndexFunc(s, isControl); i >= 0 {
			return n, fieldError("non_field_errors", fmt.Sprintf("String contains control character: '\\x%02x'", s[i]))
		}
	}
	if err := checkNewUnitText(t, a.Context, n.Source, target); err != nil {
		return n, err
	}
	blank := IsBlank(n.Source)
	if a.State != nil {
		switch s := *a.State; {
		case s == StateEmpty && !blank:
			return n, fieldError("non_field_errors", "Empty state is supported for blank strings only.")
		case s != StateEmpty && blank:
			return n, fieldError("non_field_errors", "Blank strings require an empty state.")
		case s == StateApproved && !t.ReviewEnabled():
			return n, fieldError("state", "Approved state is not available as reviews are not enabled.")
		case s == StateApproved:
			if reason := ReviewDenied(who, t); reason != "" {
				return n, fieldError("state", reason)
			}
		}
	}
	if t.IsSource {
		n.Target, n.State = n.Source, StateReadOnly
		return n, nil
	}
	n.Target, n.State = target, StateEmpty
	if IsBlank(target) {
		if len(target) == 0 {
			n.Target = []string{""}
		}
		return n, nil
	}
	n.State = StateTranslated
	if a.State != nil && *a.State != StateEmpty {
		n.State = *a.State
	}
	// Tolk's states know one "needs editing"; the reference's finer
	// needs-rewriting (11) and needs-checking (12) are that.
	if n.State == StateNeedsRewriting || n.State == StateNeedsChecking {
		n.State = StateFuzzy
	}
	return n, nil
}

// checkNewUnitText applies CheckText to a new string, each text on the
// field the client named it with: a monolingual string's key and value,
// a bilingual one's context, source and target (against its source).
func checkNewUnitText(t *Translation, context string, source, target []string) error {
	keyAttr, sourceAttr := "context", "source"
	if t.Component.IsMonolingual() {
		keyAttr, sourceAttr = "key", "value"
	}
	if _, p, ok := CheckText([]string{context}, nil); !ok {
		return &FieldError{Fields: map[string]FieldProblem{keyAttr: p}}
	}
	if err := TextError(sourceAttr, source, nil); err != nil {
		return err
	}
	return TextError("target", target, source)
}

// isControl matches the characters the reference refuses in strings
// (CONTROLCHARS: C0 controls other than tab, newline and carriage return).
func isControl(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' }

// CheckDismissCheck decides whether who may dismiss or restore check
// name on a unit of t: the reference's unit.check (reviewers and up),
// and never an enforced check, which the reference's check_ignore_check
// refuses too (reference workspace §1.6).
func CheckDismissCheck(who *Principal, t *Translation, name string) error {
	if !who.CanTranslation(PermUnitCheck, t) {
		return denied("You do not have permission to dismiss checks.")
	}
	if slices.Contains(t.Component.EnforcedChecks, name) {
		return fieldError("check", "Enforced checks cannot be dismissed.")
	}
	return nil
}
