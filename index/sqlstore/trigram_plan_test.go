package sqlstore

import (
	"context"
	"strings"
	"testing"
)

// TestTrigramBatchPlans checks, on SQLite, that the step's statements
// that read a batch's units start from the notes and find each unit by
// its primary key, with statistics that make units look cheap to scan:
// with a plain JOIN SQLite scanned units over the batch's id range
// (2.4-2.6 s a batch at 10x the corpus, session 8).
func TestTrigramBatchPlans(t *testing.T) {
	f := mustWriteFixture(t)
	db := f.db
	if db.dialect.name != "sqlite" {
		t.Skip("SQLite's plans")
	}
	ctx := context.Background()
	// Statistics as an index with many notes and few units would have:
	// the planner's reason to prefer units as the outer loop.
	for _, q := range []string{
		`ANALYZE`,
		`INSERT OR REPLACE INTO sqlite_stat1 (tbl, idx, stat) VALUES ('unit_trigrams_pending', NULL, '1000000')`,
		`INSERT OR REPLACE INTO sqlite_stat1 (tbl, idx, stat) VALUES ('units', NULL, '10')`,
		`ANALYZE sqlite_schema`,
	} {
		if _, err := db.wdb.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct {
		name string
		q    string
		args []any
	}{
		{"texts", sqliteBatchTexts, []any{1, 100}},
		{"keys", sqliteBatchKeys, []any{1, 100}},
	} {
		name := c.name
		rows, err := db.wdb.QueryContext(ctx, "EXPLAIN QUERY PLAN "+c.q, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plan := planText(t, rows)
		lines := strings.Split(plan, "\n")
		if !strings.HasPrefix(lines[0], "SEARCH p ") {
			t.Errorf("%s: the notes are not the outer loop:\n%s", name, plan)
		}
		if !strings.Contains(plan, "SEARCH u USING INTEGER PRIMARY KEY (rowid=?)") {
			t.Errorf("%s: units not found by their primary key:\n%s", name, plan)
		}
		if strings.Contains(plan, "SCAN u") || strings.Contains(plan, "SEARCH u USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") {
			t.Errorf("%s: units scanned over a range:\n%s", name, plan)
		}
	}
}
