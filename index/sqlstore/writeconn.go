package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
)

// The SQLite writer's own connection. A write transaction through
// database/sql's Tx costs, besides its statements, a goroutine for the
// transaction (BeginTx makes its context cancelable and waits on it), a
// goroutine for every Query and QueryRow inside it (Rows watches the
// transaction's context even when the statement's never ends), and for
// every use of a prepared statement a Tx.StmtContext: a new Stmt, locks
// and a lookup of the connection's copy. A unit edit runs a dozen
// statements; profiles of a PATCH put that machinery at a tenth of the
// writer's CPU (BENCHMARKS "Session 9: the PATCH").
//
// So on SQLite the writer holds one connection for its life, prepares
// each statement on it once, and runs BEGIN IMMEDIATE, COMMIT and
// ROLLBACK itself: statements on a Conn start no goroutine when their
// context cannot end (runCtx), and a statement prepared on the Conn is
// used as it is. What database/sql's Tx guaranteed, writeConn keeps: a
// transaction that does not commit is rolled back (end, deferred by
// runBatch, also after a panic), and a connection whose ROLLBACK fails
// is discarded, so the next batch begins on a fresh one with nothing
// left open. PostgreSQL keeps sql.Tx: its writer's connection is taken
// per batch for the pipelined statements (pipeline.go), and pgx tracks
// the transaction itself.

// writeConn is the SQLite writer's connection and its statements. Only
// the writer goroutine uses it.
type writeConn struct {
	conn  *sql.Conn
	d     *dialect
	stmts map[string]*sql.Stmt // prepared on conn, by query text
	// open: BEGIN ran and neither COMMIT nor ROLLBACK since.
	open bool
	// extra are statements prepared for one transaction only (the cache
	// was full), closed when it ends.
	extra []*sql.Stmt
}

// writeConn returns the writer's connection, opening it if need be
// (the first batch, or after a discarded one). Only the writer calls it.
func (db *DB) writeConn() (*writeConn, error) {
	if db.wc != nil {
		return db.wc, nil
	}
	conn, err := db.wdb.Conn(runCtx)
	if err != nil {
		return nil, err
	}
	db.wc = &writeConn{conn: conn, d: db.dialect, stmts: map[string]*sql.Stmt{}}
	return db.wc, nil
}

// closeWriteConn closes the writer's statements and gives its
// connection back to the pool (the writer stops); discard says the
// connection is not to be used again.
func (db *DB) closeWriteConn(discard bool) {
	c := db.wc
	if c == nil {
		return
	}
	db.wc = nil
	c.closeExtra()
	for q, s := range c.stmts {
		s.Close()
		delete(c.stmts, q)
	}
	if discard {
		// A connection whose Raw answers ErrBadConn is closed, not pooled.
		_ = c.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	c.conn.Close()
}

// begin starts the batch's transaction. IMMEDIATE takes the write lock
// at once, as the pool's _txlock did for database/sql's Tx.
func (c *writeConn) begin() error {
	if _, err := c.ExecContext(runCtx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	c.open = true
	return nil
}

// commit commits the transaction. When COMMIT fails SQLite may have
// left it open; end then rolls it back.
func (c *writeConn) commit() error {
	if _, err := c.ExecContext(runCtx, `COMMIT`); err != nil {
		return err
	}
	c.open = false
	c.closeExtra()
	return nil
}

// end rolls back the transaction unless it committed, and reports
// whether the connection is fit for the next one: a ROLLBACK that fails
// leaves the transaction's state unknown, and the caller discards the
// connection (DB.endWriteConn).
func (c *writeConn) end() (ok bool) {
	c.closeExtra()
	if !c.open {
		return true
	}
	_, err := c.ExecContext(runCtx, `ROLLBACK`)
	c.open = false
	return err == nil
}

func (c *writeConn) closeExtra() {
	for i, s := range c.extra {
		s.Close()
		c.extra[i] = nil
	}
	c.extra = c.extra[:0]
}

// endWriteConn ends the writer's transaction (writeConn.end), discarding
// the connection when its ROLLBACK failed. Deferred by runBatch.
func (db *DB) endWriteConn() {
	if db.wc != nil && !db.wc.end() {
		if db.log != nil {
			db.log.Error("the writer's ROLLBACK failed: its connection is discarded")
		}
		db.closeWriteConn(true)
	}
}

// stmt returns query prepared on the connection, once for the
// connection's life, or nil when the cache is full (the caller runs the
// text directly). Queries are built from a few fixed texts plus, for
// bulk rows, power-of-two row counts (bulkRows), so the cache's bound
// (maxCachedStmts, as the pools' caches) is far above real use.
func (c *writeConn) stmt(query string) (*sql.Stmt, error) {
	if s := c.stmts[query]; s != nil {
		return s, nil
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil, nil
	}
	s, err := c.conn.PrepareContext(runCtx, c.d.rebind(query))
	if err != nil {
		return nil, err
	}
	c.stmts[query] = s
	return s, nil
}

// prepare is stmt for Tx.prepare, which needs a statement even when the
// cache is full: one prepared for the transaction alone then.
func (c *writeConn) prepare(query string) (*sql.Stmt, error) {
	s, err := c.stmt(query)
	if s != nil || err != nil {
		return s, err
	}
	if s, err = c.conn.PrepareContext(runCtx, c.d.rebind(query)); err != nil {
		return nil, err
	}
	c.extra = append(c.extra, s)
	return s, nil
}

// The queryer of the writer's statements. ctx is the write's runCtx
// (see Tx): one that can end would bring back a goroutine per Query.

func (c *writeConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := c.stmt(query)
	if err != nil {
		return nil, err
	}
	if s != nil {
		return s.ExecContext(ctx, c.d.args(args)...)
	}
	return c.conn.ExecContext(ctx, c.d.rebind(query), c.d.args(args)...)
}

func (c *writeConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := c.stmt(query)
	if err != nil {
		return nil, err
	}
	if s != nil {
		return s.QueryContext(ctx, c.d.args(args)...)
	}
	return c.conn.QueryContext(ctx, c.d.rebind(query), c.d.args(args)...)
}

func (c *writeConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s, err := c.stmt(query); s != nil && err == nil {
		return s.QueryRowContext(ctx, c.d.args(args)...)
	}
	// Not cached (the cache is full) or not preparable: the text run
	// directly, whose Row reports any error at Scan.
	return c.conn.QueryRowContext(ctx, c.d.rebind(query), c.d.args(args)...)
}
