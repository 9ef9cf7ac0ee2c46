package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkImportTranslation measures the write paths that keep the
// list_counts of migration 0002 (their triggers run in the timed part):
// "create" a new translation of 20,000 units (one change), "add" 20,000
// units to an existing one (20,000 changes), "update" 20,000 targets
// (20,000 changes) and "remove" 20,000 units (deletes, and their changes
// losing the unit). Each iteration sets up its own component untimed.
//
//	go test ./index/sqlstore -run '^$' -bench ImportTranslation -benchtime 3x -count 3
//
// Fastest of 3 interleaved runs, 2 shared cores, 2026-11-23: before this
// branch (a594af8), at 4440267 without the triggers of 0002, and with:
//
//	         before   no triggers   4440267
//	create   359 ms     373 ms       396 ms
//	add      3.23 s     1.37 s       1.38 s   (statements now prepared once)
//	update   2.63 s     1.01 s       1.18 s
//	remove   424 ms     261 ms       449 ms
func BenchmarkImportTranslation(b *testing.B) {
	const n = 20_000
	ctx := context.Background()
	db, err := openFresh(b)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	p, _, err := db.SaveProject(ctx, index.Project{Name: "Bench", Slug: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	components := 0
	imp := func(b *testing.B, c index.Component, us []index.ImportUnit) index.ImportResult {
		res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
			Filename: "de.json", Revision: fmt.Sprint(len(us), us[len(us)-1].Target), Monolingual: true, Units: us})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	newComponent := func(b *testing.B) index.Component {
		components++
		return mustTestComponent(b, db, p.ID, fmt.Sprintf("c%d", components))
	}
	small, large, changed := benchUnits("key", 0, 100, true), benchUnits("key", 0, 100+n, true), benchUnits("key", 0, 100+n, false)

	cases := []struct {
		name  string
		setup func(b *testing.B, c index.Component)
		input []index.ImportUnit
		check func(index.ImportResult) bool
	}{
		{"create", func(*testing.B, index.Component) {}, large[:n],
			func(r index.ImportResult) bool { return r.Created && r.Added == n }},
		{"add", func(b *testing.B, c index.Component) { imp(b, c, small) }, large,
			func(r index.ImportResult) bool { return r.Added == n }},
		{"update", func(b *testing.B, c index.Component) { imp(b, c, small); imp(b, c, large) }, changed,
			func(r index.ImportResult) bool { return r.Updated == n+100 }},
		{"remove", func(b *testing.B, c index.Component) { imp(b, c, small); imp(b, c, large) }, small,
			func(r index.ImportResult) bool { return r.Removed == n }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				c := newComponent(b)
				tc.setup(b, c)
				b.StartTimer()
				if res := imp(b, c, tc.input); !tc.check(res) {
					b.Fatalf("%s: %+v", tc.name, res)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "units/s")
		})
	}
}

// mustTestComponent saves a component of the project.
func mustTestComponent(tb testing.TB, db *DB, projectID int64, slug string) index.Component {
	tb.Helper()
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template = projectID, slug, slug, "en.json"
	c, _, err := db.SaveComponent(context.Background(), c)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
