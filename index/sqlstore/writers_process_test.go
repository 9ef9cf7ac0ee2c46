package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// Several writers in one process (writers.go): one index handle whose
// Options.Writers writer goroutines run batches at once on PostgreSQL.

// oneProcessWriters opens an index on a new schema with n writers, or
// skips: SQLite keeps one writer.
func oneProcessWriters(t testing.TB, n int) *DB {
	t.Helper()
	if testengine.Engine() != testengine.Postgres {
		t.Skip("several writers in one process are PostgreSQL's")
	}
	db, err := Open(context.Background(), Options{Engine: Postgres, Location: testengine.PostgresDSN(t), Writers: n})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestWritersInOneProcessRunAtOnce: with two writers, one process's edits
// of two translations (two languages of a component that propagates,
// whose scopes are the project's languages) are inside their write
// transactions at the same time; with one writer they never are. Edits
// of one translation, of one language across the project's propagating
// components, and a source string's edit beside a translation's take
// turns.
func TestWritersInOneProcessRunAtOnce(t *testing.T) {
	db := oneProcessWriters(t, 2)
	actor := mustWriter(t, db)
	f := mustLangsFixture(t, db, "p", "app", true, []string{"de", "fr"}, 8)
	peer := mustLangsFixture(t, db, "p", "peer", true, []string{"de"}, 8)
	solo := mustLangsFixture(t, db, "q", "solo", false, []string{"de", "fr"}, 8)
	edit := func(unit int64) func() error {
		return func() error {
			_, err := db.UpdateUnit(context.Background(), unit, actor, setTarget("beside"))
			return err
		}
	}
	if !during(t, db, actor, f.units["de"][0], 10*time.Second, edit(f.units["fr"][0])) {
		t.Error("two writers' edits of two languages of a propagating component took turns")
	}
	if !during(t, db, actor, solo.units["de"][0], 10*time.Second, edit(solo.units["fr"][0])) {
		t.Error("two writers' edits of two translations of a component that does not propagate took turns")
	}
	if !during(t, db, actor, f.units["de"][1], 10*time.Second, edit(solo.units["de"][1])) {
		t.Error("two writers' edits of two projects took turns")
	}
	if during(t, db, actor, f.units["de"][2], 300*time.Millisecond, edit(f.units["de"][3])) {
		t.Error("two edits of one translation ran at once")
	}
	if during(t, db, actor, f.units["de"][4], 300*time.Millisecond, edit(peer.units["de"][4])) {
		t.Error("edits of one language in two propagating components (propagation's peers) ran at once")
	}
	// The source string (a template's: its edit moves every translation's
	// source) locks its whole component.
	if during(t, db, actor, solo.units["de"][5], 300*time.Millisecond, func() error {
		_, err := db.UpdateUnit(context.Background(), solo.units["en"][5], actor, setTarget("New source"))
		return err
	}) {
		t.Error("a source string's edit ran beside an edit of its component's translation")
	}
	one := oneProcessWriters(t, 1)
	oneActor := mustWriter(t, one)
	g := mustLangsFixture(t, one, "p", "app", true, []string{"de", "fr"}, 2)
	if during(t, one, oneActor, g.units["de"][0], 300*time.Millisecond, func() error {
		_, err := one.UpdateUnit(context.Background(), g.units["fr"][0], oneActor, setTarget("beside"))
		return err
	}) {
		t.Error("one writer ran two batches at once")
	}
	checkStoredStats(t, db)
	checkStoredStats(t, one)
}

// TestWritersInOneProcessKeepEveryUpdate: eight editors of one process
// with two writers add one to the same unit's number (read, then write
// the number plus one) and translate units of four translations, each
// then reading its translation's units page and statistics, which the
// caches answer: no increment is lost, each editor reads its own edit at
// once (read-your-writes while the other writer commits), and every
// counter matches a recount.
func TestWritersInOneProcessKeepEveryUpdate(t *testing.T) {
	db := oneProcessWriters(t, 2)
	actor := mustWriter(t, db)
	langs := []string{"de", "fr", "es", "it"}
	const editors, rounds = 8, 15
	const n = 2*rounds + 2
	f := mustLangsFixture(t, db, "p", "app", true, langs, n)
	ctx := context.Background()
	var wg sync.WaitGroup
	for e := range editors {
		lang := langs[e%len(langs)]
		wg.Go(func() {
			for i := range rounds {
				if _, err := db.UpdateUnit(ctx, f.units["de"][0], actor, func(u index.Unit, t index.Translation) (index.UnitUpdate, error) {
					n, _ := strconv.Atoi(u.Target[0])
					return setTarget(strconv.Itoa(n+1))(u, t)
				}); err != nil {
					t.Error(err)
					return
				}
				// Editors e and e+4 share a translation, each its own units.
				k := 1 + (e/len(langs))*rounds + i
				want := fmt.Sprintf("e%d-%d", e, i)
				if _, err := db.UpdateUnit(ctx, f.units[lang][k], actor, setTarget(want)); err != nil {
					t.Error(err)
					return
				}
				units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: f.trs[lang], Page: index.Page{Number: 1, Size: 100}})
				if err != nil {
					t.Error(err)
					return
				}
				for _, u := range units {
					if u.ID == f.units[lang][k] && (len(u.Target) != 1 || u.Target[0] != want) {
						t.Errorf("editor %d reads unit %d as %q right after writing %q", e, u.ID, u.Target, want)
					}
				}
				st, err := db.TranslationStats(ctx, f.trs[lang])
				if err != nil {
					t.Error(err)
					return
				}
				// At least its own i+1 edits of this translation (and
				// for German the counter unit).
				if st.Translated < i+1 {
					t.Errorf("editor %d reads %d translated in %s after %d edits of its own", e, st.Translated, lang, i+1)
				}
			}
		})
	}
	wg.Wait()
	u, err := db.FindUnitByID(ctx, f.units["de"][0])
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(editors * rounds); len(u.Target) != 1 || u.Target[0] != want {
		t.Errorf("the unit's number is %q, want %s: increments were lost", u.Target, want)
	}
	for _, lang := range langs {
		st, err := db.TranslationStats(ctx, f.trs[lang])
		if err != nil {
			t.Fatal(err)
		}
		want := 2 * rounds
		if lang == "de" {
			want++
		}
		if st.Translated != want {
			t.Errorf("%s: %d translated, want %d", lang, st.Translated, want)
		}
	}
	checkStoredStats(t, db)
}

// oneWriterFixture is mustWriteFixture with one writer, for the tests
// that hold the writer with one write and look at how the writes queued
// meanwhile form one batch: a second writer would take them.
func oneWriterFixture(tb testing.TB) *writeFixture {
	tb.Helper()
	return mustWriteFixtureWith(tb, Options{Writers: 1})
}

// BenchmarkWritersLangsTwo is BenchmarkWritersLangs with two writers in
// the process (BenchmarkWritersLangs has one: the default is two since
// session 13, so both name theirs).
//
//	TOLK_TEST_ENGINE=postgres go test ./index/sqlstore -run '^$' -bench WritersLangs -benchtime 4000x
func BenchmarkWritersLangsTwo(b *testing.B) { benchWritersLangs(b, Options{Writers: 2}) }

// TestWritersScopeFollowsPropagation: whether a component propagates,
// which decides its edits' scopes (lock_write_scopes), is read from the
// column a trigger keeps from its settings (migration 0104), and follows
// a change of the setting: two components of one project that do not
// propagate have their German translations edited at once by two
// writers; once both propagate, the two are one scope and take turns,
// and once one stops again, they run at once.
func TestWritersScopeFollowsPropagation(t *testing.T) {
	db := oneProcessWriters(t, 2)
	actor := mustWriter(t, db)
	a := mustLangsFixture(t, db, "p", "a", false, []string{"de"}, 6)
	b := mustLangsFixture(t, db, "p", "b", false, []string{"de"}, 6)
	propagate := func(id int64, on bool) {
		t.Helper()
		if _, _, err := db.UpdateComponent(context.Background(), id, func(c *index.Component) error {
			c.AllowTranslationPropagation = on
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(unit int64) func() error {
		return func() error {
			_, err := db.UpdateUnit(context.Background(), unit, actor, setTarget("beside"))
			return err
		}
	}
	if !during(t, db, actor, a.units["de"][0], 10*time.Second, edit(b.units["de"][0])) {
		t.Error("edits of one language in two components that do not propagate took turns")
	}
	propagate(a.comp.ID, true)
	propagate(b.comp.ID, true)
	if during(t, db, actor, a.units["de"][1], 300*time.Millisecond, edit(b.units["de"][1])) {
		t.Error("edits of one language in two components that propagate ran at once")
	}
	propagate(b.comp.ID, false)
	if !during(t, db, actor, a.units["de"][2], 10*time.Second, edit(b.units["de"][2])) {
		t.Error("edits of one language in two components, one of which stopped propagating, took turns")
	}
	checkStoredStats(t, db)
}
