package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Group commit. SQLite has one writer, so concurrent writes queue for it
// whatever the index does; what the index chooses is how much each one
// costs. A transaction's fixed part (BEGIN, the clock guard, COMMIT's
// write of every page it dirtied to the WAL) was about half of a unit
// edit, and the pages it writes are mostly the same for every edit: the
// statistics rows of the component, project and language, the tail of
// the changes table and its indexes. So one goroutine, the writer, runs
// the writes that are waiting when it is free in one transaction, each
// in its own savepoint, and commits them together. Nothing waits for
// company: a write that finds the writer idle runs at once, alone.
//
// On PostgreSQL several writer goroutines take batches from the one
// queue, each on its own connection (writers.go: Several writers in one
// process); SQLite has one.
//
// Each write still succeeds or fails on its own: one whose function
// fails is rolled back to its savepoint and answers its error, the
// others commit. Every write is answered only after the commit that
// holds it, so an acknowledged write is as durable as before (in the
// WAL, which survives the process).

// maxWriteBatch bounds a batch, so that the first write of a long queue
// is not held back by the commit of hundreds of others. It must stay at
// most 64 on PostgreSQL, PGPROC_MAX_CACHED_SUBXIDS: a batch's writes are
// as many subtransactions (each write's savepoint, nested: runBatch), and
// past 64 subtransaction ids the writer's backend's cache of them
// overflows: every snapshot taken meanwhile is then suboverflowed, and
// every backend's visibility checks read pg_subtrans.
const maxWriteBatch = 64

// writeRequest is one write waiting for the writer.
type writeRequest struct {
	ctx    context.Context
	fn     func(*Tx) error
	narrow bool             // see writeNarrow
	upkeep bool             // the trigram index's step: no signal to it (trigram_pending.go)
	shared bool             // runs beside other processes' scoped writes, locking its own rows (see scoped)
	scope  writeScope       // see writeScoped; id 0 for any other write
	edit   editRead         // see writeUnitEdit; unit 0 for any other write
	tries  int              // runs that lost to another writer (retryable)
	done   chan writeResult // buffered: the writer never blocks on it
}

type writeResult struct {
	err error
	// panicked is what fn panicked with, re-raised in the caller's
	// goroutine, where its handler's recovery expects it.
	panicked any
	stack    []byte
}

// panicError carries a write function's panic out of its savepoint.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("write panicked: %v", p.value) }

// errRunApart says a batch must run again with each write's
// statements sent before its savepoint ends (see runBatch).
var errRunApart = errors.New("sqlstore: a batch's pipelined write failed")

// errClosed answers writes that arrive after Close.
var errClosed = errors.New("sqlstore: index closed")

// write runs fn in a write transaction, possibly shared with other
// writes (see Group commit), and returns once that transaction has
// committed or fn's part of it was rolled back. fn must not call write.
//
// A write whose ctx ends before fn starts is not run and returns the
// context's error. Once fn has started it runs to its end whatever ctx
// does: an interrupted SQLite statement rolls back the whole transaction,
// which holds other writes too.
func (db *DB) write(ctx context.Context, fn func(tx *Tx) error) error {
	return db.enqueue(&writeRequest{ctx: ctx, fn: fn})
}

// writeNarrow is write for a write that changes nothing but the units of
// the translations its unit editors open (unless it calls Tx.widen),
// changes, contributors, statistics and rows no cache holds (webhook
// deliveries, a token's last use; not users: PostgreSQL's token cache,
// tokenUsers, holds them and only a write that is not narrow makes it
// stale), and reads no statistics row. It
// makes stale only the cached answers about what it touched, and its
// statistics are summed with the rest of its batch's and stored once,
// before the batch commits or a write that is not narrow runs.
func (db *DB) writeNarrow(ctx context.Context, fn func(tx *Tx) error) error {
	return db.enqueue(&writeRequest{ctx: ctx, fn: fn, narrow: true})
}

func (db *DB) enqueue(req *writeRequest) error {
	req.done = make(chan writeResult, 1)
	queue := db.writes
	if req.upkeep && db.upkeepWrites != nil {
		queue = db.upkeepWrites
	}
	select {
	case queue <- req:
		db.queuedWrite(req.ctx) // the writer holds it (expect.go)
	case <-req.ctx.Done():
		return req.ctx.Err()
	case <-db.closing:
		return errClosed
	}
	res := <-req.done
	if res.panicked != nil {
		panic(fmt.Sprintf("%v\n\nwrite function's goroutine stack:\n%s", res.panicked, res.stack))
	}
	return res.err
}

// writer runs the write batches until stop closes. The writes still
// queued then are answered by enqueue, which sees db.closing. Each
// writer forms its batch holding db.gather (see Several writers in one
// process), and runs it without.
func (db *DB) writer(stop <-chan struct{}) {
	defer db.closeWriteConn(false) // SQLite's (writeconn.go), back to the pool
	batch := make([]*writeRequest, 0, maxWriteBatch)
	for {
		var ok bool
		if batch, ok = db.gatherBatch(stop, batch[:0]); !ok {
			return
		}
		began := time.Now()
		db.busy.start()
		db.commitBatch(batch)
		db.busy.stop()
		db.expected.took.Store(int64(time.Since(began)))
		clear(batch) // let the finished requests go
	}
}

// upkeepWriter runs the background steps' writes on PostgreSQL, one a
// transaction, until stop closes. They used to queue with the edits, so
// a step's batch could share a transaction with edits, or hold a writer
// the edits queued behind: on the 100× index the step's DELETE of its
// units' old index rows reads them from disk (0.3–2.9 s a statement in
// the server's log), and the edits of its batch waited for it — p99
// past 1 s at 8 editors (BENCHMARKS.md, session 16). Its own writer and
// connection keep every edit's batch to edits. What it writes is as
// before: its rows, locked row by row (writeRequest.shared), under the
// write lock taken shared (lockBatch), beside the writers' batches as
// another process's step runs. SQLite keeps one writer for everything:
// its file takes one write transaction at a time. Its batches are not
// the writers': WriterStats and WriterBusy leave them out.
func (db *DB) upkeepWriter(stop <-chan struct{}) {
	for {
		select {
		case r := <-db.upkeepWrites:
			db.commitBatch([]*writeRequest{r})
		case <-stop:
			return
		}
	}
}

// gatherBatch waits for a write and appends to batch the writes queued
// with it, holding db.gather so that one writer at a time takes writes
// from the queue: the others are running their batches, and the next
// to be free forms the next batch from what arrived meanwhile. ok is
// false once stop closed.
func (db *DB) gatherBatch(stop <-chan struct{}, batch []*writeRequest) (_ []*writeRequest, ok bool) {
	db.gather.Lock()
	defer db.gather.Unlock()
	select {
	case first := <-db.writes:
		batch = append(batch, first)
	case <-stop:
		return batch, false
	}
	// Let the writes that are ready to queue (often those the last
	// commit answered, whose next edits are on their way) do so before
	// the batch is closed: it costs nothing when nobody is.
	runtime.Gosched()
gather:
	for len(batch) < db.writeBatchLimit {
		select {
		case r := <-db.writes:
			batch = append(batch, r)
		default:
			break gather
		}
	}
	return db.awaitExpected(batch), true // writes on their way (expect.go)
}

// commitBatch runs a batch of writes in one transaction and answers each.
func (db *DB) commitBatch(batch []*writeRequest) {
	live := make([]*writeRequest, 0, len(batch))
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- writeResult{err: err}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	if !live[0].upkeep || db.upkeepWrites == nil {
		// The writers' batches (WriterStats): on PostgreSQL the
		// background steps' writer is not one of them (upkeepWriter).
		db.commits.Add(1)
		db.batchWrites.Add(uint64(len(live)))
	}
	results, touched, err := db.runBatch(live, false)
	if errors.Is(err, errRunApart) {
		db.runsApart.Add(1)
		results, touched, err = db.runBatch(live, true)
	}
	// Whatever the outcome, cached answers may no longer hold (a batch
	// that committed advanced the clock itself: touched is empty).
	if touched.everything || len(touched.deps) > 0 {
		db.clock.advance(touched)
	}
	for _, r := range live {
		if !r.upkeep {
			db.kickTrigrams() // the batch may have noted units (trigram_pending.go)
			break
		}
	}
	var again []*writeRequest
	for i, r := range live {
		res := writeResult{err: err}
		if err == nil {
			res.err = results[i]
		}
		if retryable(res.err) && r.tries < maxWriteRetries {
			r.tries++
			again = append(again, r) // lost to another process's writer: run it again
			continue
		}
		var p *panicError
		if errors.As(res.err, &p) {
			res = writeResult{panicked: p.value, stack: p.stack}
		}
		r.done <- res
	}
	if len(again) > 0 {
		db.commitBatch(again)
	}
}

// runBatch runs the writes of live in one transaction, each in a
// savepoint when there are several, and commits. It returns each write's
// own outcome and, unless it committed (then it advanced the write
// clock itself), what the batch may have touched; err, when not nil, is the
// outcome of every write (the transaction could not begin or commit, or
// a savepoint could not be undone, so nothing was kept), or errRunApart.
//
// Pipelined savepoints: on PostgreSQL each write's savepoint, nested in
// the one before (not released), is queued (pipeline.go), not sent, and a
// write's statements wait for the next write's first read, so that a
// unit edit in a batch costs one round trip (its reads, sent with the
// write before it's statements and its own savepoint) instead of three
// (its savepoint, its reads, its statements). A write's own error is
// undone as before; an error among the statements an earlier write
// queued, found only after that write ended, answers errRunApart: the
// transaction is rolled back and the batch runs again with apart set,
// each write's statements sent before its savepoint ends, so that the
// error is that write's alone. (No statement of an edit fails but for a
// bug or a lost lock; a write's own failing decision is no such error.)
func (db *DB) runBatch(live []*writeRequest, apart bool) (results []error, touched touchSet, err error) {
	touched.everything = true // until the commit says otherwise
	var conn *sql.Conn
	if db.dialect.shared {
		// Held for the pipelined statements (pipeline.go).
		if conn, err = db.wdb.Conn(runCtx); err != nil {
			return nil, touched, formatError(err)
		}
		defer conn.Close()
	}
	tx := &Tx{conn: conn, w: db.w, hooks: &db.hooks, db: db}
	tx.takeBufs()
	defer tx.keepBufs() // after the rollback below
	if conn != nil {
		// Its own BEGIN and COMMIT: sent with the batch's first
		// statements (its locks) and with its closing ones, not a round
		// trip each as database/sql's Tx made them (2 of an edit's 6
		// alone, of a batch of 7 edits' 14).
		if err := tx.execLater(`BEGIN`); err != nil {
			return nil, touched, err
		}
		defer tx.rollback() // unless committed
	} else {
		// SQLite: BEGIN on the writer's own connection (writeconn.go).
		if tx.wc, err = db.writeConn(); err == nil {
			if err = tx.wc.begin(); err != nil {
				db.closeWriteConn(true) // the next batch begins on a fresh one
			}
		}
		if err != nil {
			return nil, touched, formatError(err)
		}
		defer db.endWriteConn() // ROLLBACK unless committed
	}
	tx.now = db.now().UTC() // once the transaction has begun, as before
	last, err := db.beginBatch(tx, live)
	if err != nil {
		return nil, touched, formatError(err)
	}
	if t := parseTime(last); t.After(tx.now) {
		tx.now = t
	}
	shared := len(live) > 1
	pipelined := shared && conn != nil && !apart
	results = make([]error, len(live))
	var batchTouched touchSet
	// held (a batch run apart, or SQLite's): the previous write's
	// savepoint is still open, to be released by the statement that
	// starts the next (or by the commit). A pipelined batch's savepoints
	// nest instead (below).
	held := false
	for i, r := range live {
		if !r.narrow {
			if err := flushStats(tx); err != nil {
				return nil, touched, err
			}
		}
		if pipelined {
			// See Pipelined savepoints: the write before's statements,
			// the batch's statistics (flushStats) and these go with
			// this write's first statement that needs an answer. No
			// RELEASE of the write before's: this savepoint nests in
			// it, ROLLBACK TO write rolls back to the innermost of the
			// name (this write's) and COMMIT ends every level: one
			// statement fewer a write after the first. The levels nest
			// up to maxWriteBatch deep (c8's batches: about 2.5), which
			// costs the writer's own visibility checks a walk up them;
			// net, a RELEASE less measured 9.3k instructions fewer
			// (BENCHMARKS.md, Session 16: SRV16).
			tx.execLater(`SAVEPOINT write`)
			tx.mark = len(tx.later)
			tx.startGathering() // the batch's changes (pipeline.go)
		} else if shared {
			// What the batch queued so far (flushStats) precedes the
			// savepoint: a rollback to it must not undo them.
			if err := tx.flush(); err != nil {
				return nil, touched, formatError(err)
			}
			start := `SAVEPOINT write`
			if held {
				start = `RELEASE write; SAVEPOINT write`
			}
			if err := tx.execNow(start); err != nil {
				return nil, touched, formatError(err)
			}
		}
		tx.startWrite(r.narrow)
		tx.pre.start(r)
		results[i] = runWrite(tx, r.fn)
		tx.pre.finish(tx)
		if tx.earlierFailed {
			return nil, touched, errRunApart
		}
		if results[i] == nil && shared && !pipelined {
			// Each write's statements are sent before its savepoint
			// ends, so that an error among them is its own. A batch of
			// one sends them with the batch's closing statements.
			results[i] = formatError(tx.flush())
		}
		if pipelined {
			if results[i] != nil && tx.mark > 0 {
				// Nothing of the write was sent: its statements are
				// dropped, its savepoint (queued) stays.
				clear(tx.later[tx.mark:])
				tx.later, tx.laterErr = tx.later[:tx.mark], nil
				tx.dropGathered(false)
			} else if results[i] != nil {
				tx.dropLater()
				tx.dropGathered(true)
				if err := tx.execNow(`ROLLBACK TO write`); err != nil {
					return nil, touched, fmt.Errorf("undo a failed write in a batch: %w", formatError(err))
				}
			}
		} else if results[i] != nil {
			tx.dropLater()
		}
		if results[i] != nil && !shared {
			// The deferred rollback undoes it: nothing changed.
			return results, touchSet{}, nil
		}
		if shared && !pipelined {
			if results[i] != nil {
				if err := tx.execNow(`ROLLBACK TO write`); err != nil {
					return nil, touched, fmt.Errorf("undo a failed write in a batch: %w", formatError(err))
				}
			}
			if held = db.dialect.multiStatement; !held {
				if err := tx.execNow(`RELEASE write`); err != nil {
					return nil, touched, formatError(err)
				}
			}
		}
		if results[i] == nil {
			tx.endWrite(&batchTouched)
		}
	}
	if tx.gather {
		// The batch's gathered changes, before its statistics and the
		// lists' fold (pipeline.go). Every write has ended: the rows
		// left are one group at the queue's end, after everything the
		// writes queued (ids in the order made), written in as few
		// statements as their number allows (an error among them, as
		// among the closing statements, runs the batch's writes apart,
		// below), not the last write's apart from the earlier ones'.
		tx.gatherFrom = 0
		if err := tx.spillChanges(); err != nil {
			return nil, touched, err
		}
		tx.gather = false
	}
	logged, err := db.endBatch(tx, batchTouched)
	var stmtErr *pgconn.PgError
	if err != nil && pipelined && errors.As(err, &stmtErr) {
		// Maybe the last write's statements', sent with these. Only a
		// statement's error: the server ran none after it, COMMIT
		// included, so nothing committed. A lost connection may have
		// lost COMMIT's answer, not the commit: that batch must not run
		// again.
		return nil, touched, errRunApart
	}
	if err != nil {
		return nil, touched, formatError(err)
	}
	if err := tx.commit(); err != nil {
		return nil, touched, formatError(err)
	}
	// In this order, for another writer of this process whose batch
	// begins now (see Several writers in one process): it replays
	// write_log past what this process applied, so the caches and the
	// webhooks in memory follow the batch before write_log's place
	// passes its entry.
	if tx.batchHooks != nil {
		tx.batchHooks.seq = logged
		db.publishHooks(tx.batchHooks)
	}
	db.clock.advance(batchTouched)
	if db.dialect.shared {
		db.ownWrite(logged)
	}
	rememberContributors(tx)
	if tx.queued {
		select {
		case db.queued <- struct{}{}:
		default: // a signal is already waiting
		}
	}
	return results, touchSet{}, nil // the clock has advanced
}

// beginBatch takes the batch's locks, replays other processes' writes
// (PostgreSQL) and reads the newest change's time for the clock guard,
// in one round trip on PostgreSQL (pipeline.go).
func (db *DB) beginBatch(tx *Tx, live []*writeRequest) (last string, err error) {
	fenced, err := db.lease.fence(tx)
	if err != nil {
		return "", err
	}
	unfence := sync.OnceFunc(fenced) // once the locks are granted, or on any return before
	defer unfence()
	read, err := db.lockBatch(tx, live, &last)
	if err != nil {
		return "", err
	}
	if seq := db.pruneLog.Swap(0); seq > 0 {
		// See logWrite: the prune a batch before this one owed. After
		// the locks, so that every version takes the locks before the
		// prune's row locks: a process of session 9's tree, which prunes
		// inside its batch after its locks, could deadlock (40P01) with
		// one pruning before them during an upgrade.
		if err := tx.execLater(`DELETE FROM write_log WHERE seq <= ?`, seq-sharedLogKeep); err != nil {
			return "", err
		}
	}
	var entries []logEntry
	// A solo process skips the replay: no other process's write commits
	// while it holds the lease exclusively (fence), and it replayed
	// write_log once it held it (lease.trySolo). Solo must still hold
	// once the locks are granted (below): a step-down or an unseen dead
	// session lets another process write before them.
	solo := db.lease.solo()
	if db.dialect.shared && !solo {
		if err := tx.queryLater(replayQuery, scanLog(&entries), db.replayedTo()); err != nil {
			return "", err
		}
	}
	// Change timestamps must never decrease in id order (see insertChange),
	// so a clock that went backwards is held at the last change's time.
	// This is the single writer of every process with lockWrites taken
	// exclusively; with it shared, see Several writers (writers.go).
	if !read {
		if err := tx.queryRowLater(`SELECT coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '')`,
			scanOne(&last)); err != nil {
			return "", err
		}
	}
	// The batch's unit edits' reads (prefetch.go): after the locks, so
	// that no other process changes what they read.
	if err := queuePrefetch(tx, live); err != nil {
		return "", err
	}
	err = tx.flush()
	unfence() // the locks are granted, or the transaction failed
	if err != nil {
		return "", err
	}
	if solo && !db.lease.solo() {
		// Solo ended before the locks were granted: the replay after all
		// (a round trip of its own, once per step-down at most).
		if err := tx.queryLater(replayQuery, scanLog(&entries), db.replayedTo()); err != nil {
			return "", err
		}
		if err := tx.flush(); err != nil {
			return "", err
		}
	}
	if db.dialect.shared {
		if err := db.catchUpWriter(tx, entries); err != nil {
			return "", err
		}
	}
	return last, nil
}

// endBatch stores what the batch's writes owe (the changes lists' counts,
// statistics) and, on PostgreSQL, appends the batch to write_log, whose
// entry's seq it returns: in one round trip on PostgreSQL, with a batch
// of one write's own statements.
func (db *DB) endBatch(tx *Tx, touched touchSet) (int64, error) {
	if err := foldListCounts(tx); err != nil {
		return 0, err
	}
	if err := flushStats(tx); err != nil {
		return 0, err
	}
	if !db.dialect.shared {
		return 0, tx.flush()
	}
	return db.logWrite(tx, touched)
}

// runWrite calls fn, turning a panic into a panicError so that the
// batch's other writes are unaffected and the caller re-raises it, and
// counts the units fn inserted (storeUnitCounts) before its savepoint
// ends.
func runWrite(tx *Tx, fn func(*Tx) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
		clear(tx.newUnits) // a failed write's units are rolled back
		tx.checks = checkMarks{}
	}()
	if err = fn(tx); err == nil {
		_, err = settleChecks(tx)
	}
	if err == nil {
		err = storeUnitCounts(tx)
	}
	if tx.laterErr != nil {
		// A queued statement's, sent by a QueryRow (flushed), which then
		// failed only because of it (25P02, the transaction aborted):
		// the first error is the write's, so that retryable sees a
		// deadlock or a serialization failure for what it is.
		err = tx.laterErr
	}
	return formatError(err)
}
