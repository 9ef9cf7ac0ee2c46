package api_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// BenchmarkUnitsList serves pages of 50 units of a 2,000-unit translation
// straight through the handler (no network), from a real SQLite index:
// read from SQLite each time (uncached), and as served again before the
// next write (from the index's page cache).
//
//	go test ./api -run '^$' -bench UnitsList -benchmem -count 3
func BenchmarkUnitsList(b *testing.B) {
	db := servertest.MustOpenDB(b)
	servertest.SeedBig(b, db, 2000)
	cached := servertest.Handler(db, benchOptions)
	uncachedDB := servertest.MustOpenDBWith(b, sqlstore.Options{PageCacheBytes: sqlstore.NoPageCache})
	servertest.SeedBig(b, uncachedDB, 2000)
	uncached := servertest.Handler(uncachedDB, benchOptions)
	const path = "/api/translations/big/strings/de/units/"

	for _, bc := range []struct{ name, query, want string }{
		{"first/uncached", "", `"count":2000,"next":"http://tolk.test` + path + `?page=2","previous":null`},
		{"deep/uncached", "?page=39", `"count":2000,"next":"http://tolk.test` + path + `?page=40","previous"`},
		{"format=api/uncached", "?page=2&format=api", `"next":"http://tolk.test` + path + `?page=3&format=api"`},
		{"first/cached", "", `"count":2000,"next":"http://tolk.test` + path + `?page=2","previous":null`},
		{"deep/cached", "?page=39", `"count":2000,"next":"http://tolk.test` + path + `?page=40","previous"`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := uncached
			if strings.HasSuffix(bc.name, "/cached") {
				h = cached
			}
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, "http://tolk.test"+path+bc.query, nil)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				return w
			}
			w := serve()
			if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(bc.want)) {
				b.Fatalf("status %d body %.300s, want %s", w.Code, w.Body.Bytes(), bc.want)
			}
			b.SetBytes(int64(w.Body.Len()))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if w := serve(); w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
	// api-only isolates this package's share: the store answers from
	// memory with rows read once from the index.
	b.Run("api-only", func(b *testing.B) {
		ctx := context.Background()
		t, err := db.FindTranslation(ctx, "big", "strings", "de")
		if err != nil {
			b.Fatal(err)
		}
		units, total, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID, Page: index.Page{Number: 1, Size: 50}})
		if err != nil {
			b.Fatal(err)
		}
		mem := servertest.Handler(cachedUnits{db, t, units, total}, benchOptions)
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest(http.MethodGet, "http://tolk.test"+path, nil)
			w := httptest.NewRecorder()
			mem.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatal(w.Code)
			}
		}
	})
	b.Run("parallel/uncached", func(b *testing.B) {
		h := uncached
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req := httptest.NewRequest(http.MethodGet, "http://tolk.test"+path+"?page=7", nil)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Error(w.Code)
					return
				}
			}
		})
	})
}

// cachedUnits answers the units endpoint's two reads from memory.
type cachedUnits struct {
	*sqlstore.DB
	t     index.Translation
	units []index.Unit
	total int
}

func (c cachedUnits) FindTranslation(context.Context, string, string, string) (index.Translation, error) {
	return c.t, nil
}

func (c cachedUnits) FindUnits(ctx context.Context, _ index.UnitFilter) ([]index.Unit, int, error) {
	// The same rows every time, as a page cache that no write made stale
	// hands them out: one generation.
	index.NotePage(ctx, index.PageReceipt{Generation: 1, Rows: len(c.units), Total: c.total})
	return c.units, c.total, nil
}

// benchOptions serve the benchmarks' requests, which name the host
// tolk.test as a deployment behind its own name does.
var benchOptions = servertest.Options{AllowedHosts: []string{"tolk.test"}}
