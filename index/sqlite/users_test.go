package sqlite_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

func TestFindUsers(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	joined := time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC)
	// Inserted out of name order, so id order and name order differ.
	names := []string{"zoe", "anna", "ann_b", "Anna2", "annabel", "bob", "an%"}
	for i, name := range names {
		if _, err := db.SaveUser(ctx, index.User{Username: name, FullName: "Full " + name,
			Email: name + "@example.com", IsActive: i != 1, IsBot: i == 5, Joined: joined}); err != nil {
			t.Fatal(err)
		}
	}
	all, total, err := db.FindUsers(ctx, index.UserFilter{Page: index.Page{Number: 1, Size: 50}})
	if err != nil || total != len(names) || len(all) != len(names) {
		t.Fatalf("all users: %d of %d, %v", len(all), total, err)
	}
	for i, u := range all {
		if u.Username != names[i] || (i > 0 && u.ID <= all[i-1].ID) {
			t.Errorf("user %d = %+v, want %s in ascending id order", i, u, names[i])
		}
	}
	if u := all[1]; u.FullName != "Full anna" || u.Email != "anna@example.com" || u.IsActive || u.IsBot ||
		!u.Joined.Equal(joined) {
		t.Errorf("anna = %+v", u)
	}
	if !all[5].IsBot || !all[0].IsActive {
		t.Errorf("flags: %+v %+v", all[5], all[0])
	}

	cases := []struct {
		f    index.UserFilter
		want string
	}{
		{index.UserFilter{UsernamePrefix: "ann"}, "anna,ann_b,annabel"},
		{index.UserFilter{UsernamePrefix: "Ann"}, "Anna2"},  // case matters
		{index.UserFilter{UsernamePrefix: "an%"}, "an%"},    // % is literal
		{index.UserFilter{UsernamePrefix: "ann_"}, "ann_b"}, // _ is literal
		{index.UserFilter{UsernamePrefix: "annabelle"}, ""}, // longer than any
		{index.UserFilter{ID: all[5].ID}, "bob"},            // by id
		{index.UserFilter{ID: all[5].ID, UsernamePrefix: "z"}, ""},
	}
	for _, tc := range cases {
		tc.f.Page = index.Page{Number: 1, Size: 50}
		got, total, err := db.FindUsers(ctx, tc.f)
		var gotNames []string
		for _, u := range got {
			gotNames = append(gotNames, u.Username)
		}
		if err != nil || strings.Join(gotNames, ",") != tc.want || total != len(got) {
			t.Errorf("%+v: %v (total %d), %v; want %s", tc.f, gotNames, total, err, tc.want)
		}
	}

	// Pages: 3 per page over 7 users.
	for page, want := range map[int]string{1: "zoe,anna,ann_b", 2: "Anna2,annabel,bob", 3: "an%", 4: ""} {
		got, total, err := db.FindUsers(ctx, index.UserFilter{Page: index.Page{Number: page, Size: 3}})
		var gotNames []string
		for _, u := range got {
			gotNames = append(gotNames, u.Username)
		}
		if err != nil || total != 7 || strings.Join(gotNames, ",") != want {
			t.Errorf("page %d: %v (total %d), %v; want %s", page, gotNames, total, err, want)
		}
	}

	if _, err := db.FindUser(ctx, "nobody"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("FindUser(nobody) err = %v", err)
	}
	if u, err := db.FindUser(ctx, "bob"); err != nil || u.ID != all[5].ID || !u.IsBot {
		t.Errorf("FindUser(bob) = %+v, %v", u, err)
	}
}
