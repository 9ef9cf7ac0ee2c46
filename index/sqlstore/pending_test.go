package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

func TestPendingUnits(t *testing.T) {
	ctx := context.Background()
	f := mustWriteFixture(t)
	want := func(step string, units, removed int) {
		t.Helper()
		p, err := f.db.PendingUnits(ctx, f.comp.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p.Units != units || p.Removed != removed || p.Files != 0 || p.Any() != (units+removed > 0) {
			t.Errorf("%s: pending %+v, want %d units and %d removed", step, p, units, removed)
		}
	}
	want("after import", 0, 0)
	edit := func(u index.Unit, _ index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"neu"}, State: index.StateTranslated}}, nil
	}
	if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", 1).ID, f.user, edit); err != nil {
		t.Fatal(err)
	}
	want("one edit", 1, 0)
	if err := f.db.DeleteUnit(ctx, f.unit(t, "en", 4).ID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// The string left the template, de and fr: three files owe a removal.
	want("one removal", 1, 3)
}

// TestImportKeepsPendingEdits: a re-import (a pull, a hook) never undoes
// what the API did and no commit has written yet.
func TestImportKeepsPendingEdits(t *testing.T) {
	ctx := context.Background()
	f := mustWriteFixture(t)
	edit := func(i int, target string) {
		t.Helper()
		if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", i).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	edit(1, "Eins")
	edit(2, "Zwei")
	if err := f.db.DeleteUnit(ctx, f.unit(t, "en", 4).ID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// Upstream: k1 translated differently, k2 gone, k3 translated, k4
	// (removed through the API) still there.
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "de", Filename: "de.json", Revision: "r2",
		Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i := range 10 {
		if i == 2 {
			continue
		}
		iu := index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{fmt.Sprintf("Word number %d", i)},
			Target: []string{""}}
		switch {
		case i == 1:
			iu.Target, iu.State = []string{"Eins (upstream)"}, index.StateTranslated
		case i == 3:
			iu.Target, iu.State = []string{"Drei"}, index.StateTranslated
		case i%2 == 0:
			iu.Target, iu.State = []string{fmt.Sprintf("Wort Nummer %d", i)}, index.StateTranslated
		}
		imp.Units = append(imp.Units, iu)
	}
	if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]string{1: "Eins", 2: "Zwei", 3: "Drei"} {
		if u := f.unit(t, "de", i); u.Target[0] != want {
			t.Errorf("k%d = %q pending %v, want %q", i, u.Target[0], u.Pending, want)
		}
	}
	if _, err := f.db.FindUnitIDByHash(ctx, f.tr["de"], index.IDHash(true, nil, "k4")); err == nil {
		t.Error("k4, removed through the API, came back with the import")
	}
	// The upstream text of k1 is in the history.
	changes, _, err := f.db.FindChanges(ctx, index.ChangeFilter{TranslationID: f.tr["de"], Actions: []index.Action{index.ActionStringRepoUpdate},
		Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, c := range changes {
		kept = append(kept, c.Target)
	}
	if fmt.Sprint(kept) != "[Eins (upstream) Drei]" {
		t.Errorf("59 changes hold %q, want the upstream k1 and the new k3", kept)
	}
}

// TestPendingSince: a unit's pending work begins with its first edit
// and later edits do not move it; a commit clears it, and DueCommits
// measures commit_pending_age from the oldest pending work, not the
// newest edit (the reference's bug: a busy translation never committed).
func TestPendingSince(t *testing.T) {
	ctx := context.Background()
	f := mustWriteFixture(t)
	// After the import's changes, which the write clock never goes back
	// before.
	t0 := time.Now().UTC().Add(time.Hour).Truncate(time.Second)
	clock := t0
	f.clock.Set(func() time.Time { return clock })
	age := time.Duration(f.comp.CommitPendingAge) * time.Hour
	if age == 0 {
		t.Fatal("the fixture's component has no commit_pending_age")
	}
	edit := func(i int, target string) index.Unit {
		t.Helper()
		u, err := f.db.UpdateUnit(ctx, f.unit(t, "de", i).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	since := func(i int) string {
		t.Helper()
		var s sql.NullString
		if err := f.db.r.QueryRowContext(ctx, `SELECT pending_since FROM units WHERE id = ?`,
			f.unit(t, "de", i).ID).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s.String
	}
	due := func(step string, now time.Time, want bool) {
		t.Helper()
		comps, err := f.db.DueCommits(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(comps) == 1 && comps[0].ID == f.comp.ID; got != want || len(comps) > 1 {
			t.Errorf("%s: DueCommits(%s) = %d components, want due %v", step, now.Sub(t0), len(comps), want)
		}
	}
	due("nothing pending", t0.Add(1000*time.Hour), false)

	first := edit(1, "Eins")
	for range 4 { // every 30 minutes, as a busy translator
		clock = clock.Add(30 * time.Minute)
		edit(1, "Eins "+clock.Format("15:04"))
	}
	k2 := edit(2, "Zwei")
	if got, want := since(1), formatTime(t0); got != want {
		t.Errorf("k1 pending_since after later edits = %q, want its first edit's %q", got, want)
	}
	if got, want := since(2), formatTime(clock); got != want {
		t.Errorf("k2 pending_since = %q, want %q", got, want)
	}
	due("oldest edit exactly commit_pending_age old", t0.Add(age), false)
	due("oldest edit older than commit_pending_age", t0.Add(age+time.Second), true)

	// A commit that wrote k1 as it first was leaves it pending (edited
	// since) with its start; one that wrote its current value clears it.
	if err := f.db.MarkCommitted(ctx, index.Committed{ComponentID: f.comp.ID, Translations: []index.CommittedTranslation{
		{TranslationID: f.tr["de"], Units: []index.Unit{first}}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := since(1), formatTime(t0); got != want {
		t.Errorf("k1 pending_since after a commit of an older value = %q, want %q", got, want)
	}
	if err := f.db.MarkCommitted(ctx, index.Committed{ComponentID: f.comp.ID, Translations: []index.CommittedTranslation{
		{TranslationID: f.tr["de"], Units: []index.Unit{f.unit(t, "de", 1)}}}}); err != nil {
		t.Fatal(err)
	}
	if got := since(1); got != "" {
		t.Errorf("k1 pending_since after its commit = %q, want NULL", got)
	}
	due("k2 pending, not old enough", t0.Add(age+time.Second), false)
	due("k2 old enough", clock.Add(age+time.Second), true)
	if err := f.db.MarkCommitted(ctx, index.Committed{ComponentID: f.comp.ID, Translations: []index.CommittedTranslation{
		{TranslationID: f.tr["de"], Units: []index.Unit{k2}}}}); err != nil {
		t.Fatal(err)
	}
	due("all committed", clock.Add(1000*time.Hour), false)

	// A removed unit is pending work too, from its removal.
	clock = clock.Add(time.Hour)
	if err := f.db.DeleteUnit(ctx, f.unit(t, "en", 4).ID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	due("removal, not old enough", clock.Add(age), false)
	due("removal old enough", clock.Add(age+time.Second), true)

	// commit_pending_age 0: due at once.
	c := f.comp
	c.CommitPendingAge = 0
	if _, _, err := f.db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	due("commit_pending_age 0", clock, true)
}

// TestFindPendingUnitsPlan: FindPendingUnits reads a translation's
// pending units in one search of SQLite's partial index units_pending,
// in its order (no subquery: one read of each unit, not two; no sort),
// and on PostgreSQL probes unit_pending's key, then each unit by its
// own (no scan of units, no sort).
func TestFindPendingUnitsPlan(t *testing.T) {
	f := mustWriteFixture(t)
	f.edit(t, 1, "neu")
	f.edit(t, 2, "neu")
	f.editKey(t, f.tr["fr"], "k3", "nouveau", index.StateTranslated) // another translation's: not de's
	units, err := f.db.FindPendingUnits(context.Background(), f.tr["de"])
	if err != nil || len(units) != 2 || units[0].ID > units[1].ID {
		t.Fatalf("FindPendingUnits: %d units, %v", len(units), err)
	}
	for _, u := range units {
		if u.TranslationID != f.tr["de"] {
			t.Errorf("FindPendingUnits(de) holds unit %d of translation %d", u.ID, u.TranslationID)
		}
	}
	plan, traits := explain(t, f.db, f.db.dialect.findPendingUnits(), f.tr["de"])
	t.Logf("plan:\n%s", plan)
	if !traits.sortless {
		t.Errorf("the pending units are sorted:\n%s", plan)
	}
	if testengine.Engine() == testengine.Postgres {
		// The translation bounds the key's scan, and each unit is
		// probed by its id: a walk of units_pkey probing unit_pending
		// for each unit would hold both names too.
		if !strings.Contains(plan, "Index Only Scan using unit_pending_pkey") || !strings.Contains(plan, "(translation_id = ") ||
			!strings.Contains(plan, "Index Cond: (id = p.unit_id)") || strings.Contains(plan, "Merge") {
			t.Errorf("the pending units are not a probe of unit_pending's key:\n%s", plan)
		}
		return
	}
	if plan != "SEARCH u USING INDEX units_pending (translation_id=?)" {
		t.Errorf("the pending units are not one search of units_pending:\n%s", plan)
	}
}
