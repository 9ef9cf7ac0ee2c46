package index

// Actor is who makes a write: the signed-in user (recorded as the
// change's user) and the author the edit is credited to (usually the same
// user; an upload with authorship may name another). Zero IDs mean an
// automatic action, recorded with user and author null.
type Actor struct {
	UserID   int64
	AuthorID int64
}

// UserActor is a user acting as their own author.
func UserActor(u *User) Actor {
	if u == nil {
		return Actor{}
	}
	return Actor{UserID: u.ID, AuthorID: u.ID}
}

// EditAction is the change an edit from old to new state records, as the
// reference's Unit.generate_change (reference workspace §4.4): any needs
// editing state (10, 11, 12) is "Marked for edit" (37), approving is 36
// whatever the old state, a first translation 5 and any other change 2.
func EditAction(old, new State) Action {
	switch {
	case new.Fuzzy():
		return ActionMarkedEdit
	case new == StateApproved:
		return ActionApprove
	case old == StateEmpty && new.Translated():
		return ActionNew
	}
	return ActionChange
}

// UnitEdit is a new target and state for one unit.
type UnitEdit struct {
	Target []string
	State  State
	// Autofix applies the reference's automatic fixups to Target before
	// it is saved (checks.Autofix: a trailing "..." becomes "…" where the
	// source has it, stray zero-width spaces and control characters go,
	// leading and trailing whitespace follows the source, …), as the
	// reference does on every translator's save; the unit the write
	// returns lists those that changed something in Fixups.
	Autofix bool
	// Action is the change the edit records; 0 picks the reference's
	// action for the state transition (EditAction). The editor's revert
	// sets ActionRevert, as the reference records a revert as change 8.
	Action Action
}
