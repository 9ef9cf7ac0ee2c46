package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestFewTargetsPlan: an edit's lookup of the units sharing its targets
// (unitsByFewTargets) keeps one generic plan on PostgreSQL, a probe of
// unit_targets' key (migration 0114), and finds what the array's statement finds.
func TestFewTargetsPlan(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL's statement")
	}
	f := mustWriteFixture(t)
	const units = 400
	langs := map[string][][3]string{}
	for i := range units {
		k := fmt.Sprintf("k%d", i)
		langs["en"] = append(langs["en"], [3]string{k, "Word " + k, "Word " + k})
		langs["de"] = append(langs["de"], [3]string{k, "Word " + k, fmt.Sprintf("Wort %d", i%(units/2))})
	}
	_, tr := f.importComponent(t, "few", func(*index.Component) {}, langs)
	ctx := context.Background()
	conn := analyzedConn(t, f.db)
	prepare, _ := PostgresSQL(pgUnitByTarget, nil)
	for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE few AS ` + prepare} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer conn.ExecContext(ctx, `DEALLOCATE few; RESET plan_cache_mode`)
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(`EXPLAIN (ANALYZE, COSTS OFF) EXECUTE few(%d, 'Wort 7', 'Wort 7', %d)`,
		tr["de"], index.StateTranslated))
	if err != nil {
		t.Fatal(err)
	}
	plan := planText(t, rows)
	if !strings.Contains(plan, "Index Only Scan using unit_targets_pkey") || strings.Contains(plan, "Rows Removed by Filter") {
		t.Errorf("the generic plan of one target's lookup is not a probe of unit_targets' key:\n%s", plan)
	}
	for _, targets := range [][]string{{"Wort 7"}, {"Wort 7", "Wort 9"}, {"Wort 1", "Wort 2", "none", "Wort 3"},
		{"Wort 1", "Wort 2", "Wort 3", "Wort 4", "Wort 5"}} {
		var few, all []int64
		err := f.db.write(ctx, func(tx *Tx) error {
			few, all = nil, nil
			if err := tx.unitsByTarget(tr["de"], targets, func(id int64, _, _ string) error {
				few = append(few, id)
				return nil
			}); err != nil {
				return err
			}
			return tx.queryEach(pgUnitsByTarget, func(scan func(...any) error) error {
				var id int64
				var s, g string
				err := scan(&id, &s, &g)
				all = append(all, id)
				return err
			}, targets, tr["de"], index.StateTranslated)
		})
		slices.Sort(few)
		slices.Sort(all)
		want := 2 * len(targets) // each target is two units'
		if slices.Contains(targets, "none") {
			want -= 2
		}
		if err != nil || !slices.Equal(few, all) || len(few) != want {
			t.Errorf("%q: unitsByTarget found %v (%v), the array's statement %v", targets, few, err, all)
		}
	}
}

// TestPipelinedWriteFailsLate: on PostgreSQL a write's statements in a
// batch are sent with the next write's first read (Pipelined savepoints,
// runBatch), so one that fails is found after its write ended: the
// batch runs again with its writes apart, the failing write answers its
// error and keeps nothing, the writes around it keep theirs, and the
// counts equal a recount. On SQLite the statement fails at once.
func TestPipelinedWriteFailsLate(t *testing.T) {
	f := oneWriterFixture(t) // its writes must meet in one batch
	ctx := context.Background()
	release := holdWriter(t, f.db)
	bad := f.unit(t, "de", 3).ID
	type outcome struct {
		i   int
		err error
	}
	done := make(chan outcome, 8)
	for i := range 7 {
		go func() {
			if i == 3 {
				// A statement whose answer the write does not wait for,
				// which fails (a target is never NULL).
				done <- outcome{i, f.db.writeNarrow(ctx, func(tx *Tx) error {
					tx.touch(unitsDep(f.tr["de"]))
					return tx.execLater(`UPDATE units SET target = NULL WHERE id = ?`, bad)
				})}
				return
			}
			_, err := f.db.UpdateUnit(ctx, f.unit(t, "de", i).ID, f.user, setTarget(fmt.Sprintf("late %d", i)))
			done <- outcome{i, err}
		}()
		time.Sleep(20 * time.Millisecond) // queued in order
	}
	apart := f.db.runsApart.Load()
	commits := f.db.commits.Load()
	release()
	for range 7 {
		o := <-done
		if (o.i == 3) != (o.err != nil) {
			t.Errorf("write %d: %v", o.i, o.err)
		}
	}
	for i := range 7 {
		u := f.unit(t, "de", i)
		if want := fmt.Sprintf("late %d", i); i != 3 && u.Target[0] != want {
			t.Errorf("unit %d reads %q, want %q", i, u.Target, want)
		}
	}
	if testengine.Engine() == testengine.Postgres {
		if n := f.db.commits.Load() - commits; n != 1 {
			t.Errorf("the writes ran in %d batches, want 1", n)
		}
		if f.db.runsApart.Load() == apart {
			t.Error("the batch did not run again apart")
		}
	}
	checkStoredStats(t, f.db)
}

// TestChangesFollowDeletedParents: a change goes with its project or
// component and outlives its user and author (who are then none), on
// both engines: PostgreSQL keeps this with triggers since its foreign
// keys of changes to them went (migration 0086).
func TestChangesFollowDeletedParents(t *testing.T) {
	ctx := context.Background()
	e := mustCrudEnv(t)
	count := func(where string, args ...any) int {
		t.Helper()
		var n int
		if err := e.db.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE `+where, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	byAdmin := count(`user_id = ? OR author_id = ?`, e.admin.ID, e.admin.ID)
	all := count(`1 = 1`)
	if byAdmin == 0 {
		t.Fatal("no change by the admin to keep")
	}
	if err := e.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`DELETE FROM users WHERE id = ?`, e.admin.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n := count(`user_id = ? OR author_id = ?`, e.admin.ID, e.admin.ID); n != 0 || count(`1 = 1`) != all {
		t.Errorf("after the user's removal %d changes name them, %d of %d changes kept", n, count(`1 = 1`), all)
	}
	if _, err := e.db.DeleteComponent(ctx, e.c.ID, index.Actor{}); err != nil {
		t.Fatal(err)
	}
	if n := count(`component_id = ?`, e.c.ID); n != 0 {
		t.Errorf("%d changes of the deleted component kept", n)
	}
	if count(`project_id = ?`, e.p.ID) == 0 {
		t.Fatal("no change of the project left to remove with it")
	}
	if _, err := e.db.DeleteProject(ctx, e.p.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(`project_id = ?`, e.p.ID); n != 0 {
		t.Errorf("%d changes of the deleted project kept", n)
	}
	checkStoredStats(t, e.db)
}

// TestBatchRoundTrips counts the writer's round trips for a batch of
// edits on PostgreSQL: each edit's savepoint and statements travel with
// the next edit's reads (Pipelined savepoints, runBatch), so an edit
// costs its reads and its same-target lookup, two round trips, and the
// batch two more (BEGIN with its locks, its closing statements with
// COMMIT: runBatch's own BEGIN and COMMIT; they were a round trip each
// with database/sql's Tx); before, each edit's savepoint and statements
// were one each more. The first edit's reads travel with BEGIN
// (prefetch.go); the others', all in one translation, which an earlier
// edit of the batch may change, are read afresh (TestPrefetchedEdits has
// edits apart take theirs: one round trip each).
func TestBatchRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	warmEdits(t, f)
	const edits = 8
	commits := db.commits.Load()
	var ids []int64
	log := rt.during(func() { ids = editInOneBatch(t, f, edits, "batched") })
	if n := db.commits.Load() - commits; n != 2 {
		t.Fatalf("the edits ran in %d batches after the holding one, want 1", n-1)
	}
	// The holding write's transaction comes first; its COMMIT travels
	// with its closing statements.
	if i := slices.Index(log, "+ COMMIT"); i >= 0 {
		log = log[i+1:]
	} else {
		t.Fatalf("no COMMIT among the round trips:\n%s", strings.Join(log, "\n"))
	}
	n := countRoundTrips(log)
	t.Logf("%d edits in one batch: %d round trips:\n%s", edits, n, strings.Join(log, "\n"))
	if max := 2*edits + 1; n > max {
		t.Errorf("%d edits in a batch took %d round trips, want at most %d", edits, n, max)
	}
	for i, id := range ids {
		u, err := db.FindUnitByID(ctx, id)
		if err != nil || u.Target[0] != fmt.Sprintf("batched %d", i) {
			t.Errorf("unit %d reads %q, %v", i, u.Target, err)
		}
	}
	checkStoredStats(t, db)
}

// TestCommitAnsweredDespiteReadError plants a Go-side error (a scan into
// a destination of the wrong type) in a read that travels with a batch's
// COMMIT: the server committed, so the write is answered as committed
// (it was answered as failed, though its change was stored).
func TestCommitAnsweredDespiteReadError(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("SQLite runs a read at once: its error fails the write before anything commits")
	}
	f := mustWriteFixture(t)
	db, ctx := f.db, context.Background()
	err := db.write(ctx, func(tx *Tx) error {
		if err := tx.execLater(`UPDATE projects SET name = 'planted' WHERE id = ?`, f.comp.ProjectID); err != nil {
			return err
		}
		var n time.Time // text into a time: pgx's scan fails
		return tx.queryRowLater(`SELECT 'not a time'`, scanOne(&n))
	})
	if err != nil {
		t.Errorf("a batch whose COMMIT answered was answered %v", err)
	}
	p, err := db.FindProjectByID(ctx, f.comp.ProjectID)
	if err != nil || p.Name != "planted" {
		t.Errorf("the project reads %q, %v; want the write committed", p.Name, err)
	}
	// A statement the server fails there is no such read: the server
	// skipped COMMIT, nothing of the write is kept.
	err = db.write(ctx, func(tx *Tx) error {
		if err := tx.execLater(`UPDATE projects SET name = 'failed' WHERE id = ?`, f.comp.ProjectID); err != nil {
			return err
		}
		return tx.execLater(`SELECT 1 / 0`)
	})
	if err == nil {
		t.Error("a batch whose statement failed was answered as committed")
	}
	if p, err := db.FindProjectByID(ctx, f.comp.ProjectID); err != nil || p.Name != "planted" {
		t.Errorf("the project reads %q, %v; want the failed write rolled back", p.Name, err)
	}
	// The index goes on writing.
	if _, err := db.UpdateUnit(ctx, f.unit(t, "de", 1).ID, f.user, setTarget("after")); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, db)
}

// TestQueuedErrorIsTheWrites checks that a write whose queued statement
// failed, found by a later QueryRow (which fails then only because the
// transaction is aborted, 25P02), answers the queued statement's error:
// it is what retryable must see (a deadlock, a serialization failure).
func TestQueuedErrorIsTheWrites(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("SQLite runs a statement at once: its error is the write's")
	}
	f := mustWriteFixture(t)
	db, ctx := f.db, context.Background()
	err := db.write(ctx, func(tx *Tx) error {
		if err := tx.execLater(`SELECT 1 / 0`); err != nil {
			return err
		}
		var n int
		return tx.QueryRow(`SELECT 1`).Scan(&n)
	})
	if err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("the write answered %v, want the queued statement's division by zero", err)
	}
	if _, err := db.UpdateUnit(ctx, f.unit(t, "de", 1).ID, f.user, setTarget("after")); err != nil {
		t.Fatal(err)
	}
}

// TestFlushFromCallbackFails: a queued statement's callback that flushes
// again fails, and the write with it, where it would have overwritten
// the statements of the flush that called it (reused across a batch's
// flushes); the index goes on writing.
func TestFlushFromCallbackFails(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("SQLite runs a statement at once: nothing is queued")
	}
	f := mustWriteFixture(t)
	db, ctx := f.db, context.Background()
	err := db.write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.queryRowLater(`SELECT 1`, func(r pgx.Row) error {
			if err := r.Scan(&n); err != nil {
				return err
			}
			if err := tx.execLater(`SELECT 2`); err != nil {
				return err
			}
			return tx.flush()
		}); err != nil {
			return err
		}
		return tx.flush()
	})
	if err == nil || !strings.Contains(err.Error(), "callback") {
		t.Errorf("a flush from a callback answered %v", err)
	}
	if _, err := db.UpdateUnit(ctx, f.unit(t, "de", 1).ID, f.user, setTarget("after")); err != nil {
		t.Fatal(err)
	}
}
