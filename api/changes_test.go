package api_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

var changeShape = servertest.Shape{
	"unit": "url|null", "component": "url", "translation": "url", "user": "url|null",
	"author": "url|null", "timestamp": "timestamp", "action": "int", "target": "string", "id": "int",
	"action_name": "string", "url": "url",
}

func TestChanges(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	list := servertest.GetObject(t, base+"/api/translations/demo/app/de/changes/")
	servertest.CheckShape(t, "changes list", list, listShape)
	checkValues(t, "changes list", list, map[string]any{"count": "3", "next": nil, "previous": nil})
	changes := servertest.Results(t, list)
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
	units := servertest.Results(t, servertest.GetObject(t, base+"/api/translations/demo/app/de/units/"))
	for i, ch := range changes {
		w := want[i]
		servertest.CheckShape(t, "change", ch, changeShape)
		id := servertest.Num(ch["id"])
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
				(prev["timestamp"] == ch["timestamp"] && atoi(t, servertest.Num(prev["id"])) >= atoi(t, id)) {
				t.Errorf("changes out of order: %v then %v", prev, ch)
			}
		}
	}
}

// TestChangesPagination checks ascending (timestamp, id) order across the
// pages of a 278-change list: an update, 276 unit changes, an update.
func TestChangesPagination(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedBig(t, db, 276)
	srv := servertest.Serve(t, db, servertest.Options{})
	var last map[string]any
	n := 0
	for next := any(srv.URL + "/api/translations/big/strings/de/changes/"); next != nil; {
		list := servertest.GetObject(t, next.(string))
		if servertest.Num(list["count"]) != "278" {
			t.Fatalf("count = %v, want 278", list["count"])
		}
		for _, ch := range servertest.Results(t, list) {
			if last != nil && (last["timestamp"].(string) > ch["timestamp"].(string) ||
				last["timestamp"] == ch["timestamp"] && atoi(t, servertest.Num(last["id"])) >= atoi(t, servertest.Num(ch["id"]))) {
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
type withUsers struct{ *sqlstore.DB }

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
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	srv := servertest.Serve(t, withUsers{db}, servertest.Options{})
	changes := servertest.Results(t, servertest.GetObject(t, srv.URL+"/api/translations/demo/app/de/changes/?format=api"))
	checkValues(t, "commit", changes[0], map[string]any{
		"user": srv.URL + "/api/users/committer/?format=api", "author": nil})
	checkValues(t, "edit", changes[1], map[string]any{
		"user": srv.URL + "/api/users/anna/?format=api", "author": srv.URL + "/api/users/bob/?format=api"})
}

// Changes not tied to a component (a project's creation) or translation
// link null, as the reference's serializer does for an absent link.
var anyChangeShape = func() servertest.Shape {
	s := without(changeShape)
	s["component"], s["translation"] = "url|null", "url|null"
	return s
}()

// mustOpenDBFile is mustOpenDB with the index's location, for tests
// that also write rows the index's API cannot yet produce.
func mustOpenDBFile(tb testing.TB) (*sqlstore.DB, string) {
	tb.Helper()
	ctx := context.Background()
	path := indextest.Location(tb)
	var tick atomic.Int64
	db, err := indextest.ReopenWith(tb, path, sqlstore.Options{Now: func() time.Time {
		return servertest.ClockStart.Add(time.Duration(tick.Add(1)-1) * time.Second)
	}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	table := langdata.Default()
	var langs []index.Language
	for _, code := range []string{"en", "de"} {
		l, _ := table.Get(code)
		langs = append(langs, l)
	}
	if err := db.SeedLanguages(ctx, langs); err != nil {
		tb.Fatal(err)
	}
	return db, path
}

// actingDemo is the demo index with users: anna edited the string the
// re-import changed (bob its author), and committer made every
// even-numbered update. Imports record automatic changes only, so the
// links are set in the file directly, as user-driven edits will.
func actingDemo(tb testing.TB) (*servertest.Running, *sqlstore.DB) {
	tb.Helper()
	db, path := mustOpenDBFile(tb)
	servertest.SeedDemo(tb, db)
	ctx := context.Background()
	ids := map[string]int64{}
	for _, name := range []string{"anna", "bob", "committer"} {
		u, err := db.SaveUser(ctx, index.User{Username: name, FullName: strings.ToUpper(name), IsActive: true})
		if err != nil {
			tb.Fatal(err)
		}
		ids[name] = u.ID
	}
	raw := indextest.OpenRaw(tb, path)
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE changes SET user_id = ?, author_id = ? WHERE unit_id IS NOT NULL`, []any{ids["anna"], ids["bob"]}},
		{`UPDATE changes SET user_id = ? WHERE action = 0 AND id % 2 = 0`, []any{ids["committer"]}},
	} {
		raw.Exec(tb, stmt.sql, stmt.args...)
	}
	return servertest.Serve(tb, db, servertest.Options{}), db
}

// changeKey orders changes the way every list must: timestamp, then id.
func changeKey(tb testing.TB, ch map[string]any) string {
	return fmt.Sprintf("%s/%020d", ch["timestamp"], atoi(tb, servertest.Num(ch["id"])))
}

func TestChangeLists(t *testing.T) {
	srv, _ := actingDemo(t)
	base := srv.URL
	all := allPages(t, base+"/api/changes/")
	if len(all) != 9 {
		t.Fatalf("got %d changes, want 9 (a project, two components, five imports, one string)", len(all))
	}
	for i, ch := range all {
		servertest.CheckShape(t, "change", ch, anyChangeShape)
		if i > 0 && changeKey(t, all[i-1]) >= changeKey(t, ch) {
			t.Errorf("out of order: %v then %v", all[i-1], ch)
		}
	}
	// Each narrower list is the global one filtered by its link, in the
	// same order.
	filtered := func(keep func(map[string]any) bool) []any {
		var ids []any
		for _, ch := range all {
			if keep(ch) {
				ids = append(ids, servertest.Num(ch["id"]))
			}
		}
		return ids
	}
	app := base + "/api/components/demo/app/"
	cases := []struct {
		path string
		want []any
	}{
		{"/api/projects/demo/changes/", filtered(func(map[string]any) bool { return true })},
		{"/api/components/demo/app/changes/", filtered(func(ch map[string]any) bool { return ch["component"] == app })},
		{"/api/components/demo/glossary/changes/", filtered(func(ch map[string]any) bool {
			return ch["component"] == base+"/api/components/demo/glossary/"
		})},
		{"/api/translations/demo/app/de/changes/", filtered(func(ch map[string]any) bool {
			return ch["translation"] == base+"/api/translations/demo/app/de/"
		})},
	}
	for _, tc := range cases {
		list := servertest.GetObject(t, base+tc.path)
		var got []any
		for _, ch := range servertest.Results(t, list) {
			got = append(got, servertest.Num(ch["id"]))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || servertest.Num(list["count"]) != fmt.Sprint(len(tc.want)) {
			t.Errorf("%s: ids %v count %v, want %v", tc.path, got, list["count"], tc.want)
		}
	}
	if n := len(cases[2].want); n != 3 || len(cases[1].want) != 5 {
		t.Errorf("component lists hold %d and %d changes, want 5 and 3", len(cases[1].want), n)
	}

	// Unknown scopes and ids name nothing.
	const notFound = `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, path := range []string{"/api/projects/nope/changes/", "/api/components/demo/nope/changes/",
		"/api/components/nope/app/changes/", "/api/changes/999/", "/api/changes/abc/", "/api/changes/0/",
		"/api/changes/-1/", "/api/changes/1.5/", "/api/changes/+1/"} {
		if r := servertest.Do(t, "GET", base+path, nil); r.Status != 404 || string(r.Body) != notFound {
			t.Errorf("GET %s = %d %s, want 404 %s", path, r.Status, r.Body, notFound)
		}
	}
}

func TestChangeInstance(t *testing.T) {
	srv, _ := actingDemo(t)
	for _, ch := range allPages(t, srv.URL+"/api/changes/?format=api") {
		got := servertest.GetObject(t, ch["url"].(string))
		if fmt.Sprint(got) != fmt.Sprint(ch) {
			t.Errorf("GET %s = %v, want the list's %v", ch["url"], got, ch)
		}
	}
	ch := servertest.GetObject(t, srv.URL+"/api/changes/5/")
	servertest.CheckShape(t, "change 5", ch, changeShape)
	checkValues(t, "change 5", ch, map[string]any{
		"id": "5", "action": "59", "action_name": "String updated in the repository",
		"user": srv.URL + "/api/users/anna/", "author": srv.URL + "/api/users/bob/",
		"url": srv.URL + "/api/changes/5/", "component": srv.URL + "/api/components/demo/app/",
	})
	// Every user a change links to resolves.
	for _, link := range []any{ch["user"], ch["author"]} {
		servertest.GetObject(t, link.(string))
	}
}

func TestChangeFilters(t *testing.T) {
	srv, _ := actingDemo(t)
	base := srv.URL + "/api/changes/"
	all := allPages(t, base)
	count := func(keep func(map[string]any) bool) int {
		n := 0
		for _, ch := range all {
			if keep(ch) {
				n++
			}
		}
		return n
	}
	action := func(codes ...string) func(map[string]any) bool {
		return func(ch map[string]any) bool { return contains(codes, servertest.Num(ch["action"])) }
	}
	user := func(name string) func(map[string]any) bool {
		return func(ch map[string]any) bool { return ch["user"] == srv.URL+"/api/users/"+name+"/" }
	}
	// The re-import's string change and update share one timestamp: the
	// bounds must include both.
	shared := all[4]["timestamp"].(string)
	if all[5]["timestamp"] != shared {
		t.Fatalf("changes 5 and 6 should share a timestamp: %v %v", all[4], all[5])
	}
	at := func(cmp func(ts string) bool) func(map[string]any) bool {
		return func(ch map[string]any) bool { return cmp(ch["timestamp"].(string)) }
	}
	cases := []struct {
		query string
		want  int
	}{
		{"action=0", count(action("0"))},
		{"action=0&action=59", count(action("0", "59"))},
		{"action=50&action=51", count(action("50", "51"))},
		{"action=2", 0},
		{"user=anna", count(user("anna"))},
		{"user=committer", count(user("committer"))},
		{"user=bob", 0}, // bob authored but did not act
		{"user=nobody", 0},
		{"user=committer&action=59", 0},
		{"user=anna&action=59", 1},
		{"timestamp_after=" + shared, count(at(func(ts string) bool { return ts >= shared }))},
		{"timestamp_before=" + shared, count(at(func(ts string) bool { return ts <= shared }))},
		{"timestamp_after=" + shared + "&timestamp_before=" + shared, 2},
		{"timestamp_after=2026-11-23T01:02:08.123457Z", count(at(func(ts string) bool { return ts > shared }))},
		{"timestamp_before=2026-11-23T01:02:08.123455Z", count(at(func(ts string) bool { return ts < shared }))},
		// Sub-microsecond bounds round the right way.
		{"timestamp_after=2026-11-23T01:02:08.1234555Z", count(at(func(ts string) bool { return ts >= shared }))},
		{"timestamp_before=2026-11-23T01:02:08.1234565Z", count(at(func(ts string) bool { return ts <= shared }))},
		// Other zones and forms of ISO 8601; no zone is UTC.
		{"timestamp_after=2026-11-23T03:02:08.123456%2B02:00", count(at(func(ts string) bool { return ts >= shared }))},
		{"timestamp_after=2026-11-23%2001:02:08.123456", count(at(func(ts string) bool { return ts >= shared }))},
		{"timestamp_after=2026-11-23T01:02", len(all)},
		{"timestamp_before=2026-11-23", 0},
		{"timestamp_after=2026-11-24", 0},
		{"action=&user=", len(all)}, // empty values filter nothing
	}
	if cases[0].want == 0 || cases[4].want != 1 || cases[5].want == 0 || cases[10].want < 2 || cases[11].want < 2 {
		t.Fatalf("the data does not exercise the filters: %+v", cases)
	}
	for _, tc := range cases {
		list := servertest.GetObject(t, base+"?"+tc.query)
		if got := servertest.Num(list["count"]); got != fmt.Sprint(tc.want) || len(servertest.Results(t, list)) != tc.want {
			t.Errorf("?%s: count %s, %d results; want %d", tc.query, got, len(servertest.Results(t, list)), tc.want)
		}
		for _, ch := range servertest.Results(t, list) {
			if strings.HasPrefix(tc.query, "action=0&") && !action("0", "59")(ch) ||
				strings.HasPrefix(tc.query, "user=anna") && !user("anna")(ch) {
				t.Errorf("?%s let through %v", tc.query, ch)
			}
		}
	}
	// The filters apply to every change list.
	list := servertest.GetObject(t, srv.URL+"/api/translations/demo/app/de/changes/?action=59")
	if servertest.Num(list["count"]) != "1" {
		t.Errorf("translation changes ?action=59: count %v, want 1", list["count"])
	}
	list = servertest.GetObject(t, srv.URL+"/api/components/demo/glossary/changes/?action=0&user=committer")
	if want := 1; servertest.Num(list["count"]) != fmt.Sprint(want) {
		t.Errorf("glossary ?action=0&user=committer: count %v, want %d", list["count"], want)
	}
}

func TestChangeFilterErrors(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	entry := func(code, detail, attr string) string {
		return `{"code":"` + code + `","detail":"` + detail + `","attr":"` + attr + `"}`
	}
	badAction := func(v string) string {
		return entry("invalid_choice", "Select a valid choice. "+v+" is not one of the available choices.", "action")
	}
	badTime := entry("invalid", "Enter a valid date/time.", "timestamp")
	for _, path := range []string{"/api/changes/", "/api/projects/demo/changes/",
		"/api/components/demo/app/changes/", "/api/translations/demo/app/de/changes/"} {
		for query, errs := range map[string]string{
			"action=abc":                          badAction("abc"),
			"action=0&action=99":                  badAction("99"),
			"action=-1":                           badAction("-1"),
			"timestamp_after=yesterday":           badTime,
			"timestamp_before=2026-13-01":         badTime,
			"timestamp_before=2026-11-23T25:00":   badTime,
			"action=7x&timestamp_after=2026-11-2": badAction("7x") + "," + badTime,
		} {
			r := servertest.Do(t, "GET", srv.URL+path+"?"+query, nil)
			want := `{"type":"validation_error","errors":[` + errs + `]}`
			if r.Status != 400 || string(r.Body) != want {
				t.Errorf("GET %s?%s = %d %s, want 400 %s", path, query, r.Status, r.Body, want)
			}
		}
	}
}

// TestAllChangesPagination walks the global list: filters and format
// stay in next and previous, the link to page 1 has no page, and order
// holds across pages.
func TestAllChangesPagination(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedBig(t, db, 276)
	srv := servertest.Serve(t, db, servertest.Options{})
	base := srv.URL + "/api/changes/"
	// A project, a component, two imports of en/de, 276 strings and the
	// last update: 59 is the strings' action.
	q := "action=59&action=0&format=api"
	first := servertest.GetObject(t, base+"?"+q)
	total := atoi(t, servertest.Num(first["count"]))
	if total != 279 {
		t.Fatalf("count = %d, want 279", total)
	}
	checkValues(t, "page 1", first, map[string]any{
		"previous": nil, "next": base + "?action=59&action=0&page=2&format=api"})
	page3 := servertest.GetObject(t, base+"?"+q+"&page=3")
	checkValues(t, "page 3", page3, map[string]any{
		"previous": base + "?action=59&action=0&page=2&format=api",
		"next":     base + "?action=59&action=0&page=4&format=api"})
	page2 := servertest.GetObject(t, base+"?page=2&"+q)
	checkValues(t, "page 2", page2, map[string]any{"previous": base + "?action=59&action=0&format=api"})
	last := servertest.GetObject(t, base+"?"+q+"&page=6")
	checkValues(t, "page 6", last, map[string]any{"next": nil,
		"previous": base + "?action=59&action=0&page=5&format=api"})
	if n := len(servertest.Results(t, last)); n != 29 {
		t.Errorf("last page holds %d, want 29", n)
	}
	seen := map[string]bool{}
	var prev map[string]any
	for _, ch := range allPages(t, base+"?"+q) {
		if prev != nil && changeKey(t, prev) >= changeKey(t, ch) {
			t.Fatalf("out of order: %v then %v", prev, ch)
		}
		if a := servertest.Num(ch["action"]); a != "0" && a != "59" {
			t.Errorf("action %s passed the filter", a)
		}
		seen[servertest.Num(ch["id"])] = true
		prev = ch
	}
	if len(seen) != 279 {
		t.Errorf("walked %d distinct changes, want 279", len(seen))
	}
}
