package sqlstore

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestLockWriteScopesPlan: lock_write_scopes runs on its generic plan
// (force_generic_plan), which guesses ten ids for each of its arrays; a
// scoped batch names a few objects, so each one's translation must be
// read by its key, not the whole translations table hashed (issue 31:
// 15 shared blocks a call at 1x the corpus, 50 at 10x, growing with every
// translation of the site). The test plans the function's statement as
// the function does, from its source, with its arguments as parameters:
// each of its statements (since 0104, one for a batch of unit edits and
// one for every other batch). Before migration 0100 the plan hashed a
// Seq Scan of the fixture's 2,000 translations. Since 0113 a batch
// naming a glossary's unit also reads the translations its recheck
// rewrites, but only then (a one-time filter), and by their component
// (the fixture's statistics, 2,000 translations of one component, make
// that a scan). Since 0117 a batch naming units only reads its locks'
// keys in an aggregate first, its rows by key as well (and a glossary's
// recheck's in a second, TestLockWriteScopesGlossaryLocks).
func TestLockWriteScopesPlan(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("lock_write_scopes is PostgreSQL's")
	}
	f := mustSearchFixture(t)
	ctx := context.Background()
	// A site's translations, counted by ANALYZE as autovacuum would: the
	// plan of a few rows is a scan whatever the query says.
	if err := f.db.writeNarrow(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`INSERT INTO translations (component_id, language_code)
			SELECT ?, 'zz-' || i FROM generate_series(1, 2000) i`, f.comp.ID); err != nil {
			return err
		}
		_, err := tx.Exec(`ANALYZE translations`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	tx, err := f.db.beginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var src string
	if err := tx.tx.QueryRowContext(ctx, `SELECT prosrc FROM pg_proc WHERE proname = 'lock_write_scopes'
		AND pronamespace = current_schema()::regnamespace`).Scan(&src); err != nil {
		t.Fatal(err)
	}
	// Each of the function's statements that lock in the executor (0104:
	// one for a batch naming units only, one for every other batch; since
	// 0117 only the other's), with arguments that reach it.
	stmts := regexp.MustCompile(`(?s)PERFORM(.*?);`).FindAllStringSubmatch(src, -1)
	args := []string{`'{1}', '{1}', '{1}', '{1}', '{1}'`}
	if len(stmts) != len(args) {
		t.Fatalf("%d PERFORM statements in lock_write_scopes, want %d:\n%s", len(stmts), len(args), src)
	}
	for n, stmt := range stmts {
		query := "SELECT" + stmt[1]
		for i, arg := range []string{"space", "part_space", "unit_ids", "wide_unit_ids", "suggestion_ids", "comment_ids",
			"translation_ids"} {
			query = regexp.MustCompile(`\b`+arg+`\b`).ReplaceAllString(query, "$$"+string(rune('1'+i)))
		}
		// The advisory locks are taken by EXECUTE only: EXPLAIN without
		// ANALYZE takes none.
		for _, stmt := range []string{"SET LOCAL plan_cache_mode = force_generic_plan",
			"PREPARE lock_plan (INTEGER, INTEGER, BIGINT[], BIGINT[], BIGINT[], BIGINT[], BIGINT[]) AS " + query} {
			if _, err := tx.tx.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		rows, err := tx.tx.QueryContext(ctx, `EXPLAIN EXECUTE lock_plan(1, 2, `+args[n]+`)`)
		if err != nil {
			t.Fatal(err)
		}
		plan := planText(t, rows)
		if _, err := tx.tx.ExecContext(ctx, "DEALLOCATE lock_plan"); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(plan, "\n")
		scans := 0
		// The translations a glossary's recheck rewrites (migration
		// 0113) are read under a one-time filter on the named
		// translation's component being a glossary: a batch naming none
		// reads none of them.
		glossary := -1 // the line of that filter's node, and its indentation
		indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ->")) }
		for i, l := range lines {
			if strings.Contains(l, "One-Time Filter: (") && strings.Contains(l, ".is_glossary <> 0)") {
				glossary = i - 1
			}
			if !strings.Contains(l, " on translations ") {
				continue
			}
			if strings.Contains(l, " on translations x ") {
				inside := glossary >= 0 && indent(l) > indent(lines[glossary])
				for _, between := range lines[max(glossary, 0)+1 : i] {
					inside = inside && indent(between) > indent(lines[glossary])
				}
				if !inside {
					t.Errorf("statement %d: a glossary's rechecked translations read for every batch:\n%s", n+1, plan)
				}
				continue
			}
			scans++
			if i+1 >= len(lines) || !regexp.MustCompile(`Index Cond: \(id = .*\.tid\)$`).MatchString(lines[i+1]) {
				t.Errorf("statement %d: translations read other than by a named object's key:\n%s", n+1, plan)
			}
		}
		if scans == 0 || glossary < 0 {
			t.Errorf("statement %d: no read of translations, or none under a glossary's filter, in the plan:\n%s", n+1, plan)
		}
	}
	// Since 0117 a batch naming units only reads its keys first, in one
	// aggregate (its locks are then simple expressions): the units'
	// translations and components by their keys too (joined plainly, the
	// generic plan hashed a Seq Scan of the 2,000 translations).
	fast := regexp.MustCompile(`(?s)(SELECT array_agg.*?)\s+INTO [^\n]*\n(.*?);`).FindStringSubmatch(src)
	if fast == nil {
		t.Fatalf("no keys' aggregate in lock_write_scopes:\n%s", src)
	}
	query := regexp.MustCompile(`\bunit_ids\b`).ReplaceAllString(fast[1]+" "+fast[2], "$$1")
	if _, err := tx.tx.ExecContext(ctx, "PREPARE lock_keys (BIGINT[]) AS "+query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	rows, err := tx.tx.QueryContext(ctx, `EXPLAIN EXECUTE lock_keys('{1}')`)
	if err != nil {
		t.Fatal(err)
	}
	plan := planText(t, rows)
	for _, rel := range []string{"translations t", "components c"} {
		if !regexp.MustCompile(`Index (Only )?Scan using \w+ on ` + rel + `\b`).MatchString(plan) {
			t.Errorf("the keys' aggregate reads %s other than by key:\n%s", rel, plan)
		}
	}
}
