package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestAddSourceUnitRoundTrips counts the writer's round trips when a
// string added to a source translation reaches 20 other translations:
// each translation's next position is read with the others' (one query
// for all, not one each), so a translation costs three round trips (its
// change's INSERT, queued, sent with its next unit's INSERT … RETURNING,
// and its trigram note), not four: 84–93 here, 109 before.
func TestAddSourceUnitRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	const others = 20
	var imports []index.TranslationImport
	for i := range others - 2 { // de and fr are the fixture's
		lang := fmt.Sprintf("x%02d", i)
		imports = append(imports, index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: lang,
			Filename: lang + ".json", Revision: "r", Monolingual: true, SourceTranslationID: f.tr["en"],
			Units: benchUnits("k", 0, 10, i%2 == 0)})
	}
	if _, err := db.ImportTranslations(ctx, imports); err != nil {
		t.Fatal(err)
	}
	add := func(key string) []string {
		return rt.during(func() {
			if _, err := db.AddUnit(ctx, f.tr["en"], f.user, func(index.Translation) (index.NewUnit, error) {
				return index.NewUnit{Context: key, Source: []string{"Added " + key}, Target: []string{"Added " + key},
					State: index.StateTranslated}, nil
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
	add("warm")
	log := add("added")
	n := countRoundTrips(log)
	t.Logf("a string added to %d translations: %d round trips", others+1, n)
	if want := 3*others + 36; n > want {
		t.Errorf("a string added to %d translations took %d round trips, want at most %d:\n%s",
			others+1, n, want, strings.Join(log, "\n"))
	}
	// Every translation got the string, after its last unit.
	for lang, id := range f.tr {
		units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: id, Page: index.Page{Number: 1, Size: 100}})
		if err != nil || len(units) == 0 {
			t.Fatalf("%s: %d units, %v", lang, len(units), err)
		}
		if last := units[len(units)-1]; last.Context != "added" || last.Position != units[len(units)-2].Position+1 {
			t.Errorf("%s: the last unit is %q at %d", lang, last.Context, last.Position)
		}
	}
	checkStoredStats(t, db)
}
