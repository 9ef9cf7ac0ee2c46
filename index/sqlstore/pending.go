package sqlstore

import (
	"context"
	"time"

	"github.com/tolk-project/tolk/index"
)

// PendingUnits counts what the next commit of a component owes its
// repository: units edited or added (in translations that have a file;
// a bilingual source translation has none), units removed, and files to
// add or delete. It backs needs_commit and pending_units.
func (db *DB) PendingUnits(ctx context.Context, componentID int64) (index.Pending, error) {
	var p index.Pending
	err := db.r.QueryRowContext(ctx, db.dialect.pendingCounts(), componentID, componentID, componentID).
		Scan(&p.Units, &p.Removed, &p.Files)
	return p, formatError(err)
}

// pendingUnits is the engine's FROM list and condition of the pending
// units (edited or added since their file's last commit), and the
// column of their ids: of one translation (its id the condition's
// argument) when translation is set, else of every translation, each
// unit joined to its translation t for the caller's condition on it
// (t.component_id, t.filename); rows joins the units themselves as u.
// Every statement of the pending units is built from it:
//
//   - SQLite reads units u through its partial index units_pending (on
//     translation_id, where pending);
//   - PostgreSQL reads the side table unit_pending p (migration 0114:
//     units_pending, an index of units on pending, kept an edit's UPDATE
//     from being heap-only). Its rows are (translation_id, unit_id),
//     kept by triggers on units in the same transaction, so the counts
//     and the ids need not read units at all; rows joins them by id.
//
// A translation's statements name no t: joined to translations there,
// FindPendingUnits' ids took a merge join over every unit in id order
// on PostgreSQL (EXPLAIN with sorts off, session 14), where alone they
// are a probe of the side table's key, as before.
func (d *dialect) pendingUnits(translation, rows bool) (from, where, id string) {
	if d.name == "postgres" {
		from, where = `translations t JOIN unit_pending p ON p.translation_id = t.id`, `true`
		if translation {
			from, where = `unit_pending p`, `p.translation_id = ?`
		}
		if rows {
			from += ` JOIN units u ON u.id = p.unit_id`
		}
		return from, where, `p.unit_id`
	}
	if translation {
		return `units u`, `u.translation_id = ? AND u.pending != 0`, `u.id`
	}
	return `translations t JOIN units u ON u.translation_id = t.id`, `u.pending != 0`, `u.id`
}

// pendingCounts counts a component's pending units, removed units and
// pending files; it takes the component's id three times.
func (d *dialect) pendingCounts() string {
	from, where, _ := d.pendingUnits(false, false)
	return `SELECT
	(SELECT count(*) FROM ` + from + ` WHERE ` + where + ` AND t.component_id = ? AND t.filename != ''),
	(SELECT count(*) FROM removed_units r JOIN translations t ON t.id = r.translation_id
		WHERE t.component_id = ?),
	(SELECT count(*) FROM pending_files WHERE component_id = ?)`
}

// DueCommits returns the components whose next commit is due at now:
// those whose oldest pending work (a unit edited or added in a
// translation with a file, a unit removed, a file to add or delete)
// began more than the component's commit_pending_age hours before now,
// or at all when that age is 0. The age counts from the oldest work, not
// the newest edit, so a translation edited every few minutes still
// commits; pending work of unknown start (no pending_since) is due. The
// components come ordered by id.
func (db *DB) DueCommits(ctx context.Context, now time.Time) ([]index.Component, error) {
	// One row per component with anything pending: the earliest start of
	// each kind of pending work, the least of them kept. The units part
	// reads only pending rows (the units_pending index; on PostgreSQL the
	// side table unit_pending, then each pending unit's row).
	from, where, _ := db.dialect.pendingUnits(false, true)
	rows, err := db.r.QueryContext(ctx, `SELECT `+componentColumns+`, coalesce(w.since, '')
		FROM (SELECT component_id, min(since) AS since FROM (
				SELECT t.component_id, min(u.pending_since) AS since
					FROM `+from+` WHERE `+where+` AND t.filename != '' GROUP BY t.component_id
				UNION ALL
				SELECT t.component_id, min(r.removed)
					FROM translations t JOIN removed_units r ON r.translation_id = t.id GROUP BY t.component_id
				UNION ALL
				SELECT component_id, min(created) FROM pending_files GROUP BY component_id) s
			GROUP BY component_id) w
		JOIN components c ON c.id = w.component_id JOIN projects p ON p.id = c.project_id
		ORDER BY c.id`)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.Component
	for rows.Next() {
		var cs componentScan
		var since string
		if err := rows.Scan(append(cs.dest(), &since)...); err != nil {
			return nil, formatError(err)
		}
		c, err := cs.component()
		if err != nil {
			return nil, err
		}
		age := time.Duration(c.CommitPendingAge) * time.Hour
		if age == 0 || parseTime(since).Before(now.Add(-age)) {
			out = append(out, c)
		}
	}
	return out, formatError(rows.Err())
}

// CountPendingUnits counts the units edited or added and not yet
// committed, across every component, as PendingUnits counts them for
// one (pendingUnits). It backs the pending edits metric.
func (db *DB) CountPendingUnits(ctx context.Context) (int, error) {
	from, where, _ := db.dialect.pendingUnits(false, false)
	var n int
	err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM `+from+` WHERE `+where+` AND t.filename != ''`).Scan(&n)
	return n, formatError(err)
}
