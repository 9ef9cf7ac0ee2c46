package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// BenchmarkChangesList serves pages of 50 changes (the 2,000 a
// re-import of a 2,000-unit translation records) through the handler,
// from a real SQLite index: read from SQLite each time (uncached) and
// from the index's page cache.
//
//	go test ./api -run '^$' -bench ChangesList -benchmem -count 3
func BenchmarkChangesList(b *testing.B) {
	db := servertest.MustOpenDB(b)
	servertest.SeedBig(b, db, 2000)
	uncachedDB := servertest.MustOpenDBWith(b, sqlstore.Options{PageCacheBytes: sqlstore.NoPageCache})
	servertest.SeedBig(b, uncachedDB, 2000)
	cached, uncached := servertest.Handler(db, benchOptions), servertest.Handler(uncachedDB, benchOptions)
	for _, bc := range []struct{ name, path, want string }{
		{"all/uncached", "/api/changes/", `"next":"http://tolk.test/api/changes/?page=2"`},
		{"translation/uncached", "/api/translations/big/strings/de/changes/?page=7", `"translation":"http://tolk.test/api/translations/big/strings/de/"`},
		{"all/cached", "/api/changes/", `"next":"http://tolk.test/api/changes/?page=2"`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := uncached
			if strings.HasSuffix(bc.name, "/cached") {
				h = cached
			}
			serve := func() *httptest.ResponseRecorder {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://tolk.test"+bc.path, nil))
				return w
			}
			w := serve()
			if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(bc.want)) {
				b.Fatalf("status %d body %.300s, want %s", w.Code, w.Body.Bytes(), bc.want)
			}
			b.SetBytes(int64(w.Body.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if w := serve(); w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
