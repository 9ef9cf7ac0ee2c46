package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestLabelComplementCount: a list leaving out labelled strings is
// counted by subtraction (countUnits); its total must be what counting
// the negation itself gives, in every scope and beside other terms.
func TestLabelComplementCount(t *testing.T) {
	f := mustSearchFixture(t)
	ctx := context.Background()
	pg := f.db.dialect.name == "postgres"
	filters := []index.UnitFilter{{}, {TranslationID: f.tr["de"]}, {TranslationID: f.tr["fr"]},
		{HiddenProjects: []int64{f.comp.ProjectID}}}
	queries := []string{"NOT has:label", "NOT label:urgent", "NOT label:orphan language:fr",
		"k1 OR k9 NOT has:label", "(k0 OR k9 OR k8) NOT label:ui-text", "NOT has:label NOT label:orphan is:untranslated",
		"id:>=-1 NOT has:label", `NOT label:r"^u" state:<translated`, "NOT (has:label)", "NOT label:none"}
	// Id bounds around units of each language: R is then counted from
	// the list counts (countByKey), across cut buckets.
	de3, fr5 := f.unit(t, "de", 3).ID, f.unit(t, "fr", 5).ID
	keyed := []string{fmt.Sprintf("id:>%d", de3), fmt.Sprintf("id:<%d", fr5), fmt.Sprintf("id:[%d to %d]", de3, fr5),
		fmt.Sprintf("id:%d", fr5), fmt.Sprintf("id:>=%d id:<=%d", de3, fr5), "id:>9223372036854775806",
		"id:<=9223372036854775807", "id:>9223372036854775807", "id:<1", "id:>=-5"}
	for _, k := range keyed {
		queries = append(queries, k+" NOT has:label")
		parsed, err := index.ParseUnitQueryAt(k, f.db.now())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := countByKey(ctx, f.db.r, index.UnitFilter{}, parsed, pg); err != nil || !ok {
			t.Errorf("%s: not counted from the list counts (%v)", k, err)
		}
	}
	for _, base := range filters {
		for _, q := range queries {
			fl := base
			fl.Query, fl.Page = q, index.Page{Number: 1, Size: 100}
			parsed, err := index.ParseUnitQueryAt(q, f.db.now())
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok := labelComplement(parsed); !ok && q != "k1 OR k9 NOT has:label" {
				t.Errorf("%s: not counted by subtraction", q)
			}
			where, args, err := unitWhere(fl, pg, f.db.now())
			if err != nil {
				t.Fatal(err)
			}
			var want int
			if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM units`+where, args...).Scan(&want); err != nil {
				t.Fatal(err)
			}
			units, total, err := f.db.FindUnits(ctx, fl)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if total != want || len(units) != want {
				t.Errorf("%s in %+v: total %d, %d units, want %d", q, base, total, len(units), want)
			}
		}
	}
}
