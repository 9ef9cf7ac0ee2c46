package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestEveryUnitInsertIsNoted walks every path that inserts units, with
// the trigram step held, and checks after each that every unit the path
// added is noted for the index as new (unit_trigrams_pending, indexed
// 0) and that VerifyCounts finds every unit indexed or noted. Since
// migration 0059 no trigger notes an inserted unit: the code that
// inserts does (noteUnitRange, noteUnitIDs, noteTranslationUnits), so a
// path that forgets leaves units neither indexed nor noted, which a
// search would never find by a word. The paths: an import creating a
// translation (rows queued 64 to a statement, and the rest), an import
// adding a string to an existing translation (one row, its id back), a
// string added to the source (to every translation) and to a
// translation (its source string too), an upload adding strings, a
// translation added (one INSERT … SELECT), and an id SQLite gives again
// after the removal of the unit that had it (the removal's note, which
// says the index holds the old row, must stay).
func TestEveryUnitInsertIsNoted(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	f.db.trigrams.hold()
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	maxID := func() int64 {
		t.Helper()
		var id int64
		if err := f.db.r.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM units`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// step runs one path and checks the units it added (those over the
	// largest id before it, wantNew of them) are noted as new.
	step := func(name string, wantNew int, run func() error) {
		t.Helper()
		before := maxID()
		if err := run(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var added, noted int
		if err := f.db.r.QueryRowContext(ctx, `SELECT count(*),
			(SELECT count(*) FROM unit_trigrams_pending p WHERE p.unit_id > ? AND p.indexed = 0)
			FROM units WHERE id > ?`, before, before).Scan(&added, &noted); err != nil {
			t.Fatal(err)
		}
		if added != wantNew || noted != wantNew {
			t.Errorf("%s: %d units added, %d noted as new; want %d of each", name, added, noted, wantNew)
		}
		checkStoredStats(t, f.db)
		if t.Failed() {
			t.FailNow()
		}
	}

	// A new translation of 150 strings: two full statements of
	// unitInserter's and one of 22 rows.
	var big index.TranslationImport
	step("import creating a translation", 150, func() error {
		big = index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "cs", Filename: "cs.json",
			Revision: "r", Monolingual: true, SourceTranslationID: f.tr["en"]}
		for i := range 150 {
			key := fmt.Sprintf("k%d", i)
			if i >= 10 {
				key = fmt.Sprintf("cs-only-%d", i) // not in the source: left unlinked
			}
			big.Units = append(big.Units, index.ImportUnit{Context: key, Source: []string{key},
				Target: []string{fmt.Sprintf("Slovo %d", i)}, State: index.StateTranslated})
		}
		res, err := f.db.ImportTranslation(ctx, big)
		f.tr["cs"] = res.TranslationID
		return err
	})
	step("import adding a string to a translation", 1, func() error {
		big.Revision = "r2"
		big.Units = append(big.Units, index.ImportUnit{Context: "cs-new", Source: []string{"cs-new"},
			Target: []string{"Nové"}, State: index.StateTranslated})
		_, err := f.db.ImportTranslation(ctx, big)
		return err
	})
	// en, de, fr and cs each gain the string.
	step("string added to the source", 4, func() error {
		_, err := f.db.AddUnit(ctx, f.tr["en"], f.user, func(index.Translation) (index.NewUnit, error) {
			return index.NewUnit{Context: "added", Source: []string{"Added"}, Target: []string{"Added"},
				State: index.StateReadOnly}, nil
		})
		return err
	})
	// The source gains it first, then the translation.
	step("string added to a translation", 2, func() error {
		_, err := f.db.AddUnit(ctx, f.tr["de"], f.user, func(index.Translation) (index.NewUnit, error) {
			return index.NewUnit{Context: "de-added", Source: []string{"De added"}, Target: []string{"Hinzugefügt"},
				State: index.StateTranslated}, nil
		})
		return err
	})
	step("upload adding strings", 8, func() error {
		_, err := f.db.ApplyUpload(ctx, f.tr["en"], index.Upload{Method: index.UploadAdd, UserID: f.user.UserID,
			Units: []index.ImportUnit{{Context: "up1", Source: []string{"Uploaded one"}},
				{Context: "up2", Source: []string{"Uploaded two"}}}})
		return err
	})
	var units int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM units WHERE translation_id = ?`, f.tr["en"]).Scan(&units); err != nil {
		t.Fatal(err)
	}
	step("translation added", units, func() error {
		_, err := f.db.CreateTranslation(ctx, f.comp.ID, "it", "it.json", f.user)
		return err
	})

	// The largest id goes, indexed: its note says the index holds its
	// row. SQLite gives the next unit the same id, whose note must keep
	// saying so (the step deletes that row before it indexes the new
	// text); PostgreSQL's sequence gives a new id.
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	var srcID int64
	if err := f.db.r.QueryRowContext(ctx, `SELECT source_unit_id FROM units WHERE id = ?`, maxID()).Scan(&srcID); err != nil {
		t.Fatal(err)
	}
	if err := f.db.DeleteUnit(ctx, srcID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
	_, err := f.db.AddUnit(ctx, f.tr["en"], f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{Context: "again", Source: []string{"Again"}, Target: []string{"Again"},
			State: index.StateReadOnly}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
	// The index holds the new text, not the removed one's.
	if got := f.search(t, "en", "Again"); len(got) != 1 || got[0] != "again" {
		t.Errorf("search for the text of the reused id: %q, want [again]", got)
	}
}

// TestTrigramsBulk: trigramsBulk tells trigramBulk notes from a few,
// and a queue emptied again from a full one. On PostgreSQL it asks the
// statistics first (their count of live rows, which lags the writes by
// up to ten seconds: polled here), then counts only when they say bulk.
func TestTrigramsBulk(t *testing.T) {
	f := mustWriteFixture(t)
	f.db.trigrams.hold()
	ctx := context.Background()
	wait := func(want bool) {
		t.Helper()
		deadline := time.Now().Add(40 * time.Second)
		for f.db.trigramsBulk() != want {
			if time.Now().After(deadline) {
				t.Fatalf("trigramsBulk stays %v", !want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	wait(false)
	if err := f.db.writeNarrow(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`INSERT INTO unit_trigrams_pending (unit_id, indexed)
			SELECT 1000000000 + i, 1 FROM (WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
			SELECT i FROM s) n`, trigramBulk)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wait(true)
	if err := f.db.writeNarrow(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`DELETE FROM unit_trigrams_pending WHERE unit_id > 1000000000 + ?`, trigramBulk/2)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wait(false)
}
