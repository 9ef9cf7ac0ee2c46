package sqlstore

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"
)

// walRestartFrames is the size of the write-ahead log, in pages (64 MiB
// of 4 KiB pages), past which the checkpointer makes the log start over.
// A PASSIVE checkpoint copies pages back but never waits for readers, and
// SQLite starts the log again from its beginning only when a write begins
// after a checkpoint that left no reader on the log: under a sustained
// stream of writes with readers beside it (an import, which reads the
// units it compares) that never happens, and the log grew without bound:
// to 2.2 GB, twice the 1.2 GB database, over an import of 10x the corpus
// (issue 31), every page read looking through its index, the import at
// half its 1x speed and the first edits after it waiting for the
// checkpoint of it. A RESTART checkpoint waits (busy_timeout) for the
// readers to leave the log, so the next write starts it over: one short
// pause of the writer per 64 MiB written, which edits alone rarely reach
// between two quiet moments.
const walRestartFrames = 16384

// checkpointEvery is how often the background checkpointer copies the
// write-ahead log into the database file when something was written.
const checkpointEvery = time.Second

// checkpointer moves WAL checkpoints off the write path. SQLite's
// automatic checkpoint runs inside the commit that crosses its threshold,
// fsyncs the database, and made that one write (one translator's edit)
// wait tens of milliseconds: the tail of every write benchmark. The
// writer's automatic checkpoint is off (Open); this goroutine checkpoints
// from a reader connection instead, PASSIVE so that it never waits for
// a writer or a reader, once a second while writes come in. Durability is
// unchanged: a commit is in the WAL, which survives a crash of the
// process, whether or not it was checkpointed yet.
func (db *DB) checkpointer(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var last uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		gen := db.clock.now()
		if gen == last {
			continue
		}
		if db.checkpoint(ctx) {
			last = gen
		}
	}
}

// checkpoint copies the log back into the database (PASSIVE), and makes
// the log start over (RESTART) when it is past walRestartFrames. It
// reports whether the PASSIVE checkpoint ran.
func (db *DB) checkpoint(ctx context.Context) bool {
	var busy, frames, copied int
	if err := db.rdb.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
		return false
	}
	limit := walRestartFrames
	if n := db.walRestartFrames.Load(); n > 0 {
		limit = int(n)
	}
	if frames > limit {
		db.restartWAL(ctx)
	}
	return true
}

// restartBusy bounds how long a RESTART checkpoint waits for the readers
// to leave the log. It holds the write lock while it waits, so the
// writer waits as long: a reader slower than this makes it give up
// (SQLITE_BUSY, nothing lost) until the next tick, rather than hold an
// edit for the connection's busy_timeout of 10 s.
const restartBusy = 50 * time.Millisecond

// restartWAL runs a RESTART checkpoint on a reader connection of its own
// with a busy_timeout of restartBusy, then gives the connection its
// usual timeout back.
func (db *DB) restartWAL(ctx context.Context) {
	conn, err := db.rdb.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, restartBusy.Milliseconds())); err != nil {
		return
	}
	conn.ExecContext(ctx, `PRAGMA wal_checkpoint(RESTART)`) // busy when readers stay: the next tick tries again
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA busy_timeout = 10000`); err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn }) // not back to the pool with a short timeout
	}
}
