package sqlstore

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// pagingFixture is an index with one large translation, a few smaller
// ones and a long change log, plus the expected id order of each list.
type pagingFixture struct {
	db            *DB
	en, de        int64   // translation ids
	enIDs, allIDs []int64 // units of en; all units
	deChanges     []int64 // changes of de in (timestamp, id) order
}

// benchUnits returns n monolingual units with keys prefix.000000 and up.
func benchUnits(prefix string, from, n int, translated bool) []index.ImportUnit {
	out := make([]index.ImportUnit, 0, n)
	for i := from; i < from+n; i++ {
		u := index.ImportUnit{Context: fmt.Sprintf("%s.%06d", prefix, i),
			Source: []string{fmt.Sprintf("Source string number %d", i)}, Target: []string{""}, State: index.StateEmpty}
		if translated {
			u.Target, u.State = []string{fmt.Sprintf("Übersetzung %d", i)}, index.StateTranslated
		}
		out = append(out, u)
	}
	return out
}

// mustPagingFixture builds, outside any timed loop: en with nUnits units
// (created in one import, so it records no per-unit changes), fr with 1,000,
// and de imported twice so that its second import records nChanges
// "string added" changes. Its imports analyze what they wrote, as
// every import does (analyzeImported).
func mustPagingFixture(tb testing.TB, nUnits, nChanges int) *pagingFixture {
	return buildPagingFixture(tb, nUnits, nChanges, true)
}

// mustPagingFixtureUnanalyzed is mustPagingFixture without the ANALYZE
// after its imports: TestKeysetQueryPlans asks which index serves each
// statement with the planner's defaults, as a large translation's would
// be planned; with this small fixture's statistics a translation of 10
// units is read as cheaply through units_translation_position,
// filtering ids. TestImportAnalyzesUnits covers the ANALYZE.
func mustPagingFixtureUnanalyzed(tb testing.TB, nUnits, nChanges int) *pagingFixture {
	return buildPagingFixture(tb, nUnits, nChanges, false)
}

func buildPagingFixture(tb testing.TB, nUnits, nChanges int, analyze bool) *pagingFixture {
	tb.Helper()
	ctx := context.Background()
	db, err := openFresh(tb)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if !analyze {
		db.importedUnits.Store(math.MinInt64 / 2) // never reaches analyzeImported's threshold
	}
	p, _, err := db.SaveProject(ctx, index.Project{Name: "Bench", Slug: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template = p.ID, "App", "app", "en.json"
	if c, _, err = db.SaveComponent(ctx, c); err != nil {
		tb.Fatal(err)
	}
	imp := func(lang string, us []index.ImportUnit, source bool) int64 {
		res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang,
			Filename: lang + ".json", Revision: fmt.Sprint(len(us)), IsSource: source, IsTemplate: source,
			Monolingual: true, Units: us})
		if err != nil {
			tb.Fatal(err)
		}
		return res.TranslationID
	}
	f := &pagingFixture{db: db}
	f.en = imp("en", benchUnits("key", 0, nUnits, true), true)
	imp("fr", benchUnits("key", 0, 1000, true), false)
	imp("de", benchUnits("key", 0, 10, true), false)
	f.de = imp("de", benchUnits("key", 0, 10+nChanges, true), false)

	// The truth comes from plain full scans, independent of the paging code.
	f.enIDs = mustIDList(tb, db.r, `SELECT id FROM units WHERE translation_id = ? ORDER BY id`, f.en)
	f.allIDs = mustIDList(tb, db.r, `SELECT id FROM units ORDER BY id`)
	f.deChanges = mustIDList(tb, db.r, `SELECT id FROM changes WHERE translation_id = ? ORDER BY timestamp, id`, f.de)
	if len(f.enIDs) != nUnits || len(f.deChanges) < nChanges {
		tb.Fatalf("fixture has %d units, %d changes", len(f.enIDs), len(f.deChanges))
	}
	return f
}

// lastPage is the 1-based number of the last page of n items.
func lastPage(n, size int) int { return max(1, (n+size-1)/size) }

// BenchmarkPagination measures the first and the last page of the unit and
// change lists the API serves, at the API's default page size, as read
// from SQLite: it calls past the page cache, which would otherwise answer
// every iteration but the first.
//
//	go test ./index/sqlstore -run '^$' -bench Pagination -benchtime 2s -count 5
//
// Medians of 5, 2 shared cores (Oxide Virtual Turin-like), 2026-11-23,
// OFFSET + count(*) at a594af8, keyset at 4440267:
//
//	               OFFSET     keyset
//	Units/first    9.72 ms    747 µs
//	Units/deep    25.25 ms    763 µs
//	Units/all-deep 7.00 ms    924 µs
//	Changes/first  5.27 ms    651 µs
//	Changes/deep  38.45 ms    402 µs
//
// Then the bucket counts' running sum moved from a window function to Go
// (medians of 3, old and new binaries alternated, same machine, later):
//
//	               window     Go
//	Units/first    656 µs     359 µs
//	Units/deep     642 µs     368 µs
//	Units/all-deep 737 µs     342 µs
//	Changes/first  404 µs     260 µs
//	Changes/deep   254 µs     115 µs
func BenchmarkPagination(b *testing.B) {
	const size = 50
	f := mustPagingFixture(b, 200_000, 100_000)
	ctx := context.Background()

	units := func(name string, translationID int64, want []int64, number int) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			off := (number - 1) * size
			wantN := min(size, len(want)-off)
			for i := 0; i < b.N; i++ {
				got, total, err := f.db.findUnits(ctx, index.UnitFilter{TranslationID: translationID,
					Page: index.Page{Number: number, Size: size}}, &index.Query{Kind: index.QueryAll})
				if err != nil {
					b.Fatal(err)
				}
				if total != len(want) || len(got) != wantN || got[0].ID != want[off] || got[len(got)-1].ID != want[off+wantN-1] {
					b.Fatalf("page %d: %d units (total %d), want %d from id %d (total %d)",
						number, len(got), total, wantN, want[off], len(want))
				}
			}
		})
	}
	units("Units/first", f.en, f.enIDs, 1)
	units("Units/deep", f.en, f.enIDs, lastPage(len(f.enIDs), size))
	units("Units/all-deep", 0, f.allIDs, lastPage(len(f.allIDs), size))

	changes := func(name string, number int) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			want := f.deChanges
			off := (number - 1) * size
			wantN := min(size, len(want)-off)
			for i := 0; i < b.N; i++ {
				got, total, err := f.db.findChanges(ctx, index.ChangeFilter{TranslationID: f.de,
					Page: index.Page{Number: number, Size: size}})
				if err != nil {
					b.Fatal(err)
				}
				if total != len(want) || len(got) != wantN || got[0].ID != want[off] || got[len(got)-1].ID != want[off+wantN-1] {
					b.Fatalf("page %d: %d changes (total %d), want %d from id %d (total %d)",
						number, len(got), total, wantN, want[off], len(want))
				}
			}
		})
	}
	changes("Changes/first", 1)
	changes("Changes/deep", lastPage(len(f.deChanges), size))
}
