package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestStmtCache checks that cached statements answer like direct ones,
// concurrently, that errors in a query still reach the caller, and that
// the cache stops growing at its bound while queries keep working.
func TestStmtCache(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "tolk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				var got int
				if err := db.r.QueryRowContext(ctx, `SELECT ? + ?`, i, j).Scan(&got); err != nil || got != i+j {
					t.Errorf("SELECT %d + %d = %d, %v", i, j, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := len(db.r.stmts); n != 1 {
		t.Errorf("one query text cached as %d statements", n)
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
	if n := len(db.r.stmts); n != maxCachedStmts {
		t.Errorf("cache holds %d statements, want the bound %d", n, maxCachedStmts)
	}
}
