package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// suggestionPage reads pages of FindSuggestions as ids.
func suggestionPage(db *DB, f index.SuggestionFilter) func(index.Page) ([]int64, int, error) {
	return func(p index.Page) ([]int64, int, error) {
		f.Page = p
		ss, total, err := db.FindSuggestions(context.Background(), f)
		ids := []int64{}
		for _, s := range ss {
			ids = append(ids, s.ID)
		}
		return ids, total, err
	}
}

// checkSuggestionLists holds every suggestion list to the OFFSET read:
// all of them newest first, each unit's oldest first, all of them with a
// project hidden (the counting path), and the counters to a recount.
func checkSuggestionLists(t *testing.T, db *DB, hidden int64) {
	t.Helper()
	q := db.r
	checkListCounts(t, db)
	problems, err := db.VerifyCounts(context.Background())
	if err != nil || len(problems) > 0 {
		t.Fatalf("VerifyCounts: %v %v", problems, err)
	}
	checkPages(t, "all suggestions", mustIDList(t, q, `SELECT id FROM suggestions ORDER BY id DESC`),
		suggestionPage(db, index.SuggestionFilter{}))
	for _, u := range mustIDList(t, q, `SELECT DISTINCT unit_id FROM suggestions ORDER BY 1`) {
		checkPages(t, fmt.Sprintf("suggestions of unit %d", u),
			mustIDList(t, q, `SELECT id FROM suggestions WHERE unit_id = ? ORDER BY id`, u),
			suggestionPage(db, index.SuggestionFilter{UnitID: u}))
	}
	checkPages(t, "suggestions outside a hidden project", mustIDList(t, q, `SELECT s.id FROM suggestions s
		JOIN units u ON u.id = s.unit_id JOIN translations t ON t.id = u.translation_id
		JOIN components c ON c.id = t.component_id WHERE c.project_id <> ? ORDER BY s.id DESC`, hidden),
		suggestionPage(db, index.SuggestionFilter{HiddenProjects: []int64{hidden}}))
}

func TestSuggestionPagesMatchOffsetOrder(t *testing.T) {
	e := mustPagingEnv(t)
	ctx := context.Background()
	db := e.db
	p2 := e.mustOtherProject(t)

	allow := func(index.Unit, index.Translation) (index.SuggestionRights, error) {
		return index.SuggestionRights{}, nil
	}
	units := append(mustIDList(t, db.r, `SELECT id FROM units WHERE translation_id = ? ORDER BY id LIMIT 6`, e.tr["app/de"]),
		mustIDList(t, db.r, `SELECT id FROM units WHERE translation_id = ? ORDER BY id LIMIT 3`, e.tr["other/de"])...)
	n := 0
	suggest := func(count int) {
		t.Helper()
		for range count {
			// Most go to the first unit, so that its own list runs to
			// dozens of pages of one.
			u := units[0]
			if n%3 != 0 {
				u = units[n%len(units)]
			}
			if _, err := db.AddSuggestion(ctx, u, index.NewSuggestion{Target: []string{fmt.Sprintf("suggested %d", n)}},
				allow); err != nil {
				t.Fatalf("suggestion %d: %v", n, err)
			}
			n++
		}
	}
	suggest(330)
	// The next ids start in a later bucket (bucket = id >> 10), so that
	// pages cross bucket rows of list_counts, with empty buckets between.
	if db.dialect.name == "postgres" {
		if _, err := db.wdb.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('suggestions', 'id'), 2999)`); err != nil {
			t.Fatal(err)
		}
		suggest(1)
	} else {
		// SQLite gives a new row max(id) + 1: a row at 2999 while one
		// suggestion is added, taken away again after.
		if _, err := db.wdb.ExecContext(ctx, `INSERT INTO suggestions (id, unit_id, target, timestamp)
			VALUES (2999, ?, 'placeholder', '2026-01-01')`, units[0]); err != nil {
			t.Fatal(err)
		}
		suggest(1)
		if _, err := db.wdb.ExecContext(ctx, `DELETE FROM suggestions WHERE id = 2999`); err != nil {
			t.Fatal(err)
		}
	}
	suggest(200)
	checkSuggestionLists(t, db, p2.ID)

	// Deletes: every fifth suggestion through the API, then the units
	// app/de loses in an import (their suggestions go by cascade).
	for i, id := range mustIDList(t, db.r, `SELECT id FROM suggestions ORDER BY id`) {
		if i%5 != 0 {
			continue
		}
		if err := db.DeleteSuggestion(ctx, id, index.Actor{}, index.Rejection{},
			func(index.Suggestion, index.Unit, index.Translation) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	var c0, c1 string
	db.r.QueryRowContext(ctx, `SELECT context FROM units WHERE id = ?`, units[0]).Scan(&c0)
	db.r.QueryRowContext(ctx, `SELECT context FROM units WHERE id = ?`, units[1]).Scan(&c1)
	var kept []index.ImportUnit
	for _, u := range keys(500, 3000, 1, "d") {
		if u.Context != c0 && u.Context != c1 {
			kept = append(kept, u)
		}
	}
	if len(kept) != 2500-2 {
		t.Fatalf("units %s and %s are not among app/de's keys", c0, c1)
	}
	e.mustImport(t, e.app, "de", kept)
	var gone int
	db.r.QueryRowContext(ctx, `SELECT count(*) FROM units WHERE id IN (?, ?)`, units[0], units[1]).Scan(&gone)
	if gone != 0 {
		t.Fatalf("the import kept %d of the units it should remove", gone)
	}
	units = units[2:]
	suggest(40)
	checkSuggestionLists(t, db, p2.ID)
}
