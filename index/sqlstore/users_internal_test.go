package sqlstore

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestUserHasChanges: a user counts as having acted where it made a
// change or is credited with one, outside the hidden projects; changes
// tied to no project are never hidden.
func TestUserHasChanges(t *testing.T) {
	ctx := context.Background()
	db, err := openFresh(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var users [4]index.User
	for i, name := range []string{"maker", "author", "hidden", "idle"} {
		if users[i], err = db.CreateUser(ctx, index.User{Username: name, FullName: name, IsActive: true}); err != nil {
			t.Fatal(err)
		}
	}
	public, _, err := db.SaveProject(ctx, index.Project{Name: "Public", Slug: "public"})
	if err != nil {
		t.Fatal(err)
	}
	private, _, err := db.SaveProject(ctx, index.Project{Name: "Private", Slug: "private", AccessControl: index.AccessPrivate})
	if err != nil {
		t.Fatal(err)
	}
	err = db.write(ctx, func(tx *Tx) error {
		for _, c := range []index.Change{
			{Action: index.ActionLock, ProjectID: public.ID, UserID: users[0].ID},
			{Action: index.ActionChange, ProjectID: public.ID, AuthorID: users[1].ID},
			{Action: index.ActionChange, ProjectID: private.ID, UserID: users[2].ID, AuthorID: users[2].ID},
		} {
			if err := insertChange(tx, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user   int
		hidden []int64
		want   bool
	}{
		{0, nil, true}, {0, []int64{private.ID}, true}, {0, []int64{public.ID}, false},
		{1, []int64{private.ID}, true},
		{2, nil, true}, {2, []int64{private.ID}, false}, {2, []int64{public.ID, private.ID}, false},
		{3, nil, false},
	} {
		got, err := db.UserHasChanges(ctx, users[tc.user].ID, tc.hidden)
		if err != nil || got != tc.want {
			t.Errorf("UserHasChanges(%s, hidden %v) = %v, %v; want %v", users[tc.user].Username, tc.hidden, got, err, tc.want)
		}
	}
}
