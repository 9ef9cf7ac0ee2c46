package sqlstore

import (
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestSearchCandidatesOrdered: on PostgreSQL a text term every match
// must meet gives its trigram candidates as an array the units' primary
// key is searched with (units.id = ANY(ARRAY(…))), so that a page in id
// order reads the candidates' units in order and stops at its end; on
// the corpus, a page of "play" read 9,800 buffers in 0.09–0.31 s
// against the IN list's 113,000 in 1.3–1.7 s, where PostgreSQL probed
// every candidate's unit before sorting (EXPLAIN ANALYZE, BENCHMARKS.md
// "Session 9: PostgreSQL reads"). Under NOT or in one of several
// alternatives the IN list stays (hashed there; an array would be
// searched element by element for every unit). SQLite's are its
// FTS5 rowids, as before.
func TestSearchCandidatesOrdered(t *testing.T) {
	const ordered, listed = "units.id = ANY(ARRAY(SELECT", "units.id IN (SELECT unit_id FROM unit_trigrams"
	for _, c := range []struct {
		q               string
		ordered, listed int // on PostgreSQL
	}{
		{"play", 1, 0},
		{`source:r"^Play"`, 1, 0},
		{"key:Play", 1, 0},
		{"sync NOT music", 1, 1},
		{"play AND state:translated", 1, 0},
		{"play OR music", 0, 2},
		{"NOT play", 0, 1},
		{"play AND (changed_by:ed OR changed_by:bo)", 0, 2}, // alternatives after all
		{"project:p language:de play", 0, 0},                // scoped: the translations' units, no candidates
	} {
		q, err := index.ParseUnitQuery(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		pg, err := compileSearch(q, true, false)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if n, m := strings.Count(pg.sql, ordered), strings.Count(pg.sql, listed); n != c.ordered || m != c.listed {
			t.Errorf("%s on PostgreSQL: %d candidate arrays and %d IN lists, want %d and %d:\n%s", c.q, n, m, c.ordered, c.listed, pg.sql)
		}
		lite, err := compileSearch(q, false, false)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if strings.Contains(lite.sql, "ANY(") {
			t.Errorf("%s on SQLite: %s", c.q, lite.sql)
		}
	}
}
