package sqlstore

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestAppendedChangesPage checks the pages of change lists that edits
// made stale: a full page is answered with its rows kept and the new
// total (appendedChangesPage), a partial one is read again, and after a
// write that changes rows (removing a unit takes it out of its changes)
// every page is read again; each answer equals an uncached read.
func TestAppendedChangesPage(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	for i := range 6 {
		f.edit(t, i, fmt.Sprint("first ", i))
	}
	// In this order: removing unit de/k0 below must find the first page
	// it visits (the German changes, from k0's edit on) kept.
	names := []string{"translation", "component", "all"}
	lists := map[string]index.ChangeFilter{
		"all":         {},
		"component":   {ComponentID: f.comp.ID},
		"translation": {TranslationID: f.tr["de"]},
	}
	const size = 4
	check := func(step string, fromCache map[string]bool) {
		t.Helper()
		for _, name := range names {
			lf := lists[name]
			for n := 1; n <= 3; n++ {
				lf.Page = index.Page{Number: n, Size: size}
				before, _, _ := f.db.changePages.get(changePageKey(lf))
				got, total, err := f.db.FindChanges(ctx, lf)
				if err != nil {
					t.Fatalf("%s: %s page %d: %v", step, name, n, err)
				}
				want, wantTotal, err := f.db.findChanges(ctx, lf)
				if err != nil {
					t.Fatal(err)
				}
				if total != wantTotal || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s page %d: %d changes of %d, want %d of %d", step, name, n, len(got), total, len(want), wantTotal)
				}
				kept := len(before.rows) > 0 && len(got) > 0 && &before.rows[0] == &got[0]
				if want := fromCache[fmt.Sprint(name, n)]; kept != want {
					t.Errorf("%s: %s page %d: rows kept %v, want %v", step, name, n, kept, want)
				}
			}
		}
	}
	// pages says which pages hold rows: all, or only the full ones.
	pages := func(full bool) map[string]bool {
		out := map[string]bool{}
		for name, lf := range lists {
			for n := 1; n <= 3; n++ {
				lf.Page = index.Page{Number: n, Size: size}
				rows, _, _ := f.db.findChanges(ctx, lf)
				out[fmt.Sprint(name, n)] = len(rows) == size || !full && len(rows) > 0
			}
		}
		return out
	}
	check("first reads", nil)
	check("again", pages(false))

	// An edit appends a change: pages full before it keep their rows.
	kept, held := pages(true), pages(false)
	if full, partial := countTrue(kept), countTrue(held)-countTrue(kept); full == 0 || partial == 0 {
		t.Fatalf("%d full pages and %d partial ones: the fixture must have both", full, partial)
	}
	f.edit(t, 7, "second")
	check("after an edit", kept)
	check("again after the edit", pages(false))

	// Removing a unit takes it out of its changes: nothing is kept.
	if err := f.db.DeleteUnit(ctx, f.unit(t, "de", 0).ID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	check("after a unit was removed", nil)
}

func countTrue(m map[string]bool) (n int) {
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}
