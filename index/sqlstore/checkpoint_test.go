package sqlstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestWALStartsOver writes 16 MiB in 64 KiB transactions while readers
// keep reading, as an import does, checkpointing after each 512 KiB as
// the checkpointer does once a second, and checks that the write-ahead
// log started over rather than growing with everything written: with a
// bound of 1 MiB the file (which keeps its largest size) stays within a
// few MiB; before the checkpointer restarted the log it grew to nearly
// all 16.
func TestWALStartsOver(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tolk.db")
	db, err := Open(ctx, Options{Engine: SQLite, Location: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.walRestartFrames.Store(256) // 1 MiB of 4 KiB pages
	if err := db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`CREATE TABLE wal_fill (b BLOB)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var n int
				if err := db.rdb.QueryRowContext(ctx, `SELECT count(*) FROM wal_fill`).Scan(&n); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	blob := strings.Repeat("x", 64<<10)
	for i := range 256 {
		if err := db.write(ctx, func(tx *Tx) error {
			_, err := tx.Exec(`INSERT INTO wal_fill (b) VALUES (?)`, blob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if i%8 == 7 {
			db.checkpoint(ctx)
		}
	}
	close(stop)
	wg.Wait()
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote 16 MiB; the log is %.1f MiB", float64(fi.Size())/(1<<20))
	if fi.Size() > 4<<20 {
		t.Errorf("the write-ahead log is %d bytes after 16 MiB written through a 1 MiB bound: it did not start over", fi.Size())
	}
}
