package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestFailedWriteLeavesNoChangeCounts: in a batch of scoped edits, a
// write whose change reached the server before it failed is rolled back
// to its savepoint with the keys it noted for the changes lists' fold
// (on PostgreSQL a setting of the transaction, migration 0096), while the
// writes around it are counted; the lists' counts equal a recount and a
// second batch counts from nothing. On SQLite the trigger counts as
// before.
func TestFailedWriteLeavesNoChangeCounts(t *testing.T) {
	f := oneWriterFixture(t)
	ctx := context.Background()
	release := holdWriter(t, f.db)
	failed := errors.New("refused after its change")
	changes := f.changeCount(t)
	commits := f.db.commits.Load()
	done := make(chan error, 5)
	for i := range 5 {
		go func() {
			u := f.unit(t, "de", i)
			if i != 2 {
				_, err := f.db.UpdateUnit(ctx, u.ID, f.user, setTarget(fmt.Sprintf("counted %d", i)))
				done <- err
				return
			}
			done <- f.db.writeUnit(ctx, u.ID, func(tx *Tx) error {
				if err := insertChange(tx, index.Change{Action: index.ActionChange, ProjectID: f.comp.ProjectID,
					ComponentID: f.comp.ID, TranslationID: u.TranslationID, UnitID: u.ID, LanguageCode: "de",
					UserID: f.user.UserID, AuthorID: f.user.AuthorID, Target: "never"}); err != nil {
					return err
				}
				// A read sends the change before the write fails.
				var n int
				if err := tx.QueryRow(`SELECT count(*) FROM changes WHERE unit_id = ?`, u.ID).Scan(&n); err != nil {
					return err
				}
				return failed
			})
		}()
		time.Sleep(20 * time.Millisecond) // queued in order
	}
	release()
	var refused int
	for range 5 {
		switch err := <-done; {
		case errors.Is(err, failed):
			refused++
		case err != nil:
			t.Fatal(err)
		}
	}
	if refused != 1 {
		t.Fatalf("%d writes refused, want 1", refused)
	}
	if testengine.Engine() == testengine.Postgres && f.db.commits.Load()-commits > 2 {
		// The holding write's commit and the edits' one.
		t.Logf("the writes ran in %d batches (the machine is slow): the savepoint may not be tested", f.db.commits.Load()-commits)
	}
	var never int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE target = 'never'`).Scan(&never); err != nil {
		t.Fatal(err)
	}
	if n := f.changeCount(t) - changes; n < 4 || never != 0 {
		t.Errorf("%d changes recorded, %d of the failed write's", n, never)
	}
	checkStoredStats(t, f.db)
	if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", 5).ID, f.user, setTarget("after")); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
}

// TestChangesFollowDeletedUnits: a deleted unit's changes stay with no
// unit, a deleted translation's go with it, on both engines: PostgreSQL
// keeps this with triggers since its foreign keys of changes to them went
// (migration 0097), as TestChangesFollowDeletedParents checks for the
// others.
func TestChangesFollowDeletedUnits(t *testing.T) {
	f := oneWriterFixture(t)
	ctx := context.Background()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := f.db.r.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	u := f.unit(t, "de", 1)
	for i := range 2 {
		if _, err := f.db.UpdateUnit(ctx, u.ID, f.user, setTarget(fmt.Sprintf("edit %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.db.UpdateUnit(ctx, f.unit(t, "fr", 1).ID, f.user, setTarget("fr edit")); err != nil {
		t.Fatal(err)
	}
	edits := count(`SELECT count(*) FROM changes WHERE unit_id = ?`, u.ID)
	if edits < 2 {
		t.Fatalf("%d changes of the unit, want its 2 edits", edits)
	}
	all := count(`SELECT count(*) FROM changes`)
	if err := f.db.DeleteUnit(ctx, u.ID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM changes WHERE unit_id = ?`, u.ID); n != 0 {
		t.Errorf("%d changes still name the deleted unit", n)
	}
	if n := count(`SELECT count(*) FROM changes`); n <= all {
		t.Errorf("%d changes after the unit's removal, %d before: its changes were not kept", n, all)
	}
	checkStoredStats(t, f.db)
	fr := f.tr["fr"]
	if count(`SELECT count(*) FROM changes WHERE translation_id = ?`, fr) == 0 {
		t.Fatal("no change of the translation to remove with it")
	}
	if err := f.db.DeleteTranslation(ctx, fr, f.user); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM changes WHERE translation_id = ?`, fr); n != 0 {
		t.Errorf("%d changes of the deleted translation kept", n)
	}
	if n := count(`SELECT count(*) FROM changes c WHERE (c.unit_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM units WHERE id = c.unit_id))
		OR (c.translation_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM translations WHERE id = c.translation_id))`); n != 0 {
		t.Errorf("%d changes name a unit or translation that is gone", n)
	}
	checkStoredStats(t, f.db)
}

// holdWriter has db's writer run a write that waits, so that the writes
// queued meanwhile meet in its next batch; release ends the holding
// write and reports its error. The write is narrow, so that the caches
// (contributors rows, peers, translations) stay as the writes before
// left them (the round-trip tests count warm edits).
func holdWriter(t *testing.T, db *DB) (release func()) {
	t.Helper()
	if db.writers != 1 {
		// A second writer would run what queues behind the held write.
		t.Fatalf("holdWriter holds one writer of %d: open the index with Options{Writers: 1}", db.writers)
	}
	unblock := make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.writeNarrow(context.Background(), func(*Tx) error {
			<-unblock
			return nil
		})
	}()
	time.Sleep(50 * time.Millisecond) // the writer runs the holding write
	return func() {
		t.Helper()
		close(unblock)
		if err := <-held; err != nil {
			t.Fatal(err)
		}
	}
}

// warmEdits edits three German units of f's index, so that the author's
// contributor row exists and the statements are prepared.
func warmEdits(t *testing.T, f *writeFixture) {
	t.Helper()
	for i := range 3 {
		if _, err := f.db.UpdateUnit(context.Background(), f.unit(t, "de", i).ID, f.user,
			setTarget(fmt.Sprintf("warm %d", i))); err != nil {
			t.Fatal(err)
		}
	}
}

// editInOneBatch edits the first n German units of f's index, queued
// behind a held write so that they run in one batch; their targets are
// prefix and their index. It returns the units' ids.
func editInOneBatch(t *testing.T, f *writeFixture, n int, prefix string) []int64 {
	t.Helper()
	ctx := context.Background()
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = f.unit(t, "de", i).ID
	}
	release := holdWriter(t, f.db)
	errs := make(chan error, n)
	for i, id := range ids {
		go func() {
			_, err := f.db.UpdateUnit(ctx, id, f.user, setTarget(fmt.Sprintf("%s %d", prefix, i)))
			errs <- err
		}()
	}
	time.Sleep(100 * time.Millisecond) // all queued
	release()
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	return ids
}
