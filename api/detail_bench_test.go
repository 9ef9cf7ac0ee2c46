package api_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// BenchmarkObjects serves the single objects and statistics the load
// benchmark measures, through the handler, from a real SQLite index.
//
//	go test ./api -run '^$' -bench Objects -benchmem -count 3
func BenchmarkObjects(b *testing.B) {
	// The test clock moves a second per reading, which would expire the
	// statistics cache on every request; the service runs on real time.
	db := servertest.MustOpenDBWith(b, sqlstore.Options{Now: time.Now})
	servertest.SeedBig(b, db, 2000)
	h := servertest.Handler(db, benchOptions)
	for _, bc := range []struct{ name, path string }{
		{"translation", "/api/translations/big/strings/de/"},
		{"translation-statistics", "/api/translations/big/strings/de/statistics/"},
		{"project-statistics", "/api/projects/big/statistics/"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://tolk.test"+bc.path, nil))
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", bc.path, w.Code, w.Body)
				}
			}
		})
	}
}
