package api_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// The permission matrix's rows for teams, roles and component lists
// (api/groups.go, api/roles.go, api/componentlists.go), joined to
// matrixRows here so that the shared table only grows. The matrix's team
// is project demo's own, so that its administrator manages it as the
// reference's meta:team.edit lets; roles and component lists are the
// site's, managed with role.edit and componentlist.edit, which only the
// superusers hold among the matrix's principals.

const (
	groupRoute         = "/api/groups/:group/"
	roleRoute          = "/api/roles/:role/"
	componentListRoute = "/api/component-lists/:list/"
	deniedGroups       = "Can not manage groups"
	deniedRoles        = "Can not manage roles"
	deniedLists        = "Can not manage component lists"
)

// teamMatrixRows are the rows; each removal of a team's entry has an
// environment of its own, since the entry is gone after it.
var teamMatrixRows = []matrixRow{
	{method: "POST", route: "/api/roles/", status: 201, needs: []need{{index.PermRoleEdit, deniedRoles}},
		body: func(p matrixPrincipal) any {
			return map[string]any{"name": "Role of " + p.name, "permissions": []string{"comment.add"}}
		}},
	{method: "PUT", route: roleRoute, status: 200, needs: []need{{index.PermRoleEdit, deniedRoles}},
		body: jsonBody(map[string]any{"name": "Matrix role", "permissions": []string{"unit.edit"}})},
	{method: "PATCH", route: roleRoute, status: 200, needs: []need{{index.PermRoleEdit, deniedRoles}},
		body: jsonBody(map[string]any{"permissions": []string{"comment.add"}})},
	{method: "DELETE", route: roleRoute, status: 204, needs: []need{{index.PermRoleEdit, deniedRoles}},
		destructive: true, gone: "/api/roles/{role}/"},
	// A team of demo names its project in a field that offers only the
	// projects the caller may edit, as a category's does.
	{method: "POST", route: "/api/groups/", project: "demo", status: 201,
		needs:     []need{{index.PermProjectEdit, "Invalid hyperlink - Object does not exist."}},
		asField:   map[index.Permission]string{index.PermProjectEdit: "defining_project"},
		fieldCode: "does_not_exist", hiddenAsField: true,
		body: func(p matrixPrincipal) any {
			return map[string]any{"name": "Team of " + p.name, "defining_project": "/api/projects/demo/",
				"project_selection": 0, "language_selection": 1}
		},
		want: [2]string{"401 400 400 400 400 201 201 401", "401 400 400 400 400 201 201 401"}},
	{method: "PUT", route: groupRoute, project: "demo", status: 200, needs: []need{{index.PermProjectEdit, deniedGroups}},
		body: jsonBody(map[string]any{"name": "Matrix team", "project_selection": 0, "language_selection": 0})},
	{method: "PATCH", route: groupRoute, project: "demo", status: 200, needs: []need{{index.PermProjectEdit, deniedGroups}},
		body: jsonBody(map[string]any{"language_selection": 1}),
		want: [2]string{"401 403 403 403 403 200 200 401", "401 404 403 403 403 200 200 401"}},
	{method: "DELETE", route: groupRoute, project: "demo", status: 204, needs: []need{{index.PermProjectEdit, deniedGroups}},
		destructive: true, gone: "/api/groups/{group}/"},
	// Adding what a team lists already changes nothing, so each adds
	// the entry its removal row removes.
	{method: "POST", route: groupRoute + "roles/", project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, deniedGroups}}, body: jsonBody(map[string]any{"role_id": "{role}"})},
	{method: "POST", route: groupRoute + "languages/", project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, deniedGroups}}, body: jsonBody(map[string]any{"language_code": "de"})},
	{method: "POST", route: groupRoute + "projects/", project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, deniedGroups}}, body: jsonBody(map[string]any{"project_id": "{demo}"})},
	{method: "POST", route: groupRoute + "componentlists/", project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, deniedGroups}}, body: jsonBody(map[string]any{"component_list_id": "{list}"})},
	{method: "POST", route: groupRoute + "components/", project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, deniedGroups}}, body: jsonBody(map[string]any{"component_id": "{app}"})},
	{method: "POST", route: groupRoute + "admins/", project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, deniedGroups}}, body: jsonBody(map[string]any{"user_id": "{victim}"})},
	{method: "DELETE", route: groupRoute + "roles/:target/", params: map[string]string{"target": "{role}"}, project: "demo",
		status: 204, needs: []need{{index.PermProjectEdit, deniedGroups}}, destructive: true},
	{method: "DELETE", route: groupRoute + "languages/:target/", params: map[string]string{"target": "de"}, project: "demo",
		status: 204, needs: []need{{index.PermProjectEdit, deniedGroups}}, destructive: true},
	{method: "DELETE", route: groupRoute + "projects/:target/", params: map[string]string{"target": "{demo}"}, project: "demo",
		status: 204, needs: []need{{index.PermProjectEdit, deniedGroups}}, destructive: true},
	{method: "DELETE", route: groupRoute + "componentlists/:target/", params: map[string]string{"target": "{list}"},
		project: "demo", status: 204, needs: []need{{index.PermProjectEdit, deniedGroups}}, destructive: true},
	{method: "DELETE", route: groupRoute + "components/:target/", params: map[string]string{"target": "{app}"},
		project: "demo", status: 204, needs: []need{{index.PermProjectEdit, deniedGroups}}, destructive: true},
	{method: "DELETE", route: groupRoute + "admins/:target/", params: map[string]string{"target": "{victim}"},
		project: "demo", status: 204, needs: []need{{index.PermProjectEdit, deniedGroups}}, destructive: true},
	// A team's members: user.edit, or managing the team (the superusers
	// hold both), idempotent both ways.
	{method: "POST", route: userRoute + "groups/", project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, "Can not manage users"}}, body: jsonBody(map[string]any{"group_id": "{group}"})},
	{method: "DELETE", route: userRoute + "groups/", project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, "Can not manage users"}}, body: jsonBody(map[string]any{"group_id": "{group}"})},
	{method: "POST", route: "/api/component-lists/", status: 201, needs: []need{{index.PermComponentListEdit, deniedLists}},
		body: func(p matrixPrincipal) any {
			return map[string]any{"name": "List of " + p.name, "slug": "list-" + p.user}
		}},
	{method: "PUT", route: componentListRoute, status: 200, needs: []need{{index.PermComponentListEdit, deniedLists}},
		body: jsonBody(map[string]any{"name": "Matrix", "slug": "matrix", "show_dashboard": true})},
	{method: "PATCH", route: componentListRoute, status: 200, needs: []need{{index.PermComponentListEdit, deniedLists}},
		body: jsonBody(map[string]any{"show_dashboard": false})},
	{method: "DELETE", route: componentListRoute, status: 204, needs: []need{{index.PermComponentListEdit, deniedLists}},
		destructive: true, gone: "/api/component-lists/matrix/"},
	{method: "POST", route: componentListRoute + "components/", status: 200,
		needs: []need{{index.PermComponentListEdit, deniedLists}}, body: jsonBody(map[string]any{"component_id": "{app}"})},
	{method: "DELETE", route: componentListRoute + "components/:component_slug/", params: map[string]string{"component_slug": "app"},
		status: 204, needs: []need{{index.PermComponentListEdit, deniedLists}}, destructive: true},
}

func init() {
	matrixRows = append(matrixRows, teamMatrixRows...)
	matrixParams["group"], matrixParams["role"], matrixParams["list"] = "{group}", "{role}", "matrix"
	matrixPrincipals = append(matrixPrincipals, teamPrincipals...)
}

// teamPrincipals are members of teams the matrix's environment makes,
// with project and language selections: a team of every public project
// in every language holding Administration, and one of demo for French
// only holding Administration too, which no route the matrix sends
// meets (the routes act on demo's German or English, its components or
// the project as a whole) but which lets its members see demo.
var teamPrincipals = []matrixPrincipal{
	{name: "public projects team", user: "pia", team: "public", lang: "bg"},
	{name: "french team of demo", user: "fran", team: "french", lang: "et"},
}

// teamHas is the model of teamPrincipals' rights: Administration's
// project permissions in any project for the public team (demo's
// privacy is the model's visibility check, which comes first), nothing
// the matrix asks for the French team.
func teamHas(p matrixPrincipal, perm index.Permission, project string) bool {
	admin, _ := index.FindRole("Administration")
	return p.team == "public" && project != "" && !perm.IsGlobal() && admin.Has(perm)
}

// teamSees reports whether a team principal sees a private project: the
// French team's members see demo, whose team it is.
func teamSees(p matrixPrincipal, project string) bool { return p.team == "french" && project == "demo" }

// seedTeamMatrix makes the matrix environment's team (demo's own,
// listing a role, German, demo, app, a component list and victim as
// admin), its custom role, its component list, and the teams of
// teamPrincipals; it returns the placeholders they fill.
func seedTeamMatrix(tb testing.TB, e *matrixEnv, demo index.Project) []string {
	tb.Helper()
	ctx := context.Background()
	db := e.db
	role, err := db.CreateRole(ctx, index.Role{Name: "Matrix role", Permissions: []index.Permission{index.PermCommentAdd}})
	if err != nil {
		tb.Fatal(err)
	}
	list, err := db.CreateComponentList(ctx, index.ComponentList{Name: "Matrix", Slug: "matrix", ShowDashboard: true})
	if err != nil {
		tb.Fatal(err)
	}
	app, err := db.FindComponent(ctx, "demo", "app")
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.LinkComponentList(ctx, list.ID, app.ID, true); err != nil {
		tb.Fatal(err)
	}
	victim, err := db.FindUser(ctx, "victim")
	if err != nil {
		tb.Fatal(err)
	}
	de, err := db.FindLanguageID(ctx, "de")
	if err != nil {
		tb.Fatal(err)
	}
	team := mustTeam(tb, e, index.Team{Name: "Matrix team", ProjectID: demo.ID, LanguageSelection: index.SelectAll},
		map[index.TeamLink]int64{index.TeamRoles: role.ID, index.TeamLanguages: de, index.TeamProjects: demo.ID,
			index.TeamComponentLists: list.ID, index.TeamComponents: app.ID, index.TeamAdmins: victim.ID})

	admin := roleNamed(tb, e, "Administration")
	fr, err := db.FindLanguageID(ctx, "fr")
	if err != nil {
		tb.Fatal(err)
	}
	public := mustTeam(tb, e, index.Team{Name: "Public", ProjectSelection: index.SelectAllPublic, LanguageSelection: index.SelectAll},
		map[index.TeamLink]int64{index.TeamRoles: admin})
	french := mustTeam(tb, e, index.Team{Name: "French", ProjectID: demo.ID},
		map[index.TeamLink]int64{index.TeamRoles: admin, index.TeamLanguages: fr})
	for _, p := range teamPrincipals {
		u, err := db.FindUser(ctx, p.user)
		if err != nil {
			tb.Fatal(err)
		}
		t := map[string]int64{"public": public, "french": french}[p.team]
		if err := db.LinkTeam(ctx, t, index.TeamMembers, u.ID, true, ""); err != nil {
			tb.Fatal(err)
		}
	}
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	return []string{"{group}", id(team), "{role}", id(role.ID), "{list}", id(list.ID), "{demo}", id(demo.ID),
		"{app}", id(app.ID), "{victim}", id(victim.ID)}
}

// mustTeam creates a team listing the given entries and returns its id.
func mustTeam(tb testing.TB, e *matrixEnv, t index.Team, links map[index.TeamLink]int64) int64 {
	tb.Helper()
	ctx := context.Background()
	t, err := e.db.CreateTeam(ctx, t)
	if err != nil {
		tb.Fatal(err)
	}
	for link, target := range links {
		if err := e.db.LinkTeam(ctx, t.ID, link, target, true, ""); err != nil {
			tb.Fatal(err)
		}
	}
	return t.ID
}

// roleNamed returns the id of the stored role with the given name.
func roleNamed(tb testing.TB, e *matrixEnv, name string) int64 {
	tb.Helper()
	roles, err := e.db.FindRoles(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range roles {
		if r.Name == name {
			return r.ID
		}
	}
	tb.Fatalf("no role %q", name)
	return 0
}

// privateTeamPath is the API path of the project's built-in Translate
// team (its members see the project; the private-object test's member
// is one).
func privateTeamPath(tb testing.TB, db *sqlstore.DB, project string) string {
	tb.Helper()
	teams, _, err := db.FindTeamPage(context.Background(), index.TeamFilter{Everything: true}, index.Page{Number: 1, Size: 1000})
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range teams {
		if t.Project == project && t.Name == "Translate" {
			return "/api/groups/" + strconv.FormatInt(t.ID, 10) + "/"
		}
	}
	tb.Fatalf("no Translate team of %s", project)
	return ""
}
