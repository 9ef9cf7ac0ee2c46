package sqlstore

import (
	"slices"

	"github.com/tolk-project/tolk/index"
)

// Translation propagation (the reference's Unit.propagate): a string
// saved in a component that allows translation propagation reaches the
// units with the same source and context, in the same language, of the
// other components of its project that allow it too, in the same
// write, each recorded as "Propagated change" (77) by the same actor.
// A unit already holding the target and state is left alone, and so
// are read-only units and locked components' (the reference checks
// unit.edit on each: a lock denies it).

// sameSource is a unit of another component sharing a string, with its
// translation.
type sameSource struct {
	unit        index.Unit
	translation index.Translation
}

// sameSourceUnits returns the units with u's source and context in the
// peer translations of t (peerTranslations, locked components' among
// them). Each is looked up by the id_hash its component's kind gives the
// string (the context alone for a monolingual one), through the
// units_translation_hash index, so the cost grows with the project's
// components, not its strings.
func sameSourceUnits(tx *Tx, t *index.Translation, u *index.Unit) ([]sameSource, error) {
	peers, err := peerTranslations(tx, t)
	if err != nil {
		return nil, err
	}
	var out []sameSource
	for _, other := range peers {
		unitID, ok, err := unitByHash(tx, other.ID, index.IDHash(other.Component.IsMonolingual(), u.Source, u.Context))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		su, err := findUnitTx(tx, unitID)
		if err != nil {
			return nil, err
		}
		if su.Context != u.Context || !slices.Equal(su.Source, u.Source) || len(su.Target) != len(u.Target) {
			continue // a hash collision, or another number of plural forms
		}
		out = append(out, sameSource{unit: su, translation: other})
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
	for i := range same {
		s := &same[i]
		if s.unit.State == index.StateReadOnly || s.translation.Component.Locked {
			// Not edited, but whether it is inconsistent may change.
			tx.recheck(false, actor, s.unit.ID)
			continue
		}
		e := editorOf(tx, &s.translation, actor)
		edited, err := e.edit(&s.unit, index.UnitEdit{Target: u.Target, State: u.State}, index.ActionPropagated)
		if err != nil {
			return err
		}
		if !edited {
			tx.recheck(false, actor, s.unit.ID) // already equal: no longer inconsistent
		}
		if err := e.finish(); err != nil {
			return err
		}
	}
	return nil
}
