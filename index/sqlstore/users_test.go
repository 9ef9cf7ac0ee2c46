package sqlstore_test

import (
	"context"
	"errors"
	"strconv"
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

func TestUserWrites(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	zoe, err := db.CreateUser(ctx, index.User{Username: "zoe", FullName: "Zoe", Email: "zoe@example.com", IsActive: true})
	if err != nil || zoe.ID == 0 || zoe.Joined.IsZero() {
		t.Fatalf("CreateUser = %+v, %v", zoe, err)
	}
	anna, err := db.CreateUser(ctx, index.User{Username: "anna", FullName: "Anna", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	// Taken usernames and addresses (ignoring case) are field errors, in
	// creations and updates alike; no address is never taken.
	var fe *index.FieldError
	_, err = db.CreateUser(ctx, index.User{Username: "zoe", FullName: "Z", Email: "ZOE@example.COM"})
	if !errors.As(err, &fe) || fe.Fields["username"].Code != "unique" || fe.Fields["email"].Code != "unique" {
		t.Errorf("CreateUser of a taken name and address = %v", err)
	}
	if _, err := db.CreateUser(ctx, index.User{Username: "bob", FullName: "Bob"}); err != nil {
		t.Errorf("a second user without an address: %v", err)
	}
	taken := "anna"
	if _, err := db.UpdateUser(ctx, "zoe", index.UserUpdate{Username: &taken}); !errors.As(err, &fe) {
		t.Errorf("UpdateUser to a taken name = %v", err)
	}
	if _, err := db.UpdateUser(ctx, "ghost", index.UserUpdate{}); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("UpdateUser of nobody = %v", err)
	}
	name, off := "Zoe Z", false
	got, err := db.UpdateUser(ctx, "zoe", index.UserUpdate{FullName: &name, IsActive: &off})
	if err != nil || got.FullName != "Zoe Z" || got.IsActive || got.Email != "zoe@example.com" {
		t.Errorf("UpdateUser = %+v, %v", got, err)
	}

	// Removal keeps the row, anonymised, and takes tokens and grants.
	secret := index.NewToken(index.UserTokenPrefix)
	if _, err := db.CreateToken(ctx, index.Token{UserID: anna.ID, Hash: index.HashToken(secret),
		Prefix: index.UserTokenPrefix, Scope: index.ScopeAdmin}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddGrant(ctx, index.Grant{UserID: anna.ID, Role: "Translate"}); err != nil {
		t.Fatal(err)
	}
	if err := db.RemoveUser(ctx, "anna"); err != nil {
		t.Fatal(err)
	}
	if err := db.RemoveUser(ctx, "anna"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("RemoveUser twice = %v", err)
	}
	gone, err := db.FindUser(ctx, "deleted-"+strconv.FormatInt(anna.ID, 10))
	if err != nil || gone.ID != anna.ID || gone.IsActive || gone.FullName != "Deleted User" || gone.Email != "" {
		t.Errorf("removed user = %+v, %v", gone, err)
	}
	if _, _, err := db.Authenticate(ctx, secret); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("a removed user's token = %v", err)
	}
	if grants, err := db.FindGrants(ctx, anna.ID); err != nil || len(grants) != 0 {
		t.Errorf("a removed user's grants = %v, %v", grants, err)
	}
}
