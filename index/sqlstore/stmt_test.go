package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStmtCache checks that cached statements answer like direct ones,
// concurrently, that errors in a query still reach the caller, and that
// the cache stops growing at its bound while queries keep working.
func TestStmtCache(t *testing.T) {
	ctx := context.Background()
	db, err := openFresh(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Only the test's own query text counts: what Open read, and what
	// the background steps read on their own schedule (the trigram
	// index's, and the glossary matches' re-match after a quiet spell,
	// trigram_pending.go), are not the test's statements.
	cached := func() int {
		db.r.mu.RLock()
		defer db.r.mu.RUnlock()
		n := 0
		for q := range db.r.stmts {
			if strings.Contains(q, "AS INTEGER) + CAST(") {
				n++
			}
		}
		return n
	}
	before := cached()

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				var got int
				if err := db.r.QueryRowContext(ctx, `SELECT CAST(? AS INTEGER) + CAST(? AS INTEGER)`, i, j).Scan(&got); err != nil || got != i+j {
					t.Errorf("SELECT %d + %d = %d, %v", i, j, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := cached() - before; n != 1 {
		t.Errorf("one query text cached as %d statements", n)
	}

	// Inside a read transaction the same statements serve, and see the
	// transaction's snapshot.
	tx, err := db.rdb.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := db.r.in(tx)
	for j := range 3 {
		var got int
		if err := in.QueryRowContext(ctx, `SELECT CAST(? AS INTEGER) + CAST(? AS INTEGER)`, 1, j).Scan(&got); err != nil || got != 1+j {
			t.Errorf("in tx: SELECT 1 + %d = %d, %v", j, got, err)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := cached() - before; n != 1 {
		t.Errorf("the transaction added statements: %d cached", n)
	}

	if err := db.r.QueryRowContext(ctx, `SELECT nope FROM nowhere`).Scan(new(int)); err == nil {
		t.Error("a broken query returned no error")
	}

	for i := range maxCachedStmts + 10 {
		var got int
		if err := db.r.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d`, i)).Scan(&got); err != nil || got != i {
			t.Fatalf("query %d = %d, %v", i, got, err)
		}
	}
	// A background step's statement may still be on its way into the
	// cache (CI caught one at 511 + 1): the bound counts those too.
	db.r.mu.RLock()
	n, preparing := len(db.r.stmts), len(db.r.preparing)
	db.r.mu.RUnlock()
	if n+preparing != maxCachedStmts {
		t.Errorf("cache holds %d statements and prepares %d, want the bound %d", n, preparing, maxCachedStmts)
	}
}

// TestStmtCacheFullPool holds every connection of the reader pool in a
// read transaction and has each run a query text the cache has not seen.
// Preparing it on the pool from there waited for a connection that the
// other transactions held while they waited the same way: none finished.
func TestStmtCacheFullPool(t *testing.T) {
	ctx := context.Background()
	db, err := openFresh(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := db.rdb.Stats().MaxOpenConnections
	txs := make([]*sql.Tx, n)
	for i := range txs {
		if txs[i], err = db.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
	}
	const query = `SELECT CAST(? AS INTEGER) * 2`
	done := make(chan error, n)
	for i, tx := range txs {
		go func() {
			var got int
			err := db.r.in(tx).QueryRowContext(ctx, query, i).Scan(&got)
			if err == nil && got != 2*i {
				err = fmt.Errorf("SELECT %d * 2 = %d", i, got)
			}
			done <- errors.Join(err, tx.Rollback())
		}()
	}
	timeout := time.After(10 * time.Second)
	for range n {
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-timeout:
			t.Fatalf("%d transactions filling the pool never finished a first query", n)
		}
	}
	// The text was prepared in the background for later callers.
	deadline := time.Now().Add(10 * time.Second)
	for db.r.lookup(query) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the query was never cached")
		}
		time.Sleep(time.Millisecond)
	}
}
