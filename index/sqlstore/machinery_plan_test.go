package sqlstore

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// unitScanSameSource is FindSameSource's statement before migration
// 0064: every unit of the texts, found by its own source text, with no
// source unit in between. TestFindSameSourceMatchesUnitScan holds the
// new statement to its answers.
const unitScanSameSource = `SELECT u.source, u.target, u.id, u.state, c.slug, c.name
	FROM units u
	JOIN translations t ON t.id = u.translation_id
	JOIN components c ON c.id = t.component_id
	WHERE u.source IN (%s)
		AND c.project_id = ? AND c.id != ? AND c.source_language = ? AND t.language_code = ?
		AND t.is_source = 0 AND u.state >= ?
	ORDER BY u.state DESC, u.id`

// TestFindSameSourceMatchesUnitScan imports jellyfin-web's strings (the
// corpus) as three components of one project and checks, on the engine
// under test, that FindSameSource's statement returns exactly the rows
// the old scan of every unit returns, for every English text, and that
// its plan starts from units_source_prefix (PostgreSQL after ANALYZE,
// with its own costs). It also checks that the import linked every unit
// to a source unit, the one case in which the two differ.
func TestFindSameSourceMatchesUnitScan(t *testing.T) {
	db, projectID, texts := mustSameSourceCorpus(t)
	ctx := context.Background()
	var unlinked int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM units WHERE source_unit_id IS NULL`).Scan(&unlinked); err != nil {
		t.Fatal(err)
	}
	if unlinked != 0 {
		t.Errorf("%d units linked to no source unit after the import", unlinked)
	}

	rowsOf := func(query string, args ...any) []string {
		t.Helper()
		rows, err := db.r.QueryContext(ctx, query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var source, target, slug, name string
			var id int64
			var state int
			if err := rows.Scan(&source, &target, &id, &state, &slug, &name); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal([]any{source, target, id, state, slug, name})
			out = append(out, string(b))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	web, err := db.FindComponent(ctx, "p", "web")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, lang := range []string{"de", "fr"} {
		for _, exclude := range []int64{0, web.ID} {
			for rest := texts; len(rest) > 0; {
				chunk := rest[:min(len(rest), maxSameSource)]
				rest = rest[len(chunk):]
				prefixes := map[string]bool{}
				var args []any
				for _, s := range chunk {
					if p := prefix40(s); !prefixes[p] {
						prefixes[p] = true
						args = append(args, p)
					}
				}
				var textArgs []any
				for _, s := range chunk {
					textArgs = append(textArgs, s)
				}
				filter := []any{projectID, exclude, "en", lang, index.StateTranslated}
				args = append(append(append(args, textArgs...), textArgs...), filter...)
				got := rowsOf(sameSourceQuery(len(prefixes), len(chunk), false), args...)
				marks := strings.Repeat("?, ", len(chunk)-1) + "?"
				want := rowsOf(strings.Replace(unitScanSameSource, "%s", marks, 1), append(textArgs, filter...)...)
				if !slices.Equal(got, want) {
					t.Fatalf("%s, excluding component %d: %d rows, the unit scan %d\nfirst got  %v\nfirst want %v",
						lang, exclude, len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
				}
				total += len(got)
			}
		}
	}
	if total < 1000 {
		t.Errorf("%d rows in all: the comparison found too little to mean anything", total)
	}

	plan := sameSourcePlan(t, db, texts[:50], projectID, web.ID)
	if !strings.Contains(plan, "units_source_prefix") {
		t.Errorf("plan does not use units_source_prefix:\n%s", plan)
	}
	if db.dialect.name == "sqlite" && !strings.HasPrefix(plan, "SEARCH s USING INDEX units_source_prefix") {
		t.Errorf("plan does not start from the source units' prefixes:\n%s", plan)
	}
}

// sameSourcePlan returns the engine's plan of FindSameSource's statement
// for texts, after ANALYZE on PostgreSQL, with no cost settings changed.
func sameSourcePlan(t *testing.T, db *DB, texts []string, projectID, excludeID int64) string {
	t.Helper()
	ctx := context.Background()
	explain := "EXPLAIN QUERY PLAN "
	if db.dialect.name != "sqlite" {
		explain = "EXPLAIN "
		if _, err := db.r.ExecContext(ctx, `ANALYZE units`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.r.ExecContext(ctx, `ANALYZE translations`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.r.ExecContext(ctx, `ANALYZE components`); err != nil {
			t.Fatal(err)
		}
	}
	var args []any
	for _, s := range texts {
		args = append(args, prefix40(s))
	}
	for range 2 {
		for _, s := range texts {
			args = append(args, s)
		}
	}
	args = append(args, projectID, excludeID, "en", "de", index.StateTranslated)
	rows, err := db.r.QueryContext(ctx, explain+sameSourceQuery(len(texts), len(texts), false), args...)
	if err != nil {
		t.Fatal(err)
	}
	return planText(t, rows)
}
