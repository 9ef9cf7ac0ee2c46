package api_test

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestUnitSortBy pages /api/units/ and a translation's units in
// sort_by's orders and compares them with the same units sorted here;
// an unknown key is a 400 on sort_by.
func TestUnitSortBy(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	all := allPages(t, srv.URL+"/api/units/")
	src := func(u map[string]any) string { return strings.Join(anyStrings(u["source"]), "\x1e") }
	id := func(u map[string]any) int64 { return atoi(t, servertest.Num(u["id"])) }
	for _, tc := range []struct {
		sortBy string
		less   func(a, b map[string]any) bool
	}{
		{"-position", func(a, b map[string]any) bool {
			pa, pb := atoi(t, servertest.Num(a["position"])), atoi(t, servertest.Num(b["position"]))
			return pa > pb || pa == pb && id(a) < id(b)
		}},
		{"source,-state", func(a, b map[string]any) bool {
			sa, sb := src(a), src(b)
			if sa != sb {
				return sa < sb
			}
			ta, tb := atoi(t, servertest.Num(a["state"])), atoi(t, servertest.Num(b["state"]))
			return ta > tb || ta == tb && id(a) < id(b)
		}},
		{"-context", func(a, b map[string]any) bool {
			ca, cb := a["context"].(string), b["context"].(string)
			return ca > cb || ca == cb && id(a) < id(b)
		}},
	} {
		if strings.Contains(tc.sortBy, "state") {
			// state is no key of the reference's sort_by.
			r := servertest.Do(t, "GET", srv.URL+"/api/units/?sort_by="+tc.sortBy, nil)
			want := `{"type":"validation_error","errors":[{"code":"invalid","detail":"Unknown sort key \"-state\"; use one of ` +
				`position, priority, labels, source, target, timestamp, last_updated, num_words, num_comments, ` +
				`num_failing_checks, context, location, component, each reversed by a leading -.","attr":"sort_by"}]}`
			if r.Status != 400 || string(r.Body) != want {
				t.Errorf("sort_by=%s: %d %s, want 400 %s", tc.sortBy, r.Status, r.Body, want)
			}
			continue
		}
		want := append([]map[string]any(nil), all...)
		sort.SliceStable(want, func(i, j int) bool { return tc.less(want[i], want[j]) })
		var wantIDs, gotIDs []string
		for _, u := range want {
			wantIDs = append(wantIDs, servertest.Num(u["id"]))
		}
		for _, u := range allPages(t, srv.URL+"/api/units/?page_size=3&sort_by="+url.QueryEscape(tc.sortBy)) {
			gotIDs = append(gotIDs, servertest.Num(u["id"]))
		}
		if fmt.Sprint(gotIDs) != fmt.Sprint(wantIDs) {
			t.Errorf("sort_by=%s: %v, want %v", tc.sortBy, gotIDs, wantIDs)
		}
		if fmt.Sprint(wantIDs) == fmt.Sprint(sortedIDs(all)) {
			t.Errorf("sort_by=%s: the order is the ids' own; the case tests nothing", tc.sortBy)
		}
	}
	for _, path := range []string{"/api/units/", "/api/translations/demo/app/de/units/"} {
		r := servertest.Do(t, "GET", srv.URL+path+"?sort_by=bogus&q=state:translated", nil)
		if r.Status != 400 || !strings.Contains(string(r.Body), `"attr":"sort_by"`) {
			t.Errorf("GET %s?sort_by=bogus = %d %s, want 400 on sort_by", path, r.Status, r.Body)
		}
		r = servertest.Do(t, "GET", srv.URL+path+"?sort_by=-priority,position&q=state:translated", nil)
		if r.Status != 200 {
			t.Errorf("GET %s?sort_by=-priority,position = %d %s", path, r.Status, r.Body)
		}
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

func sortedIDs(units []map[string]any) []string {
	var out []string
	for _, u := range units {
		out = append(out, servertest.Num(u["id"]))
	}
	return out
}
