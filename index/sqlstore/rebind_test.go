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
	// 3,000 bytes, ≈ 5,900 its answer: past the bound after ≈ 470.
	long := strings.Repeat("?, ", 1000)
	maxEntries := 0
	for i := 0; i < maxRebound/8000+10; i++ {
		d.rebind(fmt.Sprintf("SELECT %d, %s", i, long))
		maxEntries = max(maxEntries, len(d.rebound.m))
		if d.rebound.bytes > maxRebound {
			t.Fatalf("the cache holds %d bytes, past its bound", d.rebound.bytes)
		}
	}
	past := `SELECT 'past', ` + long
	if got := d.rebind(past); !strings.HasPrefix(got, `SELECT 'past', $1, $2, `) || !strings.HasSuffix(got, `$1000, `) {
		t.Errorf("past the bound: %q", got)
	}
	if _, ok := d.rebound.m[past]; !ok || len(d.rebound.m) >= maxEntries {
		t.Errorf("the cache did not start over: %d entries (%d at most before), the last text kept %v", len(d.rebound.m), maxEntries, ok)
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
