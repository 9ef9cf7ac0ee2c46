package sqlstore

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// TranslationAuthors returns, for each of the units given that has one,
// the user who made its current translation: the newest change of the
// unit by which a user makes a translation their own
// (index.MemoryMadeBy) whose target is the unit's target. Automatic
// translation from the memory credits them with what it copies, as the
// reference records its memory entry's user on the change.
func (db *DB) TranslationAuthors(ctx context.Context, unitIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	actions := make([]int64, len(index.MemoryMadeBy))
	for i, a := range index.MemoryMadeBy {
		actions[i] = int64(a)
	}
	al, aargs := idList(actions)
	for start := 0; start < len(unitIDs); start += memoryChunk {
		ul, uargs := idList(unitIDs[start:min(start+memoryChunk, len(unitIDs))])
		rows, err := db.r.QueryContext(ctx, `SELECT ch.unit_id, ch.user_id FROM changes ch
			JOIN units u ON u.id = ch.unit_id
			WHERE ch.unit_id IN `+ul+` AND ch.action IN `+al+` AND ch.user_id IS NOT NULL AND ch.target = u.target
			ORDER BY ch.id`, append(uargs, aargs...)...)
		if err != nil {
			return nil, formatError(err)
		}
		for rows.Next() {
			var unit, user int64
			if err := rows.Scan(&unit, &user); err != nil {
				rows.Close()
				return nil, formatError(err)
			}
			out[unit] = user // the newest wins
		}
		if err := rows.Close(); err != nil {
			return nil, formatError(err)
		}
	}
	return out, nil
}
