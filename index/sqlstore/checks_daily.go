package sqlstore

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// The source checks that read other units' results and states,
// multiple_failures and long_untranslated, are computed by a daily pass
// (SettleBatchChecks), as the reference computes them in batches
// (BatchCheckMixin, its daily_update_checks): a write's own settle
// cannot know them without reading every translation of the string, and
// long_untranslated changes with the clock alone. A unit's settle keeps
// their rows as it finds them (checkSettler.batch); the pass replaces
// them, keeping a dismissal of one that still fails, and moves
// has_failing_check and the statistics as any settle does.

// batchChecks are the checks SettleBatchChecks computes.
var batchChecks = []string{"multiple_failures", "long_untranslated"}

// isBatchCheck says whether name is one of batchChecks.
func isBatchCheck(name string) bool { return slices.Contains(batchChecks, name) }

// longUntranslatedAge is how old a source string must be before
// long_untranslated may flag it: the reference's 90 days.
const longUntranslatedAge = 90 * 24 * time.Hour

// SettleBatchChecks settles multiple_failures and long_untranslated on
// the source strings of every component, one component per write (the
// writer serves other writes between them), and returns how many units'
// rows it changed.
//
//   - multiple_failures: the string's units in at least two other
//     translations of the component have a failing check (the
//     reference's MultipleFailingCheck). Unlike the reference, a
//     dismissed check does not count: it was judged not to be a failure,
//     and counting it would keep the source flagged for good.
//   - long_untranslated: the source string is older than 90 days (its
//     unit's timestamp) and its units over the component's translations,
//     the source's included, are translated at less than half the
//     component's translated percentage (the reference's
//     LongUntranslatedCheck).
//
// Flags apply as to every check (ignore-multiple-failures,
// ignore-all-checks); glossaries run none.
func (db *DB) SettleBatchChecks(ctx context.Context) (int, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT t.id FROM translations t JOIN components c ON c.id = t.component_id
		WHERE t.is_source != 0 AND c.is_glossary = 0 ORDER BY t.id`)
	if err != nil {
		return 0, formatError(err)
	}
	ids, err := scanIDs(rows)
	if err != nil {
		return 0, formatError(err)
	}
	total := 0
	for _, id := range ids {
		// n is counted once the write committed: the writer may run a
		// write again after losing to another process (retryable).
		var n int
		err := db.write(ctx, func(tx *Tx) (err error) {
			n, err = settleBatchChecks(tx, id)
			return err
		})
		switch {
		case errors.Is(err, index.ErrNotFound):
			// The component went between the list and its write.
		case err != nil:
			return total, err
		default:
			total += n
		}
	}
	return total, nil
}

// settleBatchChecks is SettleBatchChecks for the component whose source
// translation is sourceID, in one write.
func settleBatchChecks(tx *Tx, sourceID int64) (int, error) {
	sc, err := tx.checkScope(sourceID)
	if err != nil {
		return 0, err
	}
	if !sc.isSource || sc.glossary {
		return 0, nil
	}
	component := sc.ids.componentID
	want := map[int64][]string{} // source unit → the batch checks failing on it

	// multiple_failures: translations with a failing check, per string.
	failingIn, err := queryIDs(tx, `SELECT u.source_unit_id FROM checks k JOIN units u ON u.id = k.unit_id
		JOIN translations t ON t.id = u.translation_id
		WHERE t.component_id = ? AND t.is_source = 0 AND k.dismissed = 0 AND u.source_unit_id IS NOT NULL
		GROUP BY u.source_unit_id HAVING count(DISTINCT u.translation_id) >= 2`, component)
	if err != nil {
		return 0, err
	}
	for _, id := range failingIn {
		want[id] = append(want[id], "multiple_failures")
	}

	// long_untranslated: each old string's units and those not
	// translated (empty or needing editing: state < 20), against the
	// component's percentage, which is the same sums over every string.
	rows, err := tx.Query(`SELECT coalesce(u.source_unit_id, u.id), count(*),
		sum(CASE WHEN u.state < ? THEN 1 ELSE 0 END) FROM units u JOIN translations t ON t.id = u.translation_id
		WHERE t.component_id = ? GROUP BY coalesce(u.source_unit_id, u.id)`, index.StateTranslated, component)
	if err != nil {
		return 0, err
	}
	type count struct{ total, open int }
	counts := map[int64]count{}
	var all count
	for rows.Next() {
		var id int64
		var c count
		if err := rows.Scan(&id, &c.total, &c.open); err != nil {
			rows.Close()
			return 0, err
		}
		counts[id] = c
		all.total += c.total
		all.open += c.open
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if all.total > 0 {
		old, err := queryIDs(tx, `SELECT id FROM units WHERE translation_id = ? AND timestamp < ?`,
			sourceID, formatTime(tx.now.Add(-longUntranslatedAge)))
		if err != nil {
			return 0, err
		}
		componentPercent := index.Percent(all.total-all.open, all.total)
		for _, id := range old {
			c := counts[id]
			if c.total > 0 && 2*index.Percent(c.total-c.open, c.total) < componentPercent {
				want[id] = append(want[id], "long_untranslated")
			}
		}
	}

	// The flags: the component's, and each source unit's own (few have
	// any).
	own := map[int64][2]string{}
	rows, err = tx.Query(`SELECT id, flags, extra_flags FROM units WHERE translation_id = ?
		AND (flags != '' OR extra_flags != '')`, sourceID)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var id int64
		var fl [2]string
		if err := rows.Scan(&id, &fl[0], &fl[1]); err != nil {
			rows.Close()
			return 0, err
		}
		own[id] = fl
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	for id, names := range want {
		fl := own[id]
		flags := sc.unitFlags(fl[0], fl[1], fl[1], true)
		names = slices.DeleteFunc(names, func(name string) bool { return !checks.Enabled(name, flags) })
		if len(names) == 0 {
			delete(want, id)
		} else {
			want[id] = names
		}
	}

	// The rows the source units have of these checks now.
	s := &checkSettler{tx: tx, scopes: map[int64]*checkScope{}, deltas: map[int64]*index.Stats{}, batch: true}
	list, args := idList(batchChecks)
	have, err := s.existingQuery(`SELECT k.unit_id, k.name, k.dismissed FROM checks k JOIN units u ON u.id = k.unit_id
		WHERE u.translation_id = ? AND k.name IN `+list, append([]any{sourceID}, args...)...)
	if err != nil {
		return 0, err
	}
	var changed []int64
	for id := range mapsUnion(want, have) {
		var had []string
		for _, r := range have[id] {
			had = append(had, r.Name)
		}
		slices.Sort(had)
		slices.Sort(want[id])
		if !slices.Equal(had, want[id]) {
			changed = append(changed, id)
		}
	}
	if len(changed) == 0 {
		return 0, nil
	}
	slices.Sort(changed)
	n := 0
	for chunk := range slices.Chunk(changed, maxInList) {
		list, args := idList(chunk)
		existing, err := s.existingQuery(`SELECT unit_id, name, dismissed FROM checks WHERE unit_id IN `+list, args...)
		if err != nil {
			return n, err
		}
		rows, err := tx.Query(`SELECT `+checkedUnitColumns+` WHERE u.translation_id = ? AND u.id IN `+list,
			append([]any{sourceID}, args...)...)
		if err != nil {
			return n, err
		}
		var units []checkedUnit
		for rows.Next() {
			u, err := scanCheckedUnit(rows)
			if err != nil {
				rows.Close()
				return n, err
			}
			units = append(units, u)
		}
		if err := rows.Close(); err != nil {
			return n, err
		}
		for i := range units {
			u := &units[i]
			var names []string
			for _, r := range existing[u.id] {
				if !isBatchCheck(r.Name) {
					names = append(names, r.Name)
				}
			}
			names = append(names, want[u.id]...)
			if err := s.settle(u, names, existing[u.id]); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, s.finish()
}

// mapsUnion is the set of keys of a and b.
func mapsUnion[V, W any](a map[int64]V, b map[int64]W) map[int64]bool {
	out := make(map[int64]bool, len(a)+len(b))
	for k := range maps.Keys(a) {
		out[k] = true
	}
	for k := range maps.Keys(b) {
		out[k] = true
	}
	return out
}
