package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/index"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// timeLayout stores timestamps as sortable UTC text with microseconds, the
// precision the API shows.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// DB is the SQLite index. It is safe for concurrent use; Close it when done.
type DB struct {
	path string
	rdb  *sql.DB    // readers
	r    *stmtCache // reads through rdb with prepared statements

	// gen counts committed writes; the lookup and page caches are valid
	// for one value of it.
	gen              atomic.Uint64
	translations     genCache[[3]string, index.Translation]
	translationsByID genCache[int64, index.Translation]
	components       genCache[[2]string, index.Component]
	projects         genCache[string, index.Project]
	languages        genCache[string, index.Language]
	private          genCache[struct{}, []index.Project]
	stats            genCache[[2]string, timedStats]
	unitPages        genCache[string, page[index.Unit]]
	changePages      genCache[string, page[index.Change]]
	wdb              *sql.DB // the single writer
	// stopCheckpoints stops the background checkpointer and waits for it.
	stopCheckpoints func()
	w               *stmtCache // statements prepared on the writer's connection

	// Now is the clock; each write transaction reads it once. Tests may
	// replace it before use.
	Now func() time.Time

	// hooks is every installed webhook, for insertChange (addons.go);
	// queued signals the sender that a write queued deliveries.
	hooks  atomic.Pointer[hookSet]
	queued chan struct{}

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

// Open opens (creating if needed) the index at path and applies pending
// migrations.
func Open(ctx context.Context, path string) (*DB, error) {
	db := &DB{path: path, Now: time.Now, PageCacheBytes: DefaultPageCacheBytes, queued: make(chan struct{}, 1)}
	// WAL lets readers run while an import writes; busy_timeout makes a
	// reader wait out a checkpoint instead of failing; foreign keys keep
	// cascades honest; synchronous=NORMAL is durable at every checkpoint
	// under WAL and saves an fsync per transaction.
	pragmas := []string{
		"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)",
		"synchronous(NORMAL)", "cache_size(-65536)", "temp_store(MEMORY)",
	}
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	wq := url.Values{}
	for k, v := range q {
		wq[k] = v
	}
	// IMMEDIATE takes the write lock at BEGIN, so a transaction never has
	// to upgrade a read lock and fail half-way with SQLITE_BUSY.
	wq.Set("_txlock", "immediate")
	// The writer never checkpoints inside a commit; checkpointer does it
	// in the background.
	wq.Add("_pragma", "wal_autocheckpoint(0)")

	var err error
	if db.wdb, err = sql.Open("sqlite", "file:"+path+"?"+wq.Encode()); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.wdb.SetMaxOpenConns(1)
	db.wdb.SetConnMaxIdleTime(0)
	db.w = newStmtCache(db.wdb)
	if db.rdb, err = sql.Open("sqlite", "file:"+path+"?"+q.Encode()); err != nil {
		db.wdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	db.rdb.SetMaxOpenConns(n)
	db.rdb.SetMaxIdleConns(n)
	db.r = newStmtCache(db.rdb)
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.reloadHooks(ctx, db.wdb); err != nil {
		db.Close()
		return nil, fmt.Errorf("load add-ons: %w", err)
	}
	cctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	db.stopCheckpoints = func() { stop(); <-done }
	go db.checkpointer(cctx, done)
	return db, nil
}

// Close closes both connection pools.
func (db *DB) Close() error {
	var errs []error
	if db.stopCheckpoints != nil {
		db.stopCheckpoints()
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
	return errors.Join(errs...)
}

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.wdb.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if err := db.applyMigration(ctx, name); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

// applyMigration runs one migration file in its own transaction, so a
// crash leaves it either fully applied and recorded or not at all.
func (db *DB) applyMigration(ctx context.Context, name string) error {
	tx, err := db.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrationFS.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO migrations (name, applied) VALUES (?, ?)`,
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
// never earlier than the last recorded change.
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
	stmts map[string]*sql.Stmt
	// hooks is the writer's set of webhooks (addons.go); queued records
	// that the transaction queued deliveries.
	hooks  *atomic.Pointer[hookSet]
	queued bool
}

// prepare returns query prepared for the transaction: the writer's
// cached statement when there is one, else one compiled for this
// transaction (w prepares it for the next in the background). Worth it
// for statements run per row.
func (tx *Tx) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := tx.stmts[query]; ok {
		return st, nil
	}
	st := txStmts{c: tx.w, tx: tx.Tx}.stmt(ctx, query)
	if st == nil {
		var err error
		if st, err = tx.Tx.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
	}
	if tx.stmts == nil {
		tx.stmts = map[string]*sql.Stmt{}
	}
	tx.stmts[query] = st
	return st, nil
}

// ExecContext runs query with the writer's cached statement when there
// is one.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return txStmts{c: tx.w, tx: tx.Tx}.ExecContext(ctx, query, args...)
}

// QueryContext runs query with the writer's cached statement when there
// is one.
func (tx *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return txStmts{c: tx.w, tx: tx.Tx}.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query with the writer's cached statement when
// there is one.
func (tx *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return txStmts{c: tx.w, tx: tx.Tx}.QueryRowContext(ctx, query, args...)
}

// write runs fn in one write transaction and commits it if fn succeeds.
func (db *DB) write(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := db.wdb.BeginTx(ctx, nil)
	if err != nil {
		return formatError(err)
	}
	tx := &Tx{Tx: sqlTx, now: db.Now().UTC(), w: db.w, hooks: &db.hooks}
	defer sqlTx.Rollback()
	// Change timestamps must never decrease in id order (see insertChange),
	// so a clock that went backwards is held at the last change's time.
	// This is the single writer, so no change can slip in between.
	var last string
	err = tx.QueryRowContext(ctx, `SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1`).Scan(&last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return formatError(err)
	}
	if t := parseTime(last); t.After(tx.now) {
		tx.now = t
	}
	if err := fn(tx); err != nil {
		return formatError(err)
	}
	err = sqlTx.Commit()
	// Whatever the outcome, cached lookups may no longer hold.
	db.gen.Add(1)
	if err == nil && tx.queued {
		select {
		case db.queued <- struct{}{}:
		default: // a signal is already waiting
		}
	}
	return formatError(err)
}

// formatError turns driver errors into index error kinds where the caller
// can act on them; everything else passes through as internal.
func formatError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w", index.ErrNotFound)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return &index.Error{Kind: index.ErrConflict, Message: "Object already exists."}
		}
	}
	return err
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
