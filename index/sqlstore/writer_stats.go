package sqlstore

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// owedStats is what a batch's deferred writes owe one statistics row: a
// delta, and the newest change's time and author ("" for none).
type owedStats struct {
	delta                  index.Stats
	lastChange, lastAuthor string
}

// addOwed adds what o owes to what the row already owed.
func (o *owedStats) addOwed(n *owedStats) {
	o.delta.Add(n.delta, 1)
	if n.lastChange != "" {
		o.lastChange = n.lastChange
	}
	if n.lastAuthor != "" {
		o.lastAuthor = n.lastAuthor
	}
}

// flushStats stores what the batch's finished writes owe the statistics
// rows, each row once however many writes touched it (the rows of a
// component, project and language are touched by every edit in them),
// and up to statsUpsertRows rows per statement: on PostgreSQL each
// statement is a round trip the single writer waits for.
//
// It queues the batch's user_activity sums too (flushActivity), which
// are due at the same points.
func flushStats(tx *Tx) error {
	if err := flushActivity(tx); err != nil {
		return err
	}
	if len(tx.owed) == 0 {
		return nil
	}
	keys := slices.SortedFunc(maps.Keys(tx.owed), func(a, b scopeKey) int {
		return cmp.Or(strings.Compare(a.scope, b.scope), strings.Compare(a.key, b.key))
	})
	for chunk := range slices.Chunk(keys, statsUpsertRows) {
		args := make([]any, 0, len(chunk)*statsUpsertArgs)
		for _, k := range chunk {
			o := tx.owed[k]
			args = append(append(append(args, k.scope, k.key), statsValues(o.delta)...), o.lastChange, o.lastAuthor)
		}
		if err := tx.execLater(statsUpserts[len(chunk)], args...); err != nil {
			return fmt.Errorf("store statistics of %d rows from %s %s: %w", len(chunk), chunk[0].scope, chunk[0].key, err)
		}
	}
	clear(tx.owed)
	return nil
}

const (
	// statsUpsertRows is the most rows one statement of flushStats
	// stores; statsUpsertArgs are the values of each.
	statsUpsertRows = 16
	statsUpsertArgs = 24
)

// statsUpserts[n] stores n owed statistics rows.
var statsUpserts = func() (q [statsUpsertRows + 1]string) {
	row := "(" + strings.Repeat("?, ", statsUpsertArgs-1) + "?)"
	for n := 1; n <= statsUpsertRows; n++ {
		q[n] = `INSERT INTO stats (scope, scope_key, ` + statsColumns + `, last_change, last_author)
		VALUES ` + valueRows(row, n) + `
		ON CONFLICT (scope, scope_key) DO UPDATE SET ` + statsAddSet + `,
		last_change = CASE WHEN excluded.last_change != '' THEN excluded.last_change ELSE stats.last_change END,
		last_author = CASE WHEN excluded.last_author != '' THEN excluded.last_author ELSE stats.last_author END`
	}
	return q
}()
