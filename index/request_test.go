package index_test

import (
	"context"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestPageReceipts: a marked request keeps the last page noted for it;
// an unmarked context keeps nothing, and a request's receipts stay its
// own.
func TestPageReceipts(t *testing.T) {
	ctx := context.Background()
	index.NotePage(ctx, index.PageReceipt{Generation: 1, Rows: 1, Total: 1})
	if r, ok := index.LastPage(ctx); ok {
		t.Errorf("an unmarked context holds %+v", r)
	}
	a := index.WithRequestStart(ctx, time.Now())
	b := index.WithRequestStart(ctx, time.Now())
	if r, ok := index.LastPage(a); ok {
		t.Errorf("a request before any page holds %+v", r)
	}
	first := index.PageReceipt{Generation: 7, Rows: 50, Total: 120}
	last := index.PageReceipt{Generation: 9, Rows: 20, Total: 120}
	index.NotePage(a, first)
	index.NotePage(context.WithoutCancel(a), last) // a context derived from the request's
	if r, ok := index.LastPage(a); !ok || r != last {
		t.Errorf("LastPage = %+v, %v; want %+v", r, ok, last)
	}
	if r, ok := index.LastPage(b); ok {
		t.Errorf("another request holds %+v", r)
	}
	if _, ok := index.RequestStart(index.WithRequestStart(ctx, time.Time{})); ok {
		t.Error("a zero start marks the request's start")
	}
}
