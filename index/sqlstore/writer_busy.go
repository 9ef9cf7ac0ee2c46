package sqlstore

import (
	"sync"
	"time"
)

// WriterBusy is how long the writers have spent running write batches
// since the index opened, wall time while at least one of them ran one
// (several writers' overlapping batches count once). Against a bulk
// write's own wall time it says how much of it waited for the writer
// and how much the writer waited for the caller (tolk-bench's import:
// a bulk write's batches run one after another, so their busy time is
// the least an import can take). On PostgreSQL the background steps'
// writer (upkeepWriter) is not counted: it holds no writer, and a step's
// seconds of disk reads at 100× would read as writes queueing.
func (db *DB) WriterBusy() time.Duration { return db.busy.total() }

// writerBusy adds up the time during which some writer runs a batch.
type writerBusy struct {
	mu     sync.Mutex // guards the fields
	active int        // writers in a batch now
	since  time.Time  // when active last went from 0 to 1
	busy   time.Duration
}

// start notes that a writer began a batch.
func (b *writerBusy) start() {
	b.mu.Lock()
	if b.active == 0 {
		b.since = time.Now()
	}
	b.active++
	b.mu.Unlock()
}

// stop notes that a writer finished its batch.
func (b *writerBusy) stop() {
	b.mu.Lock()
	b.active--
	if b.active == 0 {
		b.busy += time.Since(b.since)
	}
	b.mu.Unlock()
}

// total is the busy time so far, the running batches' included.
func (b *writerBusy) total() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active > 0 {
		return b.busy + time.Since(b.since)
	}
	return b.busy
}
