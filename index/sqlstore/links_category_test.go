package sqlstore

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestLinksNameCategoryPaths: a weblate:// link to a component in
// categories carries the category path, as the reference's
// get_repo_link_url writes it: a link given with the bare slug (Tolk's
// older form) or the full path resolves and is stored in the full form;
// a wrong path names nothing; moving the parent into or out of a
// category, renaming it, renaming or moving one of its categories and
// renaming its project rewrite the links to it, and each rewritten link
// still resolves on the linked component's next update.
func TestLinksNameCategoryPaths(t *testing.T) {
	{
		f := mustWriteFixture(t)
		db := f.db
		ctx := context.Background()
		top, sub := f.mustCategoryTree(t)
		other := mustCategory(t, db, index.Category{ProjectID: f.comp.ProjectID, Name: "Other", Slug: "other"})
		child := f.mustLinked(t, f.comp.ProjectID, 0, "child")
		wantRepo := func(step, want string) {
			t.Helper()
			got, err := db.FindComponentByID(ctx, child.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Repo != want || got.LinkedID != f.comp.ID {
				t.Errorf("%s: linked repo = %q (linked to %d), want %q (%d)", step, got.Repo, got.LinkedID, want, f.comp.ID)
			}
			// The stored link resolves again on an update of the child.
			if _, _, err := db.UpdateComponent(ctx, child.ID, func(c *index.Component) error {
				c.Name = c.Name + "!"
				return nil
			}); err != nil {
				t.Errorf("%s: update of the linked component: %v", step, err)
			}
		}
		wantRepo("created outside categories", index.LinkScheme+"p/app")

		f.moveTo(t, sub.ID)
		wantRepo("parent moved into main/docs", index.LinkScheme+"p/main/docs/app")

		// Created with the bare slug or the full path: stored in full.
		bare := f.mustLinked(t, f.comp.ProjectID, other.ID, "bare")
		full := index.DefaultComponent()
		full.ProjectID, full.Name, full.Slug = f.comp.ProjectID, "full", "full"
		full.Repo, full.Branch, full.Push, full.PushBranch = index.LinkScheme+"p/main/docs/app/", "", "", ""
		full, err := db.CreateComponent(ctx, full, f.user)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []index.Component{bare, full} {
			if c.Repo != index.LinkScheme+"p/main/docs/app" || c.LinkedID != f.comp.ID {
				t.Errorf("%s created: repo %q linked %d", c.Slug, c.Repo, c.LinkedID)
			}
		}
		// A path that is not the parent's names nothing: 400 on repo.
		for _, repo := range []string{"p/main/app", "p/other/app", "p/main/docs/x/y/app", "p//app", "p/main/docs/nope"} {
			c := index.DefaultComponent()
			c.ProjectID, c.Name, c.Slug = f.comp.ProjectID, "bad", "bad"
			c.Repo, c.Branch, c.Push, c.PushBranch = index.LinkScheme+repo, "", "", ""
			_, err := db.CreateComponent(ctx, c, f.user)
			var fe *index.FieldError
			if !errors.As(err, &fe) || fe.Fields["repo"].Detail != index.MsgLinkInvalid {
				t.Errorf("link %q: %v, want a 400 on repo", repo, err)
			}
		}

		// Renaming a category on the path, then moving the subcategory
		// to the top level.
		if _, err := db.UpdateCategory(ctx, top.ID, func(k *index.Category) error { k.Slug = "base"; return nil }); err != nil {
			t.Fatal(err)
		}
		wantRepo("category renamed", index.LinkScheme+"p/base/docs/app")
		if _, err := db.UpdateCategory(ctx, sub.ID, func(k *index.Category) error { k.CategoryID = 0; return nil }); err != nil {
			t.Fatal(err)
		}
		wantRepo("subcategory moved to the top", index.LinkScheme+"p/docs/app")

		// Renaming the parent, then its project, then moving it out.
		if _, _, err := db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error { c.Slug = "application"; return nil }); err != nil {
			t.Fatal(err)
		}
		wantRepo("parent renamed", index.LinkScheme+"p/docs/application")
		if _, _, err := db.UpdateProject(ctx, f.comp.ProjectID, func(p *index.Project) error { p.Slug = "q"; return nil }); err != nil {
			t.Fatal(err)
		}
		wantRepo("project renamed", index.LinkScheme+"q/docs/application")
		f.moveTo(t, 0)
		wantRepo("parent moved out of categories", index.LinkScheme+"q/application")
		for _, c := range []index.Component{bare, full} {
			got, err := db.FindComponentByID(ctx, c.ID)
			if err != nil || got.Repo != index.LinkScheme+"q/application" {
				t.Errorf("%s after the moves: repo %q, %v", c.Slug, got.Repo, err)
			}
		}
		linked, err := db.LinkedComponents(ctx, f.comp.ID)
		if err != nil || len(linked) != 3 {
			t.Errorf("LinkedComponents = %d, %v; want 3", len(linked), err)
		}
		checkAllCounts(t, db)
	}
}

// TestLinkTarget: the parts of a link, with or without categories.
func TestLinkTarget(t *testing.T) {
	for _, tc := range []struct {
		repo                string
		project, path, slug string
		ok                  bool
	}{
		{"weblate://p/c", "p", "", "c", true},
		{"weblate://p/c/", "p", "", "c", true},
		{"weblate://p/a/c", "p", "a", "c", true},
		{"weblate://p/a/b/c/d", "p", "a/b/c", "d", true},
		{"weblate://p/a/b/c/d/e", "", "", "", false}, // deeper than MaxCategoryDepth
		{"weblate://p", "", "", "", false},
		{"weblate://p//c", "", "", "", false},
		{"weblate:///c", "", "", "", false},
		{"https://example.com/p/c", "", "", "", false},
	} {
		p, path, slug, ok := index.LinkTarget(tc.repo)
		if got := []any{p, path, slug, ok}; !slices.Equal(got, []any{tc.project, tc.path, tc.slug, tc.ok}) {
			t.Errorf("LinkTarget(%q) = %v", tc.repo, got)
		}
	}
}
