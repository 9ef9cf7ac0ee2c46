package sqlstore

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestUnitEditOneTriggerCall: on PostgreSQL an edit's UPDATE of units
// calls one trigger function a row (units_row_update, migration 0126),
// and no row trigger that an edit's columns fire has a WHEN, which the
// server would read and compile at every statement (issue 31: the
// server's CPU per edit). Fails with migration 0114's triggers: three
// functions a row (units_side_update, units_trigrams_update,
// units_memory_update), each with its WHEN.
func TestUnitEditOneTriggerCall(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL's row triggers")
	}
	f := mustWriteFixture(t)
	ctx := context.Background()
	var when []string
	rows, err := f.db.rdb.QueryContext(ctx, `SELECT t.tgname FROM pg_trigger t
		WHERE t.tgrelid = 'units'::regclass AND NOT t.tgisinternal AND t.tgqual IS NOT NULL
			AND t.tgtype & 17 = 17 -- a row trigger of UPDATE
			AND (cardinality(t.tgattr::int2[]) = 0 OR EXISTS (SELECT 1 FROM pg_attribute a
				WHERE a.attrelid = t.tgrelid AND a.attnum = ANY(t.tgattr::int2[])
					AND a.attname IN ('target', 'state', 'pending', 'pending_since', 'timestamp',
						'automatically_translated')))
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		when = append(when, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(when) > 0 {
		t.Errorf("row triggers an edit fires with a WHEN read at every statement: %v", when)
	}

	tx := unitEditTx(t, f)
	if _, err := tx.ExecContext(ctx, `SET LOCAL track_functions = 'pl'`); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" { // insufficient_privilege
			t.Skip("counting function calls needs a superuser: ", err)
		}
		t.Fatal(err)
	}
	unitEdits(t, f, func(what string, want int64, query string, args ...any) {
		t.Helper()
		q, _ := PostgresSQL(query, nil)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		rows, err := tx.QueryContext(ctx, `SELECT funcname, calls FROM pg_stat_xact_user_functions
			WHERE schemaname = current_schema()`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var n int64
			if err := rows.Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			got[name] = n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got["units_row_update"] != want {
			t.Errorf("%s: functions called %v, want units_row_update %d times and nothing else", what, got, want)
		}
	})
}
