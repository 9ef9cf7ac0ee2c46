package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestInsertedUnitsCounted checks list_counts against a recount after
// each way units are inserted, now that the writes count them
// (migration 0019): a new translation of several buckets in batches and
// a partial batch, units added to an existing one by a re-import, a new
// translation copied from the source, a string added to every
// translation, and a write that inserts units and fails.
func TestInsertedUnitsCounted(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	step := func(name string) {
		t.Helper()
		checkListCounts(t, f.db)
		if t.Failed() {
			t.Fatalf("after %s", name)
		}
	}
	step("fixture")

	// 2,500 units: 39 full batches and a partial one, over 3 buckets.
	big := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "it", Filename: "it.json",
		Revision: "r1", Monolingual: true, SourceTranslationID: f.tr["en"], Units: benchUnits("k", 0, 2500, true)}
	res, err := f.db.ImportTranslation(ctx, big)
	if err != nil || !res.Created || res.Added != 2500 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	step("a new translation")

	big.Revision, big.Units = "r2", benchUnits("k", 0, 2600, true)
	if res, err := f.db.ImportTranslation(ctx, big); err != nil || res.Added != 100 {
		t.Fatalf("re-import: %+v, %v", res, err)
	}
	step("units added by a re-import")

	// Units inserted and deleted by one write: the deletes must find
	// the inserted units counted (countBeforeDelete).
	ten := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "nl", Filename: "nl.json",
		Revision: "r1", Monolingual: true, SourceTranslationID: f.tr["en"], Units: benchUnits("n", 0, 10, true)}
	four := ten
	four.Revision, four.Units = "r2", ten.Units[:4]
	if res, err := f.db.ImportTranslations(ctx, []index.TranslationImport{ten, four}); err != nil ||
		len(res) != 2 || res[0].Added != 10 || res[1].Removed != 6 {
		t.Fatalf("import twice in one write: %+v, %v", res, err)
	}
	step("units inserted and removed by one write")

	if _, err := f.db.CreateTranslation(ctx, f.comp.ID, "pt", "pt.json", f.user); err != nil {
		t.Fatal(err)
	}
	step("a translation created from the source")

	if _, err := f.db.AddUnit(ctx, f.tr["en"], f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{Context: "added", Source: []string{"Added"}, Target: []string{"Added"},
			State: index.StateTranslated}, nil
	}); err != nil {
		t.Fatal(err)
	}
	step("a string added to every translation")

	// Writes that insert units and fail, grouped with writes that
	// insert units and succeed: the failed ones' units are not counted.
	boom := errors.New("boom")
	commits := f.db.commits.Load()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 10 {
				fail := (w+n)%3 == 0
				err := f.db.write(ctx, func(tx *Tx) error {
					ins, err := newUnitInserter(tx)
					if err != nil {
						return err
					}
					for i := range 3 {
						row := []any{f.tr["de"], 1000 + i, fmt.Sprintf("w%d.n%d.%d", w, n, i), "S", "", int64(w*1000 + n*10 + i),
							int64(i), "", "", "", "", index.StateEmpty, 1, 1, formatTime(tx.now), nil}
						if i == 2 {
							_, err = ins.add(row...)
						} else {
							err = ins.queue(row...)
						}
						if err != nil {
							return err
						}
					}
					if fail {
						return boom
					}
					return nil
				})
				if fail != errors.Is(err, boom) || !fail && err != nil {
					t.Errorf("write %d/%d (fail %v): %v", w, n, fail, err)
				}
			}
		}()
	}
	wg.Wait()
	if c := f.db.commits.Load() - commits; c >= 80 {
		t.Fatalf("80 writes in %d transactions: nothing grouped", c)
	}
	step("writes failing beside others")
}
