package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestWriteListsPlan checks the generic plans of the checks' reads that
// took IN lists on PostgreSQL (pgSameStrings, pgSameStringsPairs,
// pgUnitsWithCheck) with the statistics of a translation made after the
// last ANALYZE, as an automatic translation of a fresh copy runs them:
// none builds a list per row, pgUnitsWithCheck and pgSameStringsPairs
// (an edit's lookup) probe by key and read no row they do not keep, and
// each still answers what the lists answered.
func TestWriteListsPlan(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL plans")
	}
	f := mustWriteFixture(t)
	ctx := context.Background()
	const units, batch = 2000, 200
	f.importComponent(t, "old", func(*index.Component) {}, pairedTargets("old", units))
	conn := analyzedConn(t, f.db)
	if _, err := conn.ExecContext(ctx, `ANALYZE checks`); err != nil {
		t.Fatal(err)
	}
	_, tr := f.importComponent(t, "new", func(*index.Component) {}, pairedTargets("new", units))
	var ids, hashes []int64
	err := f.db.write(ctx, func(tx *Tx) error {
		rows, err := tx.Query(`SELECT id, id_hash FROM units WHERE translation_id = ? ORDER BY id LIMIT ?`,
			tr["de"], batch)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, h int64
			if err := rows.Scan(&id, &h); err != nil {
				return err
			}
			ids, hashes = append(ids, id), append(hashes, h)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		// Half the batch holds a row of a check, as after a settle.
		for _, id := range ids[:batch/2] {
			if _, err := tx.Exec(`INSERT INTO checks (unit_id, name) VALUES (?, 'plan_test')`, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || len(ids) != batch {
		t.Fatalf("%d units (%v), want %d", len(ids), err, batch)
	}
	arr := func(xs []int64) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = fmt.Sprint(x)
		}
		return "'{" + strings.Join(s, ",") + "}'"
	}
	for _, c := range []struct {
		name, query, args, probe string
		keepsAll                 bool // reads no row it does not keep
	}{
		// Either plan: the peers whole or a probe per pair.
		{"pgSameStrings", pgSameStrings, arr([]int64{tr["de"], tr["en"]}) + ", " + arr(hashes), "", false},
		// An edit's few strings: a probe per peer and hash, whatever
		// the statistics, reading no row of the peers it does not keep.
		{"pgSameStringsPairs", pgSameStringsPairs, arr([]int64{tr["de"], tr["en"]}) + ", " + arr(hashes[:2]),
			"Index Cond: ((translation_id = p.tid) AND (id_hash = h.hash))", true},
		{"pgSameTargetsPairs", pgSameTargetsPairs, arr([]int64{tr["de"], tr["en"]}) + ", " + arr(hashes[:2]),
			"Index Cond: ((translation_id = p.tid) AND (id_hash = h.hash))", true},
		// The peers whole, each row's hash looked up in a hash table.
		{"pgSameStringsWhole", pgSameStringsWhole, arr(hashes) + ", " + arr([]int64{tr["de"], tr["en"]}),
			"Hash Cond: ((u.id_hash + 0) = h.hash)", false},
		{"pgSameTargetsWhole", pgSameTargetsWhole, arr(hashes) + ", " + arr([]int64{tr["de"], tr["en"]}),
			"Hash Cond: ((u.id_hash + 0) = h.hash)", false},
		{"pgUnitsWithCheck", pgUnitsWithCheck, arr(ids) + ", 'plan_test'", "unit_id = x.id)", true}, // either index
	} {
		prepare, _ := PostgresSQL(c.query, nil)
		for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE q AS ` + prepare} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := conn.QueryContext(ctx, `EXPLAIN (ANALYZE, COSTS OFF) EXECUTE q(`+c.args+`)`)
		if err != nil {
			t.Fatal(err)
		}
		plan := planText(t, rows)
		if _, err := conn.ExecContext(ctx, `DEALLOCATE q; RESET plan_cache_mode`); err != nil {
			t.Fatal(err)
		}
		removed := 0
		for _, line := range strings.Split(plan, "\n") {
			var n int
			if _, err := fmt.Sscanf(strings.TrimSpace(line), "Rows Removed by Filter: %d", &n); err == nil {
				removed += n
			}
		}
		if (removed > 0 && c.keepsAll) || strings.Contains(plan, "ARRAY[") || !strings.Contains(plan, c.probe) {
			t.Errorf("%s reads %d rows it does not keep, builds a list per execution, or does not probe %s:\n%s",
				c.name, removed, c.probe, plan)
		}
	}
	// The answers: each peer's unit of each string, the same of most of
	// the peer's strings (which reads the peer whole), and the units with
	// the check.
	var same, most [][]peerString
	var with map[int64]bool
	var whole bool
	err = f.db.write(ctx, func(tx *Tx) error {
		peer, err := findTranslationTx(tx, tr["de"])
		if err != nil {
			return err
		}
		strs := [][2]string{{"Word k1", "k1"}, {"Word k7", "k7"}, {"Word k1999", "k1999"}, {"nowhere", "k2"}}
		if same, err = sameStrings(tx, []index.Translation{peer}, strs); err != nil {
			return err
		}
		strs = strs[:0]
		for i := range 1500 {
			strs = append(strs, [2]string{fmt.Sprintf("Word k%d", i), fmt.Sprintf("k%d", i)})
		}
		strs = append(strs, [2]string{"nowhere", "k2"})
		if most, err = sameStrings(tx, []index.Translation{peer}, strs); err != nil {
			return err
		}
		if whole, err = peersMostlyWanted(tx, []int64{peer.ID}, len(strs), nil); err != nil {
			return err
		}
		// The settler's totals (peerTotals, one query for all its
		// lookups) choose as the query does, either way.
		s := &checkSettler{tx: tx}
		if err := s.peerTotals([]inconsistentGroup{{peers: []index.Translation{peer}, strs: strs}}); err != nil {
			return err
		}
		for _, wanted := range []int{64, len(strs)} {
			asked, err := peersMostlyWanted(tx, []int64{peer.ID}, wanted, nil)
			if err != nil {
				return err
			}
			if known, _ := peersMostlyWanted(tx, []int64{peer.ID}, wanted, s.totals); known != asked || s.totals[peer.ID] <= 0 {
				t.Errorf("%d strings: whole %v from the settler's totals (%v), %v asked", wanted, known, s.totals, asked)
			}
		}
		with, err = unitsWithCheck(tx, ids, "plan_test")
		return err
	})
	found := func(same [][]peerString) (n int) {
		for _, units := range same {
			n += len(units)
		}
		return n
	}
	if err != nil || found(same) != 3 || found(most) != 1500 || !whole || len(with) != batch/2 {
		t.Errorf("sameStrings found %d and %d strings (whole %v), unitsWithCheck %d units (%v); want 3, 1500 (true) and %d",
			found(same), found(most), whole, len(with), err, batch/2)
	}
}
