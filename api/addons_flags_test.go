package api_test

import (
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestSourceEditAddonThroughAPI: weblate.flags.source_edit installs,
// without configuration, on a component whose template strings can be
// edited, and is refused on one that does not edit them (the
// reference's compat, edit_template) with a 400 naming name, nothing
// installed.
func TestSourceEditAddonThroughAPI(t *testing.T) {
	e, admin, do := addonClient(t)
	const body = `{"name":"weblate.flags.source_edit","configuration":{}}`
	wantResponse(t, "edit_template off", do("PATCH", "/api/components/demo/app/", `{"edit_template":false}`), 200, "")
	r := do("POST", "/api/components/demo/app/addons/", body)
	wantResponse(t, "source_edit without edit_template", r, 400, "")
	if !strings.Contains(string(r.Body), `"attr":"name"`) || !strings.Contains(string(r.Body), "edit_template") {
		t.Errorf("refusal = %s, want a 400 on name naming edit_template", r.Body)
	}
	if n := servertest.Num(servertest.GetObjectAs(t, e.srv.URL+"/api/addons/", admin)["count"]); n != "0" {
		t.Fatalf("%s add-ons after the refusal, want none", n)
	}
	wantResponse(t, "edit_template on", do("PATCH", "/api/components/demo/app/", `{"edit_template":true}`), 200, "")
	r = do("POST", "/api/components/demo/app/addons/", body)
	wantResponse(t, "source_edit", r, 201, "")
	if got := servertest.Decode(t, r.Body); got["name"] != "weblate.flags.source_edit" || len(servertest.Obj(t, got["configuration"])) != 0 {
		t.Errorf("source_edit add-on = %v", got)
	}
}
