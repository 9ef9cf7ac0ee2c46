package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestImportAnalyzesUnits: an import that grew units past four times
// its statistics leaves them analyzed when it returns (analyzeImported), so
// that the plans the edits after it make (generic ones, kept until the
// next ANALYZE) are made on the table's size: without it the table is
// unanalyzed here (reltuples -1) and the test fails. The plan of the
// inconsistent check's lookup of the peers' strings (pgSameStrings) is
// checked too: a probe by translation and hash. At this fixture's size
// the planner probes even unanalyzed; at the corpus's it read the peers
// whole in a third of BATCH12's runs (BENCHMARKS.md).
func TestImportAnalyzesUnits(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("ANALYZE after an import is PostgreSQL's")
	}
	f := mustWriteFixture(t)
	ctx := context.Background()
	langs := fiveLanguages(1500, func(i int) string { return fmt.Sprintf("String number %d", i) })
	_, tr := f.importComponent(t, "big", func(*index.Component) {}, langs)
	tx, err := f.db.beginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var rows float64
	var units int
	if err := tx.tx.QueryRowContext(ctx, `SELECT (SELECT reltuples FROM pg_class WHERE oid = 'units'::regclass),
		(SELECT count(*) FROM units)`).Scan(&rows, &units); err != nil {
		t.Fatal(err)
	}
	if rows < float64(units)/4 {
		t.Errorf("units' statistics count %.0f rows of %d after the import", rows, units)
	}
	query := pgSameStrings
	for i := 1; strings.Contains(query, "?"); i++ {
		query = strings.Replace(query, "?", fmt.Sprint("$", i), 1)
	}
	for _, stmt := range []string{"SET LOCAL plan_cache_mode = force_generic_plan",
		"PREPARE same_plan (BIGINT[], BIGINT[]) AS " + query} {
		if _, err := tx.tx.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	plan, err := tx.tx.QueryContext(ctx, fmt.Sprintf(`EXPLAIN EXECUTE same_plan('{%d,%d}', '{1,2}')`, tr["de"], tr["fr"]))
	if err != nil {
		t.Fatal(err)
	}
	text := planText(t, plan)
	if !strings.Contains(text, "units_translation_hash") {
		t.Errorf("the peers' strings not probed by translation and hash after the import:\n%s", text)
	}
}

// fiveLanguages is importComponent's strings for a template (en) and four
// translations of it: keys strings each, key k<i>, the source source(i),
// each language's target the source after its code.
func fiveLanguages(keys int, source func(i int) string) map[string][][3]string {
	langs := map[string][][3]string{}
	for _, lang := range []string{"en", "de", "fr", "es", "it"} {
		for i := range keys {
			src := source(i)
			langs[lang] = append(langs[lang], [3]string{fmt.Sprint("k", i), src, lang + " " + src})
		}
	}
	return langs
}
