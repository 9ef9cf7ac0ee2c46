package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStmts bounds the statement cache. Queries are built from a
// few fixed texts plus filter clauses, so real use stays far below it; a
// flood of distinct searches falls back to compiling per call instead of
// growing without end.
const maxCachedStmts = 512

// stmtCache is a queryer over the reader pool that prepares each query
// text once and reuses it. SQLite compiles SQL on every unprepared call,
// which profiles of the read endpoints put at a fifth to a third of a
// request; database/sql keeps one prepared copy per connection. It is
// safe for concurrent use.
type stmtCache struct {
	db *sql.DB
	d  *dialect // rebinds each text once, when it is prepared

	mu        sync.RWMutex // guards stmts, preparing and closed
	stmts     map[string]*sql.Stmt
	preparing map[string]bool // texts being prepared, not yet in stmts
	closed    bool
	// background counts the preparations running on goroutines of their
	// own (txStmts.stmt), which Close waits for: one still running after
	// Close would open a connection to a database being removed.
	background sync.WaitGroup
}

func newStmtCache(db *sql.DB, d *dialect) *stmtCache {
	return &stmtCache{db: db, d: d, stmts: map[string]*sql.Stmt{}, preparing: map[string]bool{}}
}

// lookup returns the cached statement for query, or nil.
func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.stmts[query]
}

// stmt returns the prepared statement for query, preparing it first if
// need be, or nil when it cannot be cached (the caller then runs the
// text directly, which also reports any error in it). Preparing takes a
// connection of the pool, so stmt must not be called by a goroutine that
// holds one in a transaction: see txStmts.
func (c *stmtCache) stmt(ctx context.Context, query string) *sql.Stmt {
	if s := c.lookup(query); s != nil {
		return s
	}
	return c.prepare(ctx, query)
}

// wantsLocked reports whether query is to be prepared now: the cache is
// open, has room, and nobody is preparing it already. c.mu must be held.
func (c *stmtCache) wantsLocked(query string) bool {
	return !c.closed && !c.preparing[query] && len(c.stmts)+len(c.preparing) < maxCachedStmts
}

// prepare prepares query on the pool and caches it. It holds no lock
// while it waits for a connection: the goroutines that hold the pool's
// connections may need the lock to finish and give them back.
func (c *stmtCache) prepare(ctx context.Context, query string) *sql.Stmt {
	c.mu.Lock()
	if s := c.stmts[query]; s != nil || !c.wantsLocked(query) {
		c.mu.Unlock()
		return s
	}
	c.preparing[query] = true
	c.mu.Unlock()

	// Prepared without the request's context: the statement outlives the
	// request that first needed it.
	s, err := c.db.PrepareContext(context.WithoutCancel(ctx), c.d.rebind(query))

	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.preparing, query)
	if err != nil {
		return nil
	}
	if c.closed {
		s.Close()
		return nil
	}
	c.stmts[query] = s
	return s
}

func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := c.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, c.d.args(args)...)
	}
	return c.db.ExecContext(ctx, c.d.rebind(query), c.d.args(args)...)
}

func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := c.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, c.d.args(args)...)
	}
	return c.db.QueryContext(ctx, c.d.rebind(query), c.d.args(args)...)
}

func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := c.stmt(ctx, query); s != nil {
		return s.QueryRowContext(ctx, c.d.args(args)...)
	}
	return c.db.QueryRowContext(ctx, c.d.rebind(query), c.d.args(args)...)
}

// in returns a queryer that runs the cached statements inside tx.
// database/sql binds each to tx's connection, preparing it there once.
func (c *stmtCache) in(tx *sql.Tx) txStmts { return txStmts{c: c, tx: tx} }

// beginRead begins a read transaction: one snapshot across several
// queries. Roll it back when done.
func (db *DB) beginRead(ctx context.Context) (txStmts, error) {
	tx, err := db.rdb.BeginTx(ctx, &db.dialect.readTx)
	if err != nil {
		return txStmts{}, err
	}
	return db.r.in(tx), nil
}

// Rollback ends a read transaction (beginRead).
func (t txStmts) Rollback() error { return t.tx.Rollback() }

type txStmts struct {
	c  *stmtCache
	tx *sql.Tx
}

// stmt returns the cached statement for query bound to the transaction,
// or nil. It never prepares on the pool: this goroutine holds one of the
// pool's connections, and when every connection is held by a transaction
// waiting for another one to prepare, none is ever given back. A miss is
// prepared in the background for the next caller, and this one runs the
// text directly on its own connection.
func (t txStmts) stmt(ctx context.Context, query string) *sql.Stmt {
	t.c.mu.RLock()
	s, wanted := t.c.stmts[query], t.c.wantsLocked(query)
	t.c.mu.RUnlock()
	if s != nil {
		return t.tx.StmtContext(ctx, s)
	}
	if wanted { // no goroutine per miss once the cache is full
		t.c.background.Go(func() { t.c.prepare(context.WithoutCancel(ctx), query) })
	}
	return nil
}

func (t txStmts) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := t.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, t.c.d.args(args)...)
	}
	return t.tx.ExecContext(ctx, t.c.d.rebind(query), t.c.d.args(args)...)
}

func (t txStmts) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := t.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, t.c.d.args(args)...)
	}
	return t.tx.QueryContext(ctx, t.c.d.rebind(query), t.c.d.args(args)...)
}

func (t txStmts) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := t.stmt(ctx, query); s != nil {
		return s.QueryRowContext(ctx, t.c.d.args(args)...)
	}
	return t.tx.QueryRowContext(ctx, t.c.d.rebind(query), t.c.d.args(args)...)
}

// Close closes every cached statement, once the preparations running in
// the background have ended.
func (c *stmtCache) Close() error {
	c.mu.Lock()
	c.closed = true // a preparation still running closes its own statement
	c.mu.Unlock()
	c.background.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, s := range c.stmts {
		s.Close()
		delete(c.stmts, q)
	}
	return nil
}

// queryer is what helpers need; both *sql.DB and *sql.Tx satisfy it.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
