package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// BenchmarkPatchUnitHooks PATCHes units of a 2,000-unit translation
// through the handler (no network), each a new text, with no webhook
// and with one on the project that wants every edit, whose delivery is
// queued in the edit's transaction (nothing sends it here).
//
//	go test ./api -run '^$' -bench PatchUnitHooks -count 3
func BenchmarkPatchUnitHooks(b *testing.B) {
	for _, scenario := range []string{"none", "hook"} {
		b.Run(scenario, func(b *testing.B) {
			ctx := context.Background()
			db := servertest.MustOpenDB(b)
			servertest.SeedBig(b, db, 2000)
			auth := servertest.MustUser(b, db, "bench", true)
			p, err := db.FindProject(ctx, "big")
			if err != nil {
				b.Fatal(err)
			}
			if scenario == "hook" {
				if _, err := db.CreateAddon(ctx, index.Addon{Name: index.AddonWebhook, ProjectID: p.ID,
					Webhook: index.Webhook{URL: "https://example.com/", Filter: index.EventsAll}}); err != nil {
					b.Fatal(err)
				}
			}
			tr, err := db.FindTranslation(ctx, "big", "strings", "de")
			if err != nil {
				b.Fatal(err)
			}
			units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 2000}})
			if err != nil || len(units) != 2000 {
				b.Fatalf("units: %d, %v", len(units), err)
			}
			h := servertest.Handler(db, benchOptions)
			var n atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					u := units[(i*7919)%int64(len(units))]
					req := httptest.NewRequest(http.MethodPatch, fmt.Sprintf("http://tolk.test/api/units/%d/", u.ID),
						strings.NewReader(fmt.Sprintf(`{"target":["Wert %d"],"state":20}`, i)))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", auth)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Errorf("PATCH: %d %s", w.Code, w.Body)
						return
					}
				}
			})
			b.StopTimer()
			counts, err := db.CountDeliveries(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if want := map[string]int64{"none": 0, "hook": n.Load()}[scenario]; int64(counts[index.DeliveryPending]) < want {
				b.Fatalf("%d deliveries queued after %d edits, want %d or more", counts[index.DeliveryPending], n.Load(), want)
			}
		})
	}
}
