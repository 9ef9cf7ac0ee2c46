package sqlstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestUpkeepStepBesideEdits: on PostgreSQL the background steps' writes
// have a writer of their own (upkeepWriter), so an edit never waits for
// a trigram step's transaction, nor joins its batch. At 100× the
// corpus a step's statements read their rows from disk for up to
// seconds, and the edits batched with it or queued behind it waited as
// long (session 16: p99 past 1 s at 8 editors). The step is held open
// inside its transaction here, with the process's one writer free: the
// edit must be answered meanwhile. Without the step's own writer the
// edit queues behind the step's batch and its deadline passes.
func TestUpkeepStepBesideEdits(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("SQLite has one writer for every write: its file takes one write transaction at a time")
	}
	f := oneWriterFixture(t)
	ctx := context.Background()
	f.db.trigrams.hold()
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	// One noted unit, for the step's batch to take.
	if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", 0).ID, f.user, setTarget("noted for the step")); err != nil {
		t.Fatal(err)
	}
	read, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.db.trigrams.onLinkRead = func() {
		once.Do(func() {
			close(read)
			<-release
		})
	}
	step := make(chan error, 1)
	go func() {
		_, err := f.db.IndexTrigrams(ctx)
		step <- err
	}()
	released := false
	defer func() {
		if !released {
			close(release)
			<-step
		}
	}()
	select {
	case <-read:
	case err := <-step:
		t.Fatalf("the step ended without reading a batch: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the step did not read its batch")
	}

	// Another unit's edit, while the step's transaction is open.
	edit, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	other := f.unit(t, "de", 1)
	if _, err := f.db.UpdateUnit(edit, other.ID, f.user, setTarget("edited beside the step")); err != nil {
		t.Fatalf("an edit while the step's batch is open: %v after %s (it waited for the step)", err, time.Since(start))
	}
	if got := f.unit(t, "de", 1).Target; len(got) != 1 || got[0] != "edited beside the step" {
		t.Errorf("unit reads %q after its edit", got)
	}
	select {
	case err := <-step:
		t.Fatalf("the step ended while held: %v", err)
	default:
	}

	released = true
	close(release)
	if err := <-step; err != nil {
		t.Fatal(err)
	}
	// The step's batch committed: the unit it took is indexed.
	var n int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM unit_trigrams_pending WHERE unit_id = ?`,
		f.unit(t, "de", 0).ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("the step's unit is still noted after its batch committed")
	}
}
