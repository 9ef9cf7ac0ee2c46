package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestSourceReview: with the project's source_review on, a template's
// source strings take review states through PATCH (the reference's
// source-string review of monolingual components): approved by who may
// review and edit them, unapproved, and marked needing checking by a
// translator's "report" comment; with it off they keep their state and
// approving is the reference's 400.
func TestSourceReview(t *testing.T) {
	e := newWriteEnv(t)
	ctx := context.Background()
	id := e.unitID(t, "app", "en", "hello")
	url := fmt.Sprintf("%s/api/units/%d/", e.srv.URL, id)
	u, err := e.db.FindUnitByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	e.setComponent(t, "app", func(c *index.Component) { c.EditTemplate = true })
	patch := func(auth string, state int) servertest.Response {
		return servertest.DoJSON(t, "PATCH", url, auth, map[string]any{"target": u.Target, "state": state})
	}
	stored := func() index.State {
		x, err := e.db.FindUnitByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return x.State
	}
	before := stored()
	if r := patch(e.adam, 30); r.Status != 400 || !strings.Contains(string(r.Body), "Source-string reviews are turned off.") {
		t.Errorf("approve with source review off = %d %s", r.Status, r.Body)
	}
	if r := patch(e.adam, 20); r.Status != 200 || stored() != before {
		t.Errorf("source review off: state %d after %d %s, want it kept at %d", stored(), r.Status, r.Body, before)
	}

	e.setProject(t, func(p *index.Project) { p.SourceReview = true })
	if r := patch(e.adam, 30); r.Status != 200 || stored() != index.StateApproved {
		t.Fatalf("approve = %d %s, stored %d", r.Status, r.Body, stored())
	}
	if got := servertest.GetObjectAs(t, url, e.adam); got["approved"] != true {
		t.Errorf("GET after approving: approved %v", got["approved"])
	}
	indextest.CheckCounts(t, e.db)
	// Managing strings without reviewing them: the approved string is
	// the reviewers' (403), and approving is a 400 on state.
	if r := patch(e.sam, 20); r.Status != 403 {
		t.Errorf("sam editing an approved source string = %d %s", r.Status, r.Body)
	}
	if r := patch(e.adam, 20); r.Status != 200 || stored() != index.StateTranslated {
		t.Errorf("unapprove = %d %s, stored %d", r.Status, r.Body, stored())
	}
	if r := patch(e.sam, 30); r.Status != 400 || !strings.Contains(string(r.Body), `"attr":"state"`) || stored() != index.StateTranslated {
		t.Errorf("approve by sam = %d %s", r.Status, r.Body)
	}
	// A translator's report marks the source string as needing checking.
	de := fmt.Sprintf("%s/api/units/%d/comments/", e.srv.URL, e.unitID(t, "app", "de", "hello"))
	if r := servertest.DoJSON(t, "POST", de, e.anna, map[string]any{"scope": "report", "comment": "Typo in the source"}); r.Status != 201 {
		t.Fatalf("report = %d %s", r.Status, r.Body)
	}
	if st := stored(); !st.Fuzzy() {
		t.Errorf("reported source string is %d, want needing editing", st)
	}
	indextest.CheckCounts(t, e.db)
}
