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
