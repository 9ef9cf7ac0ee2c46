package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// inOneBatchErrs runs writes in one batch of the index's one writer, in
// their order, and returns their errors (inOneBatch: for writes that
// must not fail).
func inOneBatchErrs(t *testing.T, db *DB, writes ...func() error) []error {
	t.Helper()
	release := holdWriter(t, db)
	commits := db.commits.Load()
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = w() }()
		time.Sleep(20 * time.Millisecond) // queued in this order
	}
	release()
	wg.Wait()
	if n := db.commits.Load() - commits; n != 1 {
		t.Fatalf("the writes ran in %d batches, want 1", n)
	}
	return errs
}

// unitChanges returns the targets of unit id's changes of action a
// (0: any), in id order.
func unitChanges(t *testing.T, db *DB, id int64, a index.Action) []string {
	t.Helper()
	rows, err := db.r.QueryContext(context.Background(), `SELECT action, target FROM changes
		WHERE unit_id = ? ORDER BY id`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var action index.Action
		var target string
		if err := rows.Scan(&action, &target); err != nil {
			t.Fatal(err)
		}
		if a == 0 || action == a {
			out = append(out, target)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// gatherFixture is roundTripFixture with three units of its "de"
// translation edited once (their author a contributor, the statements
// prepared) and edit, a write that edits one.
func gatherFixture(t *testing.T) (*DB, *roundTrips, *writeFixture, []int64, func(id int64, target string) func() error) {
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	ids := make([]int64, 3)
	for i := range ids {
		ids[i] = f.unit(t, "de", i).ID
		if _, err := db.UpdateUnit(ctx, ids[i], f.user, setTarget(fmt.Sprint("warm ", i))); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(id int64, target string) func() error {
		return func() error {
			_, err := db.UpdateUnit(ctx, id, f.user, setTarget(target))
			return err
		}
	}
	return db, rt, f, ids, edit
}

// pgGatherFixture is gatherFixture for a test of what PostgreSQL alone
// does (SQLite gathers no change).
func pgGatherFixture(t *testing.T) (*DB, *roundTrips, *writeFixture, []int64, func(id int64, target string) func() error) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("changes are gathered on PostgreSQL")
	}
	return gatherFixture(t)
}

// sendKeepingGathered sends the write's savepoint with a statement that
// reads no change (a same-target lookup), so that the earlier writes'
// rows stay gathered past it; it fails unless they do (the path the
// callers test).
func sendKeepingGathered(tx *Tx, f *writeFixture) error {
	if err := tx.unitsByTarget(f.tr["de"], []string{"none"}, func(int64, string, string) error { return nil }); err != nil {
		return err
	}
	if tx.mark != 0 || len(tx.gathered) == 0 {
		return fmt.Errorf("the savepoint waits (mark %d) or no row is gathered (%d)", tx.mark, len(tx.gathered))
	}
	return nil
}

// TestBatchChangesGathered: the changes of a batch's edits (several
// writes, PostgreSQL), written together (pipeline.go: Gathered changes;
// TestBatchApartRoundTrips counts their INSERTs), keep in their ids the
// edits' order keep the edits' order, two edits of one unit included,
// whose second sees the first; a write of the batch that reads the
// changes sees the earlier writes' and its own.
func TestBatchChangesGathered(t *testing.T) {
	db, rt, _, ids, edit := gatherFixture(t)
	ctx := context.Background()
	var seen int
	read := func() error {
		// A later write of the batch reads the changes: it sees the
		// batch's three edits of ids[0] and ids[1] and its own.
		return db.writeUnit(ctx, ids[2], func(tx *Tx) error {
			if err := insertChange(tx, index.Change{Action: index.ActionComment, UnitID: ids[2], Target: "own"}); err != nil {
				return err
			}
			return tx.QueryRow(`SELECT count(*) FROM changes WHERE unit_id IN (?, ?, ?) AND target IN ('a1', 'a2', 'b1', 'own')`,
				ids[0], ids[1], ids[2]).Scan(&seen)
		})
	}
	log := rt.during(func() {
		inOneBatch(t, db, edit(ids[0], "a1"), edit(ids[1], "b1"), edit(ids[0], "a2"), read, edit(ids[2], "c1"))
	})
	t.Logf("round trips:\n%s", strings.Join(log, "\n"))
	if seen != 4 {
		t.Errorf("the batch's read saw %d of its changes, want 4", seen)
	}
	if got := unitChanges(t, db, ids[0], index.ActionChange); len(got) < 2 || !slices.Equal(got[len(got)-2:], []string{"a1", "a2"}) {
		t.Errorf("the unit edited twice has the changes %q", got)
	}
	// The second edit of ids[0] saw the first: its change says so.
	var old string
	if err := db.r.QueryRowContext(ctx, `SELECT details FROM changes WHERE unit_id = ? AND target = 'a2'`, ids[0]).Scan(&old); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(old, `"old":"a1"`) {
		t.Errorf("the second edit's change: %s", old)
	}
	// Ids in the order made.
	var order []string
	rows, err := db.r.QueryContext(ctx, `SELECT target FROM changes WHERE unit_id IN (?, ?, ?)
		AND target IN ('a1', 'b1', 'a2', 'own', 'c1') ORDER BY id`, ids[0], ids[1], ids[2])
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		order = append(order, s)
	}
	rows.Close()
	if want := []string{"a1", "b1", "a2", "own", "c1"}; !slices.Equal(order, want) {
		t.Errorf("the changes in id order: %q, want %q", order, want)
	}
	checkStoredStats(t, db)
}

// TestBatchChangesGatheredFailedWrite: a write of a batch that fails
// leaves none of its changes, gathered or sent, and the writes before
// and after it keep theirs: also when the failed write had sent the
// earlier writes' gathered rows after its savepoint (its rollback undid
// them: they are written again).
func TestBatchChangesGatheredFailedWrite(t *testing.T) {
	db, _, f, ids, edit := gatherFixture(t)
	ctx := context.Background()
	failed := errors.New("the write fails")
	for _, sent := range []bool{false, true} {
		t.Run(fmt.Sprint("sent ", sent), func(t *testing.T) {
			fail := func() error {
				return db.writeUnit(ctx, ids[1], func(tx *Tx) error {
					if sent && tx.conn != nil {
						if err := sendKeepingGathered(tx, f); err != nil {
							return err
						}
					}
					if err := insertChange(tx, index.Change{Action: index.ActionComment, UnitID: ids[1], Target: "lost"}); err != nil {
						return err
					}
					if sent {
						// Read at once: the gathered rows are sent.
						var n int
						if err := tx.QueryRow(`SELECT count(*) FROM changes WHERE target = 'lost'`).Scan(&n); err != nil {
							return err
						}
						if n != 1 {
							return fmt.Errorf("the write sees %d of its changes", n)
						}
					}
					return failed
				})
			}
			a, c := fmt.Sprint("before ", sent), fmt.Sprint("after ", sent)
			errs := inOneBatchErrs(t, db, edit(ids[0], a), fail, edit(ids[2], c))
			if errs[0] != nil || !errors.Is(errs[1], failed) || errs[2] != nil {
				t.Fatalf("the writes answered %v", errs)
			}
			if got := unitChanges(t, db, ids[1], 0); slices.Contains(got, "lost") {
				t.Errorf("the failed write's change is stored: %q", got)
			}
			// Each once: a row sent after the failed write's savepoint
			// and gathered again is neither lost nor doubled.
			if got := unitChanges(t, db, ids[0], index.ActionChange); len(got) == 0 || got[len(got)-1] != a || countOf(got, a) != 1 {
				t.Errorf("the write before the failed one has the changes %q, want %q once", got, a)
			}
			if got := unitChanges(t, db, ids[2], index.ActionChange); len(got) == 0 || got[len(got)-1] != c || countOf(got, c) != 1 {
				t.Errorf("the write after the failed one has the changes %q, want %q once", got, c)
			}
			checkStoredStats(t, db)
		})
	}
}

// TestBatchChangesGatheredQueuedReader: a statement that reads the
// changes, queued (queryEach) after changes were gathered, runs after
// them: it sees the earlier write's change and its own write's.
func TestBatchChangesGatheredQueuedReader(t *testing.T) {
	db, _, _, ids, edit := gatherFixture(t)
	ctx := context.Background()
	seen := -1
	read := func() error {
		return db.writeUnit(ctx, ids[1], func(tx *Tx) error {
			if err := insertChange(tx, index.Change{Action: index.ActionComment, UnitID: ids[1], Target: "queued own"}); err != nil {
				return err
			}
			return tx.queryEach(`SELECT count(*) FROM changes WHERE target IN ('queued earlier', 'queued own')`,
				func(scan func(...any) error) error { return scan(&seen) })
		})
	}
	inOneBatch(t, db, edit(ids[0], "queued earlier"), read)
	if seen != 2 {
		t.Errorf("the queued read saw %d of the batch's 2 changes", seen)
	}
	checkStoredStats(t, db)
}

// TestBatchChangesGatheredCloseOrder: the batch's last write gathers a
// change, queues a statement that may read changes (which sends the
// first), gathers another and sends nothing: the batch's close writes
// the second after the first, ids in the order made.
func TestBatchChangesGatheredCloseOrder(t *testing.T) {
	db, _, _, ids, edit := pgGatherFixture(t)
	ctx := context.Background()
	last := func() error {
		return db.writeUnit(ctx, ids[1], func(tx *Tx) error {
			if err := insertChange(tx, index.Change{Action: index.ActionComment, UnitID: ids[1], Target: "close A"}); err != nil {
				return err
			}
			if err := tx.execLater(`SELECT count(*) FROM changes`); err != nil {
				return err
			}
			return insertChange(tx, index.Change{Action: index.ActionComment, UnitID: ids[1], Target: "close B"})
		})
	}
	inOneBatch(t, db, edit(ids[0], "close earlier"), last)
	if got := unitChanges(t, db, ids[1], index.ActionComment); !slices.Equal(got, []string{"close A", "close B"}) {
		t.Errorf("the last write's changes in id order: %q, want A then B", got)
	}
	checkStoredStats(t, db)
}

// TestBatchChangesGatheredEarlierRowFails: an earlier write's gathered
// change row that fails once (as a lock timeout or a deadlock would),
// sent after the current write's savepoint (the savepoint sent before
// it), is the earlier write's error, not the current write's: the batch
// runs again apart and both writes succeed, each change once.
func TestBatchChangesGatheredEarlierRowFails(t *testing.T) {
	db, _, f, ids, edit := pgGatherFixture(t)
	ctx := context.Background()
	// The first row of target 'refused' fails; the sequence's count is
	// not rolled back with it.
	for _, s := range []string{`CREATE SEQUENCE gather_refusals`,
		`CREATE FUNCTION gather_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.target = 'refused' AND nextval('gather_refusals') = 1 THEN
				RAISE EXCEPTION 'refused once';
			END IF;
			RETURN NEW;
		END $$`,
		`CREATE TRIGGER gather_refuse BEFORE INSERT ON changes FOR EACH ROW EXECUTE FUNCTION gather_refuse()`} {
		if _, err := db.wdb.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	later := func() error {
		return db.writeUnit(ctx, ids[1], func(tx *Tx) error {
			if tx.gather { // not in the batch's run apart
				if err := sendKeepingGathered(tx, f); err != nil {
					return err
				}
			}
			if err := insertChange(tx, index.Change{Action: index.ActionComment, UnitID: ids[1], Target: "mine"}); err != nil {
				return err
			}
			var n int // read at once: the gathered rows are sent first
			return tx.QueryRow(`SELECT count(*) FROM changes WHERE target = 'mine'`).Scan(&n)
		})
	}
	apart := db.runsApart.Load()
	if errs := inOneBatchErrs(t, db, edit(ids[0], "refused"), later); errs[0] != nil || errs[1] != nil {
		t.Errorf("the writes answered %v", errs)
	}
	if db.runsApart.Load() == apart {
		t.Error("the batch did not run again apart")
	}
	if got := unitChanges(t, db, ids[1], 0); countOf(got, "mine") != 1 {
		t.Errorf("the later write's changes: %q, want %q once", got, "mine")
	}
	if got := unitChanges(t, db, ids[0], 0); countOf(got, "refused") != 1 {
		t.Errorf("the earlier write's changes: %q, want %q once", got, "refused")
	}
	checkStoredStats(t, db)
}

// TestBatchChangesGatheredAuthors: edits of several authors in one
// batch leave their changes gathered past the read of each author's
// name (readUnitForEdit, gatherBlind): one change INSERT for the batch.
func TestBatchChangesGatheredAuthors(t *testing.T) {
	db, rt, f, ids, _ := pgGatherFixture(t)
	ctx := context.Background()
	u, err := db.SaveUser(ctx, index.User{Username: "eve", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	eve := index.UserActor(&u)
	// Their contributor rows known (a new user's write made the known
	// ones stale): no contributors INSERT, run at once, in the batch.
	for i, by := range []index.Actor{f.user, eve, f.user} {
		if _, err := db.UpdateUnit(ctx, ids[i], by, setTarget(fmt.Sprint("warm again ", i))); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(id int64, by index.Actor, target string) func() error {
		return func() error {
			_, err := db.UpdateUnit(ctx, id, by, setTarget(target))
			return err
		}
	}
	log := rt.during(func() {
		// Four rows: one statement (power-of-two lists, queueChangeRows).
		inOneBatch(t, db, edit(ids[0], f.user, "by ed"), edit(ids[1], eve, "by eve"), edit(ids[2], f.user, "by ed again"),
			edit(ids[1], eve, "by eve again"))
	})
	inserts := 0
	for _, s := range log {
		if strings.Contains(s, "INSERT INTO changes") {
			inserts++
		}
	}
	if inserts != 1 {
		t.Errorf("a batch of two authors' edits sent %d change INSERTs, want 1:\n%s", inserts, strings.Join(log, "\n"))
	}
	for i, want := range []string{"by ed", "by eve again", "by ed again"} {
		if got := unitChanges(t, db, ids[i], index.ActionChange); len(got) == 0 || got[len(got)-1] != want {
			t.Errorf("unit %d's changes: %q, want %q last", i, got, want)
		}
	}
	checkStoredStats(t, db)
}

// TestBatchChangesGatheredHooked: a change a webhook wants, written at
// once between a batch's gathered changes, keeps the order they were
// made in by id, and its delivery is queued.
func TestBatchChangesGatheredHooked(t *testing.T) {
	db, _, f, ids, edit := gatherFixture(t)
	ctx := context.Background()
	hook := f.mustHook(t, false, index.EventsCustom, index.ActionComment)
	queued := len(f.pending(t, hook.ID))
	comment := func() error {
		return db.writeUnit(ctx, ids[1], func(tx *Tx) error {
			return insertChange(tx, index.Change{Action: index.ActionComment, ProjectID: f.comp.ProjectID,
				ComponentID: f.comp.ID, UnitID: ids[1], Target: "hooked"})
		})
	}
	inOneBatch(t, db, edit(ids[0], "before hook"), comment, edit(ids[2], "after hook"))
	var order []string
	rows, err := db.r.QueryContext(ctx, `SELECT target FROM changes WHERE target IN ('before hook', 'hooked', 'after hook') ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		order = append(order, s)
	}
	rows.Close()
	if want := []string{"before hook", "hooked", "after hook"}; !slices.Equal(order, want) {
		t.Errorf("the changes in id order: %q, want %q", order, want)
	}
	if n := len(f.pending(t, hook.ID)) - queued; n != 1 {
		t.Errorf("the hooked change queued %d deliveries, want 1", n)
	}
	checkStoredStats(t, db)
}

// countOf counts s in list.
func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}
