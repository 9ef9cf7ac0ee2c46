package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// roundTrips records the round trips of a PostgreSQL writer's
// connection while on.
type roundTrips struct {
	mu  sync.Mutex
	on  bool
	sql []string
}

func (r *roundTrips) record(sql string) {
	r.mu.Lock()
	if r.on {
		r.sql = append(r.sql, strings.Join(strings.Fields(sql), " "))
	}
	r.mu.Unlock()
}

// during returns the round trips the writer made while fn ran.
func (r *roundTrips) during(fn func()) []string {
	r.mu.Lock()
	r.on, r.sql = true, nil
	r.mu.Unlock()
	fn()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.sql
}

// countRoundTrips counts the round trips of a log of roundTrips: the
// statements of a pipelined batch ("+ ") travel with it.
func countRoundTrips(log []string) int {
	n := 0
	for _, s := range log {
		if !strings.HasPrefix(s, "+ ") {
			n++
		}
	}
	return n
}

// countStatements counts the statements of a log of roundTrips that
// begin with prefix, whether they travel alone or with a pipelined batch.
func countStatements(log []string, prefix string) int {
	n := 0
	for _, s := range log {
		if strings.HasPrefix(strings.TrimPrefix(s, "+ "), prefix) {
			n++
		}
	}
	return n
}

// maxEditRoundTrips is what a unit edit (UpdateUnit, a batch of one, an
// author already known, statements prepared) may cost on PostgreSQL in
// round trips between the writer and the database, from BEGIN to
// COMMIT. Each is a wait of the writer in which it does nothing: at
// 0.1–0.3 ms each on one machine, they were most of an edit (issue 31).
// Two, for an edit that hints its target as the API's PATCH does
// (UpdateUnitExpecting): BEGIN with the locks, the edit's reads
// (prefetch.go) and its same-target lookups (targetGuess), then its
// writes with the closing statements and COMMIT (three while the
// lookups went with the writes, a round trip of their own; four while
// the reads were one too, six while database/sql's Tx sent BEGIN and
// COMMIT alone).
const maxEditRoundTrips = 2

// roundTripFixture opens a new index whose writer's round trips rt
// records, with the trigram index's step held (its statements are no
// write's), and the write fixture in it.
func roundTripFixture(t *testing.T) (*DB, *roundTrips, *writeFixture) {
	t.Helper()
	rt := &roundTrips{}
	// One writer: the tests count one writer's batches.
	db, err := openFreshWith(t, Options{roundTrip: rt.record, Writers: 1, paths: &pathCounts{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.trigrams.hold()
	return db, rt, newWriteFixture(t, db)
}

// TestEditRoundTrips counts the writer's round trips per unit edit on
// PostgreSQL: one edit alone, and eight edits in one batch, which share
// the batch's fixed part.
func TestEditRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	// Warm: the author's contributor row, the statements, the caches.
	for i := range 3 {
		if _, err := db.UpdateUnit(ctx, f.unit(t, "de", i).ID, f.user, setTarget(fmt.Sprintf("warm %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	id := f.unit(t, "de", 0).ID
	one := rt.during(func() {
		if _, err := db.UpdateUnitExpecting(ctx, id, f.user, []string{"one"}, setTarget("one")); err != nil {
			t.Fatal(err)
		}
	})
	n := countRoundTrips(one)
	t.Logf("one edit: %d round trips:\n%s", n, strings.Join(one, "\n"))
	if n > maxEditRoundTrips {
		t.Errorf("one edit took %d round trips, want at most %d", n, maxEditRoundTrips)
	}
	// Without the hint (the workspace's save, the pseudo add-on,
	// tolk-bench), the settle's same-target lookup is a round trip of
	// its own.
	unhinted := rt.during(func() {
		if _, err := db.UpdateUnit(ctx, id, f.user, setTarget("unhinted")); err != nil {
			t.Fatal(err)
		}
	})
	if n := countRoundTrips(unhinted); n != maxEditRoundTrips+1 {
		t.Errorf("one edit without a hint took %d round trips, want %d:\n%s", n, maxEditRoundTrips+1,
			strings.Join(unhinted, "\n"))
	}
	// A batch of one unit edit takes its locks in one call (migration
	// 0123), not the shared lock's statement and lock_write_scopes.
	if !slices.ContainsFunc(one, func(s string) bool { return strings.Contains(s, "lock_write_unit(") }) ||
		slices.ContainsFunc(one, func(s string) bool { return strings.Contains(s, "lock_write_scopes(") }) {
		t.Errorf("one edit did not lock by lock_write_unit alone:\n%s", strings.Join(one, "\n"))
	}
	u, err := db.FindUnitByID(ctx, id)
	if err != nil || u.Target[0] != "unhinted" {
		t.Fatalf("the edit reads %q, %v", u.Target, err)
	}
	// write_log's prune rides with the next batch's first round trip,
	// after its locks (beginBatch: a process of session 9's tree prunes
	// after its own, and the two orders could deadlock).
	db.pruneLog.Store(sharedLogKeep + 1)
	pruned := rt.during(func() {
		if _, err := db.UpdateUnitExpecting(ctx, id, f.user, []string{"pruned"}, setTarget("pruned")); err != nil {
			t.Fatal(err)
		}
	})
	del := slices.IndexFunc(pruned, func(s string) bool { return strings.Contains(s, "DELETE FROM write_log") })
	locks := slices.IndexFunc(pruned, func(s string) bool { return strings.Contains(s, "lock_write_") })
	if del < 0 || locks < 0 || del < locks || countRoundTrips(pruned[:del+1]) != 1 {
		t.Errorf("the prune is not after the locks in the first round trip:\n%s", strings.Join(pruned, "\n"))
	}
	if n := countRoundTrips(pruned); n > maxEditRoundTrips {
		t.Errorf("an edit with the prune took %d round trips, want at most %d", n, maxEditRoundTrips)
	}
	// A string added to the source reaches every translation: each
	// unit's trigram note rides with the write's next round trip
	// (execLater), never one of its own.
	added := rt.during(func() {
		if _, err := db.AddUnit(ctx, f.tr["en"], f.user, func(index.Translation) (index.NewUnit, error) {
			return index.NewUnit{Context: "added", Source: []string{"Added"}, Target: []string{"Added"},
				State: index.StateTranslated}, nil
		}); err != nil {
			t.Fatal(err)
		}
	})
	notes := 0
	for _, s := range added {
		if strings.Contains(s, "unit_trigrams_pending") {
			notes++
			if !strings.HasPrefix(s, "+ ") {
				t.Errorf("a new unit's note is a round trip of its own: %s", s)
			}
		}
	}
	if notes == 0 {
		t.Errorf("no note among the added string's statements:\n%s", strings.Join(added, "\n"))
	}
	checkStoredStats(t, db)
}

// TestGlossaryEditRoundTrips: an edit of a glossary's term marks the
// project's check-glossary translations of its language for a second
// settle; which translations those are is asked once and then answered
// from the writer's cache, so where none is (tolk-bench's corpus: a
// quarter of its edits are a glossary's) the edit costs what an
// ordinary edit costs in round trips; it took one more, its own, while
// every glossary edit asked. A component's flags changed after that
// reach the next glossary edit: the cache follows the write clock, and
// such a change is a wide write.
func TestGlossaryEditRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	_, gl := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"apple", "apple", "apple"}},
		"de": {{"apple", "apple", "Apfel"}},
	})
	fruit, fr := f.importComponent(t, "fruit", func(*index.Component) {}, map[string][][3]string{
		"en": {{"a", "I like an apple", "I like an apple"}},
		"de": {{"a", "I like an apple", "Ich mag einen Apfel"}},
	})
	// Warm: the author's contributor row, the statements, the caches.
	for _, s := range []string{"Paradiesapfel", "Apfel"} {
		f.editKey(t, gl["de"], "apple", s, index.StateTranslated)
	}
	log := rt.during(func() { f.editKey(t, gl["de"], "apple", "Paradiesapfel", index.StateTranslated) })
	n := countRoundTrips(log)
	t.Logf("a glossary edit: %d round trips:\n%s", n, strings.Join(log, "\n"))
	if n > maxEditRoundTrips {
		t.Errorf("a glossary edit took %d round trips, want at most %d", n, maxEditRoundTrips)
	}
	for _, s := range log {
		if strings.Contains(s, "check-glossary") {
			t.Errorf("the check-glossary translations asked again: %s", s)
		}
	}
	if _, _, err := db.UpdateComponent(ctx, fruit.ID, func(c *index.Component) error {
		c.CheckFlags = "check-glossary"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.unitChecks(t, fr["de"], "a"); !slices.Equal(got, []string{"check_glossary"}) {
		t.Errorf("with check-glossary, the term Paradiesapfel: %q", got)
	}
	f.editKey(t, gl["de"], "apple", "Apfel", index.StateTranslated)
	if got := f.unitChecks(t, fr["de"], "a"); len(got) != 0 {
		t.Errorf("after the glossary's edit back: %q", got)
	}
	f.editKey(t, gl["de"], "apple", "Paradiesapfel", index.StateTranslated)
	if got := f.unitChecks(t, fr["de"], "a"); !slices.Equal(got, []string{"check_glossary"}) {
		t.Errorf("after the glossary's edit again: %q", got)
	}
	checkStoredStats(t, db)
}
