package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// maxPeerEditRoundTrips is what TestPeerEditRoundTrips's edit may cost:
// BEGIN with the locks and the edit's reads (prefetch.go); the edit's
// UPDATE and change with propagation's query of the peers' strings; the
// peer's unit with its check rows and its source's extra flags
// (readPeersForEdit); the peer's edit with both translations' same-target
// lookups and the inconsistent check's queries; the closing statements
// with COMMIT. It was 15 on session 9's tree, 9 with the edit's reads
// alone, the peer's unit, its check rows (with the edit's, read again)
// and its source's flags a round trip each, 8 with the reads prefetched.
const maxPeerEditRoundTrips = 5

// maxPeerFuzzyRoundTrips is the same for a save as needing editing,
// which makes the peer's copy fail a check: also its history read, and
// the peer's check rows and flag, queued since (13 when they were a
// round trip each; 11 and 10 as maxPeerEditRoundTrips's 9 and 8).
const maxPeerFuzzyRoundTrips = 7

// TestPeerEditRoundTrips counts the writer's round trips for an edit of
// a string that another component of the project holds (propagation and
// the inconsistent check read it there, issue 31: most of the corpus's
// edits), and checks that the edit reached the peer.
func TestPeerEditRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	peer := mustTestComponent(t, db, f.comp.ProjectID, "app2")
	tr := map[string]int64{}
	for _, lang := range []string{"en", "de"} {
		tr[lang] = importStrings(t, db, peer.ID, lang, tr["en"], 10, "Word number %d").TranslationID
	}
	log := peerEditLog(t, db, rt, f)
	n := countRoundTrips(log)
	t.Logf("an edit reaching a peer: %d round trips:\n%s", n, strings.Join(log, "\n"))
	if n > maxPeerEditRoundTrips {
		t.Errorf("an edit reaching a peer took %d round trips, want at most %d", n, maxPeerEditRoundTrips)
	}
	checkLookedUpOnce(t, "an edit reaching a peer", log)
	// Saved as needing editing: the peer's copy starts failing a check
	// (its rows and flag were a round trip each, checkSettler.finish).
	fuzzy := func(s string) func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{s}, State: index.StateFuzzy}}, nil
		}
	}
	if _, err := db.UpdateUnit(ctx, f.unit(t, "de", 7).ID, f.user, fuzzy("warm fuzzy")); err != nil {
		t.Fatal(err)
	}
	fuzzyID := f.unit(t, "de", 6).ID
	log = rt.during(func() {
		if _, err := db.UpdateUnit(ctx, fuzzyID, f.user, fuzzy("peer fuzzy")); err != nil {
			t.Fatal(err)
		}
	})
	n = countRoundTrips(log)
	t.Logf("an edit needing editing reaching a peer: %d round trips:\n%s", n, strings.Join(log, "\n"))
	if n > maxPeerFuzzyRoundTrips {
		t.Errorf("an edit needing editing reaching a peer took %d round trips, want at most %d", n, maxPeerFuzzyRoundTrips)
	}
	checkLookedUpOnce(t, "an edit needing editing reaching a peer", log)
	pid, err := db.FindUnitIDByHash(ctx, tr["de"], index.IDHash(true, nil, "k5"))
	if err != nil {
		t.Fatal(err)
	}
	if u, err := db.FindUnitByID(ctx, pid); err != nil || index.JoinPlural(u.Target) != "peer edit" {
		t.Errorf("the peer's unit reads %q, %v; want the edit propagated", u.Target, err)
	}
	checkStoredStats(t, db)
}

// TestPeersEditRoundTrips counts the writer's round trips and
// statements for an edit reaching 1, 3 and 9 peer components that hold
// the same strings (the 100× layout: ten copies of each component in a
// project, issue 31), and checks that every peer got the edit.
func TestPeersEditRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	for _, n := range []int{1, 3, 9} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			db, rt, f := roundTripFixture(t)
			var twins []*writeFixture
			for i := range n {
				twins = append(twins, f.twin(t, fmt.Sprintf("twin%d", i), true))
			}
			log := peerEditLog(t, db, rt, f)
			trips := countRoundTrips(log)
			t.Logf("an edit reaching %d peers: %d round trips, %d statements:\n%s", n, trips, len(log),
				strings.Join(log, "\n"))
			if max := maxPeersEditRoundTrips; trips > max {
				t.Errorf("an edit reaching %d peers took %d round trips, want at most %d", n, trips, max)
			}
			if max := maxPeersEditStatements(n); len(log) > max {
				t.Errorf("an edit reaching %d peers took %d statements, want at most %d", n, len(log), max)
			}
			checkLookedUpOnce(t, fmt.Sprintf("an edit reaching %d peers", n), log)
			for i, tw := range twins {
				if u := tw.unitOf(t, "de", 5); index.JoinPlural(u.Target) != "peer edit" {
					t.Errorf("twin%d/de k5 reads %q; want the edit propagated", i, u.Target)
				}
			}
			checkStoredStats(t, db)
		})
	}
}

// maxPeersEditRoundTrips is what TestPeersEditRoundTrips's edit may cost
// whatever the number of peers: maxPeerEditRoundTrips's. The peers'
// units were read a round trip each (readPeerForEdit): 5, 7 and 13 round
// trips for 1, 3 and 9 peers on 6f4560b.
const maxPeersEditRoundTrips = maxPeerEditRoundTrips

// maxPeersEditStatements is what TestPeersEditRoundTrips's edit
// reaching n peers may send (a BATCH line a round trip counted): each
// peer's unit read and same-target lookup, and for them all one read of
// their check rows, the units' UPDATEs and changes a statement per
// power of two of them (editRows.write), the statistics. 29, 43 and 86
// statements for 1, 3 and 9 peers on 6f4560b, when each peer's UPDATE,
// change and inconsistent lookup were statements of their own; 28, 34
// and 47 since (the peers' check rows one statement, queuePeerReads);
// 27, 33 and 46 since the inconsistent check reuses propagation's
// lookup (propagatedLookup), where it was one more (queueGroups).
func maxPeersEditStatements(n int) int { return map[int]int{1: 27, 3: 33, 9: 46}[n] }

// checkLookedUpOnce fails t unless log (an edit's statements) looks the
// edited string up in the peers once: propagation's lookup, which the
// inconsistent check of the edited unit and of the peers' reuses
// (propagatedLookup). It looked it up again on integ12 (two).
func checkLookedUpOnce(t *testing.T, what string, log []string) {
	t.Helper()
	n := 0
	for _, line := range log {
		// pgSameStrings, or pgSameStringsPairs (an edit's few strings).
		if strings.Contains(line, "FROM units u WHERE u.translation_id = ANY(") || strings.Contains(line, "u.id_hash = h.hash") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%s looked its string up in the peers %d times, want once (propagation's, reused)", what, n)
	}
}

// peerEditLog makes three edits of f's de units 0-2 (warm: the author's
// contributor rows, the statements, the caches), then edits its de unit
// 5 to "peer edit" and returns that edit's round trips.
func peerEditLog(t *testing.T, db *DB, rt *roundTrips, f *writeFixture) []string {
	t.Helper()
	ctx := context.Background()
	for i := range 3 {
		if _, err := db.UpdateUnit(ctx, f.unit(t, "de", i).ID, f.user, setTarget(fmt.Sprintf("warm %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	id := f.unit(t, "de", 5).ID
	return rt.during(func() {
		if _, err := db.UpdateUnit(ctx, id, f.user, setTarget("peer edit")); err != nil {
			t.Fatal(err)
		}
	})
}
