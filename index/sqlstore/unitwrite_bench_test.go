package sqlstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// editBench is what the edit benchmarks edit: component "c" of project
// "bench", given a translation of 2,000 units and an editor by load.
type editBench struct {
	db      *DB
	project index.Project
	comp    index.Component
	units   []index.Unit
	actor   index.Actor
	n       atomic.Int64
}

// newEditBench opens a new index with the project and component, for
// load to fill.
func newEditBench(b *testing.B) *editBench {
	b.Helper()
	ctx := context.Background()
	db, err := openFresh(b)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	p, _, err := db.SaveProject(ctx, index.Project{Name: "Bench", Slug: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	return &editBench{db: db, project: p, comp: mustTestComponent(b, db, p.ID, "c")}
}

// load imports the translation and creates its editor.
func (e *editBench) load(b *testing.B) {
	b.Helper()
	ctx := context.Background()
	res, err := e.db.ImportTranslation(ctx, index.TranslationImport{ComponentID: e.comp.ID, LanguageCode: "de",
		Filename: "de.json", Revision: "r1", Monolingual: true, Units: benchUnits("key", 0, 2000, false)})
	if err != nil {
		b.Fatal(err)
	}
	e.units, _, err = e.db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: 2000}})
	if err != nil || len(e.units) != 2000 {
		b.Fatalf("units: %d, %v", len(e.units), err)
	}
	user, err := e.db.CreateUser(ctx, index.User{Username: "anna", Email: "anna@example.com", IsActive: true})
	if err != nil {
		b.Fatal(err)
	}
	e.actor = index.UserActor(&user)
}

// edit makes the next edit: a new value for a unit, as a PATCH does.
func (e *editBench) edit(b *testing.B) {
	i := e.n.Add(1)
	u := e.units[(i*7919)%int64(len(e.units))]
	target := []string{fmt.Sprint("Wert ", i)}
	// The target hinted, as the API's PATCH hints it (targetGuess).
	if _, err := e.db.UpdateUnitExpecting(context.Background(), u.ID, e.actor, target, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: target, State: index.StateTranslated}}, nil
	}); err != nil {
		b.Error(err)
	}
}

// BenchmarkUpdateUnit measures one unit edit as a PATCH makes it
// (UpdateUnit: the rules, the unit row, its change, the statistics rows
// of translation, component, project and language) on a translation of
// 2,000 units, each a new value: one after another ("serial"), and from
// 8 goroutines at once with group commit ("parallel") and with one edit
// per transaction ("parallel-unbatched").
//
//	go test ./index/sqlstore -run '^$' -bench UpdateUnit -count 6
func BenchmarkUpdateUnit(b *testing.B) {
	e := newEditBench(b)
	e.load(b)
	b.Run("serial", func(b *testing.B) {
		for range b.N {
			e.edit(b)
		}
	})
	parallel := func(limit int) func(*testing.B) {
		return func(b *testing.B) {
			e.db.writeBatchLimit = limit
			defer func() { e.db.writeBatchLimit = maxWriteBatch }()
			b.SetParallelism(4) // 8 editors on 2 cores
			commits := e.db.commits.Load()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					e.edit(b)
				}
			})
			b.ReportMetric(float64(b.N)/float64(e.db.commits.Load()-commits), "edits/commit")
		}
	}
	b.Run("parallel", parallel(maxWriteBatch))
	b.Run("parallel-unbatched", parallel(1))
}
