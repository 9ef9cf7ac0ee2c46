package sqlstore

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/tolk-project/tolk/index"
)

// roundTripTracer counts each round trip a pgx connection makes (a
// statement, BEGIN and COMMIT included, a prepare, a pipelined batch)
// in n, for WriterStats: an atomic add, nothing an edit would notice.
// When f is set (Options.roundTrip, the tests') it is told of each with
// its SQL (a batch's once, then each of its statements).
type roundTripTracer struct {
	n *atomic.Uint64
	f func(sql string)
}

func (t roundTripTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	t.n.Add(1)
	if t.f != nil {
		t.f(d.SQL)
	}
	return ctx
}

func (roundTripTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (t roundTripTracer) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	t.n.Add(1)
	if t.f != nil {
		t.f("PREPARE " + d.SQL)
	}
	return ctx
}

func (roundTripTracer) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// A pipelined batch is one round trip; its statements are told apart,
// prefixed "+ ", for the tests' logs.

func (t roundTripTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	t.n.Add(1)
	if t.f != nil {
		t.f("BATCH")
	}
	return ctx
}

func (t roundTripTracer) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	if t.f != nil {
		t.f("+ " + d.SQL)
	}
}

func (roundTripTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// WriterStats is what the writers have done since the index opened
// (index.WriterStats; the metrics' tolk_db_write_batches_total and beside
// it). It is safe for concurrent use.
func (db *DB) WriterStats() index.WriterStats {
	return index.WriterStats{Batches: db.commits.Load(), Writes: db.batchWrites.Load(), Apart: db.runsApart.Load(),
		RoundTrips: db.roundTrips.Load(), Busy: db.busy.total()}
}
