package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
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
		r := servertest.Do(t, "GET", url, nil)
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", url, r.Status, r.Body)
		}
		return r.Body
	}
	first, firstChanges := get(units), get(changes)
	if again := get(units); !bytes.Equal(first, again) {
		t.Fatal("the same units page read twice differs")
	}
	if r := servertest.DoJSON(t, "PATCH", e.unitURL(t, "app", "de", "save"), e.anna,
		map[string]any{"target": []string{"Frisch gespeichert"}, "state": 20}); r.Status != 200 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
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
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	s := servertest.Build(db, servertest.Options{})
	srv := httptest.NewServer(s.Handler)
	t.Cleanup(srv.Close)
	units := srv.URL + "/api/translations/demo/app/de/units/"
	servertest.Do(t, "GET", units, nil)
	if n := api.PoisonPageBodies(s.API, `{"kept":true}`); n != 1 {
		t.Fatalf("%d page bodies kept after one page, want 1", n)
	}
	if r := servertest.Do(t, "GET", units, nil); string(r.Body) != `{"kept":true}` {
		t.Errorf("the page read again was rendered anew: %.100s", r.Body)
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
	if r := servertest.Do(t, "GET", units, nil); !strings.Contains(string(r.Body), "Neu geschrieben") {
		t.Errorf("the page after an edit is not rendered anew: %.100s", r.Body)
	}
}

// TestListPageBodyAfterAppend checks a full changes page that an edit
// made stale while keeping its rows (changes are appended after it):
// the body sent is a new count and new links around the same results,
// and the page that was the only one now links the next.
func TestListPageBodyAfterAppend(t *testing.T) {
	e := newWriteEnv(t)
	base := e.srv.URL + "/api/translations/demo/app/de/changes/"
	read := func(url string) (raw []byte, l struct {
		Count    int               `json:"count"`
		Next     *string           `json:"next"`
		Previous *string           `json:"previous"`
		Results  []json.RawMessage `json:"results"`
	}) {
		t.Helper()
		r := servertest.Do(t, "GET", url, nil)
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", url, r.Status, r.Body)
		}
		if err := json.Unmarshal(r.Body, &l); err != nil {
			t.Fatalf("GET %s: %v: %s", url, err, r.Body)
		}
		return r.Body, l
	}
	edit := func(target string) {
		t.Helper()
		if r := servertest.DoJSON(t, "PATCH", e.unitURL(t, "app", "de", "save"), e.anna,
			map[string]any{"target": []string{target}, "state": 20}); r.Status != 200 {
			t.Fatalf("PATCH: %d %s", r.Status, r.Body)
		}
	}
	edit("Eins")
	edit("Zwei")
	_, all := read(base)
	if all.Count < 2 {
		t.Fatalf("%d changes", all.Count)
	}
	for _, format := range []string{"", "&format=api"} {
		url := fmt.Sprintf("%s?page_size=%d%s", base, all.Count, format)
		_, before := read(url)
		read(url) // from the rendered bodies
		if before.Next != nil || len(before.Results) != all.Count {
			t.Fatalf("%s: the only page: next %v, %d results", url, before.Next, len(before.Results))
		}
		edit("Drei" + format)
		raw, after := read(url)
		wantNext := fmt.Sprintf("%s?page=2&page_size=%d%s", base, all.Count, format)
		if after.Count != all.Count+1 || after.Next == nil || *after.Next != wantNext || after.Previous != nil {
			t.Errorf("%s after an edit: count %d, next %v, previous %v; want %d, %s, nil",
				url, after.Count, after.Next, after.Previous, all.Count+1, wantNext)
		}
		if !reflect.DeepEqual(after.Results, before.Results) {
			t.Errorf("%s after an edit: the results of the full page changed", url)
		}
		if again, _ := read(url); !bytes.Equal(again, raw) {
			t.Errorf("%s read again differs", url)
		}
		all.Count++
	}
}
