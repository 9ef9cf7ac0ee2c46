package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// bulkBench is the component the bulk-write benchmarks write: a
// template of 2,000 strings and 105 translations of it, half of them
// translated, as jellyfin's 106 translations in tolk-bench's bulk rows
// (issue 31: an upload of 1,946 strings 1.3 s on SQLite, 5.8 s on
// PostgreSQL there; a string added to every translation 37 ms, 2.09 s).
type bulkBench struct {
	db    *DB
	srcID int64
	trIDs []int64
	actor index.Actor
}

func newBulkBench(b *testing.B) *bulkBench {
	b.Helper()
	ctx := context.Background()
	e := newEditBench(b)
	db, comp := e.db, e.comp
	user, err := db.CreateUser(ctx, index.User{Username: "anna", Email: "anna@example.com", IsActive: true})
	if err != nil {
		b.Fatal(err)
	}
	res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: comp.ID, LanguageCode: "en",
		Filename: "en.json", Revision: "r1", Monolingual: true, IsSource: true, IsTemplate: true,
		Units: benchUnits("key", 0, 2000, true)})
	if err != nil {
		b.Fatal(err)
	}
	bb := &bulkBench{db: db, srcID: res.TranslationID, actor: index.UserActor(&user)}
	var imports []index.TranslationImport
	for i := range 105 {
		lang := fmt.Sprintf("x%03d", i)
		imports = append(imports, index.TranslationImport{ComponentID: comp.ID, LanguageCode: lang,
			Filename: lang + ".json", Revision: "r1", Monolingual: true, SourceTranslationID: bb.srcID,
			Units: benchUnits("key", 0, 2000, i%2 == 0)})
	}
	results, err := db.ImportTranslations(ctx, imports)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range results {
		bb.trIDs = append(bb.trIDs, r.TranslationID)
	}
	if db.dialect.name == "postgres" {
		// As autovacuum would soon: plans on tables never analyzed
		// are not what a deployment runs.
		if _, err := db.rdb.ExecContext(ctx, "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
	return bb
}

// BenchmarkBulkWrites measures the two bulk writes of tolk-bench's
// writes section at the store: a string added to the source
// translation, which adds it untranslated to the 105 others ("add"),
// and an upload (method translate) changing every one of a
// translation's 2,000 strings ("upload").
//
//	go test ./index/sqlstore -run '^$' -bench BulkWrites -benchtime 5x
func BenchmarkBulkWrites(b *testing.B) {
	bb := newBulkBench(b)
	ctx := context.Background()
	n := 0 // a new string and new values in every run
	b.Run("add", func(b *testing.B) {
		for range b.N {
			n++
			i := n
			if _, err := bb.db.AddUnit(ctx, bb.srcID, bb.actor, func(index.Translation) (index.NewUnit, error) {
				s := []string{fmt.Sprintf("A string added, number %d", i)}
				return index.NewUnit{Context: fmt.Sprintf("added.%d", i), Source: s, Target: s,
					State: index.StateTranslated}, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("upload", func(b *testing.B) {
		for range b.N {
			n++
			i := n
			units := benchUnits("key", 0, 2000, true)
			for j := range units {
				units[j].Source = nil
				units[j].Target = []string{fmt.Sprintf("Übersetzung %d, hochgeladen %d", j, i)}
			}
			res, err := bb.db.ApplyUpload(ctx, bb.trIDs[1], index.Upload{Method: index.UploadTranslate,
				Conflicts: index.ConflictsReplaceTranslated, UserID: bb.actor.UserID, Units: units})
			if err != nil || res.Accepted != 2000 {
				b.Fatalf("upload: %+v, %v", res, err)
			}
		}
	})
}
