package sqlstore

import (
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// recheckSuggestions runs the quality checks of the suggestions on units
// again and stores those whose outcome changed. A suggestion's checks
// (migration 0024) are run on its text as its unit's translation, so
// they depend on the unit's source string and flags as its own checks
// do: the writes that change those (a source string's edit or import,
// its extra flags, a component's check flags, format or languages) mark
// the units for checking wide, and their suggestions follow here, in the
// same transaction. A unit's own edit changes neither, so an edit does
// no suggestion work.
func (s *checkSettler) recheckSuggestions(units []checkedUnit) error {
	byID := make(map[int64]*checkedUnit, len(units))
	ids := make([]int64, 0, len(units))
	for i := range units {
		byID[units[i].id] = &units[i]
		ids = append(ids, units[i].id)
	}
	slices.Sort(ids)
	type stored struct {
		id, unitID     int64
		target, checks string
	}
	for chunk := range slices.Chunk(ids, maxInList) {
		list, args := idList(chunk)
		rows, err := s.tx.Query(`SELECT id, unit_id, target, checks FROM suggestions WHERE unit_id IN `+list+` ORDER BY id`, args...)
		if err != nil {
			return err
		}
		var found []stored
		for rows.Next() {
			var g stored
			if err := rows.Scan(&g.id, &g.unitID, &g.target, &g.checks); err != nil {
				rows.Close()
				return err
			}
			found = append(found, g)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, g := range found {
			u := *byID[g.unitID]
			sc, err := s.scope(u.translationID)
			if err != nil {
				return err
			}
			var extra string
			if u.sourceUnitID != 0 && !u.sourceUnit {
				if extra, err = s.sourceExtra(sc, u.sourceUnitID, len(units) >= parallelChecks); err != nil {
					return err
				}
			}
			// As suggestionChecks runs them when the suggestion is added.
			u.target, u.state = g.target, index.StateTranslated
			if err := s.tx.loadTerms(sc, []checkedUnit{u}, []string{extra}); err != nil {
				return err
			}
			// No history nor neighbours, as suggestionChecks.
			names := strings.Join(sc.run(&u, extra, unitContext{}), ",")
			if names == g.checks {
				continue
			}
			if _, err := s.tx.Exec(`UPDATE suggestions SET checks = ? WHERE id = ?`, names, g.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// recheckEmptySuggested runs recheckSuggestions on a translation's
// untranslated units that have suggestions: they have no checks of their
// own to settle (loadTranslation skips them), but suggestions are made
// on them most.
func (s *checkSettler) recheckEmptySuggested(translationID int64) error {
	rows, err := s.tx.Query(`SELECT `+checkedUnitColumns+` WHERE u.translation_id = ? AND u.state = 0
		AND u.has_suggestion != 0 ORDER BY u.id`, translationID)
	if err != nil {
		return err
	}
	var units []checkedUnit
	for rows.Next() {
		u, err := scanCheckedUnit(rows)
		if err != nil {
			rows.Close()
			return err
		}
		units = append(units, u)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if len(units) == 0 {
		return nil
	}
	return s.recheckSuggestions(units)
}
