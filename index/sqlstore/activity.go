package sqlstore

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// The writer's own count of user_activity (PostgreSQL). A change's
// INSERT fired user_activity_insert (migration 0031), a statement
// trigger that reads the statement's rows from a transition table and
// upserts their counts: 30-35 µs of the server's CPU for an edit's one
// change, a fifth of the INSERT (pg_stat_statements at concurrency 8,
// issue 31). The writer knows what it counts before it sends the
// change: its author, project, language and action. So on PostgreSQL
// every write transaction of the writer says so (activityCounted, set
// with the batch's lock, lockBatch), the trigger does nothing in it
// (migration 0085), and the writer adds up its changes (countActivity)
// and stores the sums once per batch, in key order, with the statistics
// (flushActivity): an edit batch's one statement instead of a trigger
// per change. Every change the writer inserts goes through insertChange
// or insertChanges, which count it; any other transaction (none inserts
// changes today) is counted by the trigger as before. SQLite keeps its
// row trigger, a call inside the process.

// activityCounted is the setting that tells user_activity_insert that
// the transaction's changes are counted by the writer.
const activityCounted = `set_config('tolk.activity_counted', 'on', true)`

// activityKey is a user_activity row.
type activityKey struct {
	user, project int64
	language      string
	action        index.Action
}

// creditedActions are the actions user_activity counts (userActivityRecount).
var creditedActions = func() map[index.Action]bool {
	m := map[index.Action]bool{index.StatsSuggestedAction: true, index.StatsUploadedAction: true,
		index.StatsCommentedAction: true}
	for _, a := range index.StatsTranslatedActions {
		m[a] = true
	}
	return m
}()

// countActivity counts change c, just queued or inserted, in the current
// write's user_activity sums (PostgreSQL's writer only).
func (tx *Tx) countActivity(c *index.Change) {
	if tx.conn == nil || c.AuthorID == 0 || c.ProjectID == 0 || !creditedActions[c.Action] {
		return
	}
	if tx.activity == nil {
		tx.activity = map[activityKey]int64{}
	}
	tx.activity[activityKey{c.AuthorID, c.ProjectID, c.LanguageCode, c.Action}]++
}

// keepActivity adds the current write's sums to its batch's, once the
// write succeeded (endWrite).
func (tx *Tx) keepActivity() {
	if len(tx.activity) == 0 {
		return
	}
	if tx.batchActivity == nil {
		tx.batchActivity = map[activityKey]int64{}
	}
	for k, n := range tx.activity {
		tx.batchActivity[k] += n
	}
	clear(tx.activity)
}

// activityUpsertRows is the most rows one statement of flushActivity
// stores.
const activityUpsertRows = 32

// activityUpserts[n] stores n user_activity sums.
var activityUpserts = func() (q [activityUpsertRows + 1]string) {
	for n := 1; n <= activityUpsertRows; n++ {
		q[n] = `INSERT INTO user_activity (user_id, project_id, language_code, action, n)
		VALUES ` + activityRows(n) + `
		ON CONFLICT (user_id, project_id, language_code, action) DO UPDATE SET n = user_activity.n + excluded.n`
	}
	return q
}()

// activityFoldUpserts[n] is activityUpserts[n] running the batch's fold
// of the lists' counts (list_counts_fold, foldListCounts) first: the
// materialized CTE is read for the statement's first row, so the fold
// has upserted the lists' rows before any user_activity row is.
var activityFoldUpserts = func() (q [activityUpsertRows + 1]string) {
	for n := 1; n <= activityUpsertRows; n++ {
		q[n] = `WITH f AS MATERIALIZED (SELECT list_counts_fold())
		INSERT INTO user_activity (user_id, project_id, language_code, action, n)
		SELECT v.* FROM f, (VALUES ` + activityRows(n) + `) v
		ON CONFLICT (user_id, project_id, language_code, action) DO UPDATE SET n = user_activity.n + excluded.n`
	}
	return q
}()

// activityRows is n rows of a user_activity upsert's VALUES.
func activityRows(n int) string {
	return valueRows("(CAST(? AS BIGINT), CAST(? AS BIGINT), ?, CAST(? AS BIGINT), CAST(? AS BIGINT))", n)
}

// flushActivity queues the upserts of the batch's user_activity sums, in
// key order (two batches of other processes never wait on each other in
// a circle), before a write that is not narrow (which may delete the
// changes, users or projects they count) and at the batch's end.
func flushActivity(tx *Tx) error {
	if len(tx.batchActivity) == 0 {
		return nil
	}
	keys := slices.SortedFunc(maps.Keys(tx.batchActivity), func(a, b activityKey) int {
		return cmp.Or(cmp.Compare(a.user, b.user), cmp.Compare(a.project, b.project),
			strings.Compare(a.language, b.language), cmp.Compare(a.action, b.action))
	})
	for chunk := range slices.Chunk(keys, activityUpsertRows) {
		args := make([]any, 0, 5*len(chunk))
		for _, k := range chunk {
			args = append(args, k.user, k.project, k.language, int64(k.action), tx.batchActivity[k])
		}
		q := activityUpserts[len(chunk)]
		if tx.foldWithActivity {
			q, tx.foldWithActivity = activityFoldUpserts[len(chunk)], false
		}
		if err := tx.execLater(q, args...); err != nil {
			return fmt.Errorf("store the activity of %d users: %w", len(chunk), err)
		}
	}
	clear(tx.batchActivity)
	return nil
}
