package indextest_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

func TestMain(m *testing.M) { indextest.Main(m) }

// TestOpenEmptyAndApart: each Open is a new empty index, apart from the
// others of the test, and Raw reaches the one its location names.
func TestOpenEmptyAndApart(t *testing.T) {
	ctx := context.Background()
	loc := indextest.Location(t)
	a, err := indextest.Reopen(t, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := indextest.Open(t)
	if err := a.SeedLanguages(ctx, nil); err != nil {
		t.Fatal(err)
	}
	raw := indextest.OpenRaw(t, loc)
	raw.Exec(t, `INSERT INTO projects (name, slug, web, instructions, translation_review, source_review)
		VALUES (?, ?, '', '', ?, ?)`, "Only in a", "a", true, false)
	var n, review int
	if err := raw.QueryRow(`SELECT count(*), max(translation_review) FROM projects WHERE slug = ?`, "a").Scan(&n, &review); err != nil || n != 1 || review != 1 {
		t.Fatalf("raw read of the row raw wrote: %d rows, review %d, %v", n, review, err)
	}
	if _, err := a.FindProject(ctx, "a"); err != nil {
		t.Errorf("the index at the location does not see the row: %v", err)
	}
	if _, err := b.FindProject(ctx, "a"); err == nil {
		t.Error("another index of the same test sees the row")
	}
}

// TestLocationsStartEmpty: every test's index is empty and counts its
// ids from 1, though on PostgreSQL the schema may be the one a test
// before used (reuse.go); one whose index a test left open is not
// reused, since that index could write into the next test's.
func TestLocationsStartEmpty(t *testing.T) {
	ctx := context.Background()
	var leaked *sqlstore.DB
	defer func() { leaked.Close() }()
	var builtIn int64
	for i := range 3 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			loc := indextest.Location(t)
			db, err := indextest.Reopen(t, loc)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.FindProject(ctx, "p"); !errors.Is(err, index.ErrNotFound) {
				t.Fatalf("project p in a new index: %v", err)
			}
			p, _, err := db.SaveProject(ctx, index.Project{Name: "P", Slug: "p"})
			if err != nil || p.ID != 1 {
				t.Fatalf("first project: id %d, %v; want id 1", p.ID, err)
			}
			// What the migrations wrote is there again: the built-in
			// roles, and the next role's id after theirs.
			var roles, maxID int64
			if err := indextest.OpenRaw(t, loc).QueryRow(`SELECT count(*), max(id) FROM roles`).Scan(&roles, &maxID); err != nil {
				t.Fatal(err)
			}
			if builtIn == 0 {
				builtIn = roles
			}
			r, err := db.CreateRole(ctx, index.Role{Name: "Test role " + strconv.Itoa(i)})
			if roles == 0 || roles != builtIn || err != nil || r.ID != maxID+1 {
				t.Errorf("built-in roles %d (first test: %d), a new role's id %d after %d (%v)", roles, builtIn, r.ID, maxID, err)
			}
			if leaked != nil {
				leaked.SaveProject(ctx, index.Project{Name: "Late", Slug: "late"})
				if _, err := db.FindProject(ctx, "late"); !errors.Is(err, index.ErrNotFound) {
					t.Errorf("the index a test before left open wrote into this one: %v", err)
				}
			}
			if i == 1 {
				if leaked, err = indextest.Reopen(t, loc); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestCopyOf: a copy of a kept index holds its rows, counters included,
// counts its ids on from the kept index's, and is apart from it and
// from the other copies; the kept index outlives the test that made it.
func TestCopyOf(t *testing.T) {
	ctx := context.Background()
	var kept string
	t.Run("fill", func(t *testing.T) {
		kept = indextest.KeptLocation(t)
		db, err := indextest.Reopen(t, kept)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.SeedLanguages(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.SaveProject(ctx, index.Project{Name: "P", Slug: "p"}); err != nil {
			t.Fatal(err)
		}
	})
	for i := range 2 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			db, err := indextest.Reopen(t, indextest.CopyOf(t, kept))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if p, err := db.FindProject(ctx, "p"); err != nil || p.ID != 1 {
				t.Fatalf("the kept project in the copy: %+v, %v", p, err)
			}
			if _, err := db.FindProject(ctx, "q"); !errors.Is(err, index.ErrNotFound) {
				t.Errorf("a project another copy made: %v", err)
			}
			q, _, err := db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"})
			if err != nil || q.ID != 2 {
				t.Fatalf("a project made in the copy: id %d, %v; want id 2", q.ID, err)
			}
			indextest.CheckCounts(t, db)
		})
	}
	db, err := indextest.Reopen(t, kept)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.FindProject(ctx, "q"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("a copy wrote into the kept index: %v", err)
	}
}
