package sqlstore

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestRebind(t *testing.T) {
	d := &dialect{numbered: true}
	for _, tc := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c IN (?, ?)`, `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`},
		{`SELECT '?' || ? FROM "q?"`, `SELECT '?' || $1 FROM "q?"`},
		{`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`},
		{`WHERE (a = ?1 OR ?1 = 0) AND b = ?12`, `WHERE (a = $1 OR $1 = 0) AND b = $12`},
	} {
		if got := d.rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := (&dialect{}).rebind(`a = ?`); got != `a = ?` {
		t.Errorf("SQLite rebind changed the query: %q", got)
	}
}

// TestRebindCache: rebind remembers its answers (the same text is not
// rewritten again), never holds more than maxRebound bytes (it starts
// over, still answering right), skips texts with nothing to rewrite,
// and is shared by the dialect's copies and safe from several
// goroutines (run with -race).
func TestRebindCache(t *testing.T) {
	d := &dialect{numbered: true, rebound: &rebindCache{}}
	q := `SELECT a FROM t WHERE b = ? AND c = ?`
	first := d.rebind(q)
	if got := d.rebind(q); got != first || got != `SELECT a FROM t WHERE b = $1 AND c = $2` {
		t.Fatalf("rebind(%q) = %q then %q", q, first, got)
	}
	if got, ok := d.rebound.m[q]; !ok || got != first {
		t.Errorf("the answer is not remembered: %q, %v", got, ok)
	}
	if d.rebind(`COMMIT`); len(d.rebound.m) != 1 {
		t.Errorf("a text without placeholders was remembered: %d entries", len(d.rebound.m))
	}
	copied := *d
	if copied.rebind(q); copied.rebound != d.rebound || len(d.rebound.m) != 1 {
		t.Errorf("a copy of the dialect does not share its cache")
	}
	// 3,000 bytes, ≈ 5,900 its answer: past the bound after ≈ 470, where
	// the cache starts over (its entries fall) and keeps the new text.
	long := strings.Repeat("?, ", 1000)
	startedOver := false
	for i := 0; i < maxRebound/8000+10; i++ {
		before := len(d.rebound.m)
		q := fmt.Sprintf("SELECT %d, %s", i, long)
		if got := d.rebind(q); !strings.HasPrefix(got, fmt.Sprintf("SELECT %d, $1, $2, ", i)) || !strings.HasSuffix(got, `$1000, `) {
			t.Fatalf("text %d: %q", i, got)
		}
		if d.rebound.bytes > maxRebound {
			t.Fatalf("the cache holds %d bytes, past its bound", d.rebound.bytes)
		}
		if len(d.rebound.m) < before {
			startedOver = true
			if _, ok := d.rebound.m[q]; !ok || len(d.rebound.m) != 1 {
				t.Errorf("started over with %d entries, the new text kept %v", len(d.rebound.m), ok)
			}
		}
	}
	if !startedOver {
		t.Error("the cache never started over past its bound")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				want := fmt.Sprintf("SELECT %d WHERE a = $1", i%20+g)
				if got := d.rebind(fmt.Sprintf("SELECT %d WHERE a = ?", i%20+g)); got != want {
					t.Errorf("rebind from goroutine %d: %q, want %q", g, got, want)
				}
			}
		})
	}
	wg.Wait()
}
