package index

import (
	"context"
	"time"
)

type requestStartKey struct{}

// WithRequestStart returns ctx marked with the moment its request began.
// An engine whose caches must learn of other processes' writes before
// answering (PostgreSQL's, through write_log) need only have learned of
// those acknowledged before that moment: one check serves every lookup
// of the request, and every request that began before the check did.
func WithRequestStart(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, requestStartKey{}, t)
}

// RequestStart is the moment WithRequestStart marked ctx with; a zero
// moment unmarks it.
func RequestStart(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(requestStartKey{}).(time.Time)
	return t, ok && !t.IsZero()
}
