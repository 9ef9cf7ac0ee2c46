package sqlstore

import (
	"context"
	"time"
)

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
		if _, err := db.rdb.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err == nil {
			last = gen
		}
	}
}
