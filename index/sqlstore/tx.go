package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// Tx is a write transaction with the clock read once at its start, and
// never earlier than the last recorded change. It may hold several
// writes (see Group commit in writer.go).
//
// Its statements (Exec, Query, QueryRow) take no context: they run to
// their end whatever happens to the request that queued the write.
// SQLite answers an interrupted statement by rolling back the whole
// transaction, and PostgreSQL by aborting it, which would fail the other
// writes of the batch too; a write's context counts only until the
// writer starts it (see DB.write). (A context that can never end also
// spares the driver a goroutine per statement.) The functions a write
// runs take no context either, unless they also serve reads.
type Tx struct {
	// conn is the connection the transaction runs on, on PostgreSQL: the
	// batch sends BEGIN and COMMIT itself, each with other statements
	// (runBatch: Its own BEGIN and COMMIT), and the statements sent
	// together (pipeline.go) go through it too; later are those queued,
	// laterErr the first error among those sent. On SQLite wc, the
	// writer's own connection, runs it (writeconn.go) and conn is nil.
	conn     *sql.Conn
	wc       *writeConn
	later    []laterStmt
	laterErr error
	// pgQueued and pgAt are flush's pgx statements, reused by the
	// transaction's next flush; flushing is set while one is sent, so
	// that a callback that flushed again cannot overwrite them.
	pgQueued []pgx.QueuedQuery
	pgAt     []*pgx.QueuedQuery
	flushing bool
	// pgBatch, sending, answerFn and answered are the flush's batch, its
	// statements, the function that reads each one's answer and the
	// count of those answered (answer, pipeline.go).
	pgBatch  pgx.Batch
	sending  []laterStmt
	answerFn func(pgx.BatchResults) error
	answered int
	// ended: the transaction on conn committed (or was rolled back).
	ended bool
	// mark is where the current write's own statements begin in later,
	// when its savepoint waits in later too (pipelinedSavepoints): an
	// error before it is an earlier write's, or the batch's, and
	// earlierFailed records one. earlierFrom and earlierTo bound the
	// statements in later that hold earlier writes' change rows queued
	// after the current write's savepoint (spillChanges): an error in
	// them is an earlier write's too.
	mark                   int
	earlierFrom, earlierTo int
	earlierFailed          bool
	// gather, gathered, gatherFrom and regather hold the batch's change
	// rows written together (Gathered changes, pipeline.go).
	gather     bool
	gathered   []index.Change
	gatherFrom int
	regather   []index.Change
	now        time.Time
	// w holds the statements prepared on the writer's connection, which
	// every write transaction runs on: a statement compiled once serves
	// every later transaction (SQLite compiles the triggers a statement
	// fires, migration 0002, into it, which made compiling most of an
	// edit's cost).
	w *stmtCache
	// stmts caches prepare, by query, for the statements w lacks yet;
	// database/sql closes them with the transaction.
	stmts map[string]*txStmt
	// touched is what the current write changed, for the caches.
	touched touchSet
	// narrowed: the current write is a writeNarrow, which declares what
	// it touches and owes its statistics to writeOwed; owed holds what
	// the batch's finished writes owe, until flushStats stores it.
	narrowed  bool
	widened   bool // ... but it did something that touches everything
	writeOwed map[scopeKey]*owedStats
	owed      map[scopeKey]*owedStats
	// bufs is where tx's buffers go back for the next transaction
	// (txbufs.go).
	bufs *txBufs
	// stamped holds, for the statistics rows whose last change the
	// current write has set (insertChange), the last author it set there
	// ("" if none).
	stamped map[scopeKey]string
	// author is the last author name read (authorName), kept while the
	// batch's writes are narrow ones (edits, uploads), which rename
	// nobody: a user may be renamed by any other write.
	author knownAuthor
	// hooks is the published set of webhooks (hooks.go); writeHooks and
	// batchHooks, when not nil, the set after the current write and after
	// the batch's finished writes changed add-ons (reloadHooks). queued
	// records that the transaction queued deliveries.
	hooks                  *atomic.Pointer[hookSet]
	writeHooks, batchHooks *hookSet
	queued                 bool
	// db is the index whose writer runs tx; batchWide says a finished
	// write of the batch touched everything (see cachedTranslation).
	db        *DB
	batchWide bool
	// deferCounts: the batch holds the write lock shared, and the lists'
	// counts wait aside for foldListCounts (writers.go).
	deferCounts bool
	// foldWithActivity: the batch's fold rides with its first
	// user_activity upsert (foldListCounts, flushActivity).
	foldWithActivity bool
	// activity are the current write's user_activity sums, batchActivity
	// its batch's finished writes' (activity.go).
	activity, batchActivity map[activityKey]int64
	// contributed are the contributors rows the current write made sure
	// of, batchContributed the batch's finished writes', which the
	// process knows of once the batch commits (knownContributor).
	contributed, batchContributed [][2]int64
	// newUnits counts the units the current write inserted, by
	// translation and list_counts bucket (unitInserter), for
	// storeUnitCounts.
	newUnits map[unitBucket]int64
	// checks are the units the current write marked for settleChecks;
	// checkScopes what their translations' checks share, read once per
	// write (a write may change a component's flags).
	checks      checkMarks
	checkScopes map[int64]*checkScope
	// unitChecks are the check rows of the unit an edit read them with
	// (readUnitForEdit), by unit, for its settling: taken once.
	unitChecks map[int64][]index.UnitCheck
	// extraFlags caches source units' extra flags for the current write
	// (sourceExtraFlags); a write that sets them updates it.
	extraFlags map[int64]string
	// componentExtras caches, by component, its source units' extra
	// flags, for the current write (componentExtraFlags).
	componentExtras map[int64]map[int64]string
	// glossaryTerms caches the glossary terms check_glossary reads, for
	// the current write (readTerms).
	glossaryTerms map[glossaryKey][]checks.Term
	// pre holds the batch's prefetched unit edit reads (prefetch.go),
	// nil when it has none.
	pre *prefetch
}

// runCtx is the context every statement of a write transaction runs
// under (see Tx): it never ends.
var runCtx = context.Background()

// widen says the current write did something whose reach touch does not
// name: every cached answer is stale after it.
func (tx *Tx) widen() { tx.widened = true }

// cachesAnswer says whether the write's lookups may be answered from the
// process's caches (cachedTranslation, cachedPeerIDs, knownContributor):
// inside a narrow write of a batch of narrow writes, whose caches hold
// what tx would read.
func (tx *Tx) cachesAnswer() bool {
	return tx.db != nil && !tx.batchWide && tx.narrowed && !tx.widened
}

// touch records scopes the current write changed.
func (tx *Tx) touch(deps ...dep) { tx.touched.deps = append(tx.touched.deps, deps...) }

// touchUnits records that the current write changed the units of
// translation id: their stripe (unitsDep) and, for the clock's watched
// translations, the translation itself (touchSet.units). Every write of
// a translation's units declares it here.
func (tx *Tx) touchUnits(id int64) {
	tx.touched.deps = append(tx.touched.deps, unitsDep(id))
	tx.touched.units = append(tx.touched.units, id)
}

// owe returns what the current write owes a statistics row, or nil when
// it stores its statistics as it goes.
func (tx *Tx) owe(scope, key string) *owedStats {
	if !tx.narrowed {
		return nil
	}
	k := scopeKey{scope, key}
	o := tx.writeOwed[k]
	if o == nil {
		o = &owedStats{}
		tx.writeOwed[k] = o
	}
	return o
}

// startWrite readies tx for the next write of its batch.
func (tx *Tx) startWrite(narrow bool) {
	if !narrow || !tx.narrowed {
		tx.author.id = 0 // this write or the one before may rename its author
	}
	tx.touched = touchSet{deps: tx.touched.deps[:0], units: tx.touched.units[:0]}
	tx.narrowed, tx.widened = narrow, false
	tx.contributed = tx.contributed[:0]
	clear(tx.activity)
	tx.writeHooks = nil
	if tx.writeOwed == nil {
		tx.writeOwed, tx.owed = map[scopeKey]*owedStats{}, map[scopeKey]*owedStats{}
		tx.stamped = map[scopeKey]string{}
	}
	clear(tx.writeOwed)
	tx.forgetStamps()
	clear(tx.checkScopes)
	clear(tx.unitChecks)
	clear(tx.extraFlags)
	clear(tx.componentExtras)
	clear(tx.glossaryTerms)
}

// forgetStamps forgets which statistics rows the current write has
// stamped with its last change: deleted rows must be stamped anew.
func (tx *Tx) forgetStamps() { clear(tx.stamped) }

// endWrite keeps what the current write did, when it succeeded: what it
// touched, and what it owes the statistics.
func (tx *Tx) endWrite(batch *touchSet) {
	wide := !tx.narrowed || tx.widened
	tx.batchWide = tx.batchWide || wide
	batch.merge(touchSet{everything: wide, deps: tx.touched.deps, units: tx.touched.units})
	for k, o := range tx.writeOwed {
		if b := tx.owed[k]; b != nil {
			b.addOwed(o)
		} else {
			tx.owed[k] = o
		}
	}
	clear(tx.writeOwed)
	if tx.writeHooks != nil {
		tx.batchHooks = tx.writeHooks
	}
	tx.batchContributed = append(tx.batchContributed, tx.contributed...)
	tx.keepActivity()
}

// txStmt is a statement prepared for a write transaction. Like the
// transaction's own methods it takes no context (see Tx).
type txStmt struct {
	st    *sql.Stmt
	d     *dialect
	tx    *Tx
	query string
}

func (s *txStmt) Exec(args ...any) (sql.Result, error) {
	if err := s.tx.flushAll(); err != nil {
		return nil, err
	}
	if s.st == nil {
		return s.tx.cached().ExecContext(runCtx, s.query, args...)
	}
	return s.st.ExecContext(runCtx, s.d.args(args)...)
}

func (s *txStmt) QueryRow(args ...any) *sql.Row {
	s.tx.flushed()
	if s.st == nil {
		return s.tx.cached().QueryRowContext(runCtx, s.query, args...)
	}
	return s.st.QueryRowContext(runCtx, s.d.args(args)...)
}

func (s *txStmt) Query(args ...any) (*sql.Rows, error) {
	if err := s.tx.flushAll(); err != nil {
		return nil, err
	}
	if s.st == nil {
		return s.tx.cached().QueryContext(runCtx, s.query, args...)
	}
	return s.st.QueryContext(runCtx, s.d.args(args)...)
}

// execLater is Tx.execLater for the statement (pipeline.go).
func (s *txStmt) execLater(args ...any) error {
	if s.tx.conn == nil {
		_, err := s.Exec(args...)
		return err
	}
	return s.tx.execLater(s.query, args...)
}

// prepare returns query prepared for the transaction: the writer's
// cached statement when there is one, else one compiled for this
// transaction (w prepares it for the next in the background). Worth it
// for statements run per row.
func (tx *Tx) prepare(query string) (*txStmt, error) {
	if st, ok := tx.stmts[query]; ok {
		return st, nil
	}
	var st *sql.Stmt // nil on PostgreSQL: the text runs on conn (cached)
	if tx.wc != nil {
		var err error
		if st, err = tx.wc.prepare(query); err != nil {
			return nil, err
		}
	}
	if tx.stmts == nil {
		tx.stmts = map[string]*txStmt{}
	}
	ts := &txStmt{st: st, d: tx.w.d, tx: tx, query: query}
	tx.stmts[query] = ts
	return ts, nil
}

// cached runs statements in the transaction on PostgreSQL (SQLite's are
// the writer's connection's, wc): their texts on the transaction's
// connection, where pgx prepares each once and keeps it (its statement
// cache), as the writer's cached statements did when database/sql's Tx
// bound them to the connection at every statement.
func (tx *Tx) cached() connStmts { return connStmts{conn: tx.conn, d: tx.w.d} }

// connStmts runs statements of the index's dialect on one connection.
type connStmts struct {
	conn *sql.Conn
	d    *dialect
}

func (c connStmts) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.conn.ExecContext(ctx, c.d.rebind(query), c.d.args(args)...)
}

func (c connStmts) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.conn.QueryContext(ctx, c.d.rebind(query), c.d.args(args)...)
}

func (c connStmts) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return c.conn.QueryRowContext(ctx, c.d.rebind(query), c.d.args(args)...)
}

// Exec runs query with the writer's cached statement when there is one.
func (tx *Tx) Exec(query string, args ...any) (sql.Result, error) {
	if tx.wc != nil { // SQLite: nothing queued (pipeline.go)
		return tx.wc.ExecContext(runCtx, query, args...)
	}
	if err := tx.flushAll(); err != nil {
		return nil, err
	}
	return tx.cached().ExecContext(runCtx, query, args...)
}

// Query runs query with the writer's cached statement when there is
// one.
func (tx *Tx) Query(query string, args ...any) (*sql.Rows, error) {
	if tx.wc != nil {
		return tx.wc.QueryContext(runCtx, query, args...)
	}
	if err := tx.flushAll(); err != nil {
		return nil, err
	}
	return tx.cached().QueryContext(runCtx, query, args...)
}

// QueryRow runs query with the writer's cached statement when there is
// one.
func (tx *Tx) QueryRow(query string, args ...any) *sql.Row {
	if tx.wc != nil {
		return tx.wc.QueryRowContext(runCtx, query, args...)
	}
	return tx.flushed().cached().QueryRowContext(runCtx, query, args...)
}

// execNow runs one of the batch's own statements (a savepoint's) at
// once, uncached on PostgreSQL.
func (tx *Tx) execNow(query string) error {
	var err error
	if tx.wc != nil {
		_, err = tx.wc.ExecContext(runCtx, query)
	} else {
		_, err = tx.conn.ExecContext(runCtx, query)
	}
	return err
}

// commit commits the transaction: on PostgreSQL, what is queued and
// COMMIT in one round trip (the batch's closing statements, runBatch).
func (tx *Tx) commit() error {
	if tx.wc != nil {
		return tx.wc.commit()
	}
	if tx.ended {
		return nil
	}
	if err := tx.execLater(`COMMIT`); err != nil {
		return err
	}
	if err := tx.flush(); err != nil {
		if !tx.committedAnyway() {
			return err
		}
		// The server committed: the error is a callback's, reading one
		// of the closing statements' answers (a scan's: a bug, not a
		// runtime condition; pgx reads no answer after it). The batch's
		// writes are answered as committed, so that none runs again;
		// what the unread answers kept (the write_log entry's seq) the
		// next batch's replay catches up.
		if tx.db != nil && tx.db.log != nil {
			tx.db.log.Error("index: an answer sent with the batch's COMMIT could not be read; the batch committed", "err", err)
		}
	}
	tx.ended = true
	return nil
}

// committedAnyway reports, after a flush that sent COMMIT failed,
// whether the server committed: the connection is out of any
// transaction, which its last answer (ReadyForQuery, read as pgx drained
// the batch) says. A statement's error leaves the transaction failed
// (the server skipped COMMIT); a connection lost before that answer
// leaves the status as it was, in the transaction: neither counts.
func (tx *Tx) committedAnyway() bool {
	idle := false
	tx.conn.Raw(func(dc any) error {
		if c, ok := dc.(*stdlib.Conn); ok {
			idle = !c.Conn().PgConn().IsClosed() && c.Conn().PgConn().TxStatus() == 'I'
		}
		return nil
	})
	return idle
}

// rollback ends tx's transaction on PostgreSQL unless it committed; a
// connection that cannot roll back is closed, not given back to the
// pool in a transaction.
func (tx *Tx) rollback() {
	if tx.ended || tx.conn == nil {
		return
	}
	tx.ended = true
	tx.dropLater()
	if _, err := tx.conn.ExecContext(runCtx, `ROLLBACK`); err != nil {
		tx.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// queryer is tx for the helpers that reads share (loadHooks, readStats,
// replay), which take a queryer and a context: the statements of the
// queryer honour the context they are given, so a write gives them
// runCtx, never its request's.
func (tx *Tx) queryer() queryer { return flushingQueryer{tx} }

// lastInsertID returns the id the last INSERT of tx generated. pgx has
// no LastInsertId; lastval() on the transaction's connection answers the
// same, since no trigger of the schema inserts into a table with an
// identity column.
func (tx *Tx) lastInsertID(res sql.Result) (int64, error) {
	if !tx.w.d.numbered {
		return res.LastInsertId()
	}
	var id int64
	err := tx.flushed().conn.QueryRowContext(runCtx, `SELECT lastval()`).Scan(&id)
	return id, err
}
