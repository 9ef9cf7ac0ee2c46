package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkBackgroundRecheck times the background recheck of a
// 200,000-unit component (issue 26): a source of 20,000 strings and
// nine translations of it, every unit rechecked after its check_flags
// change, defaultRecheckBatch units per write through the writer. Each
// iteration changes the flags (alternately max-length:20 and none) and
// waits for the recheck's end, then checks the counts equal a recount;
// the fixture is built outside the timed part.
//
//	go test ./index/sqlstore -run '^$' -bench BackgroundRecheck -benchtime 3x
func BenchmarkBackgroundRecheck(b *testing.B) {
	const perTranslation, languages = 20_000, 10
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
	c := mustTestComponent(b, db, p.ID, "big")
	var srcID int64
	for i, lang := range []string{"en", "de", "fr", "cs", "it", "es", "pt", "pl", "nl", "sv"}[:languages] {
		units := benchUnits("key", 0, perTranslation, true)
		if i == 0 {
			for j := range units {
				units[j].Target, units[j].State = units[j].Source, index.StateReadOnly
			}
		}
		res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang,
			Filename: lang + ".json", Revision: "r", Monolingual: true, IsSource: i == 0, IsTemplate: i == 0,
			SourceTranslationID: srcID, Units: units})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			srcID = res.TranslationID
		}
	}
	db.trigrams.hold() // the index's upkeep of the import is not the recheck's
	flags := []string{"max-length:20", ""}
	countFailing := func() (n int) {
		b.Helper()
		if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM units u JOIN translations t ON t.id = u.translation_id
			WHERE t.component_id = ? AND u.has_failing_check = 1`, c.ID).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	before := countFailing()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, _, err := db.UpdateComponent(ctx, c.ID, func(c *index.Component) error {
			c.CheckFlags = flags[i%2]
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		db.waitRechecksFor(b, 10*time.Minute)
		b.ReportMetric(time.Since(start).Seconds(), "s/recheck")
		b.StopTimer()
		failing := countFailing()
		// Every source string, "Source string number 1234", is over 85%
		// of 20 characters (source-max-length); without flags the
		// component fails what it failed before any.
		if i%2 == 0 && failing < perTranslation || i%2 == 1 && failing != before {
			b.Fatalf("after flags %q: %d units failing (%d before any flag)", flags[i%2], failing, before)
		}
		if problems, err := db.VerifyCounts(ctx); err != nil || len(problems) > 0 {
			b.Fatalf("counts after the recheck: %v %v", problems, err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(perTranslation*languages)*float64(b.N)/b.Elapsed().Seconds(), "units/s")
}
