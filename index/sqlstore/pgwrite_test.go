package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestFewTargetsPlan: an edit's lookup of the units sharing its targets
// (unitsByFewTargets) keeps one generic plan on PostgreSQL, a probe of
// units_target_prefix, and finds what the array's statement finds.
func TestFewTargetsPlan(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL's statement")
	}
	f := mustWriteFixture(t)
	const units = 400
	langs := map[string][][3]string{}
	for i := range units {
		k := fmt.Sprintf("k%d", i)
		langs["en"] = append(langs["en"], [3]string{k, "Word " + k, "Word " + k})
		langs["de"] = append(langs["de"], [3]string{k, "Word " + k, fmt.Sprintf("Wort %d", i%(units/2))})
	}
	_, tr := f.importComponent(t, "few", func(*index.Component) {}, langs)
	ctx := context.Background()
	conn := analyzedConn(t, f.db)
	prepare, _ := PostgresSQL(pgUnitByTarget, nil)
	for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE few AS ` + prepare} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer conn.ExecContext(ctx, `DEALLOCATE few; RESET plan_cache_mode`)
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(`EXPLAIN (ANALYZE, COSTS OFF) EXECUTE few(%d, 'Wort 7', 'Wort 7', %d)`,
		tr["de"], index.StateTranslated))
	if err != nil {
		t.Fatal(err)
	}
	plan := planText(t, rows)
	if !strings.Contains(plan, "Index Scan using units_target_prefix") || strings.Contains(plan, "Rows Removed by Filter") {
		t.Errorf("the generic plan of one target's lookup is not a probe of units_target_prefix:\n%s", plan)
	}
	for _, targets := range [][]string{{"Wort 7"}, {"Wort 7", "Wort 9"}, {"Wort 1", "Wort 2", "none", "Wort 3"},
		{"Wort 1", "Wort 2", "Wort 3", "Wort 4", "Wort 5"}} {
		var few, all []int64
		err := f.db.write(ctx, func(tx *Tx) error {
			few, all = nil, nil
			if err := tx.unitsByTarget(tr["de"], targets, func(id int64, _, _ string) error {
				few = append(few, id)
				return nil
			}); err != nil {
				return err
			}
			return tx.queryEach(pgUnitsByTarget, func(scan func(...any) error) error {
				var id int64
				var s, g string
				err := scan(&id, &s, &g)
				all = append(all, id)
				return err
			}, targets, tr["de"], index.StateTranslated)
		})
		slices.Sort(few)
		slices.Sort(all)
		want := 2 * len(targets) // each target is two units'
		if slices.Contains(targets, "none") {
			want -= 2
		}
		if err != nil || !slices.Equal(few, all) || len(few) != want {
			t.Errorf("%q: unitsByTarget found %v (%v), the array's statement %v", targets, few, err, all)
		}
	}
}
