package sqlstore

import (
	"context"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestFindAddonsCovering: the add-ons that apply to a component are its
// project's and its own, not another component's nor another project's.
func TestFindAddonsCovering(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	pid := f.comp.ProjectID
	other := mustTestComponent(t, f.db, pid, "other")
	p2, _, err := f.db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, a := range []index.Addon{
		{Name: index.AddonSquash, ProjectID: pid},
		{Name: index.AddonSquash, ProjectID: pid, ComponentID: f.comp.ID},
		{Name: index.AddonSquash, ProjectID: pid, ComponentID: other.ID},
		{Name: index.AddonSquash, ProjectID: p2.ID},
	} {
		saved, err := f.db.CreateAddon(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, saved.ID)
	}
	got, err := f.db.FindAddons(ctx, index.AddonFilter{ProjectID: pid, Covering: f.comp.ID})
	var gotIDs []int64
	for _, a := range got {
		gotIDs = append(gotIDs, a.ID)
	}
	if err != nil || !slices.Equal(gotIDs, ids[:2]) {
		t.Errorf("covering %d: %v, %v; want %v", f.comp.ID, gotIDs, err, ids[:2])
	}
}
