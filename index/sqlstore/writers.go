package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// Several writers. On PostgreSQL several Tolk processes may write one
// database, each through its own writer goroutine (writer.go). A batch
// used to take one advisory lock for the whole database first, so the
// processes wrote one at a time whatever they wrote. Now a batch takes
// the write lock (dialect.lockWrites) in one of two modes:
//
//   - shared, when every write of the batch is a scoped one (writeUnit:
//     a unit edit, which says which unit it edits before it runs). The
//     batch then locks each scope its units are in (lockScopes), in key
//     order so that two batches never wait on each other in a circle:
//     the unit's project when its component propagates translations
//     (propagation writes the same string in the project's other such
//     components, propagate.go), else its component. Batches of other
//     processes editing other scopes run at the same time.
//   - exclusive otherwise, as every write did before: configuration,
//     imports, uploads, deletes, comments and the rest still run alone
//     in the database, so nothing they read or keep needs more thought.
//
// What scoped writes in different scopes still share, and how:
//
//   - statistics rows (the project's, the language's, the whole site's)
//     and the other counters (user_activity, list_counts) are kept by
//     increments (UPSERT ... n = n + excluded.n) under row locks, never
//     by a value read and written back, so concurrent batches add up.
//     A batch stores its statistics once, just before it commits, in key
//     order (flushStats), and the changes lists' counters likewise
//     (foldListCounts, migration 0046: counted aside while the batch
//     runs, folded in key order at its end), so these row locks are
//     held only from the end of the batch to its commit;
//   - write_log: its entry is appended under a short exclusive lock that
//     the INSERT takes and the commit releases (logWrite), so entries
//     commit in seq order and a reader that saw seq n has seen every
//     write before it (read-your-writes across processes);
//   - the clock guard (change timestamps never decrease in id order,
//     insertChange) holds within a process; across processes two batches
//     that overlap may record changes whose timestamps are out of id
//     order by at most their overlap (milliseconds). Lists are ordered
//     by id, as before; a time bound of FindChanges may then include or
//     leave out a change stamped within that overlap of it;
//   - deadlocks the row locks may still form (two users' activity rows
//     taken in opposite orders by two batches) are broken by PostgreSQL,
//     and the writer runs the writes that lost again (retryable).
//
// Git jobs keep their own lease per component (joblock.go).

// postgresLocks returns the statements of the write lock and the scope
// locks of the index in schema, for the dialect.
func postgresLocks(schema string) (exclusive, shared, scopes, tail string) {
	write, scope := lockSpace("write", schema), lockSpace("scope", schema)
	exclusive = fmt.Sprintf("SELECT pg_advisory_xact_lock(%d, 0)", write)
	// The setting makes changes_list_insert count aside (migration 0046);
	// it ends with the transaction.
	shared = fmt.Sprintf("SELECT pg_advisory_xact_lock_shared(%d, 0), set_config('tolk.defer_counts', 'on', true)", write)
	// The scopes of the units in ?, locked in key order; the newest
	// change's time read after them (the clock guard of runBatch), in the
	// same round trip. hashint8 folds the ids into the lock's int; two
	// scopes that share a key only wait for each other.
	scopes = fmt.Sprintf(`SELECT (SELECT count(pg_advisory_xact_lock(%d, k)) FROM (
			SELECT DISTINCT hashint8(CASE WHEN c.settings::jsonb @> '{"AllowTranslationPropagation": true}'
				THEN -c.project_id ELSE c.id END) AS k
			FROM units u JOIN translations t ON t.id = u.translation_id JOIN components c ON c.id = t.component_id
			WHERE u.id = ANY(?) ORDER BY 1) s),
		coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '')`, scope)
	tail = fmt.Sprintf("%d, 1", write)
	return exclusive, shared, scopes, tail
}

// scoped reports whether every write of the batch is a scoped one, and
// the units they edit. A shared write (the trigram index's step, which
// locks the rows it takes: trigram_pending.go) edits no unit and needs
// no scope, but must not take the exclusive lock: it would wait for
// every other process's scoped batch, and this process's edits behind
// it in the writer's queue (a process killed inside a write held them
// until PostgreSQL noticed).
func scoped(live []*writeRequest) ([]int64, bool) {
	units := make([]int64, 0, len(live))
	for _, r := range live {
		switch {
		case r.unit != 0:
			units = append(units, r.unit)
		case !r.shared:
			return nil, false
		}
	}
	return units, true
}

// lockBatch takes the write lock for the batch, shared when every write
// in it is scoped (then the scopes too), and returns the newest change's
// time when it read it ("" when it did not: the caller reads it).
func (db *DB) lockBatch(tx *Tx, live []*writeRequest) (last string, read bool, err error) {
	d := db.dialect
	if d.lockWrites == "" {
		return "", false, nil
	}
	units, ok := scoped(live)
	if !ok || d.lockShared == "" {
		_, err := tx.Exec(d.lockWrites)
		return "", false, err
	}
	if _, err := tx.Exec(d.lockShared); err != nil {
		return "", false, err
	}
	tx.deferCounts = true
	var n int64
	err = tx.QueryRow(d.lockScopes, units).Scan(&n, &last)
	return last, err == nil, err
}

// foldListCounts adds the changes lists' counts the batch kept aside
// (migration 0046) to list_counts, in key order, once per batch.
func foldListCounts(tx *Tx) error {
	if !tx.deferCounts || !tx.changesInserted {
		return nil
	}
	tx.changesInserted = false
	_, err := tx.Exec(`SELECT list_counts_fold()`)
	if err != nil {
		return fmt.Errorf("fold the changes lists' counts: %w", err)
	}
	return nil
}

// maxWriteRetries bounds how often a write that lost a deadlock or a
// serialization conflict runs again.
const maxWriteRetries = 3

// retryable reports an error that another writer's transaction caused,
// which the same write run again would not meet: PostgreSQL's
// deadlock_detected and serialization_failure.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// writeUnit is writeNarrow for a write that edits unit (and, through
// propagation, the same string in its project's other components) and
// nothing else that another scoped write could: on PostgreSQL its batch
// may run beside other processes' batches that edit other scopes (see
// Several writers).
func (db *DB) writeUnit(ctx context.Context, unit int64, fn func(tx *Tx) error) error {
	if unit <= 0 {
		return db.writeNarrow(ctx, fn) // nothing to lock: the write finds nothing
	}
	return db.enqueue(&writeRequest{ctx: ctx, fn: fn, narrow: true, unit: unit})
}

// knownContributor reports whether the contributors row k (translation,
// user) is known to exist, so that an edit need not insert it again: a
// statement per edit, and on PostgreSQL a round trip. Rows are removed
// only with their translation or user, by writes that touch everything,
// which make every answer of the cache stale (in every process, through
// write_log); so the cache is trusted only inside a narrow write of a
// batch of narrow writes.
func knownContributor(tx *Tx, k [2]int64) bool {
	if tx.db == nil || !tx.narrowed || tx.widened || tx.batchWide {
		return false
	}
	_, at, ok := tx.db.contributors.get(k)
	return ok && !tx.db.clock.changedSince(at, 0)
}

// rememberContributors keeps the contributors rows a committed batch of
// narrow writes made sure of, for knownContributor.
func rememberContributors(tx *Tx) {
	if tx.db == nil || tx.batchWide || len(tx.batchContributed) == 0 {
		return
	}
	db := tx.db
	tag, global := db.clock.now(), db.clock.global.Load()
	for _, k := range tx.batchContributed {
		db.contributors.put(global, tag, k, struct{}{}, 1, maxCachedLookups)
	}
}
