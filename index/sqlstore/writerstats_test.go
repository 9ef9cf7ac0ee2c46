package sqlstore

import (
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestWriterStats reads WriterStats (the metrics' tolk_db_write_batches_total
// and beside it) around real edits: eight edits queued behind a held
// write form one batch, so the counts grow by two batches of nine
// writes; on PostgreSQL the round trips are those the writer's
// connection made (the tests' own recorder counts the same), on SQLite
// none; busy time covers at least the held write.
func TestWriterStats(t *testing.T) {
	db, rt, f := roundTripFixture(t)
	warmEdits(t, f)
	const edits = 8
	before := db.WriterStats()
	log := rt.during(func() { editInOneBatch(t, f, edits, "counted") })
	after := db.WriterStats()
	if n := after.Batches - before.Batches; n != 2 {
		t.Errorf("batches grew by %d, want 2 (the holding write's, the edits')", n)
	}
	if n := after.Writes - before.Writes; n != edits+1 {
		t.Errorf("writes grew by %d, want %d", n, edits+1)
	}
	if n := after.Apart - before.Apart; n != 0 {
		t.Errorf("batches run apart grew by %d, want 0", n)
	}
	want := uint64(0)
	if testengine.Engine() == testengine.Postgres {
		want = uint64(countRoundTrips(log))
	}
	if n := after.RoundTrips - before.RoundTrips; n != want || (testengine.Engine() == testengine.Postgres && n == 0) {
		t.Errorf("round trips grew by %d, want %d (the writer's connection's)", n, want)
	}
	// The held write alone held the writer 150 ms (holdWriter's 50, the
	// 100 above).
	if d := after.Busy - before.Busy; d < 100*time.Millisecond {
		t.Errorf("busy time grew by %v, want at least 100ms", d)
	}
}
