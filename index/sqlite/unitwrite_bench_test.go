package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkUpdateUnit measures one unit edit as a PATCH makes it
// (UpdateUnit: the rules, the unit row, its change, the statistics rows
// of translation, component, project and language), one after another
// on a translation of 2,000 units, each a new value.
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
	b.ResetTimer()
	for i := range b.N {
		u := units[(i*7919)%len(units)]
		if _, err := db.UpdateUnit(ctx, u.ID, actor, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{fmt.Sprint("Wert ", i)}, State: index.StateTranslated}}, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
