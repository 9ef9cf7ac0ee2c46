package sqlstore

import "github.com/tolk-project/tolk/index"

// Translation propagation (the reference's Unit.propagate): a string
// saved in a component that allows translation propagation reaches the
// units with the same source and context, in the same language, of the
// other components of its project that allow it too, in the same
// write, each recorded as "Propagated change" (77) by the same actor.
// A unit already holding the target and state is left alone, and so
// are read-only units and locked components' (the reference checks
// unit.edit on each: a lock denies it).

// propagate copies u's target and state, just saved in t, to the same
// string's units in the project's other components (propagateUnits).
func propagate(tx *Tx, t *index.Translation, u *index.Unit, actor index.Actor) error {
	return propagateUnits(tx, t, []*index.Unit{u}, actor)
}

// propagateUnits copies each of units' target and state, just saved in
// t, to the units with its source and context and as many plural forms
// in the peer translations of t (peerTranslations, locked components'
// among them), each through its translation's editor, so that
// statistics, checks, pending marks and the change log follow as for
// any edit. The peers' units are read by one sameStrings query for all
// of units (a merge upload's strings, where it was one per string), each
// peer's unit by the id_hash its component's kind gives the string (the
// context alone for a monolingual one), so the cost grows with the
// project's components, not its strings.
func propagateUnits(tx *Tx, t *index.Translation, units []*index.Unit, actor index.Actor) error {
	if len(units) == 0 {
		return nil
	}
	peers, err := peerTranslations(tx, t)
	if err != nil || len(peers) == 0 {
		return err
	}
	strs := make([][2]string, len(units))
	for i, u := range units {
		strs[i] = [2]string{index.JoinPlural(u.Source), u.Context}
	}
	found, err := sameStrings(tx, peers, strs)
	if err != nil {
		return err
	}
	for i, u := range units {
		target := index.JoinPlural(u.Target)
		for _, s := range found[i] {
			if len(index.SplitPlural(s.target)) != len(u.Target) {
				continue // another number of plural forms
			}
			if err := propagateTo(tx, &peers[s.peer], s.sharedString, u, target, actor); err != nil {
				return err
			}
		}
	}
	return nil
}

// propagateTo copies u's target (joined) and state to the peer's unit
// s, unless it is read-only, its component locked, or it holds them
// already.
func propagateTo(tx *Tx, peer *index.Translation, s sharedString, u *index.Unit, target string, actor index.Actor) error {
	if s.state == index.StateReadOnly || peer.Component.Locked || (s.state == u.State && s.target == target) {
		// Not edited (read-only, locked, or already equal), but
		// whether it is inconsistent may change.
		tx.recheck(false, actor, s.id)
		return nil
	}
	su, err := readPeerForEdit(tx, s.id)
	if err != nil {
		return err
	}
	e := editorOf(tx, peer, actor)
	edited, err := e.edit(&su, index.UnitEdit{Target: u.Target, State: u.State}, index.ActionPropagated)
	if err != nil {
		return err
	}
	if !edited {
		tx.recheck(false, actor, su.ID)
	}
	return e.finish()
}
