package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkSuggestionPages measures the first and the deepest page of
// the list of all suggestions (newest first, the API's page of 100) and
// of one unit's 2,000, read by key (FindSuggestions) and with the
// count(*) and OFFSET read that FindSuggestions made before migration
// 0057 (the offset scenarios, its SQL kept here as the baseline).
//
//	TOLK_TEST_ENGINE=sqlite go test ./index/sqlstore -run '^$' -bench SuggestionPages -count 5
//
// Medians (5 runs on SQLite, 3 on PostgreSQL), 2 shared cores (AMD EPYC),
// 2026-11-27, 102,005 suggestions, at the commit that added this:
//
//	                   SQLite               PostgreSQL
//	                   OFFSET    key        OFFSET    key
//	all-first          4.08 ms   632 µs     18.6 ms   1.37 ms
//	all-deep          26.0 ms    352 µs      160 ms    933 µs
//	unit-deep          1.80 ms   118 µs     2.10 ms    748 µs
func BenchmarkSuggestionPages(b *testing.B) {
	const size = 100
	ctx := context.Background()
	f := mustPagingFixture(b, 20_000, 0)
	// 100,000 suggestions on en's units, then 2,000 more on its first
	// unit; one statement each, outside the timed loop.
	for round := range 5 {
		if _, err := f.db.wdb.ExecContext(ctx, `INSERT INTO suggestions (unit_id, target, timestamp)
			SELECT id, 'suggested '||id||' `+fmt.Sprint(round)+`', '2026-01-01' FROM units WHERE translation_id = `+itoa(f.en)+` ORDER BY id`); err != nil {
			b.Fatal(err)
		}
	}
	one := f.enIDs[0]
	if _, err := f.db.wdb.ExecContext(ctx, `INSERT INTO suggestions (unit_id, target, timestamp)
		SELECT `+itoa(one)+`, 'again '||id, '2026-01-01' FROM units WHERE translation_id = `+itoa(f.en)+`
		ORDER BY id LIMIT 2000`); err != nil {
		b.Fatal(err)
	}
	all := mustIDList(b, f.db.r, `SELECT id FROM suggestions ORDER BY id DESC`)
	ofOne := mustIDList(b, f.db.r, `SELECT id FROM suggestions WHERE unit_id = ? ORDER BY id`, one)

	run := func(name string, want []int64, number int, read func(index.Page) ([]index.Suggestion, int, error)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			off := (number - 1) * size
			wantN := min(size, len(want)-off)
			for i := 0; i < b.N; i++ {
				got, total, err := read(index.Page{Number: number, Size: size})
				if err != nil {
					b.Fatal(err)
				}
				if total != len(want) || len(got) != wantN || got[0].ID != want[off] || got[len(got)-1].ID != want[off+wantN-1] {
					b.Fatalf("page %d: %d suggestions (total %d), want %d from id %d (total %d)",
						number, len(got), total, wantN, want[off], len(want))
				}
			}
		})
	}
	byKey := func(unitID int64) func(index.Page) ([]index.Suggestion, int, error) {
		return func(p index.Page) ([]index.Suggestion, int, error) {
			return f.db.FindSuggestions(ctx, index.SuggestionFilter{UnitID: unitID, Page: p})
		}
	}
	byOffset := func(unitID int64) func(index.Page) ([]index.Suggestion, int, error) {
		return func(p index.Page) ([]index.Suggestion, int, error) {
			where, order, args := `s.unit_id = ?`, `s.id`, []any{unitID}
			if unitID == 0 {
				where, order, args = `1 = 1`, `s.id DESC`, nil
			}
			var total int
			if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM suggestions s WHERE `+where, args...).Scan(&total); err != nil {
				return nil, 0, err
			}
			rows, err := f.db.r.QueryContext(ctx, `SELECT `+suggestionColumns+` WHERE `+where+` ORDER BY `+order+
				` LIMIT ? OFFSET ?`, withArgs(args, p.Size, p.Offset())...)
			if err != nil {
				return nil, 0, err
			}
			out, err := scanSuggestions(rows)
			return out, total, err
		}
	}
	for _, read := range []struct {
		name string
		page func(int64) func(index.Page) ([]index.Suggestion, int, error)
	}{{"key", byKey}, {"offset", byOffset}} {
		run(read.name+"/all-first", all, 1, read.page(0))
		run(read.name+"/all-deep", all, lastPage(len(all), size), read.page(0))
		run(read.name+"/unit-deep", ofOne, lastPage(len(ofOne), size), read.page(one))
	}
}
