package sqlstore

import (
	"context"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestAutoAssignOnRenames: a component list's rules are matched again
// when a project is renamed (for each of its components, as the
// reference's auto_project_componentlist) and when a component is
// renamed or moved into a category; a component already listed stays
// when it stops matching (rules only add, as the reference's).
func TestAutoAssignOnRenames(t *testing.T) {
	f := mustWriteFixture(t)
	db, ctx := f.db, context.Background()
	second := mustTestComponent(t, db, f.comp.ProjectID, "web")
	l, err := db.CreateComponentList(ctx, index.ComponentList{Name: "Release", Slug: "release",
		AutoAssign: []index.AutoAssign{{ProjectMatch: "^rel-", ComponentMatch: "^app$"},
			{ProjectMatch: "^other$", ComponentMatch: "^site$"}}})
	if err != nil {
		t.Fatal(err)
	}
	members := func(step string, want ...int64) {
		t.Helper()
		got, err := db.FindComponentListByID(ctx, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, c := range got.Components {
			ids = append(ids, c.ID)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s: list holds %v, want %v", step, ids, want)
		}
	}
	members("no project matches")
	if _, _, err := db.UpdateProject(ctx, f.comp.ProjectID, func(p *index.Project) error { p.Slug = "rel-1"; return nil }); err != nil {
		t.Fatal(err)
	}
	members("project renamed to rel-1", f.comp.ID)
	if _, _, err := db.UpdateProject(ctx, f.comp.ProjectID, func(p *index.Project) error { p.Slug = "other"; return nil }); err != nil {
		t.Fatal(err)
	}
	members("project renamed away: app stays", f.comp.ID)
	k := mustCategory(t, db, index.Category{ProjectID: f.comp.ProjectID, Name: "Main", Slug: "main"})
	if _, _, err := db.UpdateComponent(ctx, second.ID, func(c *index.Component) error {
		c.Slug, c.CategoryID = "site", k.ID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	members("web renamed to site in a category", f.comp.ID, second.ID)
}
