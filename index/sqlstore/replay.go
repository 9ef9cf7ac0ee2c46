package sqlstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tolk-project/tolk/index"
)

// Caches shared with other processes. On PostgreSQL several Tolk
// processes may write one database, and each keeps its own caches
// (cache.go), which only its own writer advances. So every write
// transaction also appends what it touched to write_log, under a lock
// that makes entries commit in seq order (logWrite), and a process
// replays the entries of the others into its write clock before it
// trusts a cached answer:
//
//   - a read that might be answered from a cache first asks the database
//     for the entries past the last one this process applied (one
//     indexed range read, usually empty). Readers that arrive while such
//     a check is running wait for the next one, which starts after they
//     arrived, so that one query serves them all and none misses a write
//     acknowledged before it asked (read-your-writes across processes).
//     A request's reads ask once: a check that began after the request
//     did (index.RequestStart) serves its later lookups, which would
//     otherwise ask again, one round trip each;
//   - the writer replays them too, inside its transaction and lock, so
//     that it matches changes against the webhooks the others installed.
//
// Entries are kept for sharedLogKeep writes; a process that fell further
// behind treats everything as changed.
const (
	sharedLogKeep  = 100_000
	sharedLogPrune = 1024 // prune every this many own entries
	sharedTimeout  = 5 * time.Second
)

// sharedClock is a process's place in write_log.
type sharedClock struct {
	mu      sync.Mutex // guards applied, and orders replays into the clock
	applied int64      // the last write_log entry reflected in the clock

	checkMu  sync.Mutex
	checking bool
	next     *logCheck // the check the readers arriving now wait for
	// checkedFrom is when the newest finished check began: a request
	// that began before it has nothing to learn (index.RequestStart).
	checkedFrom time.Time
	checks      atomic.Int64 // checks run, for tests
}

type logCheck struct{ done chan struct{} }

// everythingDeps is how write_log writes a write that touched everything.
const everythingDeps = "*"

func encodeDeps(t touchSet) string {
	if t.everything {
		return everythingDeps
	}
	var b strings.Builder
	seen := make(map[dep]bool, len(t.deps))
	for _, d := range t.deps {
		if seen[d] {
			continue
		}
		seen[d] = true
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(uint64(d), 10))
	}
	return b.String()
}

func decodeDeps(s string) touchSet {
	if s == everythingDeps {
		return touchSet{everything: true}
	}
	var t touchSet
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(f, 10, 32)
		if err != nil || n >= depStripes {
			if f != "" {
				return touchSet{everything: true}
			}
			continue
		}
		t.deps = append(t.deps, dep(n))
	}
	// write_log names stripes, not translations.
	t.inexact = len(t.deps) > 0
	return t
}

// SharedChecks is how many times this process's readers have asked
// write_log for the other processes' writes (catchUp): one query each,
// shared by the readers waiting for it. Always 0 on SQLite, and it stays
// put while the process is alone on its database (Solo). It is for
// benchmarks and metrics.
func (db *DB) SharedChecks() int64 { return db.shared.checks.Load() }

// startShared places a new process at the end of write_log: its caches
// are empty, so nothing before needs replaying.
func (db *DB) startShared(ctx context.Context) error {
	if !db.dialect.shared {
		return nil
	}
	if err := db.r.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM write_log`).Scan(&db.shared.applied); err != nil {
		return err
	}
	// A schema migrated only up to before migration 0046 (as tests of
	// older migrations open one) has no write_log_seq: every write then
	// takes the write lock exclusively, as it did then. One migrated up
	// to before 0095 locks whole components (lock_scopes).
	// lock_write_unit comes with 0123, lock_write_batch with 0129.
	var several, parts, unit, batch bool
	if err := db.r.QueryRowContext(ctx, `SELECT to_regclass('write_log_seq') IS NOT NULL,
		to_regproc('lock_write_scopes') IS NOT NULL, to_regproc('lock_write_unit') IS NOT NULL,
		to_regproc('lock_write_batch') IS NOT NULL`).Scan(&several, &parts, &unit, &batch); err != nil {
		return err
	}
	if several && parts && unit && batch {
		return nil
	}
	d := *db.dialect
	d.lockBatch, d.lockBatchAny = "", ""
	if several && parts && unit {
		db.dialect = &d
		return nil
	}
	d.lockUnit = ""
	if several && parts {
		db.dialect = &d
		return nil
	}
	if !several {
		d.lockShared, d.logTail = "", ""
	} else {
		d.lockScopes, d.lockScopesAny = oldLockScopes(d.scopeSpace)
		d.lockScopesOld = true
	}
	db.dialect = &d
	return nil
}

// catchUp brings the write clock up to every write committed, by any
// process, before it was called, or before the request of ctx began
// (index.RequestStart) when ctx says: a check that began after that
// serves every later lookup of the request. See the comment at the top.
// It is a no-op on an engine one process owns, and in a process alone
// on its database (lease.go).
func (db *DB) catchUp(ctx context.Context) {
	if !db.dialect.shared || db.lease.solo() {
		return
	}
	s := &db.shared
	start, marked := index.RequestStart(ctx)
	s.checkMu.Lock()
	if marked && !start.After(s.checkedFrom) {
		s.checkMu.Unlock()
		return
	}
	if !s.checking {
		s.checking = true
		s.checkMu.Unlock()
		db.check()
		db.nextCheck()
		return
	}
	if s.next == nil {
		s.next = &logCheck{done: make(chan struct{})}
	}
	c := s.next
	s.checkMu.Unlock()
	<-c.done
}

// nextCheck runs the check that readers queued during the last one, if
// any, or ends the checking.
func (db *DB) nextCheck() {
	s := &db.shared
	s.checkMu.Lock()
	c := s.next
	s.next = nil
	if c == nil {
		s.checking = false
		s.checkMu.Unlock()
		return
	}
	s.checkMu.Unlock()
	go func() {
		db.check()
		close(c.done)
		db.nextCheck()
	}()
}

// check replays what other processes wrote, through the checker's
// connection (logcheck.go), and records when it began.
func (db *DB) check() {
	began := time.Now()
	db.replayChecked()
	s := &db.shared
	s.checks.Add(1)
	s.checkMu.Lock()
	if began.After(s.checkedFrom) {
		s.checkedFrom = began
	}
	s.checkMu.Unlock()
}

// replay applies the write_log entries past the last applied one, read
// through q: the reader pool, or the writer's transaction (which holds
// the write lock, so it sees every committed write). It reports whether
// one of them touched everything.
func (db *DB) replay(q queryer) (everything bool) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	rows, err := q.QueryContext(ctx, replayQuery, db.replayedTo())
	if err != nil {
		db.replayFailed(err)
		return true
	}
	defer rows.Close()
	entries, err := appendLog(nil, rows)
	if err != nil {
		db.replayFailed(err)
		return true
	}
	return db.applyLog(entries)
}

// replayChecked is replay through the checker's connection, where
// there is one (a DB made without openPostgres, as some tests make,
// checks through the reader pool).
func (db *DB) replayChecked() {
	if db.checker == nil {
		db.replay(db.r)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	entries, err := db.checker.read(ctx, db.replayedTo())
	if errors.Is(err, errCheckerClosed) {
		return // the index is closing: nothing is served from its caches
	}
	if err != nil {
		db.replayFailed(err)
		return
	}
	db.applyLog(entries)
}

// replayQuery reads the write_log entries past its argument, in order.
const replayQuery = `SELECT seq, deps FROM write_log WHERE seq > ? ORDER BY seq`

// logEntry is a row of write_log.
type logEntry struct {
	seq  int64
	deps string
}

// replayedTo is the last write_log entry this process has applied.
func (db *DB) replayedTo() int64 {
	s := &db.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied
}

// scanLog is a queryLater read of replayQuery's rows into entries.
func scanLog(entries *[]logEntry) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		var err error
		*entries, err = appendLog(*entries, rows)
		return err
	}
}

// logRows is what appendLog reads: database/sql's rows (replay) and
// pgx's (scanLog) both are.
type logRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// appendLog appends the entries of replayQuery's rows to entries.
func appendLog(entries []logEntry, rows logRows) ([]logEntry, error) {
	for rows.Next() {
		var e logEntry
		if err := rows.Scan(&e.seq, &e.deps); err != nil {
			return entries, err
		}
		entries = append(entries, e)
	}
	return entries, rows.Err()
}

// applyLog advances the write clock with the entries replayQuery read
// past the last applied one, and reports whether one of them touched
// everything.
func (db *DB) applyLog(entries []logEntry) (everything bool) {
	if len(entries) == 0 {
		return false
	}
	s := &db.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	var t touchSet
	if entries[0].seq > s.applied+1 && s.applied > 0 {
		t.everything = true // pruned before this process read them
	}
	for _, e := range entries {
		if e.seq <= s.applied {
			continue // another replay got there first
		}
		t.merge(decodeDeps(e.deps))
		s.applied = e.seq
	}
	if t.everything || len(t.deps) > 0 {
		db.clock.advance(t)
	}
	if t.everything {
		// Add-ons may have changed: the webhooks in memory are re-read
		// before their next use (ComponentAddons, the writer).
		// A plain store: applyLog alone writes hooksNeed, under s.mu,
		// and s.applied never falls.
		db.hooksNeed.Store(s.applied)
	}
	return t.everything
}

// catchUpWriter applies the other processes' writes read inside the
// writer's transaction (beginBatch: entries), which holds the write
// lock, and re-reads the webhooks if
// one of them may have changed add-ons, so that this batch's changes
// queue deliveries for every webhook installed anywhere.
func (db *DB) catchUpWriter(tx *Tx, entries []logEntry) error {
	db.applyLog(entries)
	if db.hooksCurrent() {
		return nil
	}
	// The entries hooksNeed names were committed before this statement
	// starts (a reader or this replay read them), so its snapshot, the
	// transaction's own (READ COMMITTED), reflects them.
	need := db.hooksNeed.Load()
	if db.onHooksLoad != nil {
		db.onHooksLoad()
	}
	h, err := loadHooks(runCtx, tx.queryer())
	if err != nil {
		return err
	}
	h.seq = need
	db.publishHooks(h)
	return nil
}

// replayFailed makes every cached answer stale: a process that cannot
// tell what others wrote must not answer from its caches.
func (db *DB) replayFailed(err error) {
	db.log.Warn("index: cannot read other processes' writes; dropping cached answers", "err", err)
	db.clock.advance(touchSet{everything: true})
}

// logWrite appends the batch's entry to write_log, inside its
// transaction, and commits it; every so often it leaves the next batch
// to prune old entries. It returns the entry's seq, for ownWrite.
func (db *DB) logWrite(tx *Tx, t touchSet) (int64, error) {
	// The tail lock, taken before the seq is drawn and held to the
	// commit, makes entries commit in seq order while batches of
	// different scopes run side by side (writers.go).
	insert := `WITH l AS MATERIALIZED (SELECT pg_advisory_xact_lock(` + db.dialect.logTail + `))
		INSERT INTO write_log (seq, deps) SELECT nextval('write_log_seq'), ? FROM l RETURNING seq`
	if db.dialect.logTail == "" { // before migration 0046 (startShared)
		insert = `INSERT INTO write_log (seq, deps) SELECT coalesce(max(seq), 0) + 1, ? FROM write_log RETURNING seq`
	}
	var seq int64
	if err := tx.queryRowLater(insert, scanOne(&seq), encodeDeps(t)); err != nil {
		return 0, err
	}
	// The commit travels with these (runBatch: Its own BEGIN and
	// COMMIT), so the prune that seq calls for is the next batch's,
	// sent with its locks: entries wait one batch longer.
	if err := tx.commit(); err != nil {
		return 0, err
	}
	if seq%sharedLogPrune == 0 {
		db.pruneLog.Store(seq)
	}
	return seq, nil
}

// ownWrite records that this process's committed write seq is in its
// clock already (the writer advanced it), when it is the next entry:
// another process's entries before it, which scoped batches may commit
// while this one runs (writers.go), are yet to be replayed (and this
// one with them, which only makes its answers stale once more).
func (db *DB) ownWrite(seq int64) {
	s := &db.shared
	s.mu.Lock()
	if seq == s.applied+1 {
		s.applied = seq
	}
	s.mu.Unlock()
}
