package index

import (
	"context"
	"sync"
	"time"
)

type requestKey struct{}

// request is what an engine and its callers share about one request.
type request struct {
	start time.Time
	mu    sync.Mutex // guards page
	page  PageReceipt
	paged bool
}

// WithRequestStart returns ctx marked with the moment its request began.
// An engine whose caches must learn of other processes' writes before
// answering (PostgreSQL's, through write_log) need only have learned of
// those acknowledged before that moment: one check serves every lookup
// of the request, and every request that began before the check did.
// The mark also holds the request's PageReceipt (NotePage).
func WithRequestStart(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, requestKey{}, &request{start: t})
}

// RequestStart is the moment WithRequestStart marked ctx with; a zero
// moment unmarks it.
func RequestStart(ctx context.Context) (time.Time, bool) {
	r, ok := ctx.Value(requestKey{}).(*request)
	if !ok || r.start.IsZero() {
		return time.Time{}, false
	}
	return r.start, true
}

// PageReceipt is what an engine tells of the last list page (of units,
// of changes) it answered for a request: the page's generation, how
// many rows it held and the list's total.
//
// A generation names the rows of a page as the engine read them from its
// database: two answers with the same non-zero Generation hold the same
// rows, equal in every field and in the same order, though their totals
// may differ (a list that grew after a full page). Generations are never
// reused by one open index. 0 promises nothing: the engine did not keep
// the page (its page cache is off, say).
type PageReceipt struct {
	Generation  uint64
	Rows, Total int
}

// NotePage records r as the last list page answered for ctx's request;
// it does nothing for a context WithRequestStart did not mark. Engines
// call it; it is safe for concurrent use.
func NotePage(ctx context.Context, r PageReceipt) {
	if req, ok := ctx.Value(requestKey{}).(*request); ok {
		req.mu.Lock()
		req.page, req.paged = r, true
		req.mu.Unlock()
	}
}

// LastPage returns the receipt of the last list page an engine answered
// for ctx's request (NotePage), and false when none did.
func LastPage(ctx context.Context) (PageReceipt, bool) {
	req, ok := ctx.Value(requestKey{}).(*request)
	if !ok {
		return PageReceipt{}, false
	}
	req.mu.Lock()
	defer req.mu.Unlock()
	return req.page, req.paged
}
