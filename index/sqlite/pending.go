package sqlite

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// PendingUnits counts what the next commit of a component owes its
// repository: units edited or added (in translations that have a file;
// a bilingual source translation has none), units removed, and files to
// add or delete. It backs needs_commit and pending_units.
func (db *DB) PendingUnits(ctx context.Context, componentID int64) (index.Pending, error) {
	var p index.Pending
	err := db.r.QueryRowContext(ctx, pendingCounts, componentID, componentID, componentID).
		Scan(&p.Units, &p.Removed, &p.Files)
	return p, formatError(err)
}

// pendingCounts counts a component's pending units, removed units and
// pending files; it takes the component's id three times.
const pendingCounts = `SELECT
	(SELECT count(*) FROM units u JOIN translations t ON t.id = u.translation_id
		WHERE t.component_id = ? AND t.filename != '' AND u.pending != 0),
	(SELECT count(*) FROM removed_units r JOIN translations t ON t.id = r.translation_id
		WHERE t.component_id = ?),
	(SELECT count(*) FROM pending_files WHERE component_id = ?)`
