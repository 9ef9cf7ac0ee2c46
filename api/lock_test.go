package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestLock locks a component the ways wlc and scripts do, sees an edit
// refused, unlocks it and sees the edit go through, with the lock and
// unlock recorded once each.
func TestLock(t *testing.T) {
	e := newWriteEnv(t)
	lock := e.srv.URL + "/api/components/demo/app/lock/"
	bye := e.unitURL(t, "app", "de", "bye")
	edit := map[string]any{"target": []string{"Auf Wiedersehen"}, "state": 20}

	for _, tc := range []struct {
		name, auth string
		body       any
		status     int
		want       string
	}{
		{"anonymous", "", map[string]any{"lock": true}, 401, ""},
		{"translator", e.anna, map[string]any{"lock": true}, 403, denied("You do not have permission to perform this action.")},
		{"no lock", e.rob, map[string]any{}, 400, errJSON("validation_error", [3]string{"required", "This field is required.", "lock"})},
		{"not a boolean", e.rob, map[string]any{"lock": "maybe"}, 400, errJSON("validation_error", [3]string{"invalid", "Must be a valid boolean.", "lock"})},
		{"null", e.rob, map[string]any{"lock": nil}, 400, errJSON("validation_error", [3]string{"null", "This field may not be null.", "lock"})},
	} {
		if r := servertest.DoJSON(t, "POST", lock, tc.auth, tc.body); r.Status != tc.status || (tc.want != "" && string(r.Body) != tc.want) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Body, tc.status, tc.want)
		}
	}
	if got := servertest.GetObject(t, lock); got["locked"] != false {
		t.Fatalf("refused locks locked: %v", got)
	}

	// wlc lock: {"lock": true}, then again (nothing to record).
	for range 2 {
		if r := servertest.DoJSON(t, "POST", lock, e.rob, map[string]any{"lock": true}); r.Status != 200 || string(r.Body) != `{"locked":true}` {
			t.Fatalf("lock: %d %s", r.Status, r.Body)
		}
	}
	if got := servertest.GetObject(t, lock); got["locked"] != true {
		t.Errorf("GET lock after locking: %v", got)
	}
	if r := servertest.DoJSON(t, "PATCH", bye, e.anna, edit); r.Status != 403 || string(r.Body) != denied("This translation is currently locked.") {
		t.Errorf("edit while locked: %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "PATCH", bye, e.root, edit); r.Status != 403 {
		t.Errorf("superuser edit while locked: %d %s", r.Status, r.Body)
	}

	// Unlocking with the integer 0, form-encoded.
	r := servertest.DoBody(t, "POST", lock, http.Header{"Authorization": {e.rob},
		"Content-Type": {"application/x-www-form-urlencoded"}}, strings.NewReader("lock=0"))
	if r.Status != 200 || string(r.Body) != `{"locked":false}` {
		t.Fatalf("unlock: %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "PATCH", bye, e.anna, edit); r.Status != 200 {
		t.Errorf("edit after unlocking: %d %s", r.Status, r.Body)
	}

	comp, err := e.db.FindComponent(t.Context(), "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	var got []index.Action
	for _, ch := range e.changes(t, index.ChangeFilter{ComponentID: comp.ID, Actions: []index.Action{index.ActionLock, index.ActionUnlock}}) {
		if ch.UserName != "rob" || ch.AuthorName != "rob" || ch.Details != `{"auto":false}` {
			t.Errorf("lock change %+v", ch)
		}
		got = append(got, ch.Action)
	}
	if len(got) != 2 || got[0] != index.ActionLock || got[1] != index.ActionUnlock {
		t.Errorf("lock changes %v, want 14, 15", got)
	}
	// wlc reads the lock change through the changes list.
	list := servertest.Results(t, servertest.GetObject(t, e.srv.URL+"/api/components/demo/app/changes/?action=14"))
	found := false
	for _, ch := range list {
		if ch["action_name"] == "Component locked" && ch["user"] == e.srv.URL+"/api/users/rob/" {
			found = true
		}
	}
	if !found {
		t.Errorf("no lock change with its user in the component's changes: %v", list)
	}
}

// TestProjectLock locks every component of a project at once.
func TestProjectLock(t *testing.T) {
	e := newWriteEnv(t)
	lock := e.srv.URL + "/api/projects/demo/lock/"
	if got := servertest.GetObject(t, lock); got["locked"] != false {
		t.Fatalf("GET: %v", got)
	}
	if r := servertest.DoJSON(t, "POST", lock, e.rob, map[string]any{"lock": true}); r.Status != 403 {
		t.Errorf("repository manager (no project.edit): %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "POST", lock, e.adam, map[string]any{"lock": 1}); r.Status != 200 || string(r.Body) != `{"locked":true}` {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	for _, c := range []string{"app", "glossary"} {
		if got := servertest.GetObject(t, e.srv.URL+"/api/components/demo/"+c+"/lock/"); got["locked"] != true {
			t.Errorf("%s after locking the project: %v", c, got)
		}
	}
	if got := servertest.GetObject(t, lock); got["locked"] != true {
		t.Errorf("GET after locking: %v", got)
	}
	if r := servertest.Do(t, "OPTIONS", lock, nil); r.Header.Get("Allow") != "GET, POST, HEAD, OPTIONS" {
		t.Errorf("Allow = %q", r.Header.Get("Allow"))
	}
	if r := servertest.Do(t, "GET", e.srv.URL+"/api/projects/nope/lock/", nil); r.Status != 404 {
		t.Errorf("unknown project: %d", r.Status)
	}
}
