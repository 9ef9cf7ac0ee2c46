package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

func TestLabelsAPI(t *testing.T) {
	e := newWriteEnv(t)
	base := e.srv.URL
	labels := base + "/api/projects/demo/labels/"

	if l := servertest.GetObject(t, labels); servertest.Num(l["count"]) != "0" {
		t.Errorf("labels of a new project: %v", l)
	}
	wantResponse(t, "a translator", servertest.DoJSON(t, "POST", labels, e.anna, map[string]any{"name": "UI", "color": "navy"}),
		http.StatusForbidden, denied("Can not create labels"))
	r := servertest.DoJSON(t, "POST", labels, e.adam, map[string]any{"name": "UI", "color": "navy", "description": "Buttons"})
	wantResponse(t, "create", r, http.StatusCreated, "")
	if keys := keysOf(t, r.Body); !slices.Equal(keys, []string{"id", "name", "description", "color"}) {
		t.Errorf("label keys %q", keys)
	}
	var ui struct {
		ID                       int64
		Name, Description, Color string
	}
	decodeJSON(t, r, &ui)
	if ui.ID == 0 || ui.Name != "UI" || ui.Color != "navy" || ui.Description != "Buttons" {
		t.Errorf("created %s", r.Body)
	}
	r = servertest.DoJSON(t, "POST", labels, e.adam, map[string]any{"name": "Bug", "color": "red"})
	var bug struct{ ID int64 }
	decodeJSON(t, r, &bug)
	wantResponse(t, "same name", servertest.DoJSON(t, "POST", labels, e.adam, map[string]any{"name": "UI", "color": "red"}),
		http.StatusBadRequest, invalid([3]string{"name", "unique", "Label with this name already exists in this project."}))
	wantResponse(t, "pink", servertest.DoJSON(t, "POST", labels, e.adam, map[string]any{"name": "P", "color": "pink"}),
		http.StatusBadRequest, invalid([3]string{"color", "invalid_choice", `"pink" is not a valid choice. Choose one of: ` +
			strings.Join(index.LabelColors, ", ") + "."}))
	wantResponse(t, "long name", servertest.DoJSON(t, "POST", labels, e.adam,
		map[string]any{"name": strings.Repeat("ä", 191), "color": "red"}), http.StatusBadRequest,
		invalid([3]string{"name", "max_length", "Ensure this field has no more than 190 characters."}))
	wantResponse(t, "190 is fine", servertest.DoJSON(t, "POST", labels, e.adam,
		map[string]any{"name": strings.Repeat("ä", 190), "color": "silver"}), http.StatusCreated, "")
	wantResponse(t, "nothing", servertest.DoJSON(t, "POST", labels, e.adam, map[string]any{}),
		http.StatusBadRequest, invalid(required("color"), required("name")))
	if n := servertest.Num(servertest.GetObject(t, labels)["count"]); n != "3" {
		t.Errorf("count %s, want 3", n)
	}

	// Unit labels: ids on a source unit with source.edit; the GET's
	// objects are taken back too (wlc's Unit.put).
	enSave, deSave := e.unitURL(t, "app", "en", "save"), e.unitURL(t, "app", "de", "save")
	r = servertest.DoJSON(t, "PATCH", enSave, e.sam, map[string]any{"labels": []int64{bug.ID, ui.ID}})
	wantResponse(t, "label a source unit", r, http.StatusOK,
		fmt.Sprintf(`{"target":["Save all files"],"state":100,"explanation":"","extra_flags":"","labels":[%d,%d]}`, ui.ID, bug.ID))
	for _, u := range []string{enSave, deSave} {
		got, _ := servertest.GetObject(t, u)["labels"].([]any)
		if len(got) != 2 {
			t.Fatalf("%s labels %v", u, got)
		}
		first := got[0].(map[string]any)
		if servertest.Num(first["id"]) != fmt.Sprint(ui.ID) || first["name"] != "UI" || first["color"] != "navy" ||
			first["description"] != "Buttons" {
			t.Errorf("%s first label %v", u, first)
		}
	}
	// Read back and written again as objects: nothing changes.
	got := servertest.GetObject(t, enSave)["labels"]
	wantResponse(t, "labels as objects", servertest.DoJSON(t, "PATCH", enSave, e.sam, map[string]any{"labels": got}),
		http.StatusOK, "")
	// wlc's Unit.put on a translation's unit sends back the labels it
	// read (its source unit's): taken as no change, where the reference
	// refuses any labels there. Others are refused.
	deUnit := servertest.GetObject(t, deSave)
	wantResponse(t, "wlc Unit.put", servertest.DoJSON(t, "PUT", deSave, e.anna, map[string]any{"target": []string{"Speichern"},
		"state": 20, "labels": deUnit["labels"]}), http.StatusOK,
		`{"target":["Speichern"],"state":20,"explanation":"","extra_flags":"","labels":[]}`)
	wantResponse(t, "on a translation's unit", servertest.DoJSON(t, "PATCH", deSave, e.sam, map[string]any{"labels": []int64{bug.ID}}),
		http.StatusForbidden, denied("Source strings properties can be set only on source strings"))
	wantResponse(t, "without source.edit", servertest.DoJSON(t, "PATCH", enSave, e.anna, map[string]any{"labels": []int64{}}),
		http.StatusForbidden, denied("Source strings properties can be set only on source strings"))
	wantResponse(t, "not an id", servertest.DoJSON(t, "PATCH", enSave, e.sam, map[string]any{"labels": []any{"UI"}}),
		http.StatusBadRequest, invalidField("labels", "Invalid label ID."))
	other := servertest.MustProject(t, e.db, index.Project{Name: "Other", Slug: "other", Web: "https://example.org/"})
	foreign, err := e.db.CreateLabel(context.Background(), index.Label{ProjectID: other.ID, Name: "UI", Color: "red"},
		func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	r = servertest.DoJSON(t, "PATCH", enSave, e.sam, map[string]any{"labels": []int64{foreign.ID}})
	wantResponse(t, "another project's label", r, http.StatusBadRequest,
		errJSON("validation_error", [3]string{"does_not_exist", "Label with this ID was not found in this project.", "labels"}))
	r = servertest.DoJSON(t, "PATCH", enSave, e.sam, map[string]any{"labels": []int64{bug.ID}})
	wantResponse(t, "take UI off", r, http.StatusOK, "")
	if actions := changeActions(t, base+"/api/translations/demo/app/en/changes/"); !containsAll(actions, "86 by sam", "87 by sam") {
		t.Errorf("label changes %q", actions)
	}

	// Removing a label takes it off its units.
	label := fmt.Sprintf("%s%d/", labels, bug.ID)
	wantResponse(t, "a translator removing", servertest.DoJSON(t, "DELETE", label, e.anna, nil),
		http.StatusForbidden, denied("Can not delete labels"))
	wantResponse(t, "another project's", servertest.DoJSON(t, "DELETE", fmt.Sprintf("%s%d/", labels, foreign.ID), e.adam, nil),
		http.StatusNotFound, "")
	wantResponse(t, "remove", servertest.DoJSON(t, "DELETE", label, e.adam, nil), http.StatusNoContent, "")
	if got, _ := servertest.GetObject(t, deSave)["labels"].([]any); len(got) != 0 {
		t.Errorf("labels after the label's removal: %v", got)
	}
	// And a unit list shows labels too.
	wantResponse(t, "relabel", servertest.DoJSON(t, "PATCH", enSave, e.root, map[string]any{"labels": []int64{ui.ID}}), http.StatusOK, "")
	for _, u := range servertest.Results(t, servertest.GetObject(t, base+"/api/translations/demo/app/de/units/")) {
		n := len(u["labels"].([]any))
		if want := map[bool]int{true: 1, false: 0}[u["context"] == "save"]; n != want {
			t.Errorf("listed unit %v has %d labels, want %d", u["context"], n, want)
		}
	}
}
