package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// writeFixture is a monolingual component "app" with a template (en, ten
// source strings) and translations de (half translated) and fr (empty).
type writeFixture struct {
	db   *DB
	comp index.Component
	tr   map[string]int64 // by language
	user index.Actor
	// clock is the index's clock, which a test may set; nil on the
	// indexes newWriteFixture is given.
	clock *testengine.Clock
}

func mustWriteFixture(tb testing.TB) *writeFixture { return mustWriteFixtureWith(tb, Options{}) }

// mustWriteFixtureWith is mustWriteFixture on an index opened with o
// (its clock the fixture's), which counts its paths (f.db.paths).
func mustWriteFixtureWith(tb testing.TB, o Options) *writeFixture {
	tb.Helper()
	clock := &testengine.Clock{}
	o.Now = clock.Now
	if o.paths == nil {
		o.paths = &pathCounts{}
	}
	db, err := openFreshWith(tb, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	f := newWriteFixture(tb, db)
	f.clock = clock
	return f
}

// newWriteFixture is mustWriteFixture on an open, empty db.
func newWriteFixture(tb testing.TB, db *DB) *writeFixture {
	tb.Helper()
	ctx := context.Background()
	p, _, err := db.SaveProject(ctx, index.Project{Name: "P", Slug: "p"})
	if err != nil {
		tb.Fatal(err)
	}
	f := &writeFixture{db: db, comp: mustTestComponent(tb, db, p.ID, "app"), tr: map[string]int64{}}
	u, err := db.SaveUser(ctx, index.User{Username: "ed", IsActive: true})
	if err != nil {
		tb.Fatal(err)
	}
	f.user = index.UserActor(&u)
	for _, lang := range []string{"en", "de", "fr"} {
		imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: lang, Filename: lang + ".json",
			Revision: "r", Monolingual: true, IsSource: lang == "en", IsTemplate: lang == "en", SourceTranslationID: f.tr["en"]}
		for i := range 10 {
			src := fmt.Sprintf("Word number %d", i)
			iu := index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{src}, Target: []string{""}}
			switch {
			case lang == "en":
				iu.Target, iu.State = iu.Source, index.StateReadOnly
			case lang == "de" && i%2 == 0:
				iu.Target, iu.State = []string{fmt.Sprintf("Wort Nummer %d", i)}, index.StateTranslated
			}
			imp.Units = append(imp.Units, iu)
		}
		res, err := db.ImportTranslation(ctx, imp)
		if err != nil {
			tb.Fatal(err)
		}
		f.tr[lang] = res.TranslationID
	}
	return f
}

// unit returns the unit of a language with key k<i>.
func (f *writeFixture) unit(tb testing.TB, lang string, i int) index.Unit {
	tb.Helper()
	id, err := f.db.FindUnitIDByHash(context.Background(), f.tr[lang], index.IDHash(true, nil, fmt.Sprintf("k%d", i)))
	if err != nil {
		tb.Fatalf("%s k%d: %v", lang, i, err)
	}
	u, err := f.db.FindUnitByID(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// checkStoredStats recounts every counter the index keeps
// (VerifyCounts: the units' own, the statistics at every level, the
// list counts) and fails t on each that differs.
func checkStoredStats(t *testing.T, db *DB) {
	t.Helper()
	problems, err := db.VerifyCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func (f *writeFixture) changeCount(tb testing.TB) int {
	tb.Helper()
	var n int
	if err := f.db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM changes`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestUnitWritesKeepCounts runs each kind of unit write and checks after
// every one that the statistics at each level and the list counts equal
// a recount.
func TestUnitWritesKeepCounts(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		checkStoredStats(t, f.db)
		checkListCounts(t, f.db)
		if t.Failed() {
			t.Fatalf("after %s", step)
		}
	}
	check("import")
	edit := func(lang string, i int, ed index.UnitEdit) index.Unit {
		t.Helper()
		u, err := f.db.UpdateUnit(ctx, f.unit(t, lang, i).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &ed}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	edit("de", 1, index.UnitEdit{Target: []string{"Eins"}, State: index.StateTranslated})
	edit("de", 0, index.UnitEdit{Target: []string{"Null"}, State: index.StateApproved})
	edit("fr", 3, index.UnitEdit{Target: []string{"trois"}, State: index.StateFuzzy})
	check("translation edits")

	// A template edit moves the source of every translation; the German
	// translation of k2 goes back to needing editing: "needs rewriting"
	// (11), as the reference marks a source change.
	tmpl := edit("en", 2, index.UnitEdit{Target: []string{"The second word of many"}, State: index.StateReadOnly})
	if tmpl.Source[0] != "The second word of many" || tmpl.NumWords != 5 || !tmpl.Pending {
		t.Errorf("template unit %+v", tmpl)
	}
	de := f.unit(t, "de", 2)
	if de.Source[0] != "The second word of many" || de.State != index.StateNeedsRewriting || de.PreviousSource != "Word number 2" ||
		de.ContentHash != index.ContentHash(de.Source, "k2") || de.Pending {
		t.Errorf("German unit after the template edit: %+v", de)
	}
	if fr := f.unit(t, "fr", 2); fr.State != index.StateEmpty || fr.Source[0] != "The second word of many" {
		t.Errorf("French unit after the template edit: %+v", fr)
	}
	check("template edit")

	tr, err := f.db.FindTranslationByID(ctx, f.tr["en"])
	if err != nil {
		t.Fatal(err)
	}
	added, err := f.db.AddUnit(ctx, tr.ID, f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{Context: "k10", Source: []string{"Ten"}, Target: []string{"Ten"}, State: index.StateReadOnly}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if added.Position != 11 || added.SourceUnitID != added.ID || !added.Pending {
		t.Errorf("added %+v", added)
	}
	if fr := f.unit(t, "fr", 10); fr.SourceUnitID != added.ID || fr.State != index.StateEmpty {
		t.Errorf("French unit of the added string: %+v", fr)
	}
	check("add")

	if err := f.db.DeleteUnit(ctx, f.unit(t, "en", 4).ID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "de", "fr"} {
		removed, err := f.db.RemovedUnits(ctx, f.tr[lang])
		if err != nil || len(removed) != 1 || removed[0].Context != "k4" || removed[0].Source[0] != "Word number 4" {
			t.Errorf("%s: removed %+v, %v", lang, removed, err)
		}
	}
	check("delete")
}

// TestUnitWritesRollBack: whatever the rules refuse, and whatever fails
// after part of a write, leaves nothing behind.
func TestUnitWritesRollBack(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	before := f.changeCount(t)
	refused := errors.New("refused")
	id := f.unit(t, "de", 1).ID
	if _, err := f.db.UpdateUnit(ctx, id, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{}, refused
	}); !errors.Is(err, refused) {
		t.Errorf("update: %v", err)
	}
	if _, err := f.db.AddUnit(ctx, f.tr["en"], f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{}, refused
	}); !errors.Is(err, refused) {
		t.Errorf("add: %v", err)
	}
	if err := f.db.DeleteUnit(ctx, id, f.user, func(index.Unit, index.Translation) error { return refused }); !errors.Is(err, refused) {
		t.Errorf("delete: %v", err)
	}
	if _, err := f.db.UpdateUnit(ctx, 424242, f.user, nil); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("unknown unit: %v", err)
	}
	// A string that exists is refused after the rules passed.
	_, err := f.db.AddUnit(ctx, f.tr["en"], f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{Context: "k1", Source: []string{"x"}, Target: []string{"x"}, State: index.StateReadOnly}, nil
	})
	var fe *index.FieldError
	if !errors.As(err, &fe) || fe.Fields["non_field_errors"].Detail != "This string seems to already exist." {
		t.Errorf("duplicate: %v", err)
	}
	// A failure half-way (an edit of a user that does not exist breaks
	// the change's foreign key after the unit row was written) rolls the
	// unit back too.
	ghost := index.Actor{UserID: 999, AuthorID: 999}
	if _, err := f.db.UpdateUnit(ctx, id, ghost, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"x"}, State: index.StateTranslated}}, nil
	}); err == nil {
		t.Error("an edit by an unknown user succeeded")
	}
	if u := f.unit(t, "de", 1); u.Target[0] != "" || u.Pending {
		t.Errorf("unit after the failed edit: %+v", u)
	}
	if after := f.changeCount(t); after != before {
		t.Errorf("%d changes recorded by failed writes", after-before)
	}
	checkStoredStats(t, f.db)
}

// TestUpdateUnitSerializes has many goroutines append to one unit's
// target through decide, which sees the unit as stored: if two writes
// ever decided on the same state, one append would be lost.
func TestUpdateUnitSerializes(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	id := f.unit(t, "fr", 5).ID
	const writers, each = 16, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := f.db.UpdateUnit(ctx, id, f.user, func(u index.Unit, _ index.Translation) (index.UnitUpdate, error) {
					return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{u.Target[0] + string(rune('a'+w))},
						State: index.StateTranslated}}, nil
				})
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	u := f.unit(t, "fr", 5)
	if len(u.Target[0]) != writers*each {
		t.Errorf("target has %d letters after %d appends: updates were lost", len(u.Target[0]), writers*each)
	}
	var n int
	f.db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM changes WHERE unit_id = ? AND action IN (2, 5)`, id).Scan(&n)
	if n != writers*each {
		t.Errorf("%d changes for %d edits", n, writers*each)
	}
	for w := range writers {
		if c := strings.Count(u.Target[0], string(rune('a'+w))); c != each {
			t.Errorf("writer %d appended %d times, want %d", w, c, each)
		}
	}
	checkStoredStats(t, f.db)
}

// TestComponentLock records a lock and an unlock once each.
func TestComponentLock(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	for _, step := range []struct {
		locked, changed bool
	}{{true, true}, {true, false}, {false, true}, {false, false}} {
		changed, err := f.db.SetComponentLock(ctx, f.comp.ID, step.locked, f.user)
		if err != nil || changed != step.changed {
			t.Fatalf("lock %v: changed %v, %v", step.locked, changed, err)
		}
	}
	actions := mustIDList(t, f.db.r, `SELECT action FROM changes WHERE action IN (14, 15) AND user_id = ? ORDER BY id`,
		f.user.UserID)
	if !slices.Equal(actions, []int64{14, 15}) {
		t.Errorf("lock changes %v", actions)
	}
	if _, err := f.db.SetComponentLock(ctx, 4242, true, f.user); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("unknown component: %v", err)
	}
	n, err := f.db.SetProjectLock(ctx, f.comp.ProjectID, true, f.user)
	locked, lerr := f.db.ProjectLocked(ctx, f.comp.ProjectID)
	if err != nil || n != 1 || lerr != nil || !locked {
		t.Errorf("project lock: %d %v, locked %v %v", n, err, locked, lerr)
	}
}
