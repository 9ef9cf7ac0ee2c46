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

// sameSourceUnits returns the units with u's source and context in t's
// language in the other components of t's project that allow
// propagation, t's own component excepted; none when t's does not
// allow it. Each component is looked up by the id_hash its kind gives
// the string (the context alone for a monolingual one), through the
// units_translation_hash index, so the cost grows with the project's
// components, not its strings.
func sameSourceUnits(tx *Tx, t *index.Translation, u *index.Unit) ([]sameSource, error) {
	if !t.Component.AllowTranslationPropagation || t.IsSource {
		return nil, nil
	}
	rows, err := tx.Query(`SELECT t.id FROM translations t JOIN components c ON c.id = t.component_id
		WHERE c.project_id = ? AND c.id != ? AND t.language_code = ? AND t.is_source = 0 AND c.locked = 0
		ORDER BY t.id`, t.Component.ProjectID, t.ComponentID, t.LanguageCode)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []sameSource
	for _, id := range ids {
		other, err := cachedTranslation(tx, id)
		if err != nil {
			return nil, err
		}
		c := &other.Component
		if !c.AllowTranslationPropagation || c.IsGlossary != t.Component.IsGlossary {
			continue
		}
		unitID, ok, err := unitByHash(tx, id, index.IDHash(c.IsMonolingual(), u.Source, u.Context))
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
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
		if s.unit.State == index.StateReadOnly {
			continue
		}
		e := editorOf(tx, &s.translation, actor)
		if _, err := e.edit(&s.unit, index.UnitEdit{Target: u.Target, State: u.State}, index.ActionPropagated); err != nil {
			return err
		}
		if err := e.finish(); err != nil {
			return err
		}
	}
	return nil
}
