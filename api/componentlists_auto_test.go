package api_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestComponentListAutoAssign: a list's auto_assign rules (the
// reference's AutoComponentList, written through the API in Tolk) add
// the components they match when written, when a component is created
// and when one is renamed; rules only add; bad rules are 400s on
// auto_assign with nothing created; only who may manage lists writes them.
func TestComponentListAutoAssign(t *testing.T) {
	e := servertest.New(t, servertest.WithDemo(), servertest.WithUser("root", true),
		servertest.WithUser("anna", false))
	base, root, anna := e.Running.URL, e.Auth["root"], e.Auth["anna"]
	ctx := t.Context()
	comps := func(l map[string]any) []string {
		var out []string
		servertest.Strs(l["components"], &out)
		return out
	}
	compURL := func(slug string) string { return base + "/api/components/demo/" + slug + "/" }

	l := wantStatus(t, "create", servertest.DoJSON(t, "POST", base+"/api/component-lists/", root, map[string]any{
		"name": "Glossaries", "slug": "glossaries",
		"auto_assign": []any{map[string]any{"project_match": "^demo$", "component_match": "gl"}}}), 201)
	servertest.CheckShape(t, "created list", l, componentListShape)
	if got := comps(l); !slices.Equal(got, []string{compURL("glossary")}) {
		t.Errorf("components on create = %v", got)
	}
	if fmt.Sprint(l["auto_assign"]) != "[map[component_match:gl project_match:^demo$]]" {
		t.Errorf("auto_assign = %v", l["auto_assign"])
	}
	url := l["url"].(string)

	// A new component that matches joins; one that does not, until a
	// rename makes it match.
	demo, err := e.DB.FindProject(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	newComp := func(slug string) index.Component {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Repo = demo.ID, strings.ToUpper(slug), slug, "file:///nonexistent/"+slug+".git"
		c.Filemask, c.Template = "locales/*.json", "locales/en.json"
		return servertest.MustComponent(t, e.DB, c)
	}
	newComp("glow")
	other := newComp("other")
	if got := comps(servertest.GetObjectAs(t, url, root)); !slices.Equal(got, []string{compURL("glossary"), compURL("glow")}) {
		t.Errorf("components after creations = %v", got)
	}
	if _, _, err := e.DB.UpdateComponent(ctx, other.ID, func(c *index.Component) error { c.Slug = "glossy"; return nil }); err != nil {
		t.Fatal(err)
	}
	if got := comps(servertest.GetObjectAs(t, url, root)); !slices.Contains(got, compURL("glossy")) {
		t.Errorf("components after the rename = %v", got)
	}

	// A new rule adds what it matches; what the old one added stays.
	l = wantStatus(t, "patch", servertest.DoJSON(t, "PATCH", url, root, map[string]any{
		"auto_assign": []any{map[string]any{"project_match": "demo", "component_match": "^app$"}}}), 200)
	if got := comps(l); len(got) != 4 || !slices.Contains(got, compURL("app")) || !slices.Contains(got, compURL("glow")) {
		t.Errorf("components after the new rule = %v", got)
	}
	// A write without auto_assign keeps the rules.
	l = wantStatus(t, "patch name", servertest.DoJSON(t, "PATCH", url, root, map[string]any{"name": "Mixed"}), 200)
	if fmt.Sprint(l["auto_assign"]) != "[map[component_match:^app$ project_match:demo]]" {
		t.Errorf("auto_assign after a PATCH without it = %v", l["auto_assign"])
	}

	long := strings.Repeat("a", index.AutoAssignRegexLength+1)
	many := make([]any, index.MaxAutoAssignRules+1)
	for i := range many {
		many[i] = map[string]any{}
	}
	for _, tc := range []struct {
		name   string
		value  any
		detail string
	}{
		{"not a list", "x", `Expected a list of items but got type \"str\".`},
		{"not an object", []any{7}, "Item 0: expected a dictionary, but got int."},
		{"bad regex", []any{map[string]any{"project_match": "("}}, "Item 0: project_match: invalid regular expression: error parsing regexp: missing closing ): `^(?:()`"},
		{"not a string", []any{map[string]any{"component_match": 5}}, "Item 0: component_match: not a valid string."},
		{"too long", []any{map[string]any{"component_match": long}}, "Item 0: component_match: ensure this field has no more than 200 characters and no NUL."},
		{"too many", many, "Ensure this field has no more than 20 elements."},
	} {
		r := servertest.DoJSON(t, "POST", base+"/api/component-lists/", root, map[string]any{
			"name": "Bad " + tc.name, "slug": "bad", "auto_assign": tc.value})
		if r.Status != 400 || !strings.Contains(string(r.Body), `"attr":"auto_assign"`) || !strings.Contains(string(r.Body), tc.detail) {
			t.Errorf("%s = %d %s, want 400 on auto_assign: %s", tc.name, r.Status, r.Body, tc.detail)
		}
	}
	wantResponse(t, "nothing half-created", servertest.DoJSON(t, "GET", base+"/api/component-lists/bad/", root, nil), 404, "")
	wantResponse(t, "anna", servertest.DoJSON(t, "PATCH", url, anna, map[string]any{
		"auto_assign": []any{map[string]any{"project_match": ".*", "component_match": ".*"}}}), 403, "")
}
