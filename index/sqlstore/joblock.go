package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The session-level advisory locks LockComponent takes are in
// PostgreSQL's two-int form: the first key names the index (lockSpace of
// "job" and the schema), the second is the component's id.

// jobLocks is the pool whose connections hold the component locks of
// LockComponent, each one for as long as its lock is held: apart from
// the readers' pool, so that git jobs holding locks never take the
// connections their own reads need.
type jobLocks struct {
	pool  *sql.DB
	space int32                  // the first key of every lock (lockSpace)
	mu    sync.Mutex             // guards held
	held  map[*sql.Conn]struct{} // the connections holding a lock now
}

// openJobLocks opens the job locks' pool, whose sessions cfg configures.
func openJobLocks(cfg *pgx.ConnConfig) *jobLocks {
	pool := stdlib.OpenDB(*cfg)
	// One connection per lock held, however many; a couple are kept for
	// the next jobs.
	pool.SetMaxIdleConns(2)
	return &jobLocks{pool: pool, held: map[*sql.Conn]struct{}{}}
}

// close ends the sessions holding locks, releasing them as a process
// that dies would (sql.DB.Close leaves a connection in use open), and
// closes the pool.
func (l *jobLocks) close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	for conn := range l.held {
		discardConn(conn)
		delete(l.held, conn)
	}
	l.mu.Unlock()
	return l.pool.Close()
}

// hold records that conn holds a lock.
func (l *jobLocks) hold(conn *sql.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[conn] = struct{}{}
}

// release forgets conn, reporting whether it still held its lock (close
// did not end its session first).
func (l *jobLocks) release(conn *sql.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.held[conn]
	delete(l.held, conn)
	return ok
}

// LockComponent takes the component's job lock across the processes
// that share the index and returns the function that releases it (safe
// to call more than once). Git work on a component (a commit, a pull, a
// push) runs under it in one process at a time.
//
// On PostgreSQL it is a session-level advisory lock held on a connection
// of its own until the release: a process that dies, or loses its
// connection, releases it at once, as PostgreSQL ends the session. The
// wait ends with ctx's error when ctx ends first. On SQLite the file
// belongs to one process, whose own mutexes order its jobs: the lock is
// a no-op. It is safe for concurrent use.
func (db *DB) LockComponent(ctx context.Context, componentID int64) (func(), error) {
	if db.jobs == nil {
		return func() {}, nil
	}
	if componentID < math.MinInt32 || componentID > math.MaxInt32 {
		return nil, fmt.Errorf("lock component %d: id out of the lock's range", componentID)
	}
	conn, err := db.jobs.pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock component %d: %w", componentID, err)
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1, $2)`, db.jobs.space, int32(componentID)); err != nil {
		// A wait that ctx cut short may have been granted as it was
		// cancelled: the session goes, and whatever it holds with it.
		discardConn(conn)
		return nil, fmt.Errorf("lock component %d: %w", componentID, err)
	}
	db.jobs.hold(conn)
	var once sync.Once
	return func() {
		once.Do(func() {
			if !db.jobs.release(conn) {
				return // closed: the session and its lock are gone
			}
			// The job's context may be over; the release must happen
			// anyway, and a session that cannot answer is dropped.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var released bool
			err := conn.QueryRowContext(ctx, `SELECT pg_advisory_unlock($1, $2)`, db.jobs.space,
				int32(componentID)).Scan(&released)
			if err != nil || !released {
				discardConn(conn)
				return
			}
			conn.Close()
		})
	}, nil
}

// discardConn closes conn's session instead of returning it to its pool,
// which ends every session-level lock it holds.
func discardConn(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}
