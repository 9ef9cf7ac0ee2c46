package sqlstore

import (
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
		parsed, err := index.ParseUnitQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		cond, err := compileSearch(parsed, f.db.dialect.name == "postgres", false)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(cond.sql, "units.priority != 100") {
			t.Errorf("%s: no partial index predicate in %s", q, cond.sql)
		}
		plan, _ := explain(t, f.db, `SELECT count(*) FROM units WHERE `+cond.sql, cond.args...)
		if !strings.Contains(plan, "units_priority") {
			t.Errorf("%s: the plan does not use units_priority:\n%s", q, plan)
		}
	}
	for _, q := range []string{"priority:100", "priority:>=100", "priority:[50 to 150]"} {
		parsed, err := index.ParseUnitQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		cond, err := compileSearch(parsed, f.db.dialect.name == "postgres", false)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(cond.sql, "units.priority != 100") {
			t.Errorf("%s takes in the default, yet excludes it: %s", q, cond.sql)
		}
	}
}
