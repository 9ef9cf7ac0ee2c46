package sqlstore

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// migrationsBefore hides the migrations numbered from first on: an
// index as an older Tolk left it.
type migrationsBefore struct {
	fs.FS
	first int
}

func (m migrationsBefore) Glob(pattern string) ([]string, error) {
	names, err := fs.Glob(m.FS, pattern)
	return slices.DeleteFunc(names, func(n string) bool { return migrationNumber(n) >= m.first }), err
}

// openBefore opens o's index migrated only to the migrations before
// first. It swaps the engine's migrations while it opens (restored
// however Open ends), so its callers do not run in parallel.
func openBefore(ctx context.Context, o Options, first int) (*DB, error) {
	d := sqliteDialect
	if o.Engine == Postgres {
		d = postgresDialect
	}
	full := d.migrations
	defer func() { d.migrations = full }()
	d.migrations = migrationsBefore{full, first}
	return Open(ctx, o)
}

// TestTeamsMigrationKeepsGrants upgrades an index that holds grants as
// the command line made them before teams (migration 0040) and checks
// that every user can do after it exactly what it could before, on every
// permission in every project and site-wide, sees the same private
// projects, and that the command line's grants still work. It swaps the
// engine's migrations while it opens the old index, so it does not run
// in parallel.
func TestTeamsMigrationKeepsGrants(t *testing.T) {
	ctx := context.Background()
	var o Options
	if testengine.Engine() == testengine.Postgres {
		o.Engine, o.Location = Postgres, testengine.PostgresDSN(t)
	} else {
		o.Engine, o.Location = SQLite, filepath.Join(t.TempDir(), "tolk.db")
	}
	old, err := openBefore(ctx, o, 40)
	if err != nil {
		t.Fatal(err)
	}
	var users []index.User
	for _, name := range []string{"ann", "bob", "cy", "dee", "eve"} {
		u, err := old.CreateUser(ctx, index.User{Username: name, FullName: name, Email: name + "@example.com", IsActive: true})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	var projects []index.Project
	for i, slug := range []string{"pub", "priv", "prot"} {
		p, err := old.CreateProject(ctx, index.Project{Name: slug, Slug: slug, AccessControl: []int{
			index.AccessPublic, index.AccessPrivate, index.AccessProtected}[i]}, index.Actor{})
		if err != nil {
			t.Fatal(err)
		}
		projects = append(projects, p)
	}
	pub, priv, prot := projects[0].ID, projects[1].ID, projects[2].ID
	grants := []index.Grant{
		{UserID: users[0].ID, Role: "Translate"},
		{UserID: users[0].ID, Role: "Administration", ProjectID: priv},
		{UserID: users[1].ID, Role: "Review strings", ProjectID: prot},
		{UserID: users[1].ID, Role: "Translate", ProjectID: prot},
		{UserID: users[1].ID, Role: "Manage strings", ProjectID: pub},
		{UserID: users[2].ID, Role: "Add projects"},
		{UserID: users[2].ID, Role: "Manage languages"},
		{UserID: users[2].ID, Role: "Manage translation memory", ProjectID: priv},
		{UserID: users[3].ID, Role: "Manage repository", ProjectID: pub},
		{UserID: users[3].ID, Role: "Manage repository", ProjectID: priv},
		{UserID: users[3].ID, Role: "no such role", ProjectID: pub}, // granted nothing, before or after
	}
	for _, g := range grants {
		if _, err := old.wdb.ExecContext(ctx, old.dialect.rebind(`INSERT INTO grants (user_id, role, project_id) VALUES (?, ?, ?)`),
			g.UserID, g.Role, g.ProjectID); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	targets := []int64{0, pub, priv, prot}
	for _, u := range users {
		before := index.Principal{User: &u}
		for _, g := range grants {
			if g.UserID == u.ID {
				before.Grants = append(before.Grants, g)
			}
		}
		after, err := db.userPrincipal(ctx, u.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, perm := range index.KnownPermissions {
			for _, pid := range targets {
				if b, a := before.Can(perm, pid), after.Can(perm, pid); a != b {
					t.Errorf("%s: Can(%s, %d) = %v after the migration, %v before", u.Username, perm, pid, a, b)
				}
			}
		}
		for i := range projects {
			if b, a := before.CanView(&projects[i]), after.CanView(&projects[i]); a != b {
				t.Errorf("%s: CanView(%s) = %v after the migration, %v before", u.Username, projects[i].Slug, a, b)
			}
		}
	}
	// Spot checks, so that a migration losing everything on both sides
	// cannot pass: ann administers the private project, eve has nothing.
	ann, _ := db.userPrincipal(ctx, users[0].ID, nil)
	if !ann.Can(index.PermProjectEdit, priv) || !ann.CanView(&projects[1]) || ann.Can(index.PermProjectEdit, pub) {
		t.Errorf("ann's grants after the migration: %+v", ann.Grants)
	}
	if g, _ := db.FindGrants(ctx, users[4].ID); len(g) != 0 {
		t.Errorf("eve has grants %+v", g)
	}

	// The command line grants and revokes through the built-in teams.
	eve := users[4]
	if err := db.AddGrant(ctx, index.Grant{UserID: eve.ID, Role: "reviewer", ProjectID: priv}); err != nil {
		t.Fatal(err)
	}
	p, _ := db.userPrincipal(ctx, eve.ID, nil)
	if !p.Can(index.PermUnitReview, priv) || p.Can(index.PermUnitReview, pub) || !p.CanView(&projects[1]) {
		t.Errorf("eve after a grant: %+v", p.Grants)
	}
	if err := db.RemoveGrant(ctx, index.Grant{UserID: eve.ID, Role: "Review strings", ProjectID: priv}); err != nil {
		t.Fatal(err)
	}
	if g, _ := db.FindGrants(ctx, eve.ID); len(g) != 0 {
		t.Errorf("eve after the revocation: %+v", g)
	}
	// Every built-in role is a stored role, so that teams can hold it.
	roles, err := db.FindRoles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range index.BuiltinRoles {
		if !slices.ContainsFunc(roles, func(s index.StoredRole) bool {
			return s.Builtin && s.Name == r.Name && slices.Equal(s.Permissions, r.Permissions)
		}) {
			t.Errorf("built-in role %q is not stored: add it in a migration", r.Name)
		}
	}
}
