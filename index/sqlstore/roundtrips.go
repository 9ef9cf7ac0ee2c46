package sqlstore

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// roundTripTracer tells f of each round trip a pgx connection makes: a
// statement (BEGIN and COMMIT included), a prepare, a pipelined batch
// (once, with its first statement). For Options.roundTrip.
type roundTripTracer func(sql string)

func (f roundTripTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	f(d.SQL)
	return ctx
}

func (roundTripTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (f roundTripTracer) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	f("PREPARE " + d.SQL)
	return ctx
}

func (roundTripTracer) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// A pipelined batch is one round trip; its statements are told apart,
// prefixed "+ ", for the tests' logs.

func (f roundTripTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	f("BATCH")
	return ctx
}

func (f roundTripTracer) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	f("+ " + d.SQL)
}

func (roundTripTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
