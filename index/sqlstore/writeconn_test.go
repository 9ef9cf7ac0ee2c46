package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestWriterConnLeavesNoTransaction checks the SQLite writer's own
// connection (writeconn.go) after each way a batch can end without its
// COMMIT: a write that fails after writing, one that panics, and one
// that ends the transaction behind the writer's back (so that the final
// COMMIT and the ROLLBACK after it fail, and the connection must be
// discarded). After each, what the write did is gone, another
// connection can take the write lock at once, and the next write runs.
func TestWriterConnLeavesNoTransaction(t *testing.T) {
	f := mustWriteFixture(t)
	if f.db.dialect.name != "sqlite" {
		t.Skip("SQLite's writer connection; PostgreSQL's writer keeps sql.Tx")
	}
	ctx := context.Background()
	// No write of the trigram step's between the test's: it would take
	// the write lock lockFree looks for, and its BEGIN would discard a
	// connection left in a transaction before lockFree could see it.
	f.db.trigrams.hold()
	id := f.unit(t, "de", 0).ID
	errRefused := errors.New("refused")
	setTarget := func(tx *Tx, target string) error {
		_, err := tx.Exec(`UPDATE units SET target = ? WHERE id = ?`, target, id)
		return err
	}
	target := func() string {
		var s string
		if err := f.db.r.QueryRowContext(ctx, `SELECT target FROM units WHERE id = ?`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	// lockFree takes the write lock from another connection without a
	// busy wait, trying again for a while (the checkpointer may hold the
	// lock a moment), and fails if the writer's connection still holds
	// it: nothing would release it.
	lockFree := func(when string) {
		t.Helper()
		conn, err := f.db.wdb.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
			t.Fatal(err)
		}
		defer conn.ExecContext(ctx, `PRAGMA busy_timeout = 10000`)
		for try := 0; ; try++ {
			_, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`)
			if err == nil {
				break
			}
			if try == 20 {
				t.Fatalf("%s: the write lock is still held: %v", when, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
			t.Fatal(err)
		}
	}
	next := func(when, want string) {
		t.Helper()
		if err := f.db.write(ctx, func(tx *Tx) error { return setTarget(tx, want) }); err != nil {
			t.Fatalf("%s: the next write: %v", when, err)
		}
		if got := target(); got != want {
			t.Fatalf("%s: target %q, want %q", when, got, want)
		}
	}

	next("first", "kept 1")
	err := f.db.write(ctx, func(tx *Tx) error {
		if err := setTarget(tx, "failed"); err != nil {
			return err
		}
		return errRefused
	})
	if !errors.Is(err, errRefused) {
		t.Fatalf("failing write: %v", err)
	}
	if got := target(); got != "kept 1" {
		t.Errorf("after a failed write: target %q", got)
	}
	lockFree("after a failed write")
	next("after a failed write", "kept 2")

	func() {
		defer func() {
			if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "boom") {
				t.Errorf("recovered %v, want the write's panic", v)
			}
		}()
		f.db.write(ctx, func(tx *Tx) error {
			if err := setTarget(tx, "panicked"); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if got := target(); got != "kept 2" {
		t.Errorf("after a panicked write: target %q", got)
	}
	lockFree("after a panicked write")
	next("after a panicked write", "kept 3")

	before := f.db.wc
	err = f.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`ROLLBACK`)
		return err
	})
	if err == nil {
		t.Fatal("a write that rolled back the writer's transaction committed")
	}
	lockFree("after a lost transaction")
	next("after a lost transaction", "kept 4")
	if f.db.wc == before {
		t.Error("the writer kept the connection whose ROLLBACK failed")
	}
}
