package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestLogCheckerReconnects: when the connection of the write_log checks
// dies (its backend terminated), the request that finds it so checks
// again on a new connection within its check, sees the other process's
// write, and drops no cached answer (the clock's global count, which
// only a failed check or a write of everything moves, stays); later
// checks run on the new connection.
func TestLogCheckerReconnects(t *testing.T) {
	ctx := context.Background()
	fa, b := twoProcesses(t)
	deUnits := firstPage(fa, "de")
	read := func() []index.Unit {
		t.Helper()
		units, _, err := b.FindUnits(index.WithRequestStart(ctx, time.Now()), deUnits)
		if err != nil {
			t.Fatal(err)
		}
		return units
	}
	read() // cached, and the checker connected
	pid := checkerPID(t, b)
	var ended bool
	if err := fa.db.rdb.QueryRow(`SELECT pg_terminate_backend($1)`, pid).Scan(&ended); err != nil || !ended {
		t.Fatalf("terminate the checker's backend %d: %v %v", pid, ended, err)
	}
	fa.edit(t, 1, "edit 001")
	global := b.clock.global.Load()
	if !hasTargetAtLeast(read(), 1) {
		t.Fatal("the request whose check failed answered from the cache without a's edit")
	}
	if b.clock.global.Load() != global {
		t.Error("the check whose connection had died dropped every cached answer instead of trying a new connection")
	}
	fa.edit(t, 1, "edit 002")
	checks := b.shared.checks.Load()
	if !hasTargetAtLeast(read(), 2) {
		t.Fatal("after the checker reconnected, a request missed a's edit")
	}
	if b.shared.checks.Load() == checks {
		t.Fatal("the read after the failure made no check")
	}
	if again := checkerPID(t, b); again == pid {
		t.Errorf("the checker still runs on the terminated backend %d", pid)
	}
}

// checkerPID is the backend pid of db's write_log checker's connection.
func checkerPID(t *testing.T, db *DB) int {
	t.Helper()
	c := db.checker
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		t.Fatal("the checker has no connection")
	}
	return int(c.conn.PgConn().PID())
}
