package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkUpdateUnit measures one unit edit as a PATCH makes it
// (UpdateUnit: the rules, the unit row, its change, the statistics rows
// of translation, component, project and language) on a translation of
// 2,000 units, each a new value: one after another ("serial"), and from
// 8 goroutines at once with group commit ("parallel") and with one edit
// per transaction ("parallel-unbatched").
//
//	go test ./index/sqlite -run '^$' -bench UpdateUnit -count 6
func BenchmarkUpdateUnit(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "tolk.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	p, _, err := db.SaveProject(ctx, index.Project{Name: "Bench", Slug: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	c := mustTestComponent(b, db, p.ID, "c")
	res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
		Filename: "de.json", Revision: "r1", Monolingual: true, Units: benchUnits("key", 0, 2000, false)})
	if err != nil {
		b.Fatal(err)
	}
	units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: 2000}})
	if err != nil || len(units) != 2000 {
		b.Fatalf("units: %d, %v", len(units), err)
	}
	user, err := db.CreateUser(ctx, index.User{Username: "anna", Email: "anna@example.com", IsActive: true})
	if err != nil {
		b.Fatal(err)
	}
	actor := index.UserActor(&user)
	var n atomic.Int64
	edit := func(b *testing.B) {
		i := n.Add(1)
		u := units[(i*7919)%int64(len(units))]
		if _, err := db.UpdateUnit(ctx, u.ID, actor, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{fmt.Sprint("Wert ", i)}, State: index.StateTranslated}}, nil
		}); err != nil {
			b.Error(err)
		}
	}
	b.Run("serial", func(b *testing.B) {
		for range b.N {
			edit(b)
		}
	})
	parallel := func(limit int) func(*testing.B) {
		return func(b *testing.B) {
			db.writeBatchLimit = limit
			defer func() { db.writeBatchLimit = maxWriteBatch }()
			b.SetParallelism(4) // 8 editors on 2 cores
			commits := db.commits.Load()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					edit(b)
				}
			})
			b.ReportMetric(float64(b.N)/float64(db.commits.Load()-commits), "edits/commit")
		}
	}
	b.Run("parallel", parallel(maxWriteBatch))
	b.Run("parallel-unbatched", parallel(1))
}
