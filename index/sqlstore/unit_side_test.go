package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestUnitEditHeapOnly: on PostgreSQL an edit's UPDATE of its unit
// (unitEditSQL) and propagation's UPDATE of many are heap-only, no index
// of units naming a column they change (migration 0114): counted by the
// transaction's own statistics, pg_stat_get_xact_tuples_hot_updated.
// Before the migration units_target_prefix, units_state and units_pending
// named target, state and pending, and neither statement was: without
// it the test finds 0 of 1 and 0 of 4 (the counts are the transaction's
// running totals).
func TestUnitEditHeapOnly(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL's heap-only updates")
	}
	f := mustWriteFixture(t)
	tx := unitEditTx(t, f)
	unitEdits(t, f, func(what string, want int64, query string, args ...any) {
		t.Helper()
		q, _ := PostgresSQL(query, nil)
		if _, err := tx.ExecContext(context.Background(), q, args...); err != nil {
			t.Fatal(err)
		}
		var upd, hot int64
		if err := tx.QueryRowContext(context.Background(), `SELECT pg_stat_get_xact_tuples_updated('units'::regclass),
			pg_stat_get_xact_tuples_hot_updated('units'::regclass)`).Scan(&upd, &hot); err != nil {
			t.Fatal(err)
		}
		if upd != want || hot != want {
			t.Errorf("%s: %d of %d updates of units heap-only, want %d of %d", what, hot, upd, want, want)
		}
	})
}

// unitEditTx is a transaction on a connection of its own of f's
// PostgreSQL database, rolled back at the test's end.
func unitEditTx(t *testing.T, f *writeFixture) *sql.Tx {
	t.Helper()
	ctx := context.Background()
	conn, err := f.db.rdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return tx
}

// unitEdits runs an edit's UPDATE of one unit, then propagation's of three
// more at once (edit.go), through step with the number of units' rows the
// transaction has updated after each (1, then 4).
func unitEdits(t *testing.T, f *writeFixture, step func(what string, want int64, query string, args ...any)) {
	t.Helper()
	now := formatTime(time.Now())
	// An untranslated unit translated: target, state and pending change.
	u := f.unit(t, "de", 1)
	step("one edit", 1, unitEditSQL, "Eins", index.StateTranslated, now, now, 0, u.ID)
	ids := []any{now, now}
	for _, i := range []int{3, 5, 7} {
		ids = append(ids, f.unit(t, "de", i).ID, "Wort", index.StateFuzzy)
	}
	step("propagation", 4, `UPDATE units SET target = v.column2, state = v.column3, pending = 1,
			pending_since = coalesce(units.pending_since, ?), timestamp = ?, automatically_translated = 0
			FROM (VALUES `+valueRows(unitRowValues, 3)+`) AS v WHERE units.id = v.column1`, ids...)
}

// TestUnitSideTables: PostgreSQL's side tables of units (unit_targets,
// unit_states, unit_pending; migration 0114) follow every write that
// changes what they hold: edits to and from an empty target and a rare
// state, a unit deleted, pending discarded, a re-import, a translation
// deleted (its units by the foreign key's cascade); VerifyCounts
// finds them matching units after each, and finds a row missing or left
// over when one is.
func TestUnitSideTables(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL's side tables")
	}
	f := mustWriteFixture(t)
	ctx := context.Background()
	verify := func(step string) {
		t.Helper()
		if problems, err := f.db.VerifyCounts(ctx); err != nil || len(problems) > 0 {
			t.Fatalf("%s: VerifyCounts = %q, %v", step, problems, err)
		}
	}
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := f.db.rdb.QueryRowContext(ctx, rebindPG(q), args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	verify("after import")
	edit := func(i int, target string, state index.State) {
		t.Helper()
		if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", i).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: state}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	edit(1, "Eins", index.StateFuzzy)           // empty to a rare state
	edit(2, "Zwei, neu", index.StateTranslated) // a new target
	edit(4, "", index.StateEmpty)               // translated to empty
	edit(1, "Eins", index.StateApproved)        // one rare state to another
	verify("after edits")
	if n := count(`SELECT count(*) FROM unit_pending WHERE translation_id = ?`, f.tr["de"]); n != 3 {
		t.Errorf("unit_pending holds %d units of de, want 3", n)
	}
	if n := count(`SELECT count(*) FROM unit_states WHERE state = ?`, index.StateApproved); n != 1 {
		t.Errorf("unit_states holds %d approved units, want 1", n)
	}
	// The pending list read from the side table.
	pending, err := f.db.FindPendingUnits(ctx, f.tr["de"])
	if err != nil || len(pending) != 3 || pending[0].ID != f.unit(t, "de", 1).ID {
		t.Errorf("FindPendingUnits = %d units (%v), want k1, k2, k4", len(pending), err)
	}
	if err := f.db.DeleteUnit(ctx, f.unit(t, "en", 2).ID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	verify("after a deletion")
	if _, err := f.db.DiscardPending(ctx, f.comp.ID, f.user.UserID, func(index.Pending) string { return "" }); err != nil {
		t.Fatal(err)
	}
	verify("after pending discarded")
	if n := count(`SELECT count(*) FROM unit_pending`); n != 0 {
		t.Errorf("unit_pending holds %d units after a discard, want 0", n)
	}
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "de", Filename: "de.json", Revision: "r2",
		Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i, target := range []string{"Null", "Eins", "", "Drei"} {
		state := index.StateTranslated
		if target == "" {
			state = index.StateEmpty
		}
		imp.Units = append(imp.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", i),
			Source: []string{fmt.Sprintf("Word number %d", i)}, Target: []string{target}, State: state})
	}
	if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	verify("after a re-import")
	// A translation deleted: its units go by the foreign key's cascade,
	// which fires the statement trigger too.
	edit(3, "Drei", index.StateFuzzy)
	if err := f.db.DeleteTranslation(ctx, f.tr["de"], f.user); err != nil {
		t.Fatal(err)
	}
	verify("after a translation deleted")
	if n := count(`SELECT count(*) FROM unit_targets WHERE translation_id = ?`, f.tr["de"]); n != 0 {
		t.Errorf("unit_targets holds %d units of the deleted translation", n)
	}

	// A row missing, one left over, and one whose column differs (both
	// at once), written past the triggers.
	var changed int64
	if err := f.db.rdb.QueryRowContext(ctx, `UPDATE unit_states SET state = state + 1
		WHERE unit_id = (SELECT min(unit_id) FROM unit_states) RETURNING unit_id`).Scan(&changed); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM unit_targets WHERE unit_id = (SELECT min(unit_id) FROM unit_targets)`,
		`INSERT INTO unit_pending VALUES (1, 999999)`} {
		if _, err := f.db.rdb.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	problems, err := f.db.VerifyCounts(ctx)
	stateRow := fmt.Sprintf("unit_states: unit %d's row", changed)
	if err != nil || len(problems) != 4 || !strings.Contains(problems[0], "unit_targets") ||
		!strings.Contains(problems[0], "missing") ||
		!strings.HasPrefix(problems[1], stateRow) || !strings.HasSuffix(problems[1], "missing") ||
		!strings.HasPrefix(problems[2], stateRow) || !strings.HasSuffix(problems[2], "left over") ||
		!strings.Contains(problems[3], "unit_pending: unit 999999") || !strings.Contains(problems[3], "left over") {
		t.Errorf("VerifyCounts with a side row missing, one left over and one changed = %q, %v", problems, err)
	}
	// Units moved to another translation, last as the raw statements leave
	// the statistics behind (nothing in Tolk moves one; the triggers must
	// follow): one not pending only moved, one moved with a
	// new target and a rare state, which runs every branch of
	// units_row_update in one call (0114's functions ran twice then).
	moved := func(i int, set string) int64 {
		t.Helper()
		id := f.unit(t, "fr", i).ID
		if _, err := f.db.rdb.ExecContext(ctx, `UPDATE units SET translation_id = $1`+set+` WHERE id = $2`,
			f.tr["en"], id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	plain, both := moved(3, ""), moved(4, ", target = 'Bewegt', state = 10, pending = 1")
	if n := count(`SELECT count(*) FROM unit_pending WHERE unit_id = ?`, plain); n != 0 {
		t.Errorf("a unit moved, not pending: %d rows in unit_pending, want 0", n)
	}
	for _, q := range []string{`SELECT count(*) FROM unit_targets WHERE unit_id = ? AND translation_id = ?`,
		`SELECT count(*) FROM unit_pending WHERE unit_id = ? AND translation_id = ?`} {
		if n := count(q, both, f.tr["en"]); n != 1 {
			t.Errorf("a unit moved with a new target, state and pending: %q counts %d, want 1", q, n)
		}
	}
	if n := count(`SELECT count(*) FROM unit_states WHERE unit_id = ? AND state = 10`, both); n != 1 {
		t.Errorf("a unit moved with a new state: %d rows in unit_states, want 1", n)
	}
}

// rebindPG is q with PostgreSQL's placeholders.
func rebindPG(q string) string {
	s, _ := PostgresSQL(q, nil)
	return s
}
