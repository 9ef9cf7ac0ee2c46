package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
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
// after the other store's Close, give or take a loaded machine. The
// other's Open, which costs a step-down rather than soloTerm, is logged,
// not bounded (a loaded machine's scheduling would make a bound flaky).
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

// lockedBuffer is a log sink safe for the store's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLeaseWaitBounded: a newcomer beside a solo process that does not
// step down (stopped with its session alive; here a session that holds
// the lease exclusively, with the marker naming it, and never reads its
// NOTIFYs) starts after leaseWait soloTerms rather than hang, logs the
// holder's backend, is not solo (its reads check write_log, so they see
// what the holder writes), and its own write waits (the fence) until the holder
// lets go; then it takes the lease. On main's code Open waited as long
// as the holder held.
func TestLeaseWaitBounded(t *testing.T) {
	dsn := leaseDSN(t)
	const term = 200 * time.Millisecond
	a, err := Open(context.Background(), Options{Engine: Postgres, Location: dsn, soloTerm: term})
	if err != nil {
		t.Fatal(err)
	}
	fa := newWriteFixture(t, a)
	u := fa.unit(t, "de", 1)
	a.Close() // the schema is made: the holder below stands for a stopped solo process
	stuck, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	ctx := context.Background()
	holder, err := stuck.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var pid int
	key := a.lease.key
	if err := holder.QueryRowContext(ctx, "SELECT pg_advisory_lock("+key+"), pg_backend_pid()").Scan(new(any), &pid); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, "UPDATE solo_lease SET holder = pg_backend_pid()"); err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	start := time.Now()
	opened := make(chan *DB, 1)
	go func() {
		b, err := Open(ctx, Options{Engine: Postgres, Location: dsn, soloTerm: term,
			Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Error(err)
		}
		opened <- b
	}()
	var b *DB
	select {
	case b = <-opened:
	case <-time.After(leaseWait*term + 20*time.Second):
		holder.ExecContext(ctx, "SELECT pg_advisory_unlock("+key+")") // let Open end
		t.Fatalf("Open waited %v beside a holder that does not step down:\n%s", time.Since(start), log.String())
	}
	if b == nil {
		return
	}
	defer b.Close()
	t.Logf("opened in %v beside the stuck holder", time.Since(start))
	if !strings.Contains(log.String(), "does not step down") || !strings.Contains(log.String(), fmt.Sprintf("backend=%d", pid)) {
		t.Errorf("the newcomer's log does not name the holder's backend %d:\n%s", pid, log.String())
	}
	if b.Solo() {
		t.Error("the newcomer is solo beside the holder")
	}
	fb := *fa
	fb.db = b
	germanPage(t, b, &fb) // cached
	checks := b.SharedChecks()
	germanPage(t, b, &fb)
	if b.SharedChecks() == checks {
		t.Error("the newcomer's cached read did not check write_log beside the holder")
	}
	done := make(chan error, 1)
	go func() {
		_, err := b.UpdateUnit(ctx, u.ID, fb.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"edit 002"}, State: index.StateTranslated}}, nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the newcomer's edit ended (%v) while the holder held the lease exclusively", err)
	case <-time.After(3 * leaseWait * term):
	}
	if _, err := holder.ExecContext(ctx, "UPDATE solo_lease SET holder = NULL"); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, "SELECT pg_advisory_unlock("+key+")"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the newcomer's edit after the holder let go: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the newcomer's edit still waits 30 s after the holder let go")
	}
	if !hasTargetAtLeast(germanPage(t, b, &fb), 2) {
		t.Error("the newcomer's read missed its own edit")
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(log.String(), "took the lease") {
		if time.Now().After(deadline) {
			t.Fatalf("the newcomer did not take the lease 30 s after the holder let go:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitSolo(t, b, true, 30*time.Second)
}

// TestSoloWriterReplaysAfterStepDown: a solo store's writer skips
// write_log's replay, which is safe only while it is solo; once a
// newcomer made it step down and wrote (a new component sharing its
// strings), its next write must replay that first: the edit then reaches
// the new component's unit (propagation asks the peers its writer
// cached). With the replay skipped whatever the lease says, the edit
// does not propagate.
func TestSoloWriterReplaysAfterStepDown(t *testing.T) {
	dsn := leaseDSN(t)
	const term = 150 * time.Millisecond
	a := openLeased(t, dsn, term)
	fa := newWriteFixture(t, a)
	edit := func(db *DB, id int64, target string) {
		t.Helper()
		if _, err := db.UpdateUnit(context.Background(), id, fa.user, setTarget(target)); err != nil {
			t.Fatal(err)
		}
	}
	k1, k3 := fa.unit(t, "de", 1).ID, fa.unit(t, "de", 3).ID
	waitSolo(t, a, true, 10*time.Second)
	edit(a, k1, "solo edit") // a's writer caches its peers: none
	b := openLeased(t, dsn, term)
	if a.Solo() {
		t.Fatal("the first store is still solo after the second opened")
	}
	peer := mustTestComponent(t, b, fa.comp.ProjectID, "app2")
	src := importStrings(t, b, peer.ID, "en", 0, 10, "Word number %d").TranslationID
	de := importStrings(t, b, peer.ID, "de", src, 10, "Word number %d").TranslationID
	edit(a, k3, "after the step-down")
	id, err := b.FindUnitIDByHash(context.Background(), de, index.IDHash(true, nil, "k3"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := b.FindUnitByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Target) == 0 || u.Target[0] != "after the step-down" {
		t.Errorf("the first store's edit did not reach the second's new component: its unit holds %q", u.Target)
	}
}
