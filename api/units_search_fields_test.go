package api_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestUnitSearchFields sends every field and construct of the
// reference's search language (servertest.ReferenceSearchQueries) to
// both unit lists: each is a search (200 and a list), none a 400 for a
// field or value Tolk lacks.
func TestUnitSearchFields(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	for _, q := range servertest.ReferenceSearchQueries {
		for _, path := range []string{"/api/units/", "/api/translations/demo/app/de/units/"} {
			r := servertest.Do(t, "GET", srv.URL+path+"?q="+url.QueryEscape(q), nil)
			if r.Status != http.StatusOK {
				t.Errorf("GET %s?q=%s = %d %s", path, q, r.Status, r.Body)
				continue
			}
			if list := servertest.Decode(t, r.Body); list["count"] == nil {
				t.Errorf("GET %s?q=%s: no count in %v", path, q, list)
			}
		}
	}
}
