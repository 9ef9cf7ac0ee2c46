package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/index"
)

// timeLayout stores timestamps as sortable UTC text with microseconds, the
// precision the API shows.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// DB is the SQLite index. It is safe for concurrent use; Close it when done.
type DB struct {
	rdb *sql.DB    // readers
	r   *stmtCache // reads through rdb with prepared statements

	// clock orders committed writes for the lookup and page caches.
	clock            writeClock
	translations     genCache[[3]string, index.Translation]
	translationsByID genCache[int64, index.Translation]
	translationStats genCache[string, index.Stats] // stored rows of translations, without recent changes
	components       genCache[[2]string, index.Component]
	projects         genCache[string, index.Project]
	languages        genCache[string, knownLanguage]
	private          genCache[struct{}, []index.Project]
	stats            genCache[[2]string, timedStats]
	unitPages        genCache[string, page[index.Unit]]
	// recent keeps each scope's last full count of recent changes
	// (recentChanges).
	recentMu    sync.Mutex
	recent      map[string]recentCount
	changePages genCache[string, page[index.Change]]
	wdb         *sql.DB // the single writer
	// jobs holds the component locks of other processes' git jobs
	// (joblock.go); nil on SQLite, whose file one process owns.
	jobs *jobLocks
	// dialect is what differs between the engines (dialect.go).
	dialect *dialect
	// stopBackground stops the engine's background work (the SQLite
	// checkpointer) and waits for it.
	stopBackground func()
	// writes queue for the writer goroutine (writer.go); closing closes
	// at Close, and stopWriter stops the writer and waits for it.
	writes     chan *writeRequest
	closing    chan struct{}
	stopWriter func()
	// writeBatchLimit is the most writes one transaction takes:
	// maxWriteBatch, or 1 to measure what group commit is worth.
	writeBatchLimit int
	commits         atomic.Uint64 // write transactions run, for the benchmarks
	w               *stmtCache    // statements prepared on the writer's connection

	// Now is the clock; each write transaction reads it once. Tests may
	// replace it before use.
	Now func() time.Time

	// hooks is every installed webhook, for insertChange (addons.go);
	// queued signals the sender that a write queued deliveries.
	hooks  atomic.Pointer[hookSet]
	queued chan struct{}
	// shared is this process's place among the writers of a database that
	// several processes share (shared.go); hooksStale says another one
	// may have changed add-ons since hooks was read.
	shared     sharedClock
	hooksStale atomic.Bool

	// PageCacheBytes bounds each page cache (of units, of changes) by the
	// bytes its pages hold (PageCacheSize); 0 turns page caching off, so
	// that every list is read from SQLite. Open sets
	// DefaultPageCacheBytes; change it before use.
	PageCacheBytes int
}

// DefaultPageCacheBytes is each page cache's bound: a unit of short
// texts weighs about 365 bytes as pageBytes measures it, so this holds
// tens of thousands of them; pages of long strings take more.
const DefaultPageCacheBytes = 32 << 20

// newDB returns a DB on d with its caches and queues ready, before any
// connection is opened.
func newDB(d *dialect) *DB {
	return &DB{dialect: d, Now: time.Now, PageCacheBytes: DefaultPageCacheBytes,
		writes: make(chan *writeRequest), closing: make(chan struct{}), writeBatchLimit: maxWriteBatch,
		queued: make(chan struct{}, 1)}
}

// start migrates the schema and starts the writer and the engine's
// background work, once both pools are open; on failure it closes db.
func (db *DB) start(ctx context.Context) error {
	db.w = newStmtCache(db.wdb, db.dialect)
	db.r = newStmtCache(db.rdb, db.dialect)
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return err
	}
	h, err := loadHooks(ctx, db.r)
	if err != nil {
		db.Close()
		return fmt.Errorf("load add-ons: %w", err)
	}
	db.hooks.Store(h)
	if err := db.startShared(ctx); err != nil {
		db.Close()
		return fmt.Errorf("read the write log: %w", err)
	}
	stopWriting, writerDone := make(chan struct{}), make(chan struct{})
	db.stopWriter = func() { close(stopWriting); <-writerDone }
	go db.writer(stopWriting, writerDone)
	if db.dialect.background != nil {
		cctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		db.stopBackground = func() { stop(); <-done }
		go db.dialect.background(db, cctx, done)
	}
	return nil
}

// Close closes both connection pools.
func (db *DB) Close() error {
	var errs []error
	close(db.closing)
	if db.stopWriter != nil {
		db.stopWriter()
	}
	if db.stopBackground != nil {
		db.stopBackground()
	}
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.w != nil {
		errs = append(errs, db.w.Close())
	}
	if db.rdb != nil {
		errs = append(errs, db.rdb.Close())
	}
	if db.wdb != nil {
		errs = append(errs, db.wdb.Close())
	}
	errs = append(errs, db.jobs.close())
	return errors.Join(errs...)
}

func (db *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(db.dialect.migrations, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if err := db.applyMigration(ctx, name); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return db.refuseNewerSchema(ctx, names[len(names)-1])
}

// refuseNewerSchema fails when the index holds a migration numbered
// above last, this binary's last: a newer Tolk migrated it, and this one
// would write it as the older schema expects (on PostgreSQL, beside the
// newer processes sharing it), such as inserting units that migration
// 0019 made the writer count, uncounted.
func (db *DB) refuseNewerSchema(ctx context.Context, last string) error {
	known := migrationNumber(last)
	rows, err := db.wdb.QueryContext(ctx, `SELECT name FROM migrations`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		if n := migrationNumber(strings.TrimPrefix(name, "migrations/")); n > known {
			return fmt.Errorf("the index was migrated by a newer Tolk (it has %s, this binary ends at migrations/%s): run that version or a later one", name, last)
		}
	}
	return rows.Err()
}

// migrationNumber is the number a migration's file name begins with
// ("0019_unit_counts.sql": 19), or -1.
func migrationNumber(file string) int {
	digits, _, _ := strings.Cut(file, "_")
	n, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return n
}

// applyMigration runs one migration file in its own transaction, so a
// crash leaves it either fully applied and recorded or not at all. It is
// recorded under its path in the source tree ("migrations/0001_init.sql"),
// as SQLite files made before the engines shared this code recorded it.
// Processes that start together on one PostgreSQL take turns.
func (db *DB) applyMigration(ctx context.Context, file string) error {
	tx, err := db.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if db.dialect.lockWrites != "" {
		if _, err := tx.ExecContext(ctx, db.dialect.lockWrites); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	name := "migrations/" + file
	var n int
	if err := tx.QueryRowContext(ctx, db.dialect.rebind(`SELECT count(*) FROM migrations WHERE name = ?`), name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(db.dialect.migrations, file)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, db.dialect.rebind(`INSERT INTO migrations (name, applied) VALUES (?, ?)`),
		name, formatTime(time.Now())); err != nil {
		return err
	}
	return tx.Commit()
}

// queryer is what helpers need; both *sql.DB and *sql.Tx satisfy it.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Tx is a write transaction with the clock read once at its start, and
// never earlier than the last recorded change. It may hold several
// writes (see Group commit in writer.go).
//
// Its statements run to their end whatever the context given them says:
// SQLite answers an interrupted statement by rolling back the whole
// transaction, other writes of the batch included. (A context that can
// never end also spares the driver a goroutine per statement.)
type Tx struct {
	*sql.Tx
	now time.Time
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
	// stamped holds, for the statistics rows whose last change the
	// current write has set (insertChange), the last author it set there
	// ("" if none).
	stamped map[scopeKey]string
	// author is the last author name read (authorName), kept while the
	// batch's writes are narrow ones (edits, uploads), which rename
	// nobody: a user may be renamed by any other write.
	author struct {
		id   int64
		name string
	}
	// hooks is the published set of webhooks (addons.go); writeHooks and
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
	// newUnits counts the units the current write inserted, by
	// translation and list_counts bucket (unitInserter), for
	// storeUnitCounts.
	newUnits map[unitBucket]int64
}

// runCtx is the context every statement of a write transaction runs
// under (see Tx).
var runCtx = context.Background()

// widen says the current write did something whose reach touch does not
// name: every cached answer is stale after it.
func (tx *Tx) widen() { tx.widened = true }

// touch records scopes the current write changed.
func (tx *Tx) touch(deps ...dep) { tx.touched.deps = append(tx.touched.deps, deps...) }

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
	tx.touched = touchSet{deps: tx.touched.deps[:0]}
	tx.narrowed, tx.widened = narrow, false
	tx.writeHooks = nil
	if tx.writeOwed == nil {
		tx.writeOwed, tx.owed = map[scopeKey]*owedStats{}, map[scopeKey]*owedStats{}
		tx.stamped = map[scopeKey]string{}
	}
	clear(tx.writeOwed)
	tx.forgetStamps()
}

// forgetStamps forgets which statistics rows the current write has
// stamped with its last change: deleted rows must be stamped anew.
func (tx *Tx) forgetStamps() { clear(tx.stamped) }

// endWrite keeps what the current write did, when it succeeded: what it
// touched, and what it owes the statistics.
func (tx *Tx) endWrite(batch *touchSet) {
	wide := !tx.narrowed || tx.widened
	tx.batchWide = tx.batchWide || wide
	batch.merge(touchSet{everything: wide, deps: tx.touched.deps})
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
}

// hookSet is the webhooks the current write's changes are matched
// against: the latest set of this transaction, or the published one.
func (tx *Tx) hookSet() *hookSet {
	switch {
	case tx.writeHooks != nil:
		return tx.writeHooks
	case tx.batchHooks != nil:
		return tx.batchHooks
	}
	return tx.hooks.Load()
}

// txStmt is a statement prepared for a write transaction; it runs under
// runCtx (see Tx).
type txStmt struct {
	st *sql.Stmt
	d  *dialect
}

func (s *txStmt) ExecContext(_ context.Context, args ...any) (sql.Result, error) {
	return s.st.ExecContext(runCtx, s.d.args(args)...)
}

func (s *txStmt) QueryRowContext(_ context.Context, args ...any) *sql.Row {
	return s.st.QueryRowContext(runCtx, s.d.args(args)...)
}

func (s *txStmt) QueryContext(_ context.Context, args ...any) (*sql.Rows, error) {
	return s.st.QueryContext(runCtx, s.d.args(args)...)
}

// prepare returns query prepared for the transaction: the writer's
// cached statement when there is one, else one compiled for this
// transaction (w prepares it for the next in the background). Worth it
// for statements run per row.
func (tx *Tx) prepare(_ context.Context, query string) (*txStmt, error) {
	if st, ok := tx.stmts[query]; ok {
		return st, nil
	}
	st := txStmts{c: tx.w, tx: tx.Tx}.stmt(runCtx, query)
	if st == nil {
		var err error
		if st, err = tx.Tx.PrepareContext(runCtx, tx.w.d.rebind(query)); err != nil {
			return nil, err
		}
	}
	if tx.stmts == nil {
		tx.stmts = map[string]*txStmt{}
	}
	ts := &txStmt{st, tx.w.d}
	tx.stmts[query] = ts
	return ts, nil
}

// ExecContext runs query with the writer's cached statement when there
// is one.
func (tx *Tx) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	return txStmts{c: tx.w, tx: tx.Tx}.ExecContext(runCtx, query, args...)
}

// QueryContext runs query with the writer's cached statement when there
// is one.
func (tx *Tx) QueryContext(_ context.Context, query string, args ...any) (*sql.Rows, error) {
	return txStmts{c: tx.w, tx: tx.Tx}.QueryContext(runCtx, query, args...)
}

// QueryRowContext runs query with the writer's cached statement when
// there is one.
func (tx *Tx) QueryRowContext(_ context.Context, query string, args ...any) *sql.Row {
	return txStmts{c: tx.w, tx: tx.Tx}.QueryRowContext(runCtx, query, args...)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
