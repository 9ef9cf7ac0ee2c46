package sqlstore

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkAuthenticate measures what every request with a token costs
// the index before its handler runs: the token, its user and the user's
// grants (two here, each a built-in team of the project).
//
//	go test ./index/sqlstore -run '^$' -bench Authenticate -count 6
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	db, user := mustBenchUser(b)
	p, _, err := db.SaveProject(ctx, index.Project{Name: "Bench", Slug: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	for _, role := range []string{"Translate", "Review strings"} {
		if err := db.AddGrant(ctx, index.Grant{UserID: user.ID, Role: role, ProjectID: p.ID}); err != nil {
			b.Fatal(err)
		}
	}
	secret := index.NewToken(index.UserTokenPrefix)
	if _, err := db.CreateToken(ctx, index.Token{UserID: user.ID, Name: "bench", Hash: index.HashToken(secret),
		Prefix: index.UserTokenPrefix, Scope: index.ScopeAdmin}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		pr, _, err := db.Authenticate(ctx, secret)
		if err != nil || len(pr.Grants) != 2 {
			b.Fatalf("Authenticate = %+v, %v", pr, err)
		}
	}
}

// BenchmarkGrantCheck measures the permission checks a request makes
// with the grants Authenticate loaded: a user with a built-in role in
// each of 20 projects and one site-wide, asking for a permission the
// last project's role holds and one nothing grants (every covering
// grant is asked).
//
//	go test ./index/sqlstore -run '^$' -bench GrantCheck -count 6
func BenchmarkGrantCheck(b *testing.B) {
	ctx := context.Background()
	db, user := mustBenchUser(b)
	var last int64
	for i := range 20 {
		p, _, err := db.SaveProject(ctx, index.Project{Name: "Bench " + itoa(int64(i)), Slug: "bench" + itoa(int64(i))})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.AddGrant(ctx, index.Grant{UserID: user.ID, Role: "Review strings", ProjectID: p.ID}); err != nil {
			b.Fatal(err)
		}
		last = p.ID
	}
	if err := db.AddGrant(ctx, index.Grant{UserID: user.ID, Role: "Translate"}); err != nil {
		b.Fatal(err)
	}
	grants, err := db.FindGrants(ctx, user.ID)
	if err != nil {
		b.Fatal(err)
	}
	pr := &index.Principal{User: &user, Grants: grants}
	b.ReportAllocs()
	for b.Loop() {
		if !pr.Can(index.PermUnitReview, last) || pr.Can(index.PermProjectEdit, last) {
			b.Fatal("wrong answer")
		}
	}
}

// BenchmarkTeamPage reads a page of 20 teams, each with a role, a
// project and an admin, as GET /api/groups/ lists them, and the teams of
// 20 users as GET /api/users/ does (FindUsersTeams).
//
//	go test ./index/sqlstore -run '^$' -bench 'TeamPage' -count 6
func BenchmarkTeamPage(b *testing.B) {
	ctx := context.Background()
	db, err := openFresh(b)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var users []int64
	for i := range 20 {
		s := itoa(int64(i))
		u, err := db.CreateUser(ctx, index.User{Username: "u" + s, Email: "u" + s + "@example.com", IsActive: true})
		if err != nil {
			b.Fatal(err)
		}
		p, _, err := db.SaveProject(ctx, index.Project{Name: "P" + s, Slug: "p" + s})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.AddGrant(ctx, index.Grant{UserID: u.ID, Role: "Translate", ProjectID: p.ID}); err != nil {
			b.Fatal(err)
		}
		users = append(users, u.ID)
	}
	b.Run("teams", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			teams, total, err := db.FindTeamPage(ctx, index.TeamFilter{Everything: true}, index.Page{Number: 1, Size: 50})
			if err != nil || total < 20 || len(teams[len(teams)-1].Roles) != 1 {
				b.Fatalf("FindTeamPage = %d of %d, %v", len(teams), total, err)
			}
		}
	})
	b.Run("users", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, id := range users {
				if teams, err := db.FindUserTeams(ctx, id); err != nil || len(teams) != 1 {
					b.Fatal(teams, err)
				}
			}
		}
	})
	b.Run("users-batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if all, err := db.FindUsersTeams(ctx, users); err != nil || len(all) != len(users) {
				b.Fatal(all, err)
			}
		}
	})
}

// mustBenchUser opens a fresh index with one active user, anna.
func mustBenchUser(b *testing.B) (*DB, index.User) {
	b.Helper()
	db, err := openFresh(b)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	user, err := db.CreateUser(context.Background(), index.User{Username: "anna", Email: "anna@example.com", IsActive: true})
	if err != nil {
		b.Fatal(err)
	}
	return db, user
}
