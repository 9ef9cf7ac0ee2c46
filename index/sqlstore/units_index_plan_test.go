package sqlstore

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestPriorityPlan: a priority: term whose values leave the default out
// is served by units_priority, which holds only the units of another
// priority (migration 0067), on both engines; its results are
// search_test.go's.
func TestPriorityPlan(t *testing.T) {
	f := mustWriteFixture(t)
	for _, q := range []string{"priority:>100", "priority:<100", "priority:50", "priority:[10 to 90]", "priority:>=101"} {
		cond := compiledSearch(t, f.db, q)
		if !strings.Contains(cond.sql, "units.priority != 100") {
			t.Errorf("%s: no partial index predicate in %s", q, cond.sql)
		}
		plan, _ := explain(t, f.db, `SELECT count(*) FROM units WHERE `+cond.sql, cond.args...)
		if !strings.Contains(plan, "units_priority") {
			t.Errorf("%s: the plan does not use units_priority:\n%s", q, plan)
		}
	}
	for _, q := range []string{"priority:100", "priority:>=100", "priority:[50 to 150]"} {
		cond := compiledSearch(t, f.db, q)
		if strings.Contains(cond.sql, "units.priority != 100") {
			t.Errorf("%s takes in the default, yet excludes it: %s", q, cond.sql)
		}
	}
}

// TestSourceUnitReadsPlan: the reads that go from a source unit to the
// units linked to it find them by id_hash in each translation of the
// component (units_translation_hash), not by scanning units, since
// migration 0068 dropped units_source; their results are the tests of
// FindOtherLanguages, the label: and source_comment: searches and
// FindSameSource (TestFindSameSourceMatchesUnitScan).
func TestSourceUnitReadsPlan(t *testing.T) {
	f := mustWriteFixture(t)
	var sid int64
	if err := f.db.r.QueryRowContext(context.Background(), `SELECT min(id) FROM units WHERE translation_id = ?`, f.tr["en"]).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	// The answer, as the editor asks it: the French unit of the
	// string whose German unit is open (the source translation left out).
	de, fr := f.unit(t, "de", 3), f.unit(t, "fr", 3)
	others, err := f.db.FindOtherLanguages(context.Background(), de.SourceUnitID, de.ID, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(others) != 1 || others[0].UnitID != fr.ID || others[0].LanguageCode != "fr" {
		t.Errorf("other languages of %d: %+v, want unit %d (fr)", de.ID, others, fr.ID)
	}
	cond := compiledSearch(t, f.db, "label:x OR source_comment:y")
	for _, q := range []struct {
		name, sql string
		args      []any
	}{
		{"other languages", `SELECT u.id ` + otherLanguagesFrom, []any{sid, sid}},
		{"source fields", `SELECT units.id FROM units WHERE ` + cond.sql, cond.args},
	} {
		plan, _ := explain(t, f.db, q.sql, q.args...)
		if f.db.dialect.name == "sqlite" {
			if !strings.Contains(plan, "units_translation_hash (translation_id=? AND id_hash=?)") {
				t.Errorf("%s: the plan does not find the linked units by id_hash:\n%s", q.name, plan)
			}
			if scansUnits.MatchString(plan) {
				t.Errorf("%s: the plan scans units:\n%s", q.name, plan)
			}
			continue
		}
		// PostgreSQL picks among the translation's indexes by its
		// statistics (on this fixture's ten units a translation, the
		// position index and a filter); what must hold is that the
		// linked units are reached by translation, not by a scan. The
		// search's semi-join it hashes over the whole of this tiny
		// table whatever the indexes: its plan at the corpus's size is
		// tolk-bench's search section (BENCHMARKS.md, "Session 7: import").
		if q.name == "source fields" {
			continue
		}
		if !strings.Contains(plan, "Index Cond: (translation_id = t.id)") &&
			!strings.Contains(plan, "Index Cond: (translation_id = sut.id)") &&
			!strings.Contains(plan, "Index Cond: ((translation_id = t.id) AND (id_hash = s.id_hash))") &&
			!strings.Contains(plan, "Index Cond: ((translation_id = sut.id) AND (id_hash = s.id_hash))") {
			t.Errorf("%s: the plan does not reach the linked units by translation:\n%s", q.name, plan)
		}
	}
}

// scansUnits matches a SQLite plan line that reads units u or su whole.
var scansUnits = regexp.MustCompile(`(?m)^SCAN (u|su|units)( |$)`)

// compiledSearch is the condition the search over every unit compiles q
// into on db's engine.
func compiledSearch(t *testing.T, db *DB, q string) sqlFrag {
	t.Helper()
	parsed, err := index.ParseUnitQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	cond, err := compileSearch(parsed, db.dialect.name == "postgres", false)
	if err != nil {
		t.Fatal(err)
	}
	return cond
}
