package sqlite

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

	mu    sync.RWMutex // guards stmts
	stmts map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: map[string]*sql.Stmt{}}
}

// stmt returns the prepared statement for query, or nil when it cannot
// be cached (the caller then runs the text directly, which also reports
// any error in it).
func (c *stmtCache) stmt(ctx context.Context, query string) *sql.Stmt {
	c.mu.RLock()
	s := c.stmts[query]
	c.mu.RUnlock()
	if s != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.stmts[query]; s != nil {
		return s
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil
	}
	// Prepared without the request's context: the statement outlives the
	// request that first needed it.
	s, err := c.db.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil
	}
	c.stmts[query] = s
	return s
}

func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := c.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return c.db.ExecContext(ctx, query, args...)
}

func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := c.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := c.stmt(ctx, query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, query, args...)
}

// in returns a queryer that runs the cached statements inside tx (a read
// transaction that needs one snapshot across several queries).
// database/sql binds each to tx's connection, preparing it there once.
func (c *stmtCache) in(tx *sql.Tx) queryer { return txStmts{c: c, tx: tx} }

type txStmts struct {
	c  *stmtCache
	tx *sql.Tx
}

func (t txStmts) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := t.c.stmt(ctx, query); s != nil {
		return t.tx.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

func (t txStmts) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := t.c.stmt(ctx, query); s != nil {
		return t.tx.StmtContext(ctx, s).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t txStmts) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := t.c.stmt(ctx, query); s != nil {
		return t.tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

// Close closes every cached statement.
func (c *stmtCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, s := range c.stmts {
		s.Close()
		delete(c.stmts, q)
	}
	return nil
}
