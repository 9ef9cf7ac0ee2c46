package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestSameStringsPairsPlan: an edit's lookup of the peers' strings
// (fewer than mostlyWantedFloor strings: pgSameStringsPairs) probes
// units_translation_hash once a peer and hash in its generic plan, with
// the statistics of a translation made after the last ANALYZE, and
// reads no row it does not keep: no plan reads the peers whole. The
// plan of the two arrays' statement (pgSameStrings) in the same state is
// logged beside it.
func TestSameStringsPairsPlan(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL plans")
	}
	f := mustWriteFixture(t)
	ctx := context.Background()
	const units = 2000
	_, old := f.importComponent(t, "old", func(*index.Component) {}, pairedTargets("old", units))
	conn := analyzedConn(t, f.db)
	_, tr := f.importComponent(t, "new", func(*index.Component) {}, pairedTargets("new", units))
	var hashes []int64
	if err := f.db.write(ctx, func(tx *Tx) error {
		var err error
		hashes, err = queryIDs(tx, `SELECT id_hash FROM units WHERE translation_id = ? ORDER BY id LIMIT 2`, tr["de"])
		return err
	}); err != nil || len(hashes) != 2 {
		t.Fatalf("hashes %v: %v", hashes, err)
	}
	args := fmt.Sprintf("'{%d,%d}', '{%d,%d}'", tr["de"], old["de"], hashes[0], hashes[1])
	plans := map[string]string{}
	for name, query := range map[string]string{"pgSameStrings": pgSameStrings, "pgSameStringsPairs": pgSameStringsPairs,
		"pgSameTargetsPairs": pgSameTargetsPairs} {
		prepare, _ := PostgresSQL(query, nil)
		for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE q AS ` + prepare} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := conn.QueryContext(ctx, `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE q(`+args+`)`)
		if err != nil {
			t.Fatal(err)
		}
		plans[name] = planText(t, rows)
		if _, err := conn.ExecContext(ctx, `DEALLOCATE q; RESET plan_cache_mode`); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("two peers and two hashes, generic plans:\npgSameStrings:\n%s\npgSameStringsPairs:\n%s", plans["pgSameStrings"], plans["pgSameStringsPairs"])
	for _, name := range []string{"pgSameStringsPairs", "pgSameTargetsPairs"} {
		plan := plans[name]
		if !strings.Contains(plan, "units_translation_hash") || !strings.Contains(plan, "id_hash = h.hash") ||
			strings.Contains(plan, "Rows Removed by Filter") || strings.Contains(plan, "units_translation_position") {
			t.Errorf("%s does not probe by peer and hash alone:\n%s", name, plan)
		}
	}
}
