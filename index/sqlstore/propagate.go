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

// sameSource is a unit of another component sharing a string, with its
// translation. unit is read (findUnitTx) only when it is to be edited:
// shared holds what deciding that needs.
type sameSource struct {
	shared      sharedString
	translation index.Translation
}

// sameSourceUnits returns the units with u's source and context and as
// many plural forms in the peer translations of t (peerTranslations,
// locked components' among them), in the peers' order. They are read by
// one sameStrings query, each peer's unit by the id_hash its
// component's kind gives the string (the context alone for a monolingual
// one), so the cost grows with the project's components, not its
// strings.
func sameSourceUnits(tx *Tx, t *index.Translation, u *index.Unit) ([]sameSource, error) {
	peers, err := peerTranslations(tx, t)
	if err != nil || len(peers) == 0 {
		return nil, err
	}
	str := [2]string{index.JoinPlural(u.Source), u.Context}
	found, err := sameStrings(tx, peers, [][2]string{str})
	if err != nil {
		return nil, err
	}
	var out []sameSource
	for i := range peers {
		s, ok := found[sharedKey{peers[i].ID, sharedHash(&peers[i], str)}]
		if !ok || len(index.SplitPlural(s.target)) != len(u.Target) {
			continue // none, or another number of plural forms
		}
		out = append(out, sameSource{shared: s, translation: peers[i]})
	}
	return out, nil
}

// propagate copies u's target and state, just saved in t, to the same
// string's units in the project's other components (sameSourceUnits),
// each through its translation's editor, so that statistics, checks,
// pending marks and the change log follow as for any edit.
func propagate(tx *Tx, t *index.Translation, u *index.Unit, actor index.Actor) error {
	same, err := sameSourceUnits(tx, t, u)
	if err != nil {
		return err
	}
	target := index.JoinPlural(u.Target)
	for i := range same {
		s := &same[i]
		if s.shared.state == index.StateReadOnly || s.translation.Component.Locked ||
			(s.shared.state == u.State && s.shared.target == target) {
			// Not edited (read-only, locked, or already equal), but
			// whether it is inconsistent may change.
			tx.recheck(false, actor, s.shared.id)
			continue
		}
		su, err := findUnitTx(tx, s.shared.id)
		if err != nil {
			return err
		}
		e := editorOf(tx, &s.translation, actor)
		edited, err := e.edit(&su, index.UnitEdit{Target: u.Target, State: u.State}, index.ActionPropagated)
		if err != nil {
			return err
		}
		if !edited {
			tx.recheck(false, actor, su.ID)
		}
		if err := e.finish(); err != nil {
			return err
		}
	}
	return nil
}
