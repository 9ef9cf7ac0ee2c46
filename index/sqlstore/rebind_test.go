package sqlstore

import (
	"fmt"
	"strings"
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
// rewritten again) and stops remembering at maxRebound bytes, still
// answering right past it.
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
	// 3,000 bytes, ≈ 5,900 its answer: past the bound after ≈ 470.
	long := strings.Repeat("?, ", 1000)
	for i := 0; i < maxRebound/8000+10; i++ {
		d.rebind(fmt.Sprintf("SELECT %d, %s", i, long))
	}
	n := len(d.rebound.m)
	past := `SELECT 'past', ` + long
	if got := d.rebind(past); !strings.HasPrefix(got, `SELECT 'past', $1, $2, `) || !strings.HasSuffix(got, `$1000, `) {
		t.Errorf("past the bound: %q", got)
	}
	if len(d.rebound.m) != n || d.rebound.bytes > maxRebound {
		t.Errorf("the cache grew past its bound: %d entries (%d before), %d bytes", len(d.rebound.m), n, d.rebound.bytes)
	}
}
