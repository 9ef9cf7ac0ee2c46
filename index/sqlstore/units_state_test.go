package sqlstore

import (
	"context"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestStatePlan: a state term that leaves empty (0) and translated (20)
// out carries units_state's predicate and reads the partial index
// (SQLite's migration 0093), or on PostgreSQL reads the side table of
// the rare states, unit_states (migration 0114); one that takes either
// in does neither (neither holds those units).
func TestStatePlan(t *testing.T) {
	f := mustSearchFixture(t)
	rare, idx := unitsStatePredicate, "units_state"
	if f.db.dialect.name == "postgres" {
		rare, idx = "unit_states", "unit_states_pkey"
	}
	for _, q := range []string{"state:approved", "is:approved", "is:fuzzy", "is:read-only", "state:>=approved",
		"state:[needs-editing to 19]", "state:needs-editing"} {
		cond := compiledSearch(t, f.db, q)
		if !strings.Contains(cond.sql, rare) {
			t.Errorf("%s: no %s in %s", q, rare, cond.sql)
		}
		plan, _ := explain(t, f.db, `SELECT count(*) FROM units WHERE `+cond.sql, cond.args...)
		if !strings.Contains(plan, idx) {
			t.Errorf("%s: the plan does not use %s:\n%s", q, idx, plan)
		}
	}
	for _, q := range []string{"state:<translated", "state:>=translated", "is:translated", "is:untranslated", "is:empty",
		"state:empty", "state:translated", "state:[0 to 10]", "has:translation"} {
		if cond := compiledSearch(t, f.db, q); strings.Contains(cond.sql, rare) {
			t.Errorf("%s takes in 0 or 20, yet excludes them: %s", q, cond.sql)
		}
	}
}

// TestStateCountsFromStats: a search of one state term, counted from the
// statistics rows (countByState), gives the count of its units (the
// fixture's statistics are recounted after it sets states by SQL), in every
// scope a list has: the whole index, a translation, with and without a
// hidden project; and the page holds the units counted. The fixture has
// units of every state: empty, 10, 11, 12, 20, 30 and 100 (the source).
func TestStateCountsFromStats(t *testing.T) {
	f := mustSearchFixture(t)
	ctx := context.Background()
	other, _, err := f.db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"})
	if err != nil {
		t.Fatal(err)
	}
	comp := mustTestComponent(t, f.db, other.ID, "web")
	ids := map[string]int64{}
	for _, lang := range []string{"en", "de"} {
		imp := index.TranslationImport{ComponentID: comp.ID, LanguageCode: lang, Filename: lang + ".json",
			Revision: "r", Monolingual: true, IsSource: lang == "en", IsTemplate: lang == "en"}
		for i, s := range []string{"one", "two", "three"} {
			u := index.ImportUnit{Context: s, Source: []string{s}}
			if lang == "de" && i > 0 {
				u.Target, u.State = []string{"de " + s}, index.StateTranslated
			}
			imp.Units = append(imp.Units, u)
		}
		imp.SourceTranslationID = ids["en"]
		res, err := f.db.ImportTranslation(ctx, imp)
		if err != nil {
			t.Fatal(err)
		}
		ids[lang] = res.TranslationID
	}
	filters := map[string]index.UnitFilter{
		"all":             {},
		"hidden":          {HiddenProjects: []int64{other.ID}},
		"both hidden":     {HiddenProjects: []int64{other.ID, f.comp.ProjectID}},
		"de":              {TranslationID: f.tr["de"]},
		"fr":              {TranslationID: f.tr["fr"]},
		"en":              {TranslationID: f.tr["en"]},
		"de of the other": {TranslationID: ids["de"]},
	}
	counted := 0
	for _, q := range []string{"state:<translated", "state:>=translated", "is:translated", "is:untranslated",
		"is:empty", "state:empty", "is:needs-editing", "is:fuzzy", "is:approved", "state:approved", "is:read-only",
		"state:read-only", "has:translation", "is:untranslated AND id:>=-5", "id:>=0 AND state:>=translated AND id:<=9223372036854775807",
		"state:<translated AND id:>=3", "state:<translated AND id:<5"} {
		parsed, err := index.ParseUnitQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		for name, flt := range filters {
			where, args, err := unitWhereQuery(flt, parsed, f.db.dialect.name == "postgres")
			if err != nil {
				t.Fatal(err)
			}
			var want int
			if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM units`+where, args...).Scan(&want); err != nil {
				t.Fatal(err)
			}
			n, ok, err := countByState(ctx, f.db.r, flt, parsed)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				counted++
				if n != want {
					t.Errorf("%s (%s): counted %d from the statistics, %d units", q, name, n, want)
				}
			}
			flt.Query, flt.Page = q, index.Page{Number: 1, Size: 100}
			units, total, err := f.db.FindUnits(ctx, flt)
			if err != nil {
				t.Fatal(err)
			}
			if total != want || len(units) != want {
				t.Errorf("%s (%s): total %d, %d units, want %d", q, name, total, len(units), want)
			}
		}
	}
	if counted == 0 {
		t.Error("no count came from the statistics")
	}
}
