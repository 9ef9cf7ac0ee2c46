package sqlstore

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkFindUnitsSearch measures a search FindUnits reads anew on
// each call (an explanation term is never cached: cachedSearch) over a
// translation of ten units, five matching.
//
//	go test ./index/sqlstore -run '^$' -bench FindUnitsSearch -count 6
func BenchmarkFindUnitsSearch(b *testing.B) {
	f := mustWriteFixture(b)
	ctx := context.Background()
	q := `source:number AND NOT explanation:nothing AND (target:Wort OR state:>=translated)`
	parsed, err := index.ParseUnitQuery(q)
	if err != nil || cachedSearch(parsed) {
		b.Fatalf("query %q: cached %v, %v", q, err == nil && cachedSearch(parsed), err)
	}
	b.ReportAllocs()
	for b.Loop() {
		units, total, err := f.db.FindUnits(ctx, index.UnitFilter{TranslationID: f.tr["de"], Query: q,
			Page: index.Page{Number: 1, Size: 50}})
		if err != nil || total != 5 || len(units) != 5 {
			b.Fatalf("FindUnits = %d units of %d, %v", len(units), total, err)
		}
	}
}
