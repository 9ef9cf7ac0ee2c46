package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestAutoTranslateDefersTrigrams: the units an automatic translation
// job writes wait for the trigram index's step until the job pauses
// (bulkWriting), instead of the step taking the writer in the gap
// before the job's next batch; then they are indexed.
func TestAutoTranslateDefersTrigrams(t *testing.T) {
	ctx := context.Background()
	f := mustWriteFixture(t)
	waitNotes := func(want int, within time.Duration) int {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			n := countTrigramNotes(t, f.db)
			if n == want || time.Now().After(deadline) {
				return n
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if n := waitNotes(0, 20*time.Second); n != 0 {
		t.Fatalf("%d units still noted after the fixture's import", n)
	}
	j := autoJob(t, f, "j1", "fr", index.AutoTranslate)
	units, err := f.db.NextAutoTranslateUnits(ctx, j, 4)
	if err != nil || len(units) != 4 {
		t.Fatalf("batch = %v, %v", units, err)
	}
	b := index.AutoBatch{Cursor: units[3].ID, Seen: 4, Results: []index.AutoResult{
		{UnitID: units[0].ID, Target: []string{"Mot 0"}}, {UnitID: units[1].ID, Target: []string{"Mot 1"}}}}
	start := time.Now()
	if n, err := f.db.ApplyAutoTranslateBatch(ctx, j.ID, b); err != nil || n != 2 {
		t.Fatalf("batch: %d, %v; want 2 updated", n, err)
	}
	// Eight times trigramQuiet, well within trigramBulkQuiet: the step
	// would have run by now for any other write.
	time.Sleep(8*trigramQuiet - time.Since(start))
	if n := countTrigramNotes(t, f.db); n != 2 || time.Since(start) >= trigramBulkQuiet {
		t.Errorf("%d units noted %v after the job's batch, want its 2 (the step waits for the job)", n, time.Since(start))
	}
	if n := waitNotes(0, 20*time.Second); n != 0 {
		t.Errorf("%d units still noted after the job paused", n)
	}
	if problems := trigramProblems(t, f.db); len(problems) > 0 {
		t.Errorf("trigram index: %v", problems)
	}
}
