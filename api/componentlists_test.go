package api_test

import (
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// componentListShape is the reference's ComponentList object.
var componentListShape = servertest.Shape{
	"name": "string", "slug": "string", "id": "int", "show_dashboard": "bool", "components": "array",
	"auto_assign": "array", "url": "url",
}

// TestComponentListsAPI drives the lists' CRUD and components, checks that
// a private project's component stays out of an outsider's view, and
// that a team selecting its components through a list grants on them.
func TestComponentListsAPI(t *testing.T) {
	e := servertest.New(t, servertest.WithDemo(), servertest.WithUser("root", true),
		servertest.WithUser("anna", false))
	base, root, anna := e.Running.URL, e.Auth["root"], e.Auth["anna"]
	seedPrivate(t, e.DB, "secret")
	app, err := e.DB.FindComponent(t.Context(), "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	vault, err := e.DB.FindComponent(t.Context(), "secret", "vault")
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"name": "Release", "slug": "release"}
	wantResponse(t, "anonymous", servertest.DoJSON(t, "POST", base+"/api/component-lists/", "", body), 401, notSignedIn)
	wantResponse(t, "no permission", servertest.DoJSON(t, "POST", base+"/api/component-lists/", anna, body), 403,
		denied("Can not manage component lists"))
	wantResponse(t, "bad", servertest.DoJSON(t, "POST", base+"/api/component-lists/", root,
		map[string]any{"name": "", "slug": "a b", "show_dashboard": "maybe"}), 400, invalid(
		[3]string{"name", "blank", "This field may not be blank."},
		[3]string{"show_dashboard", "invalid", "Must be a valid boolean."},
		[3]string{"slug", "invalid", "Enter a valid “slug” consisting of letters, numbers, underscores or hyphens."}))
	l := wantStatus(t, "create", servertest.DoJSON(t, "POST", base+"/api/component-lists/", root, body), 201)
	servertest.CheckShape(t, "list", l, componentListShape)
	url := l["url"].(string)
	if url != base+"/api/component-lists/release/" || l["show_dashboard"] != true {
		t.Errorf("created = %v", l)
	}
	wantResponse(t, "taken", servertest.DoJSON(t, "POST", base+"/api/component-lists/", root, body), 400, invalid(
		[3]string{"name", "unique", "Component list with this Name already exists."},
		[3]string{"slug", "unique", "Component list with this URL slug already exists."}))
	wantStatus(t, "add app", servertest.DoJSON(t, "POST", url+"components/", root, map[string]any{"component_id": app.ID}), 200)
	got := wantStatus(t, "add vault", servertest.DoJSON(t, "POST", url+"components/", root, map[string]any{"component_id": vault.ID}), 200)
	if fmt.Sprint(got["components"]) != fmt.Sprintf("[%s/api/components/demo/app/ %s/api/components/secret/vault/]", base, base) {
		t.Errorf("components = %v", got["components"])
	}
	wantResponse(t, "unknown component", servertest.DoJSON(t, "POST", url+"components/", root, map[string]any{"component_id": 99999}), 400,
		invalid([3]string{"component_id", "invalid", "Component matching query does not exist."}))
	// Anna does not see the private project's component.
	seen := servertest.GetObjectAs(t, url, anna)
	if fmt.Sprint(seen["components"]) != fmt.Sprintf("[%s/api/components/demo/app/]", base) {
		t.Errorf("anna sees %v", seen["components"])
	}
	wantStatus(t, "patch", servertest.DoJSON(t, "PATCH", url, root, map[string]any{"show_dashboard": false}), 200)
	if servertest.GetObjectAs(t, url, root)["show_dashboard"] != false {
		t.Error("show_dashboard not saved")
	}

	// A team selecting through the list reaches its components only.
	team := wantStatus(t, "team", servertest.DoJSON(t, "POST", base+"/api/groups/", root, map[string]any{
		"name": "Release team", "project_selection": 2, "language_selection": 1}), 201)
	tURL := team["url"].(string)
	wantStatus(t, "role", servertest.DoJSON(t, "POST", tURL+"roles/", root, map[string]any{"role_id": roleID(t, base, root, "Administration")}), 200)
	wantStatus(t, "list", servertest.DoJSON(t, "POST", tURL+"componentlists/", root, map[string]any{"component_list_id": l["id"]}), 200)
	wantStatus(t, "join", servertest.DoJSON(t, "POST", base+"/api/users/anna/groups/", root, map[string]any{"group_id": team["id"]}), 200)
	unit := fmt.Sprintf("%s/api/units/%d/", base, demoUnitID(t, e.DB))
	wantStatus(t, "save through the list", servertest.DoJSON(t, "PATCH", unit, anna, map[string]any{"target": []string{"Sichern"}, "state": 20}), 200)
	// A component-narrowed grant is no project-level right, and the
	// private project's component makes its project visible to anna.
	wantResponse(t, "project edit", servertest.DoJSON(t, "PATCH", base+"/api/projects/demo/", anna, map[string]any{"instructions": "x"}), 403,
		denied("Can not edit project"))
	servertest.GetObjectAs(t, base+"/api/projects/secret/", anna)
	wantStatus(t, "remove app", servertest.DoJSON(t, "DELETE", url+"components/app/", root, nil), 204)
	wantResponse(t, "removed again", servertest.DoJSON(t, "DELETE", url+"components/app/", root, nil), 404, notFoundBody)
	wantResponse(t, "not in the list", servertest.DoJSON(t, "PATCH", unit, anna, map[string]any{"target": []string{"Sichern!"}}), 403,
		denied("Insufficient privileges for saving translations."))
	wantStatus(t, "delete", servertest.DoJSON(t, "DELETE", url, root, nil), 204)
	wantResponse(t, "gone", servertest.DoJSON(t, "GET", url, root, nil), 404, `{"type":"client_error","errors":[{"code":"not_found","detail":"No component list matches the given query.","attr":null}]}`)
	if lists, _, err := e.DB.FindComponentListPage(t.Context(), index.Page{Number: 1, Size: 10}); err != nil || len(lists) != 0 {
		t.Errorf("lists after delete = %v, %v", lists, err)
	}
}
