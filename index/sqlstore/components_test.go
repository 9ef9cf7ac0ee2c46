package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

func TestFindComponentPage(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	f := seedPages(t, db)
	zeta, alpha, mid := f.projects[0].ID, f.projects[1].ID, f.projects[2].ID
	cases := []struct {
		project int64
		page    index.Page
		want    []string
		total   int
	}{
		{zeta, index.Page{Number: 1, Size: 2}, []string{"zeta/c", "zeta/a"}, 3},
		{zeta, index.Page{Number: 2, Size: 2}, []string{"zeta/b"}, 3},
		{alpha, index.Page{Number: 1, Size: 50}, []string{"alpha/solo"}, 1},
		{mid, index.Page{Number: 1, Size: 50}, nil, 0},
		{0, index.Page{Number: 2, Size: 3}, []string{"alpha/solo"}, 4},
		{0, index.Page{}, []string{"zeta/c", "zeta/a", "zeta/b", "alpha/solo"}, 4},
		{0, index.Page{Number: 9, Size: 3}, nil, 4},
	}
	for _, tc := range cases {
		got, total, err := db.FindComponentPage(ctx, tc.project, tc.page)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range got {
			names = append(names, c.Project.Slug+"/"+c.Slug)
		}
		if total != tc.total || fmt.Sprint(names) != fmt.Sprint(tc.want) {
			t.Errorf("project %d page %+v = %v (total %d), want %v (total %d)",
				tc.project, tc.page, names, total, tc.want, tc.total)
		}
	}
	// The list carries whole components, settings included.
	got, _, err := db.FindComponentPage(ctx, zeta, index.Page{Number: 1, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := f.components[0]
	if got[0].ID != want.ID || got[0].Name != want.Name || got[0].Filemask != want.Filemask ||
		got[0].Project != want.Project || got[0].CommitPendingAge != want.CommitPendingAge {
		t.Errorf("component = %+v, want %+v", got[0], want)
	}
}
