package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestReviewTransitions PATCHes one string from each old state to each
// new state, with reviews off and on, as a translator and as a reviewer,
// and checks the answer, the state stored and the change recorded: its
// action as the reference's generate_change picks it (reference workspace
// §4.4: 37 for needs editing, 36 for approving, 5 for a first
// translation, 2 otherwise) and details.state and details.old_state. The
// counts are recounted after every case.
func TestReviewTransitions(t *testing.T) {
	e := newWriteEnv(t)
	ctx := context.Background()
	id := e.unitID(t, "app", "de", "hello")
	url := fmt.Sprintf("%s/api/units/%d/", e.srv.URL, id)
	const (
		approvedOnly = "Only reviewers can change approved strings. Please add a suggestion if you think the string should be changed."
		noReview     = "Insufficient privileges for approving translations."
		reviewOff    = "Translation reviews are turned off."
	)
	states := []index.State{0, 10, 20, 30}
	asked := []int{0, 10, 11, 12, 20, 30, 100}
	n := 0
	for _, review := range []bool{false, true} {
		e.setProject(t, func(p *index.Project) { p.TranslationReview = review })
		for _, who := range []struct{ name, auth string }{{"translator", e.anna}, {"reviewer", e.rita}} {
			for _, old := range states {
				for _, next := range asked {
					n++
					name := fmt.Sprintf("review %v, %s, %d→%d", review, who.name, old, next)
					// The old state, set behind the rules.
					oldTarget := []string{fmt.Sprintf("Alt %d", n)}
					if old == index.StateEmpty {
						oldTarget = []string{""}
					}
					if _, err := e.db.UpdateUnit(ctx, id, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
						return index.UnitUpdate{Edit: &index.UnitEdit{Target: oldTarget, State: old}}, nil
					}); err != nil {
						t.Fatal(err)
					}
					target := []string{fmt.Sprintf("Neu %d", n)}
					if next == 0 {
						target = []string{""}
					}
					// What the reference answers, in its order of checks.
					status, attr, detail := 200, "", ""
					switch {
					case next == 11 || next == 12:
						status, attr, detail = 400, "state", "This state cannot be set manually."
					case next == 100:
						status, attr, detail = 400, "state", "Invalid state"
					case review && old == 30 && who.name == "translator":
						status, detail = 403, approvedOnly
					case next == 30 && !review:
						status, attr, detail = 400, "state", reviewOff
					case next == 30 && who.name == "translator":
						status, attr, detail = 400, "state", noReview
					}
					before := e.changes(t, index.ChangeFilter{UnitID: id})
					r := servertest.DoJSON(t, "PATCH", url, who.auth, map[string]any{"target": target, "state": next})
					want := ""
					switch {
					case status == 403:
						want = denied(detail)
					case status == 400:
						want = invalidField(attr, detail)
					}
					if r.Status != status || (want != "" && string(r.Body) != want) {
						t.Errorf("%s: %d %s, want %d %s", name, r.Status, r.Body, status, want)
						continue
					}
					indextest.CheckCounts(t, e.db)
					u, err := e.db.FindUnitByID(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					after := e.changes(t, index.ChangeFilter{UnitID: id})
					if status != 200 {
						if u.State != old || !slices.Equal(u.Target, oldTarget) || len(after) != len(before) {
							t.Errorf("%s: refused, yet the unit is %d %q with %d new changes", name, u.State, u.Target, len(after)-len(before))
						}
						continue
					}
					if u.State != index.State(next) || !slices.Equal(u.Target, target) {
						t.Errorf("%s: stored %d %q, want %d %q", name, u.State, u.Target, next, target)
					}
					var edit *index.Change
					for i := range after {
						if c := &after[i]; !slices.ContainsFunc(before, func(b index.Change) bool { return b.ID == c.ID }) &&
							c.Action != index.ActionNewContributor {
							if edit != nil {
								t.Errorf("%s: two changes, %d and %d", name, edit.Action, c.Action)
							}
							edit = c
						}
					}
					wantAction := index.ActionChange
					switch {
					case next == 10:
						wantAction = index.ActionMarkedEdit
					case next == 30:
						wantAction = index.ActionApprove
					case old == 0:
						wantAction = index.ActionNew
					}
					if old == 0 && next == 0 {
						// Nothing changed: nothing is recorded.
						if edit != nil {
							t.Errorf("%s: a no-op recorded %d", name, edit.Action)
						}
						continue
					}
					if edit == nil {
						t.Errorf("%s: no change recorded", name)
						continue
					}
					var details struct {
						State    *int `json:"state"`
						OldState *int `json:"old_state"`
					}
					if err := json.Unmarshal([]byte(edit.Details), &details); err != nil || details.State == nil || details.OldState == nil {
						t.Errorf("%s: details %s: %v", name, edit.Details, err)
						continue
					}
					if edit.Action != wantAction || *details.State != next || *details.OldState != int(old) {
						t.Errorf("%s: change %d %s, want %d with state %d, old_state %d", name, edit.Action, edit.Details,
							wantAction, next, old)
					}
				}
			}
		}
		checkStatsRecount(t, e.db)
	}
	if n != 2*2*len(states)*len(asked) {
		t.Fatalf("ran %d cases", n)
	}
}

// TestReviewSourceChange edits a template's source string with reviews
// on: the approved translation of it goes back to needing editing as
// "needs rewriting" (11), with the old source as its previous source and
// "Source string changed" (30) recording both states, so a source change
// always re-opens review; restoring the source reverts it.
func TestReviewSourceChange(t *testing.T) {
	e := newWriteEnv(t)
	ctx := context.Background()
	e.setProject(t, func(p *index.Project) { p.TranslationReview = true })
	e.setComponent(t, "app", func(c *index.Component) { c.EditTemplate = true })
	deID := e.unitID(t, "app", "de", "hello")
	if u, err := e.db.FindUnitByID(ctx, deID); err != nil || u.State != index.StateApproved {
		t.Fatalf("German hello: %+v %v, want approved", u, err)
	}
	template := e.unitURL(t, "app", "en", "hello")
	if r := servertest.DoJSON(t, "PATCH", template, e.root, map[string]any{"target": []string{"Hello there"}, "state": 20}); r.Status != 200 {
		t.Fatalf("template edit: %d %s", r.Status, r.Body)
	}
	u := servertest.GetObjectAs(t, fmt.Sprintf("%s/api/units/%d/", e.srv.URL, deID), e.root)
	if servertest.Num(u["state"]) != "11" || u["fuzzy"] != true || u["approved"] != false || u["translated"] != false ||
		u["previous_source"] != "Hello" {
		t.Errorf("approved translation after a source change: state %v fuzzy %v approved %v previous %q",
			u["state"], u["fuzzy"], u["approved"], u["previous_source"])
	}
	ch := e.changes(t, index.ChangeFilter{UnitID: deID, Actions: []index.Action{index.ActionSourceChange}})
	if len(ch) != 1 || ch[0].Details != `{"old":"Hello","state":11,"old_state":30}` || ch[0].Target != "Hello there" {
		t.Errorf("source change recorded: %+v", ch)
	}
	checkStatsRecount(t, e.db)

	// A translator may edit it now: it is no longer approved.
	de := fmt.Sprintf("%s/api/units/%d/", e.srv.URL, deID)
	if r := servertest.DoJSON(t, "PATCH", de, e.anna, map[string]any{"target": []string{"Hallo du"}, "state": 10}); r.Status != 200 {
		t.Errorf("translator on the re-opened string: %d %s", r.Status, r.Body)
	}
	// Restoring the source reverts a string that needs editing for it.
	if r := servertest.DoJSON(t, "PATCH", template, e.root, map[string]any{"target": []string{"Hello"}, "state": 20}); r.Status != 200 {
		t.Fatalf("template restored: %d %s", r.Status, r.Body)
	}
	u = servertest.GetObjectAs(t, de, e.root)
	if servertest.Num(u["state"]) != "20" || u["previous_source"] != "" {
		t.Errorf("after the source is restored: state %v previous %q, want 20 and none", u["state"], u["previous_source"])
	}
	checkStatsRecount(t, e.db)
}
