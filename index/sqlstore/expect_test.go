package sqlstore

import (
	"context"
	"testing"
	"time"
)

// bareWriterQueue is a DB with only what awaitExpected uses: no writer
// goroutine reads its queue, the test does.
func bareWriterQueue() *DB {
	return &DB{dialect: &dialect{shared: true}, writes: make(chan *writeRequest), writeBatchLimit: maxWriteBatch,
		expected: expectedWrites{wake: make(chan struct{}, 1)}}
}

// TestBatchWaitsForAnnouncedWrites: a batch takes the writes announced
// (ExpectWrite) that queue while it waits, stops waiting once none is on
// its way (queued, or ended without writing), and never waits past its
// bound for one that does not come.
func TestBatchWaitsForAnnouncedWrites(t *testing.T) {
	db := bareWriterQueue()
	db.expected.took.Store(int64(time.Hour)) // the bound is maxExpectWait
	first := &writeRequest{ctx: context.Background()}

	// Nothing announced: no wait.
	if got := db.awaitExpected([]*writeRequest{first}); len(got) != 1 {
		t.Fatalf("batch with nothing announced: %d writes", len(got))
	}

	// Two announced: one writes, one ends without writing.
	writing, endWriting := db.ExpectWrite(context.Background())
	_, endIdle := db.ExpectWrite(context.Background())
	defer endWriting()
	go func() {
		db.writes <- &writeRequest{ctx: writing}
		db.queuedWrite(writing)
		endIdle()
	}()
	start := time.Now()
	got := db.awaitExpected([]*writeRequest{first})
	took := time.Since(start)
	if len(got) != 2 || got[1].ctx != writing {
		t.Fatalf("batch after two announced, one written: %d writes, want 2", len(got))
	}
	if n := db.expected.n.Load(); n != 0 {
		t.Errorf("announcements left: %d, want 0", n)
	}
	t.Logf("the batch waited %v for its second write", took)

	// One announced that never comes: the batch waits its bound, no more.
	_, endLate := db.ExpectWrite(context.Background())
	start = time.Now()
	got = db.awaitExpected([]*writeRequest{first})
	took = time.Since(start)
	endLate()
	if len(got) != 1 || took < maxExpectWait || took > maxExpectWait+time.Second {
		t.Errorf("batch for a write that never came: %d writes after %v, want 1 after %v", len(got), took, maxExpectWait)
	}

	// An announcement lapses by itself.
	_, endLapsed := db.ExpectWrite(context.Background())
	defer endLapsed()
	deadline := time.Now().Add(10 * time.Second)
	for db.expected.n.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(expectLapse / 4)
	}
	if n := db.expected.n.Load(); n != 0 {
		t.Errorf("an announcement %v old still counts (%d)", expectLapse, n)
	}
}

// TestExpectWriteOnSQLite: SQLite's batches never wait.
func TestExpectWriteOnSQLite(t *testing.T) {
	db := bareWriterQueue()
	db.dialect = &dialect{}
	ctx := context.Background()
	if got, done := db.ExpectWrite(ctx); got != ctx || db.expected.n.Load() != 0 {
		t.Errorf("SQLite announced a write")
	} else {
		done()
	}
}
