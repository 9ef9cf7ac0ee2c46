package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// mustCategory creates a category or fails.
func mustCategory(tb testing.TB, db *DB, k index.Category) index.Category {
	tb.Helper()
	k, err := db.CreateCategory(context.Background(), k)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// fieldProblem is the code and detail of err's problem with attr, or ""
// when err is no *index.FieldError naming attr.
func fieldProblem(err error, attr string) string {
	var fe *index.FieldError
	if !errors.As(err, &fe) {
		return ""
	}
	p, ok := fe.Fields[attr]
	if !ok {
		return ""
	}
	return p.Code + ": " + p.Detail
}

// TestCategoryRules: the reference's rules for a category, checked in
// the write's transaction.
func TestCategoryRules(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	pid := f.comp.ProjectID
	other, _, err := f.db.SaveProject(ctx, index.Project{Name: "Other", Slug: "other"})
	if err != nil {
		t.Fatal(err)
	}
	a := mustCategory(t, f.db, index.Category{ProjectID: pid, Name: "A", Slug: "a"})
	b := mustCategory(t, f.db, index.Category{ProjectID: pid, CategoryID: a.ID, Name: "A", Slug: "a"})
	c := mustCategory(t, f.db, index.Category{ProjectID: pid, CategoryID: b.ID, Name: "C", Slug: "c"})
	if b.Project.Slug != f.comp.Project.Slug || b.CategoryID != a.ID {
		t.Errorf("nested = %+v", b)
	}
	for _, tc := range []struct {
		name  string
		k     index.Category
		attr  string
		wants string
	}{
		{"slug taken", index.Category{ProjectID: pid, Name: "Other name", Slug: "a"}, "slug",
			"unique: " + categorySlugTaken},
		{"name taken", index.Category{ProjectID: pid, CategoryID: a.ID, Name: "A", Slug: "free"}, "name",
			"unique: " + categoryNameTaken},
		{"too deep", index.Category{ProjectID: pid, CategoryID: c.ID, Name: "D", Slug: "d"}, "category",
			"invalid: " + categoryTooDeep},
		{"other project", index.Category{ProjectID: other.ID, CategoryID: a.ID, Name: "X", Slug: "x"}, "category",
			"invalid: " + categoryOtherProject},
		{"missing parent", index.Category{ProjectID: pid, CategoryID: 999999, Name: "X", Slug: "x"}, "category",
			"does_not_exist: Invalid hyperlink - Object does not exist."},
	} {
		_, err := f.db.CreateCategory(ctx, tc.k)
		if got := fieldProblem(err, tc.attr); got != tc.wants {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.wants)
		}
	}
	// The same slug in another project, or at another level, is free.
	mustCategory(t, f.db, index.Category{ProjectID: other.ID, Name: "A", Slug: "a"})

	// Moves: not under itself or its subtree, not deeper than the limit.
	move := func(id, parent int64) error {
		_, err := f.db.UpdateCategory(ctx, id, func(k *index.Category) error { k.CategoryID = parent; return nil })
		return err
	}
	if got := fieldProblem(move(a.ID, c.ID), "category"); got != "invalid: "+categorySelfParent {
		t.Errorf("a under its grandchild: %s", got)
	}
	d := mustCategory(t, f.db, index.Category{ProjectID: pid, Name: "D", Slug: "d"})
	if got := fieldProblem(move(b.ID, d.ID), "category"); got != "" {
		t.Errorf("b (with c) under top-level d: %s", got)
	}
	e := mustCategory(t, f.db, index.Category{ProjectID: pid, CategoryID: a.ID, Name: "E", Slug: "e"})
	if got := fieldProblem(move(d.ID, e.ID), "category"); got != "invalid: "+categoryTooDeep {
		t.Errorf("d (with b, c) under e: %s", got)
	}
	if _, err := f.db.UpdateCategory(ctx, 999999, func(*index.Category) error { return nil }); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("update of a missing category: %v", err)
	}
	if _, err := f.db.FindCategory(ctx, 999999); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("find of a missing category: %v", err)
	}
	cats, total, err := f.db.FindCategoryPage(ctx, pid, index.Page{Number: 1, Size: 2})
	if err != nil || total != 5 || len(cats) != 2 || cats[0].ID != a.ID {
		t.Errorf("page = %v, %d, %v", cats, total, err)
	}
	if _, total, _ := f.db.FindCategoryPage(ctx, 0, index.Page{Number: 1, Size: 2}, pid); total != 1 {
		t.Errorf("all categories without project %d: %d, want 1", pid, total)
	}
}

// TestCategoryComponents: membership, statistics summed over the
// subtree, path: searches and deletion.
func TestCategoryComponents(t *testing.T) {
	f := mustSearchFixture(t)
	ctx := context.Background()
	pid := f.comp.ProjectID
	top := mustCategory(t, f.db, index.Category{ProjectID: pid, Name: "Main", Slug: "main"})
	sub := mustCategory(t, f.db, index.Category{ProjectID: pid, CategoryID: top.ID, Name: "Docs", Slug: "docs"})
	other, _, err := f.db.SaveProject(ctx, index.Project{Name: "Other", Slug: "other"})
	if err != nil {
		t.Fatal(err)
	}
	foreign := mustCategory(t, f.db, index.Category{ProjectID: other.ID, Name: "F", Slug: "f"})
	set := func(cat int64) error {
		_, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error { c.CategoryID = cat; return nil })
		return err
	}
	if got := fieldProblem(set(foreign.ID), "category"); got != "invalid: Category does not belong to this project." {
		t.Errorf("foreign category: %s", got)
	}

	// Before: the paths through categories name nothing.
	all := "k0 k1 k2 k3 k4 k5 k6 k7 k8 k9"
	paths := []struct{ q, before, after string }{
		{"path:p/main", "", all},
		{"path:p/main/docs", "", all},
		{"path:p/main/docs/app", "", all},
		{"path:p/main/docs/app/de", "", all},
		{"path:p/main/docs/-/de", "", all},
		{"path:p/main/-/de", "", all},
		{"path:p/main/app", "", ""}, // app is in docs, not directly in main
		{"path:p/docs", "", ""},     // docs is no top-level category
		{"path:p/main/docs/app/fr", "", ""},
		{"path:p/app", all, all}, // Tolk's component slugs are unique in a project
		{"path:p/app/de", all, all},
		{"path:p/-/de", all, all},
		{"path:p/a/b/c/d/e/f", "", ""},
	}
	for _, tc := range paths {
		if got := f.search(t, "de", tc.q); !slices.Equal(got, searchKeys(tc.before)) {
			t.Errorf("before, %s: got %v, want %v", tc.q, got, searchKeys(tc.before))
		}
	}
	if err := set(sub.ID); err != nil {
		t.Fatal(err)
	}
	c, err := f.db.FindComponent(ctx, f.comp.Project.Slug, f.comp.Slug)
	if err != nil || c.CategoryID != sub.ID {
		t.Fatalf("component after the move: %+v, %v", c.CategoryID, err)
	}
	for _, tc := range paths {
		if got := f.search(t, "de", tc.q); !slices.Equal(got, searchKeys(tc.after)) {
			t.Errorf("after, %s: got %v, want %v", tc.q, got, searchKeys(tc.after))
		}
	}

	// Statistics: the component's, at both levels; none for an empty one.
	want, err := f.db.ComponentStats(ctx, f.comp.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{top.ID, sub.ID} {
		got, err := f.db.CategoryStats(ctx, id)
		if err != nil || got != want || got.Total == 0 {
			t.Errorf("category %d statistics = %+v, %v; want %+v", id, got, err, want)
		}
	}
	if got, err := f.db.CategoryStats(ctx, foreign.ID); err != nil || got != (index.Stats{}) {
		t.Errorf("empty category statistics = %+v, %v", got, err)
	}
	before, err := f.db.ProjectStats(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}

	// Deleting the top removes the subcategory and the component, and the
	// project's statistics lose the component's.
	removed, err := f.db.DeleteCategory(ctx, top.ID, f.user)
	if err != nil || len(removed) != 1 || removed[0].ID != f.comp.ID {
		t.Fatalf("removed = %v, %v", removed, err)
	}
	for _, id := range []int64{top.ID, sub.ID} {
		if _, err := f.db.FindCategory(ctx, id); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("category %d after the removal: %v", id, err)
		}
	}
	if _, err := f.db.FindComponent(ctx, f.comp.Project.Slug, f.comp.Slug); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("component after the removal: %v", err)
	}
	after, err := f.db.ProjectStats(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	if after.Total != before.Total-want.Total {
		t.Errorf("project total %d after, %d before, component %d", after.Total, before.Total, want.Total)
	}
	if _, err := f.db.DeleteCategory(ctx, top.ID, f.user); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("second removal: %v", err)
	}
}

// BenchmarkCategoryStats reads the statistics of a category of 50
// components, one of them translated, two levels deep: the sum over the
// components' kept rows that replaces rows of its own (CategoryStats).
func BenchmarkCategoryStats(b *testing.B) {
	f := mustWriteFixture(b)
	ctx := context.Background()
	pid := f.comp.ProjectID
	top, sub := f.mustCategoryTree(b)
	f.moveTo(b, sub.ID)
	for i := range 49 {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.CategoryID = pid, "C"+strconv.Itoa(i), "c"+strconv.Itoa(i), top.ID
		if _, err := f.db.CreateComponent(ctx, c, f.user); err != nil {
			b.Fatal(err)
		}
	}
	want, err := f.db.ComponentStats(ctx, f.comp.ID)
	if err != nil || want.Total == 0 {
		b.Fatal(want, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := f.db.CategoryStats(ctx, top.ID)
		if err != nil || got.Total != want.Total {
			b.Fatalf("got %+v, %v; want total %d", got, err, want.Total)
		}
	}
}

// TestDeleteCategoryTakesLinkedComponents: removing a category removes
// the components linked (weblate://) to its components, in the category
// or not, as DeleteComponent does: no component is left naming a
// repository that is gone, and every counter stays exact.
func TestDeleteCategoryTakesLinkedComponents(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	pid := f.comp.ProjectID
	top, sub := f.mustCategoryTree(t)
	f.moveTo(t, top.ID)
	other, outside := f.mustLinkedOutside(t)
	inside := f.mustLinked(t, pid, sub.ID, "inside")
	if s, err := f.db.ProjectStats(ctx, other.ID); err != nil || s.Total == 0 {
		t.Fatalf("other project's statistics before = %+v, %v", s, err)
	}

	removed, err := f.db.DeleteCategory(ctx, top.ID, f.user)
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, c := range removed {
		slugs = append(slugs, c.Slug)
	}
	if !slices.Equal(slugs, []string{"app", "inside"}) {
		t.Errorf("removed = %v, want the category's components [app inside]", slugs)
	}
	for _, c := range []index.Component{outside, inside} {
		if _, err := f.db.FindComponentByID(ctx, c.ID); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("linked component %s after its parent's category went: %v", c.Slug, err)
		}
	}
	if s, err := f.db.ProjectStats(ctx, other.ID); err != nil || s.Total != 0 {
		t.Errorf("other project's statistics after = %+v, %v; want none", s, err)
	}
	if got := actions(t, f.db, other.ID); !slices.Equal(got, []string{"50/u0/tfalse/", fmt.Sprintf("38/u%d/tfalse/outside", f.user.UserID)}) {
		t.Errorf("other project's changes = %v; want the project's creation, the linked component's removal", got)
	}
	checkAllCounts(t, f.db)
}

// TestDeleteProjectTakesLinkedComponents: removing a project removes
// the components of other projects linked to its components, with their
// statistics, as removing the parent component does.
func TestDeleteProjectTakesLinkedComponents(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	other, c := f.mustLinkedOutside(t)
	if _, err := f.db.DeleteProject(ctx, f.comp.ProjectID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.FindComponentByID(ctx, c.ID); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("linked component after its parent's project went: %v", err)
	}
	if got := actions(t, f.db, other.ID); !slices.Equal(got, []string{"50/u0/tfalse/", "38/u0/tfalse/outside"}) {
		t.Errorf("other project's changes = %v", got)
	}
	checkAllCounts(t, f.db)
}

// mustLinked creates a component linked to the fixture's (weblate://p/app)
// in a project and category, with one German translation of two units,
// one translated.
func (f *writeFixture) mustLinked(t *testing.T, projectID, category int64, slug string) index.Component {
	t.Helper()
	ctx := context.Background()
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.CategoryID = projectID, slug, slug, category
	c.Repo, c.Branch, c.Push, c.PushBranch = index.LinkScheme+"p/app", "", "", ""
	c, err := f.db.CreateComponent(ctx, c, f.user)
	if err != nil {
		t.Fatal(err)
	}
	if c.LinkedID != f.comp.ID {
		t.Fatalf("%s linked to %d, want %d", slug, c.LinkedID, f.comp.ID)
	}
	if _, err := f.db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
		Filename: slug + "/de.json", Revision: "r", Monolingual: true, Units: []index.ImportUnit{
			{Context: "a", Source: []string{"One"}, Target: []string{"Eins"}, State: index.StateTranslated},
			{Context: "b", Source: []string{"Two"}, Target: []string{""}},
		}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// mustLinkedOutside creates project "other" and, at its top level, a
// component "outside" linked to the fixture's (mustLinked).
func (f *writeFixture) mustLinkedOutside(t *testing.T) (index.Project, index.Component) {
	t.Helper()
	other, _, err := f.db.SaveProject(context.Background(), index.Project{Name: "Other", Slug: "other"})
	if err != nil {
		t.Fatal(err)
	}
	return other, f.mustLinked(t, other.ID, 0, "outside")
}

// mustCategoryTree creates the categories main and main/docs in the
// fixture's project.
func (f *writeFixture) mustCategoryTree(tb testing.TB) (top, sub index.Category) {
	tb.Helper()
	top = mustCategory(tb, f.db, index.Category{ProjectID: f.comp.ProjectID, Name: "Main", Slug: "main"})
	sub = mustCategory(tb, f.db, index.Category{ProjectID: f.comp.ProjectID, CategoryID: top.ID, Name: "Docs", Slug: "docs"})
	return top, sub
}

// moveTo puts the fixture's component in a category.
func (f *writeFixture) moveTo(tb testing.TB, category int64) {
	tb.Helper()
	if _, _, err := f.db.UpdateComponent(context.Background(), f.comp.ID, func(c *index.Component) error {
		c.CategoryID = category
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// checkAllCounts fails t with every counter of db a recount disagrees
// with (VerifyCounts) and every statistics or list count sum that is off.
func checkAllCounts(t *testing.T, db *DB) {
	t.Helper()
	problems, err := db.VerifyCounts(context.Background())
	if err != nil || len(problems) > 0 {
		t.Errorf("VerifyCounts = %q, %v", problems, err)
	}
	checkStatsSums(t, db)
	checkListCounts(t, db)
}

// TestRenameProjectRelinksComponents: renaming a project rewrites the
// weblate:// repo of the components linked to its components, as a
// component rename does, so a later update of the linked component
// still resolves its link.
func TestRenameProjectRelinksComponents(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	_, c := f.mustLinkedOutside(t)
	if _, _, err := f.db.UpdateProject(ctx, f.comp.ProjectID, func(p *index.Project) error {
		p.Slug = "renamed"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := f.db.FindComponentByID(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := index.LinkScheme + "renamed/app"; got.Repo != want {
		t.Errorf("linked component's repo = %q after the parent's project was renamed, want %q", got.Repo, want)
	}
	if _, _, err := f.db.UpdateComponent(ctx, c.ID, func(c *index.Component) error {
		c.Name = "Outside again"
		return nil
	}); err != nil {
		t.Errorf("update of the linked component after the rename: %v", err)
	}
}
