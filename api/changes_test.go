package api_test

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlite"
)

var changeShape = shape{
	"unit": "url|null", "component": "url", "translation": "url", "user": "url|null",
	"author": "url|null", "timestamp": "timestamp", "action": "int", "target": "string", "id": "int",
	"action_name": "string", "url": "url",
}

func TestChanges(t *testing.T) {
	srv, _ := demoServer(t)
	base := srv.URL
	list := getObject(t, base+"/api/translations/demo/app/de/changes/")
	checkShape(t, "changes list", list, listShape)
	checkValues(t, "changes list", list, map[string]any{"count": "3", "next": nil, "previous": nil})
	changes := results(t, list)
	if len(changes) != 3 {
		t.Fatalf("got %d changes, want 3", len(changes))
	}
	// First import: one unit-less update. Re-import: the changed string
	// (59, with its unit and new text), then the update.
	want := []struct {
		action, name, target string
		unit                 bool
		timestamp            string
	}{
		{"0", "Resource update", "", false, "2026-11-23T01:02:07.123456Z"},
		{"59", "String updated in the repository", "Datei öffnen…", true, "2026-11-23T01:02:08.123456Z"},
		{"0", "Resource update", "", false, "2026-11-23T01:02:08.123456Z"},
	}
	units := results(t, getObject(t, base+"/api/translations/demo/app/de/units/"))
	for i, ch := range changes {
		w := want[i]
		checkShape(t, "change", ch, changeShape)
		id := num(ch["id"])
		checkValues(t, "change "+id, ch, map[string]any{
			"action": w.action, "action_name": w.name, "target": w.target, "timestamp": w.timestamp,
			"component":   base + "/api/components/demo/app/",
			"translation": base + "/api/translations/demo/app/de/",
			"url":         base + "/api/changes/" + id + "/",
			"user":        nil, // automatic: neither user nor author (spec, Events rule 1)
			"author":      nil,
		})
		if w.unit && ch["unit"] != units[2]["url"] {
			t.Errorf("change %s unit = %v, want %v", id, ch["unit"], units[2]["url"])
		}
		if !w.unit && ch["unit"] != nil {
			t.Errorf("change %s unit = %v, want null", id, ch["unit"])
		}
		if i > 0 {
			prev := changes[i-1]
			if prev["timestamp"].(string) > ch["timestamp"].(string) ||
				(prev["timestamp"] == ch["timestamp"] && atoi(t, num(prev["id"])) >= atoi(t, id)) {
				t.Errorf("changes out of order: %v then %v", prev, ch)
			}
		}
	}
}

// TestChangesPagination checks ascending (timestamp, id) order across the
// pages of a 278-change list: an update, 276 unit changes, an update.
func TestChangesPagination(t *testing.T) {
	db := mustOpenDB(t)
	seedBig(t, db, 276)
	srv := mustServe(t, db, api.Options{})
	var last map[string]any
	n := 0
	for next := any(srv.URL + "/api/translations/big/strings/de/changes/"); next != nil; {
		list := getObject(t, next.(string))
		if num(list["count"]) != "278" {
			t.Fatalf("count = %v, want 278", list["count"])
		}
		for _, ch := range results(t, list) {
			if last != nil && (last["timestamp"].(string) > ch["timestamp"].(string) ||
				last["timestamp"] == ch["timestamp"] && atoi(t, num(last["id"])) >= atoi(t, num(ch["id"]))) {
				t.Fatalf("out of order: %v then %v", last, ch)
			}
			last = ch
			n++
		}
		next = list["next"]
	}
	if n != 278 {
		t.Errorf("walked %d changes, want 278", n)
	}
}

// withUsers is the real index with user names attached to every change
// that has a unit, since imports record automatic changes only: the
// user-driven writes that set them come later.
type withUsers struct{ *sqlite.DB }

func (w withUsers) FindChanges(ctx context.Context, f index.ChangeFilter) ([]index.Change, int, error) {
	changes, total, err := w.DB.FindChanges(ctx, f)
	for i := range changes {
		if changes[i].UnitID != 0 {
			changes[i].UserName, changes[i].AuthorName = "anna", "bob"
		} else {
			changes[i].UserName = "committer" // a commit: user set, author null
		}
	}
	return changes, total, err
}

func TestChangeUserLinks(t *testing.T) {
	db := mustOpenDB(t)
	seedDemo(t, db)
	srv := mustServe(t, withUsers{db}, api.Options{})
	changes := results(t, getObject(t, srv.URL+"/api/translations/demo/app/de/changes/?format=api"))
	checkValues(t, "commit", changes[0], map[string]any{
		"user": srv.URL + "/api/users/committer/?format=api", "author": nil})
	checkValues(t, "edit", changes[1], map[string]any{
		"user": srv.URL + "/api/users/anna/?format=api", "author": srv.URL + "/api/users/bob/?format=api"})
}
