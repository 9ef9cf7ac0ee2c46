package api_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
)

// TestListPageBodiesFollowWrites checks the rendered-page cache: the
// same units and changes pages read twice are the same bytes; an edit
// shows in both at once; and the page asked at another host or with
// format=api gets its own links, not the first one's body.
func TestListPageBodiesFollowWrites(t *testing.T) {
	e := newWriteEnv(t)
	units := e.srv.URL + "/api/translations/demo/app/de/units/"
	changes := e.srv.URL + "/api/translations/demo/app/de/changes/"
	get := func(url string) []byte {
		t.Helper()
		r := do(t, "GET", url, nil)
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", url, r.status, r.body)
		}
		return r.body
	}
	first, firstChanges := get(units), get(changes)
	if again := get(units); !bytes.Equal(first, again) {
		t.Fatal("the same units page read twice differs")
	}
	if r := doJSON(t, "PATCH", e.unitURL(t, "app", "de", "save"), e.anna,
		map[string]any{"target": []string{"Frisch gespeichert"}, "state": 20}); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	if after := get(units); !strings.Contains(string(after), "Frisch gespeichert") {
		t.Error("the units page after an edit does not show it")
	}
	if after := get(changes); bytes.Equal(after, firstChanges) || !strings.Contains(string(after), "Frisch gespeichert") {
		t.Error("the changes page after an edit does not show it")
	}
	req, err := http.NewRequest("GET", units, nil)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.Replace(strings.TrimPrefix(e.srv.URL, "http://"), "127.0.0.1", "localhost", 1)
	req.Host = host // the Host header the client sends
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(other), "http://"+host+"/api/") ||
		strings.Contains(string(other), e.srv.URL) {
		t.Error("the page asked at another host carries the first host's links")
	}
	if browsable := get(units + "?format=api"); !strings.Contains(string(browsable), "/?format=api") {
		t.Error("the format=api page carries links without format=api")
	}
}

// TestListPageBodiesServedFromCache checks that a page read again is sent
// from the kept body while the index serves the same rows, and rendered
// anew once a write made the index read them again.
func TestListPageBodiesServedFromCache(t *testing.T) {
	db := mustOpenDB(t)
	seedDemo(t, db)
	s := api.New(db, api.Options{})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	units := srv.URL + "/api/translations/demo/app/de/units/"
	do(t, "GET", units, nil)
	if n := api.PoisonPageBodies(s, `{"kept":true}`); n != 1 {
		t.Fatalf("%d page bodies kept after one page, want 1", n)
	}
	if r := do(t, "GET", units, nil); string(r.body) != `{"kept":true}` {
		t.Errorf("the page read again was rendered anew: %.100s", r.body)
	}
	ctx := context.Background()
	tr, err := db.FindTranslation(ctx, "demo", "app", "de")
	if err != nil {
		t.Fatal(err)
	}
	page, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 1}})
	if err != nil || len(page) == 0 {
		t.Fatalf("units: %v", err)
	}
	if _, err := db.UpdateUnit(ctx, page[0].ID, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Neu geschrieben"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if r := do(t, "GET", units, nil); !strings.Contains(string(r.body), "Neu geschrieben") {
		t.Errorf("the page after an edit is not rendered anew: %.100s", r.body)
	}
}
