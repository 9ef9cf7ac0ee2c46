package sqlstore

import (
	"context"
	"sync/atomic"
	"time"
)

// Writes on their way. The writer (writer.go) commits the writes that
// are queued when it is free in one transaction (group commit), and on
// PostgreSQL a batch pays fixed round trips and server work (BEGIN, the
// locks and write_log's replay, the counts' fold, statistics, write_log's
// entry, COMMIT: about as much as two edits) whatever it holds. Clients
// editing at once over HTTP split into batches badly: a batch's answers
// go out together, their clients' next requests come back a few hundred
// microseconds apart (HTTP, the token, the write_log check), and the
// writer starts the next batch as soon as the first of them is queued.
// Eight editors measured 4.3 edits a batch over HTTP (8 through
// UpdateUnit directly), so every edit paid nearly twice its share of
// the batch's fixed cost.
//
// So a request that may write says so when it begins (ExpectWrite: the
// edge does it for every request with an unsafe method), and a batch
// that could take more writes waits a little (half the last batch's
// commit at most) while requests that announced a write have neither
// queued one nor ended. A request that ends without writing ends its
// announcement; one that writes several times counts for its first
// write only; one that has not written within expectLapse (an upload
// parsing its file, a git operation) lapses, so that it does not hold
// batches back. Nothing else waits: a lone client's request has queued
// its write before the writer looks, and writes nobody announced (jobs,
// the trigram step) never make a batch wait.
//
// Only PostgreSQL's batches wait: SQLite's fixed cost per batch is a few
// microseconds in process, less than any wait.

// A batch waits for announced writes at most half as long as the last
// batch took to commit (what waiting can save is the next batch's fixed
// cost, a part of that), within these bounds.
const (
	minExpectWait = 200 * time.Microsecond
	maxExpectWait = 5 * time.Millisecond
	// expectLapse is how long an announcement holds without a write.
	expectLapse = 20 * time.Millisecond
)

// expectedWrites counts the announced writes not yet queued.
type expectedWrites struct {
	n atomic.Int64
	// took is how long the last batch took to commit, in nanoseconds.
	took atomic.Int64
	// wake tells a waiting batch that n went down (a write queued, or a
	// request ended without writing); it holds one signal at most.
	wake chan struct{}
}

type expectKey struct{}

// expectation is one request's announced write.
type expectation struct {
	db      *DB
	settled atomic.Bool
	lapse   *time.Timer
}

// ExpectWrite announces that the request of ctx may write soon, and
// returns the context to pass to the index's methods for it and the
// function to call when the request ends (whether it wrote or not).
// Writers batch writes better for it (see Writes on their way); on
// SQLite it does nothing. It is safe for concurrent use.
func (db *DB) ExpectWrite(ctx context.Context) (context.Context, func()) {
	if !db.dialect.shared || db.writeBatchLimit <= 1 || db.expected.wake == nil {
		return ctx, func() {}
	}
	e := &expectation{db: db}
	db.expected.n.Add(1)
	e.lapse = time.AfterFunc(expectLapse, e.end)
	return context.WithValue(ctx, expectKey{}, e), e.settle
}

// settle ends the announcement, once, and its lapse.
func (e *expectation) settle() {
	e.lapse.Stop()
	e.end()
}

// end ends the announcement, once.
func (e *expectation) end() {
	if !e.settled.CompareAndSwap(false, true) {
		return
	}
	e.db.expected.n.Add(-1)
	select {
	case e.db.expected.wake <- struct{}{}:
	default: // a signal is already waiting
	}
}

// queuedWrite settles the announcement of ctx's request, if any: its
// write is now in the writer's hands.
func (db *DB) queuedWrite(ctx context.Context) {
	if e, ok := ctx.Value(expectKey{}).(*expectation); ok && e.db == db {
		e.settle()
	}
}

// awaitExpected adds to batch the announced writes that queue within
// half the last batch's commit (within bounds), while the batch has room
// and some are still on their way.
func (db *DB) awaitExpected(batch []*writeRequest) []*writeRequest {
	if db.expected.n.Load() <= 0 || len(batch) >= db.writeBatchLimit {
		return batch
	}
	wait := min(max(time.Duration(db.expected.took.Load())/2, minExpectWait), maxExpectWait)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for len(batch) < db.writeBatchLimit && db.expected.n.Load() > 0 {
		select {
		case r := <-db.writes:
			batch = append(batch, r)
		case <-db.expected.wake:
		case <-timer.C:
			return batch
		}
	}
	return batch
}
