package sqlstore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// sharedQueries are searches beside trigramQueries that sharedTextSearch
// answers: text terms on the source and key ANDed, with id terms.
var sharedQueries = []string{
	`source:number id:>=-5`, `id:>=0 source:"word number"`, `source:word key:k1`, `key:k1 source:r"number [0-9]"`,
	`id:<=5 key:strasse`, `source:number id:<100000000`, `source:=number`, `source:r"(?i)^word number 1"`,
	`source:"number 1" id:>3`, `source:"files"`, `source:"wörter"`, `source:"50%"`, `source:"a_b"`,
}

// checkSharedSearch checks sharedTextSearch against reading every unit:
// each query of trigramQueries and sharedQueries it answers finds the
// same units and count (the whole list, and a page in the middle). It
// returns how many queries it compared.
func checkSharedSearch(t *testing.T, db *DB, stage string) int {
	t.Helper()
	if db.dialect.name != "postgres" {
		return 0 // SQLite keeps FTS5's path (its rows hold every unit's text)
	}
	ctx := context.Background()
	tx, err := db.beginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	compared := 0
	for _, q := range append(slices.Clip(trigramQueries), sharedQueries...) {
		if checkSharedQuery(t, db, tx, q, stage) != nil {
			compared++
		}
	}
	return compared
}

// checkSharedQuery checks one query as checkSharedSearch does, reading
// through r, and returns the units reading every unit finds (nil when
// the query does not take the source units' path).
func checkSharedQuery(t *testing.T, db *DB, r queryer, q, stage string) []int64 {
	t.Helper()
	ctx := context.Background()
	parsed, err := index.ParseUnitQueryAt(q, searchNow)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	s, ok := sharedQuery(parsed)
	if !ok {
		return nil
	}
	want := searchIDs(t, db, q, true)
	total, ids, err := sharedTextSearch(ctx, r, s, 0, 1<<20)
	if err != nil {
		t.Fatalf("%s: %s: %v", stage, q, err)
	}
	if total != len(want) || !slices.Equal(ids, want) {
		t.Errorf("%s: %s: counted %d, found %v; reading every unit %d, %v", stage, q, total, ids, len(want), want)
	}
	_, page, err := sharedTextSearch(ctx, r, s, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if wantPage := want[min(1, len(want)):min(3, len(want))]; !slices.Equal(page, wantPage) {
		t.Errorf("%s: %s: page [1, 3) is %v, want %v", stage, q, page, wantPage)
	}
	if want == nil {
		want = []int64{}
	}
	return want
}

// TestSharedQuery checks which queries take the source units' path: text
// terms on the source or key with a trigram to look up, id terms ANDed.
func TestSharedQuery(t *testing.T) {
	for q, want := range map[string]bool{
		`source:"the file"`: true, `source:"the file" id:>=-3`: true, `key:abc source:=xyz`: true,
		`source:r"^Play"`: true, `source:ab`: false, `source:r".*"`: false, `id:>3`: false,
		`"the file"`: false, `target:file`: false, `source:file OR key:file`: false, `NOT source:file`: false,
		`source:file state:translated`: false, `source:file project:x`: false, `source:file has:plural`: false,
		`source:file language:de`: false, `source:ab key:abc`: true,
	} {
		parsed, err := index.ParseUnitQueryAt(q, searchNow)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if _, got := sharedQuery(parsed); got != want {
			t.Errorf("%s: shared %v, want %v", q, got, want)
		}
	}
}

// TestSharedSearchPlan: the linked units of the matching source units
// are read from unit_trigrams_source_units alone (an index-only scan,
// the index's predicate met word for word), which is what keeps the
// count from probing units once per linked unit (1.04 M blocks a count
// at 100x the corpus on the general path). Fails if the join reads
// unit_trigrams' heap or another index for them.
func TestSharedSearchPlan(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("SQLite keeps FTS5's path")
	}
	f := mustSearchFixture(t)
	q, args := sharedSQLOf(t, `source:"word number" id:>=-3`)
	plan, _ := explain(t, f.db, q, args...)
	if n := strings.Count(plan, "Index Only Scan using unit_trigrams_source_units on unit_trigrams l"); n < 1 {
		t.Errorf("the linked units are not read from unit_trigrams_source_units alone:\n%s", plan)
	}
}

// sharedSQLOf is sharedTextSQL's statement for query, page 1 of 50.
func sharedSQLOf(t *testing.T, query string) (string, []any) {
	t.Helper()
	parsed, err := index.ParseUnitQueryAt(query, searchNow)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := sharedQuery(parsed)
	if !ok {
		t.Fatalf("%s: not a shared search", query)
	}
	q, args, err := sharedTextSQL(s, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	return q, args
}

// TestFindUnitsShared checks FindUnits over the source units' path:
// each page and the count equal reading every unit, and a user who
// cannot see the fixture's project (hidden projects: the general path)
// finds nothing. Both engines (SQLite takes its own path throughout).
// The paths answer alike, so which one FindUnits took is counted
// (pathCounts.sharedSearches): the source units' on PostgreSQL, never with
// hidden projects (findUnits takes it on PostgreSQL only).
func TestFindUnitsShared(t *testing.T) {
	f := mustSearchFixture(t)
	ctx := context.Background()
	pg := f.db.dialect.name == "postgres"
	for _, q := range []string{`source:number`, `source:"word number" id:>=2`, `key:k1 source:word`} {
		before := f.db.paths.sharedSearches.Load()
		want := searchIDs(t, f.db, q, true)
		if len(want) < 3 {
			t.Fatalf("%s: %d units, want 3 or more for pages of 2", q, len(want))
		}
		var got []int64
		for n := 1; n <= (len(want)+1)/2+1; n++ {
			units, total, err := f.db.FindUnits(ctx, index.UnitFilter{Query: q, Page: index.Page{Number: n, Size: 2}})
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if total != len(want) {
				t.Errorf("%s page %d: count %d, want %d", q, n, total, len(want))
			}
			for _, u := range units {
				got = append(got, u.ID)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: pages hold %v, want %v", q, got, want)
		}
		// Each page read once (none was cached before).
		pages := uint64((len(want)+1)/2 + 1)
		if n := f.db.paths.sharedSearches.Load() - before; pg && n != pages {
			t.Errorf("%s: %d of its %d pages were read from the source units", q, n, pages)
		}
		before = f.db.paths.sharedSearches.Load()
		units, total, err := f.db.FindUnits(ctx, index.UnitFilter{Query: q, HiddenProjects: []int64{f.comp.ProjectID},
			Page: index.Page{Number: 1, Size: 2}})
		if err != nil || total != 0 || len(units) != 0 {
			t.Errorf("%s, the project hidden: %d units, count %d, %v", q, len(units), total, err)
		}
		if n := f.db.paths.sharedSearches.Load() - before; n != 0 {
			t.Errorf("%s, the project hidden: read from the source units", q)
		}
	}
}
