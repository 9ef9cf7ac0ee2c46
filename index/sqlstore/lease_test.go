package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// openLeased opens a store on dsn with the lease's times shortened to
// term (0: the real ones), closed at the end of the test.
func openLeased(t testing.TB, dsn string, term time.Duration) *DB {
	t.Helper()
	db, err := Open(context.Background(), Options{Engine: Postgres, Location: dsn, soloTerm: term})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// leaseDSN is a fresh PostgreSQL schema, or skips: a SQLite file has one
// process and no lease.
func leaseDSN(t testing.TB) string {
	t.Helper()
	if testengine.Engine() != testengine.Postgres {
		t.Skip("the lease is PostgreSQL's")
	}
	return testengine.PostgresDSN(t)
}

// waitSolo waits at most within for db to be solo (or, if want is
// false, to stop being it) and returns how long it took.
func waitSolo(t testing.TB, db *DB, want bool, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for db.Solo() != want {
		if time.Since(start) > within {
			t.Fatalf("solo still %v after %v", !want, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// germanPage reads f's first German page through db as a request begun now.
func germanPage(t *testing.T, db *DB, f *writeFixture) []index.Unit {
	t.Helper()
	units, _, err := db.FindUnits(index.WithRequestStart(context.Background(), time.Now()), firstPage(f, "de"))
	if err != nil {
		t.Fatal(err)
	}
	return units
}

// TestSoloSkipsChecks: a store alone on its database answers cached
// reads without asking write_log (none of the checks every read made
// before the lease), and still reads its own writes. A read is counted
// when the store was solo before and after it: a heartbeat late by more
// than soloTerm-soloBeat on a loaded machine ends solo for a while,
// rightly.
func TestSoloSkipsChecks(t *testing.T) {
	a := openLeased(t, leaseDSN(t), 0)
	f := newWriteFixture(t, a)
	waitSolo(t, a, true, soloRetry+2*soloTerm+5*time.Second)
	germanPage(t, a, f)
	counted := 0
	read := func() []index.Unit {
		t.Helper()
		solo, checks := a.Solo(), a.SharedChecks()
		units := germanPage(t, a, f)
		if solo && a.Solo() {
			counted++
			if n := a.SharedChecks() - checks; n != 0 {
				t.Errorf("a read of the solo store checked write_log %d times, want 0", n)
			}
		}
		return units
	}
	for i := range 20 {
		f.edit(t, 1, fmt.Sprintf("edit %03d", i+1))
		if !hasTargetAtLeast(read(), int64(i+1)) {
			t.Fatalf("the solo store's read missed its own edit %d", i+1)
		}
		read()
	}
	if counted < 20 {
		t.Errorf("the store was solo across %d reads of 40, want most", counted)
	}
}

// TestSoloStepsDownForNewcomer: a second store opened beside a solo one
// finds it stepped down by the time its Open returns (before its first
// write), and its writes are read through the first at once. Each round
// waits for the first to be solo again after the second closes. The
// stores' times are shortened so that 50 rounds take seconds.
func TestSoloStepsDownForNewcomer(t *testing.T) {
	dsn := leaseDSN(t)
	const term = 150 * time.Millisecond
	a := openLeased(t, dsn, term)
	fa := newWriteFixture(t, a)
	rounds := 50
	if testing.Short() {
		rounds = 5
	}
	for i := 1; i <= rounds; i++ {
		waitSolo(t, a, true, 10*time.Second)
		germanPage(t, a, fa) // cached
		// tolk_db_solo_changes_total: each solo spell counts its start
		// and its end, so the count is odd while solo (a heartbeat lost
		// on a loaded machine may add spells between the rounds).
		changes := a.SoloChanges()
		if changes < uint64(2*i-1) || changes%2 != 1 {
			t.Errorf("round %d: %d solo changes while solo, want an odd number ≥ %d", i, changes, 2*i-1)
		}
		b, err := Open(context.Background(), Options{Engine: Postgres, Location: dsn, soloTerm: term})
		if err != nil {
			t.Fatal(err)
		}
		if a.Solo() {
			b.Close()
			t.Fatalf("round %d: the first store is still solo after the second opened", i)
		}
		if n := a.SoloChanges(); n != changes+1 {
			t.Errorf("round %d: %d solo changes after the step-down, want %d", i, n, changes+1)
		}
		fb := *fa
		fb.db = b
		fb.edit(t, 1, fmt.Sprintf("edit %03d", i))
		if !hasTargetAtLeast(germanPage(t, a, fa), int64(i)) {
			b.Close()
			t.Fatalf("round %d: the first store's read missed the second's edit", i)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSoloAgainAfterClose: with the real times, a store becomes solo
// soloRetry + 2×soloTerm (and the drain, the replay and a round trip)
// after the other store's Close, give or take a loaded machine, and the other's Open cost at most a
// step-down, not soloTerm.
func TestSoloAgainAfterClose(t *testing.T) {
	dsn := leaseDSN(t)
	a := openLeased(t, dsn, 0)
	// About 4 s (docs/postgresql.md); the slack is for a loaded machine.
	within := soloRetry + 2*soloTerm + 4*time.Second
	waitSolo(t, a, true, within)
	start := time.Now()
	b, err := Open(context.Background(), Options{Engine: Postgres, Location: dsn})
	if err != nil {
		t.Fatal(err)
	}
	opened := time.Since(start)
	if a.Solo() {
		t.Fatal("the first store is still solo after the second opened")
	}
	t.Logf("the second store opened in %v beside a solo one", opened)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	took := waitSolo(t, a, true, within)
	t.Logf("solo again %v after the second closed (bound %v)", took, within)
}

// TestSoloLeaseKilled: when the solo store's lease connection is killed
// (pg_terminate_backend, from a third connection), the store stops
// skipping checks within soloTerm, and a second store's writes are seen
// by its reads.
func TestSoloLeaseKilled(t *testing.T) {
	dsn := leaseDSN(t)
	const term = 300 * time.Millisecond
	a := openLeased(t, dsn, term)
	fa := newWriteFixture(t, a)
	waitSolo(t, a, true, 10*time.Second)
	germanPage(t, a, fa) // cached
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	pid := a.lease.pid.Load()
	var ended bool
	if err := admin.QueryRow(`SELECT pg_terminate_backend($1)`, pid).Scan(&ended); err != nil || !ended {
		t.Fatalf("terminate the lease's backend %d: %v %v", pid, ended, err)
	}
	killed := time.Now()
	b := openLeased(t, dsn, term)
	fb := *fa
	fb.db = b
	fb.edit(t, 1, "edit 001")
	if a.Solo() && time.Since(killed) >= term {
		t.Errorf("the first store is still solo %v after its lease's connection was killed", time.Since(killed))
	}
	waitSolo(t, a, false, term)
	if !hasTargetAtLeast(germanPage(t, a, fa), 1) {
		t.Fatal("the first store's read missed the second's edit")
	}
}

// TestSoloCloseClearsMarker: a solo store marks itself in solo_lease
// with its lease's backend, and Close clears the mark, so that the next
// process to open the database need not wait soloTerm.
func TestSoloCloseClearsMarker(t *testing.T) {
	dsn := leaseDSN(t)
	a, err := Open(context.Background(), Options{Engine: Postgres, Location: dsn, soloTerm: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	waitSolo(t, a, true, 10*time.Second)
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	holder := func() sql.NullInt64 {
		t.Helper()
		var h sql.NullInt64
		if err := raw.QueryRow(`SELECT holder FROM solo_lease`).Scan(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	if h := holder(); !h.Valid || h.Int64 != int64(a.lease.pid.Load()) {
		t.Errorf("solo_lease holds %v while the store is solo on backend %d", h, a.lease.pid.Load())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if h := holder(); h.Valid {
		t.Errorf("solo_lease still holds %d after the solo store closed", h.Int64)
	}
}

// TestNoSoloChecks: a store opened with Options.NoSolo, alone on its
// database, never becomes solo and checks write_log for its cached
// reads, as every process did before the lease.
func TestNoSoloChecks(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("the lease is PostgreSQL's")
	}
	db, err := Open(context.Background(), Options{Engine: Postgres, Location: leaseDSN(t), NoSolo: true, soloTerm: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := newWriteFixture(t, db)
	time.Sleep(soloRetry + 2*150*time.Millisecond + time.Second)
	if db.Solo() {
		t.Fatal("a store opened with Options.NoSolo became solo")
	}
	germanPage(t, db, f)
	before := db.SharedChecks()
	germanPage(t, db, f)
	if db.SharedChecks() == before {
		t.Error("a store opened with Options.NoSolo answered a cached read without a check")
	}
}

// TestSoloFencesOthersWrites: a process whose lease session ended while
// it goes on, and which does not take the lease again, cannot commit a
// write while another process is solo: its writers take the lease
// shared for each transaction (lease.fence), which the solo process's
// exclusive lease holds back until it steps down. Without the fence the
// edit lands at once and the solo store's cached read misses it.
func TestSoloFencesOthersWrites(t *testing.T) {
	dsn := leaseDSN(t)
	const term = 300 * time.Millisecond
	a, err := Open(context.Background(), Options{Engine: Postgres, Location: dsn, soloTerm: term})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			a.Close()
		}
	})
	fa := newWriteFixture(t, a)
	b, err := Open(context.Background(), Options{Engine: Postgres, Location: dsn, soloTerm: term, leaseReconnect: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	fb := *fa
	fb.db = b
	u := fb.unit(t, "de", 1)
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	pid := b.lease.pid.Load()
	var ended bool
	if err := admin.QueryRow(`SELECT pg_terminate_backend($1)`, pid).Scan(&ended); err != nil || !ended {
		t.Fatalf("terminate the second store's lease backend %d: %v %v", pid, ended, err)
	}
	waitSolo(t, a, true, 10*time.Second)
	germanPage(t, a, fa) // cached
	done := make(chan error, 1)
	go func() {
		_, err := b.UpdateUnit(context.Background(), u.ID, fb.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"edit 001"}, State: index.StateTranslated}}, nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		t.Errorf("the second store's edit ended (%v) while the first was solo: %v", err, a.Solo())
		if a.Solo() && !hasTargetAtLeast(germanPage(t, a, fa), 1) {
			t.Error("and the solo store's read missed it")
		}
		return
	case <-time.After(2 * time.Second):
	}
	if !a.Solo() {
		t.Fatal("the first store stopped being solo while the second's edit waited")
	}
	a.Close() // steps down: the fence is granted
	closed = true
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the second store's edit after the first closed: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the second store's edit still waits 30 s after the solo store closed")
	}
	if !hasTargetAtLeast(germanPage(t, b, &fb), 1) {
		t.Fatal("the second store's read missed its own edit")
	}
}
