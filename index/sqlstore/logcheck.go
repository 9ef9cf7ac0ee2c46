package sqlstore

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
)

// logChecker is the connection the readers' write_log checks run on
// (replay.go: catchUp), on PostgreSQL. Checks run one at a time (the
// next one starts when the last ends), so one connection serves them
// all, with the check's statement prepared once: a check through the
// reader pool paid database/sql's pool, its per-query goroutine and
// pgx's stdlib wrapping on every request of a cached page, about a
// fifth of Tolk's CPU for such a request under wrk (BENCHMARKS.md,
// "Session 9: PostgreSQL reads"), and waited for a reader connection
// behind the pages being read.
//
// The connection is opened on the first check. A check whose kept
// connection fails is tried once more on a new one within the same
// check (the idle connection may have been closed by a server restart
// or idle_session_timeout); a check that still cannot run reports its
// error and replay makes every cached answer stale, as before. It is safe for concurrent use,
// though checks do not overlap.
type logChecker struct {
	cfg *pgx.ConnConfig

	mu     sync.Mutex // guards conn and closed; held through a check
	conn   *pgx.Conn
	closed bool
}

var errCheckerClosed = errors.New("sqlstore: index closed")

func newLogChecker(cfg *pgx.ConnConfig) *logChecker { return &logChecker{cfg: cfg} }

// read returns the write_log entries past seq, in order (replayQuery).
func (c *logChecker) read(ctx context.Context, after int64) ([]logEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errCheckerClosed
	}
	for {
		fresh := c.conn == nil
		if fresh {
			conn, err := pgx.ConnectConfig(ctx, c.cfg)
			if err != nil {
				return nil, err
			}
			c.conn = conn
		}
		entries, err := c.query(ctx, after)
		if err == nil {
			return entries, nil
		}
		c.drop()
		// A connection kept idle between checks may have been closed
		// meanwhile (a server restart, idle_session_timeout): one try
		// on a new one before the caller drops every cached answer.
		if fresh || ctx.Err() != nil {
			return nil, err
		}
	}
}

// query runs the check on c.conn.
func (c *logChecker) query(ctx context.Context, after int64) ([]logEntry, error) {
	rows, err := c.conn.Query(ctx, postgresReplayQuery, after)
	if err != nil {
		return nil, err
	}
	entries, err := appendLog(nil, rows)
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	return entries, err
}

// drop closes a connection a check failed on: its state is unknown (a
// timeout may have left the query running), so the next check opens
// another.
func (c *logChecker) drop() {
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	c.conn.Close(ctx)
	c.conn = nil
}

// close ends the connection, after a check under way.
func (c *logChecker) close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	err := c.conn.Close(ctx)
	c.conn = nil
	return err
}

// postgresReplayQuery is replayQuery as PostgreSQL takes it.
var postgresReplayQuery = postgresDialect.rebind(replayQuery)
