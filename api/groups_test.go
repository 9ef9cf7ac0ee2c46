package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// groupShape is the reference's Group object, less what Tolk lacks.
var groupShape = servertest.Shape{
	"id": "int", "name": "string", "defining_project": "url|null", "project_selection": "int",
	"language_selection": "int", "url": "url", "roles": "array", "languages": "array", "projects": "array",
	"componentlists": "array", "components": "array", "admins": "array",
}

// roleShape is the reference's Role object.
var roleShape = servertest.Shape{"id": "int", "name": "string", "permissions": "array", "url": "url"}

// roleID returns the id of the role named name, as root lists them.
func roleID(tb testing.TB, base, root, name string) int {
	tb.Helper()
	r := servertest.DoJSON(tb, "GET", base+"/api/roles/?page_size=100", root, nil)
	for _, x := range servertest.Decode(tb, r.Body)["results"].([]any) {
		if m := x.(map[string]any); m["name"] == name {
			return int(num(m["id"]))
		}
	}
	tb.Fatalf("no role %q in %s", name, r.Body)
	return 0
}

// want2xx fails unless r has the status.
func wantStatus(tb testing.TB, what string, r servertest.Response, status int) map[string]any {
	tb.Helper()
	if r.Status != status {
		tb.Fatalf("%s = %d %s, want %d", what, r.Status, r.Body, status)
	}
	if len(r.Body) == 0 {
		return nil
	}
	return servertest.Decode(tb, r.Body)
}

func TestRolesAPI(t *testing.T) {
	e := servertest.New(t, servertest.WithDemo(), servertest.WithUser("root", true),
		servertest.WithUser("anna", false, [2]string{"Translate", "demo"}))
	base, root, anna := e.Running.URL, e.Auth["root"], e.Auth["anna"]

	// Root sees every built-in role with its permissions; anna only the
	// roles her teams give her; anonymous callers none.
	list := wantStatus(t, "roles as root", servertest.DoJSON(t, "GET", base+"/api/roles/?page_size=100", root, nil), 200)
	if int(num(list["count"])) != len(index.BuiltinRoles) {
		t.Errorf("root's roles = %v", list)
	}
	for _, x := range list["results"].([]any) {
		servertest.CheckShape(t, "role", x.(map[string]any), roleShape)
	}
	translate := servertest.GetObjectAs(t, fmt.Sprintf("%s/api/roles/%d/", base, roleID(t, base, root, "Translate")), root)
	if !slices.Contains(translate["permissions"].([]any), any("unit.edit")) {
		t.Errorf("Translate = %v", translate)
	}
	mine := wantStatus(t, "roles as anna", servertest.DoJSON(t, "GET", base+"/api/roles/", anna, nil), 200)
	if num(mine["count"]) != 1 || mine["results"].([]any)[0].(map[string]any)["name"] != "Translate" {
		t.Errorf("anna's roles = %v", mine)
	}
	if anon := wantStatus(t, "roles anonymous", servertest.DoJSON(t, "GET", base+"/api/roles/", "", nil), 200); num(anon["count"]) != 0 {
		t.Errorf("anonymous roles = %v", anon)
	}

	body := map[string]any{"name": "Commenter", "permissions": []string{"comment.add"}}
	wantResponse(t, "anonymous", servertest.DoJSON(t, "POST", base+"/api/roles/", "", body), 401, notSignedIn)
	wantResponse(t, "translator", servertest.DoJSON(t, "POST", base+"/api/roles/", anna, body), 403, denied("Can not manage roles"))
	wantResponse(t, "unknown permission", servertest.DoJSON(t, "POST", base+"/api/roles/", root,
		map[string]any{"name": "X", "permissions": []string{"unit.fly"}}), 400,
		invalid([3]string{"permissions", "does_not_exist", "Permission with this codename was not found."}))
	wantResponse(t, "no name", servertest.DoJSON(t, "POST", base+"/api/roles/", root, map[string]any{}), 400,
		invalid(required("name")))
	created := wantStatus(t, "create", servertest.DoJSON(t, "POST", base+"/api/roles/", root, body), 201)
	servertest.CheckShape(t, "created role", created, roleShape)
	url := created["url"].(string)
	wantResponse(t, "taken", servertest.DoJSON(t, "POST", base+"/api/roles/", root, body), 400,
		invalid([3]string{"name", "unique", "Role with this Name already exists."}))

	// PATCH adds, PUT replaces (the reference's RoleSerializer.update).
	got := wantStatus(t, "patch", servertest.DoJSON(t, "PATCH", url, root, map[string]any{"permissions": []string{"suggestion.add"}}), 200)
	if fmt.Sprint(got["permissions"]) != "[comment.add suggestion.add]" {
		t.Errorf("after PATCH: %v", got["permissions"])
	}
	got = wantStatus(t, "put", servertest.DoJSON(t, "PUT", url, root, map[string]any{"name": "Editor", "permissions": []string{"unit.edit"}}), 200)
	if got["name"] != "Editor" || fmt.Sprint(got["permissions"]) != "[unit.edit]" {
		t.Errorf("after PUT: %v", got)
	}
	builtin := fmt.Sprintf("%s/api/roles/%d/", base, roleID(t, base, root, "Translate"))
	wantResponse(t, "built-in", servertest.DoJSON(t, "PATCH", builtin, root, map[string]any{"permissions": []string{"project.edit"}}), 400,
		`{"type":"validation_error","errors":[{"code":"invalid","detail":"Built-in roles can not be changed.","attr":null}]}`)
	wantResponse(t, "delete by translator", servertest.DoJSON(t, "DELETE", url, anna, nil), 403, denied("Can not manage roles"))
	wantStatus(t, "delete", servertest.DoJSON(t, "DELETE", url, root, nil), 204)
	wantResponse(t, "gone", servertest.DoJSON(t, "GET", url, root, nil), 404, notFoundBody)
}

func TestGroupsGrantWithSelections(t *testing.T) {
	e := servertest.New(t, servertest.WithDemo(), servertest.WithAllLanguages(), servertest.WithUser("root", true),
		servertest.WithUser("anna", false), servertest.WithUser("bea", false),
		servertest.WithUser("olga", false, [2]string{"Administration", "demo"}))
	base, root, anna, bea, olga := e.Running.URL, e.Auth["root"], e.Auth["anna"], e.Auth["bea"], e.Auth["olga"]
	other := servertest.MustProject(t, e.DB, index.Project{Name: "Other", Slug: "other"})
	demo, err := e.DB.FindProject(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	unit := fmt.Sprintf("%s/api/units/%d/", base, demoUnitID(t, e.DB))
	patch := func(auth string) servertest.Response {
		return servertest.DoJSON(t, "PATCH", unit, auth, map[string]any{"target": []string{"Speichern!"}, "state": 20})
	}
	translate := roleID(t, base, root, "Translate")

	// A team of Czech translators of demo: anna in it cannot save German.
	wantResponse(t, "no team", patch(anna), 403, denied("Insufficient privileges for saving translations."))
	g := wantStatus(t, "create team", servertest.DoJSON(t, "POST", base+"/api/groups/", root, map[string]any{
		"name": "Translators", "project_selection": 0, "language_selection": 0}), 201)
	servertest.CheckShape(t, "group", g, groupShape)
	gURL := g["url"].(string)
	gid := int(num(g["id"]))
	wantStatus(t, "add role", servertest.DoJSON(t, "POST", gURL+"roles/", root, map[string]any{"role_id": translate}), 200)
	wantStatus(t, "add project", servertest.DoJSON(t, "POST", gURL+"projects/", root, map[string]any{"project_id": demo.ID}), 200)
	wantStatus(t, "add cs", servertest.DoJSON(t, "POST", gURL+"languages/", root, map[string]any{"language_code": "cs"}), 200)
	user := wantStatus(t, "join", servertest.DoJSON(t, "POST", base+"/api/users/anna/groups/", root, map[string]any{"group_id": gid}), 200)
	if fmt.Sprint(user["groups"]) != "["+gURL+"]" {
		t.Errorf("anna's groups = %v", user["groups"])
	}
	wantResponse(t, "czech team, german string", patch(anna), 403, denied("Insufficient privileges for saving translations."))
	// The same team with German: she saves.
	got := wantStatus(t, "add de", servertest.DoJSON(t, "POST", gURL+"languages/", root, map[string]any{"language_code": "de"}), 200)
	if fmt.Sprint(got["languages"]) != fmt.Sprintf("[%s/api/languages/cs/ %s/api/languages/de/]", base, base) ||
		fmt.Sprint(got["projects"]) != "["+base+"/api/projects/demo/]" {
		t.Errorf("team = %v", got)
	}
	wantStatus(t, "german team, german string", patch(anna), 200)
	// A language-narrowed grant never meets a whole-project check.
	wantResponse(t, "project lock", servertest.DoJSON(t, "POST", base+"/api/projects/demo/lock/", anna,
		map[string]any{"lock": false}), 403, denied(deniedDefault))
	// Every language: the team now selects all of them.
	wantStatus(t, "remove de", servertest.DoJSON(t, "DELETE", gURL+"languages/de/", root, nil), 204)
	wantResponse(t, "de removed", patch(anna), 403, denied("Insufficient privileges for saving translations."))
	wantStatus(t, "all languages", servertest.DoJSON(t, "PATCH", gURL, root, map[string]any{"language_selection": 1}), 200)
	wantStatus(t, "all languages", patch(anna), 200)
	// Without the project the team grants nothing.
	wantStatus(t, "remove project", servertest.DoJSON(t, "DELETE", fmt.Sprintf("%sprojects/%d/", gURL, demo.ID), root, nil), 204)
	wantResponse(t, "no project", patch(anna), 403, denied("Insufficient privileges for saving translations."))
	wantResponse(t, "remove again", servertest.DoJSON(t, "DELETE", fmt.Sprintf("%sprojects/%d/", gURL, demo.ID), root, nil), 404, notFoundBody)

	// All public projects: bea translates demo while it is public, and
	// neither sees nor saves it once private.
	pub := wantStatus(t, "public team", servertest.DoJSON(t, "POST", base+"/api/groups/", root, map[string]any{
		"name": "Public translators", "project_selection": 3, "language_selection": 1}), 201)
	wantStatus(t, "add role", servertest.DoJSON(t, "POST", pub["url"].(string)+"roles/", root, map[string]any{"role_id": translate}), 200)
	wantStatus(t, "join", servertest.DoJSON(t, "POST", base+"/api/users/bea/groups/", root, map[string]any{"group_id": pub["id"]}), 200)
	wantStatus(t, "public project", patch(bea), 200)
	wantStatus(t, "make private", servertest.DoJSON(t, "PATCH", base+"/api/projects/demo/", root, map[string]any{"access_control": 100}), 200)
	wantResponse(t, "private project", patch(bea), 404, notFoundBody)
	wantStatus(t, "all protected", servertest.DoJSON(t, "PATCH", pub["url"].(string), root, map[string]any{"project_selection": 1}), 200)
	wantStatus(t, "all projects", patch(bea), 404) // a site-wide role does not open a private project, as before teams

	// A project's administrator manages its own teams only, and they
	// grant in that project only.
	wantResponse(t, "team of no project", servertest.DoJSON(t, "POST", base+"/api/groups/", olga, map[string]any{"name": "Mine"}), 403,
		denied("Can not manage groups"))
	own := wantStatus(t, "project team", servertest.DoJSON(t, "POST", base+"/api/groups/", olga, map[string]any{
		"name": "Demo reviewers", "defining_project": base + "/api/projects/demo/", "project_selection": 1, "language_selection": 1}), 201)
	if own["defining_project"] != base+"/api/projects/demo/" {
		t.Errorf("project team = %v", own)
	}
	wantResponse(t, "another project", servertest.DoJSON(t, "POST", own["url"].(string)+"projects/", olga,
		map[string]any{"project_id": other.ID}), 400,
		invalid([3]string{"project_id", "invalid", "A project's own team can only list that project and its components."}))
	wantResponse(t, "site team", servertest.DoJSON(t, "PATCH", gURL, olga, map[string]any{"name": "x"}), 403,
		denied("Can not manage groups"))
	wantResponse(t, "missing role_id", servertest.DoJSON(t, "POST", own["url"].(string)+"roles/", olga, map[string]any{}), 400,
		invalid([3]string{"role_id", "required", "Missing role_id parameter"}))
	wantResponse(t, "unknown role", servertest.DoJSON(t, "POST", own["url"].(string)+"roles/", olga, map[string]any{"role_id": 99999}), 400,
		invalid([3]string{"role_id", "invalid", "Role matching query does not exist."}))
	wantResponse(t, "unknown language", servertest.DoJSON(t, "POST", own["url"].(string)+"languages/", olga,
		map[string]any{"language_code": "xx-nope"}), 400, invalid([3]string{"language_code", "invalid", "Language matching query does not exist."}))

	// Removing the team takes what it granted; built-in teams stay.
	wantStatus(t, "rejoin", servertest.DoJSON(t, "POST", gURL+"projects/", root, map[string]any{"project_id": demo.ID}), 200)
	wantStatus(t, "make public", servertest.DoJSON(t, "PATCH", base+"/api/projects/demo/", root, map[string]any{"access_control": 0}), 200)
	wantStatus(t, "back in the team", patch(anna), 200)
	wantStatus(t, "delete team", servertest.DoJSON(t, "DELETE", gURL, root, nil), 204)
	wantResponse(t, "team gone", patch(anna), 403, denied("Insufficient privileges for saving translations."))
	teams := wantStatus(t, "teams", servertest.DoJSON(t, "GET", base+"/api/groups/?page_size=100", olga, nil), 200)
	var builtinURL string
	for _, x := range teams["results"].([]any) {
		if m := x.(map[string]any); m["name"] == "Administration" {
			builtinURL = m["url"].(string)
		}
	}
	if builtinURL == "" || num(teams["count"]) != 2 {
		t.Fatalf("olga's teams = %v", teams)
	}
	wantResponse(t, "built-in team", servertest.DoJSON(t, "DELETE", builtinURL, olga, nil), 400,
		`{"type":"validation_error","errors":[{"code":"invalid","detail":"`+msgBuiltinTeam+`","attr":null}]}`)
	if r := servertest.DoJSON(t, "GET", base+"/api/groups/", "", nil); r.Status != http.StatusOK ||
		num(servertest.Decode(t, r.Body)["count"]) != 0 {
		t.Errorf("anonymous teams = %d %s", r.Status, r.Body)
	}
}

// msgBuiltinTeam is api's refusal of a change to a built-in team.
const msgBuiltinTeam = "Built-in teams can not be renamed, reconfigured or removed; make a team of your own."

// num reads a decoded JSON number.
func num(v any) float64 {
	f, _ := v.(json.Number).Float64()
	return f
}
