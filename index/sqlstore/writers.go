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
//   - shared, when every write of the batch is a scoped one (writeUnit,
//     writeScoped: a unit edit, a suggestion's or comment's write, an
//     upload without a new author, each of which says what it writes
//     before it runs). The batch then locks each scope its objects are
//     in (lockScopes), in key
//     order so that two batches never wait on each other in a circle:
//     the unit's translation, or where its component propagates
//     translations the project's translations of its language
//     (propagation writes the same string in the project's other such
//     components, propagate.go), inside its component's (or project's)
//     key taken shared; a source string's write, or a comment's (which
//     may be stored on the source unit), takes that key exclusively
//     (migration 0095; before it, every write locked the whole
//     component or project). Batches of other processes, and of this
//     process's other writers, editing other scopes run at the same
//     time.
//   - exclusive otherwise, as every write did before: configuration,
//     imports, deletes, report comments (which may create a label),
//     uploads that credit an author by e-mail (which may create the
//     user) and the rest still run alone in the database, so nothing
//     they read or keep needs more thought.
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
//
// # Several writers in one process
//
// One process runs Options.Writers writer goroutines on PostgreSQL (two
// by default: see DefaultWriters for what a second costs; SQLite keeps
// one: its file takes one write transaction at a time), each with its own connection of the writers' pool (wdb) and
// its own batches. They were one because of the round trips: a lone
// writer sends its batch's statements, waits for the server, works out
// the next, and the machine idles between (PostgreSQL PATCHes at
// concurrency 8 left two cores ~40% idle). With two, one writer's batch
// runs while the other's waits on the server.
//
//   - Which writes: any. The writers take writes from the one queue
//     (db.writes), and a batch locks as a process's batch always did:
//     scoped writes (edits, suggestions, comments, uploads) shared, with
//     their scopes' keys, so two writers' batches of other translations
//     run at once, exactly as two processes' do; every other write takes
//     the write lock exclusively and waits for the other writer's batch
//     to commit, as it waits for another process's. Scopes are a
//     translation (a propagating component's: the project's translations
//     of that language) inside its component (migration 0095); batches
//     of the same translation take turns.
//   - How a batch forms: one writer at a time gathers (db.gather): it
//     waits for a write, takes those queued, waits for announced ones
//     (expect.go), and leaves the queue to the next writer as it starts
//     its transaction; so each batch holds what arrived while the other
//     writer was busy, and the wait for announced writes is one writer's.
//   - Lock order: a batch takes the write lock (shared or exclusive),
//     then the component keys (shared, or exclusive for a source
//     string's), then the translations' keys, each in key order
//     (lock_write_scopes), and its counters' rows in key order at its
//     end: two writers never wait on each other in a circle. Row-lock
//     deadlocks PostgreSQL breaks are retried (retryable), and a lock
//     waited past Options.LockTimeout fails the batch's writes.
//   - Per-process state that assumed one writer: the write clock and
//     write_log's place. A batch advances the clock with what it touched
//     after its commit, then records its write_log entry as applied
//     (ownWrite), in that order: a batch of the other writer that begins
//     meanwhile replays write_log past the applied place inside its
//     transaction (beginBatch), so it sees this batch's entry either
//     in the clock or in write_log, never in neither (its cached
//     translation reads and known contributors stay true). The webhooks
//     in memory are published before the clock moves, likewise. Each
//     batch's owed statistics, counts, activity and touched sets are its
//     Tx's own (writer_stats.go, tx.go). Read-your-writes holds as with
//     one writer: a write is answered after its batch advanced the clock.
//     The token, user and lookup caches are filled by readers and
//     checked against the clock as before; expect.go's counters are
//     atomic, its wait done by the gathering writer; DB.WriterBusy counts
//     the time at least one writer runs a batch.
//   - Background steps: the trigram index's step and has:glossary's
//     re-match are one goroutine that queues one write at a time
//     (trigram_pending.go), which a writer of their own runs, one a
//     transaction, beside the writers (upkeepWriter): never in an
//     edit's batch. The rechecks queue theirs to the writers, one at a
//     time (checks_recheck.go).

// postgresLocks returns the statements of the write lock and the scope
// locks of the index in schema, for the dialect: scopes for a batch of
// unit edits, scopesAny for one naming other objects (writeScope).
func postgresLocks(schema string) (exclusive, shared, scopes, scopesAny, tail string) {
	write, scope, part := lockSpace("write", schema), lockSpace("scope", schema), lockSpace("scope-part", schema)
	exclusive = fmt.Sprintf("SELECT pg_advisory_xact_lock(%d, 0)", write)
	// The setting makes the lists' counts wait for the batch's fold
	// (migration 0046), and the batch's change INSERTs note their keys
	// for it in place of changes_list_insert (0096, changesInsert:
	// tolk.changes_noted says so); they end with the transaction.
	// activityCounted: the writer counts its changes' user_activity
	// (activity.go). Three places take this lock and set these settings:
	// this statement, lock_write_unit (migration 0123, postgresLockUnit)
	// and lock_write_batch (0129, postgresLockBatch); the three must
	// change together (a new migration redefining both functions).
	// TestLockWriteUnitLocks and TestLockWriteBatchLocks compare them.
	shared = fmt.Sprintf("SELECT pg_advisory_xact_lock_shared(%d, 0), set_config('tolk.defer_counts', 'on', true), set_config('tolk.changes_noted', 'on', true), %s",
		write, activityCounted)
	// The scopes of the objects named, locked in key order, and the
	// newest change's time read after them (the clock guard of
	// runBatch), in one call of lock_write_scopes (migration 0095: a
	// translation's scope inside its component's, taken shared; 0076
	// for why a function), which keeps one plan: sent as a statement,
	// this was planned anew for every batch. A batch of unit edits, the
	// common one, names units only.
	scopesAny = fmt.Sprintf("SELECT lock_write_scopes(%d, %d, ?, ?, ?, ?, ?)", scope, part)
	scopes = fmt.Sprintf("SELECT lock_write_scopes(%d, %d, ?, '{}', '{}', '{}', '{}')", scope, part)
	tail = fmt.Sprintf("%d, 1", write)
	return exclusive, shared, scopes, scopesAny, tail
}

// postgresLockUnit returns the statement that takes postgresLocks'
// shared lock, its settings and the scope locks of a batch of one unit
// edit in one call (migration 0123): one statement where two ran, and a
// function without lock_write_scopes' aggregate and SET clause.
func postgresLockUnit(schema string) string {
	return fmt.Sprintf("SELECT lock_write_unit(%d, %d, %d, ?)",
		lockSpace("write", schema), lockSpace("scope", schema), lockSpace("scope-part", schema))
}

// postgresLockBatch returns postgresLocks' scopes and scopesAny as
// calls that take its shared lock and settings too (migration 0129):
// one statement where a batch of several scoped writes sent two.
func postgresLockBatch(schema string) (scopes, scopesAny string) {
	write, scope, part := lockSpace("write", schema), lockSpace("scope", schema), lockSpace("scope-part", schema)
	return fmt.Sprintf("SELECT lock_write_batch(%d, %d, %d, ?, '{}', '{}', '{}', '{}')", write, scope, part),
		fmt.Sprintf("SELECT lock_write_batch(%d, %d, %d, ?, ?, ?, ?, ?)", write, scope, part)
}

// oldLockScopes returns the statements of postgresLocks for a schema
// migrated up to before migration 0095, which locks whole components
// with lock_scopes (0076).
func oldLockScopes(space int32) (scopes, scopesAny string) {
	return fmt.Sprintf("SELECT lock_scopes(%d, ?, '{}', '{}', '{}')", space),
		fmt.Sprintf("SELECT lock_scopes(%d, ?, ?, ?, ?)", space)
}

// scoped reports whether every write of the batch is a scoped one, and
// the objects whose scopes they write, by kind (writeScope). A shared
// write (the trigram index's step, which locks the rows it takes:
// trigram_pending.go) writes in no scope, but must not take the
// exclusive lock: it would wait for every batch under way, this
// process's other writers' too, and every batch begun meanwhile would
// wait for it (a process killed inside a write held them until
// PostgreSQL noticed).
func scoped(live []*writeRequest) (ids [scopeKinds][]int64, ok bool) {
	for _, r := range live {
		switch {
		case r.scope.id != 0:
			ids[r.scope.kind] = append(ids[r.scope.kind], r.scope.id)
		case !r.shared:
			return ids, false
		}
	}
	for k := range ids {
		if ids[k] == nil {
			ids[k] = []int64{} // an empty array, not NULL
		}
	}
	return ids, true
}

// writeScope is what a scoped write names before it runs, so that its
// batch can lock the scope (the component, or the project when the
// component propagates translations) of: a unit (an edit, a new
// suggestion or comment), a suggestion's unit (accepting, voting on or
// deleting it), a comment's unit (resolving or deleting it), or a
// translation (an upload).
type writeScope struct {
	kind scopeKind
	id   int64
}

type scopeKind uint8

const (
	scopeUnit     scopeKind = iota
	scopeWideUnit           // a unit, writing its component's source string too (a comment)
	scopeSuggestion
	scopeComment
	scopeTranslation
	scopeKinds
)

// lockBatch queues the write lock for the batch (pipeline.go), shared
// when every write in it is scoped (then the scopes too), and reports
// whether it also queued the newest change's time's read into last.
func (db *DB) lockBatch(tx *Tx, live []*writeRequest, last *string) (read bool, err error) {
	d := db.dialect
	if d.lockWrites == "" {
		return false, nil
	}
	ids, ok := scoped(live)
	if !ok || d.lockShared == "" {
		if d.shared {
			// The writer counts its changes' user_activity (activity.go).
			return false, tx.execLater(d.lockWrites + ", " + activityCounted)
		}
		return false, tx.execLater(d.lockWrites)
	}
	unitsOnly := len(ids[scopeWideUnit])+len(ids[scopeSuggestion])+len(ids[scopeComment])+len(ids[scopeTranslation]) == 0
	if unitsOnly && len(ids[scopeUnit]) == 1 && d.lockUnit != "" {
		// A batch of one unit edit (most batches at concurrency 1): the
		// lock, its settings and the scopes in one call.
		tx.deferCounts = true
		return true, tx.queryRowLater(d.lockUnit, scanOne(last), ids[scopeUnit][0])
	}
	scopes, scopesAny := d.lockScopes, d.lockScopesAny
	if d.lockBatch != "" {
		// The shared lock and its settings in the scopes' call.
		scopes, scopesAny = d.lockBatch, d.lockBatchAny
	} else if err := tx.execLater(d.lockShared); err != nil {
		return false, err
	}
	tx.deferCounts = true
	if unitsOnly {
		return true, tx.queryRowLater(scopes, scanOne(last), ids[scopeUnit])
	}
	if d.lockScopesOld {
		// lock_scopes locks whole components: a wide unit is a unit.
		return true, tx.queryRowLater(d.lockScopesAny, scanOne(last), append(ids[scopeUnit], ids[scopeWideUnit]...),
			ids[scopeSuggestion], ids[scopeComment], ids[scopeTranslation])
	}
	return true, tx.queryRowLater(scopesAny, scanOne(last), ids[scopeUnit], ids[scopeWideUnit],
		ids[scopeSuggestion], ids[scopeComment], ids[scopeTranslation])
}

// foldListCounts adds the lists' counts the batch kept aside (changes,
// noted by their INSERTs, migration 0096; suggestions, 0057) to
// list_counts, in key order, once
// per batch: whatever its writes inserted, as the fold travels with the
// batch's other closing statements (pipeline.go).
//
// When the batch owes user_activity sums at its close (a batch of edits
// credited to their authors does), the fold is their first upsert's
// (activityFoldUpserts), which the batch's statistics (flushStats, next
// in endBatch) queue next: one statement a batch fewer, each with its
// fixed price on the server (bind, portal, executor start and end). The
// fold still runs before those rows' upserts, as it did as a statement
// of its own, so every batch takes the lists' rows and then
// user_activity's in that order.
// A batch that owes none then (automatic edits, the indexes' upkeep:
// no change credited to a user; a batch with a write that is not narrow,
// which flushes the sums before it, takes the write lock exclusively and
// defers no counts) still sends the fold as a statement of its own
// (TestBatchFoldAloneRoundTrips).
func foldListCounts(tx *Tx) error {
	if !tx.deferCounts {
		return nil
	}
	if len(tx.batchActivity) > 0 {
		tx.foldWithActivity = true
		return nil
	}
	if err := tx.execLater(`SELECT list_counts_fold()`); err != nil {
		return fmt.Errorf("fold the lists' counts: %w", err)
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
	return db.writeScoped(ctx, writeScope{scopeUnit, unit}, fn)
}

// writeScoped is writeUnit for a write that names its scope by another
// object (writeScope): it writes nothing outside the scope of what s
// names but rows kept by increments (statistics, counts) and rows of its
// own (changes, suggestions, comments, votes, mentions, deliveries).
// A write that may create a user or a label, which other scopes share
// by name, must not be one.
func (db *DB) writeScoped(ctx context.Context, s writeScope, fn func(tx *Tx) error) error {
	if s.id <= 0 {
		return db.writeNarrow(ctx, fn) // nothing to lock: the write finds nothing
	}
	return db.enqueue(&writeRequest{ctx: ctx, fn: fn, narrow: true, scope: s})
}

// knownContributor reports whether the contributors row k (translation,
// user) is known to exist, so that an edit need not insert it again: a
// statement per edit, and on PostgreSQL a round trip. Rows are removed
// only with their translation or user, by writes that touch everything,
// which make every answer of the cache stale (in every process, through
// write_log); so the cache is trusted only inside a narrow write of a
// batch of narrow writes.
func knownContributor(tx *Tx, k [2]int64) bool {
	if !tx.cachesAnswer() {
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
