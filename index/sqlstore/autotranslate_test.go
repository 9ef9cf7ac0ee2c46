package sqlstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// autoJob stores a job on the fixture's translation lang.
func autoJob(t *testing.T, f *writeFixture, id, lang string, mode index.AutoMode) index.AutoTranslateJob {
	t.Helper()
	j, err := f.db.CreateAutoTranslateJob(context.Background(), index.AutoTranslateJob{ID: id,
		ProjectID: f.comp.ProjectID, ComponentID: f.comp.ID, TranslationID: f.tr[lang], UserID: f.user.UserID,
		Params: index.AutoTranslateParams{Mode: mode, Query: index.AutoDefaultQuery, Source: index.AutoSourceOthers,
			Threshold: 80}})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestAutoTranslateBatches: a job counts its units, takes them in id
// order after its cursor, writes each result as change 6 with
// automatically_translated set (a person's save clears it), moves its
// cursor with the batch so a batch given twice writes once, skips
// read-only strings, and is refused once completed; counts stay exact.
func TestAutoTranslateBatches(t *testing.T) {
	ctx := context.Background()
	f := mustWriteFixture(t)
	j := autoJob(t, f, "j1", "fr", index.AutoTranslate)
	if j.Total != 10 {
		t.Fatalf("total = %d, want the 10 untranslated French strings", j.Total)
	}
	units, err := f.db.NextAutoTranslateUnits(ctx, j, 4)
	if err != nil || len(units) != 4 || units[0].Context != "k0" || units[3].Context != "k3" {
		t.Fatalf("first batch = %v, %v", units, err)
	}
	b := index.AutoBatch{Cursor: units[3].ID, Seen: 4, Results: []index.AutoResult{
		{UnitID: units[0].ID, Target: []string{"Mot 0"}}, {UnitID: units[1].ID, Target: []string{"Mot 1"}}}}
	if n, err := f.db.ApplyAutoTranslateBatch(ctx, j.ID, b); err != nil || n != 2 {
		t.Fatalf("batch: %d, %v; want 2 updated", n, err)
	}
	if n, err := f.db.ApplyAutoTranslateBatch(ctx, j.ID, b); err != nil || n != 0 {
		t.Errorf("the same batch again: %d, %v; want nothing written", n, err)
	}
	checkStoredStats(t, f.db)
	j, err = f.db.FindAutoTranslateJob(ctx, j.ID)
	if err != nil || j.Cursor != units[3].ID || j.Done != 4 || j.Updated != 2 || j.Progress() != 40 {
		t.Errorf("job after a batch = %+v, %v", j, err)
	}
	u := f.unit(t, "fr", 0)
	if u.Target[0] != "Mot 0" || u.State != index.StateTranslated || !u.AutomaticallyTranslated {
		t.Errorf("translated unit = %q state %d auto %v", u.Target, u.State, u.AutomaticallyTranslated)
	}
	var changes int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE action = 6 AND translation_id = ?`,
		f.tr["fr"]).Scan(&changes); err != nil || changes != 2 {
		t.Errorf("changes 6 = %d, %v; want 2", changes, err)
	}
	if _, err := f.db.UpdateUnit(ctx, u.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Mot zéro"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if u := f.unit(t, "fr", 0); u.AutomaticallyTranslated {
		t.Error("a person's save left automatically_translated set")
	}

	// The next batch starts after the cursor: k2 stays behind although
	// it still matches.
	units, err = f.db.NextAutoTranslateUnits(ctx, j, 100)
	if err != nil || len(units) != 6 || units[0].Context != "k4" {
		t.Fatalf("second batch = %d units from %v, %v", len(units), units, err)
	}
	b = index.AutoBatch{Cursor: units[len(units)-1].ID, Seen: len(units), Results: []index.AutoResult{
		{UnitID: units[0].ID, Target: []string{"Mot 4"}}, {UnitID: f.unit(t, "en", 5).ID, Target: []string{"source!"}}}}
	if n, err := f.db.ApplyAutoTranslateBatch(ctx, j.ID, b); err != nil || n != 1 {
		t.Errorf("batch with another translation's unit: %d, %v; want 1", n, err)
	}
	if err := f.db.FinishAutoTranslateJob(ctx, j.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.ApplyAutoTranslateBatch(ctx, j.ID, index.AutoBatch{Cursor: b.Cursor + 1}); !errors.Is(err, ErrAutoJobDone) {
		t.Errorf("batch after the end: %v", err)
	}
	if open, err := f.db.AutoTranslateJobs(ctx, true); err != nil || len(open) != 0 {
		t.Errorf("open jobs = %v, %v", open, err)
	}
	if j, _ := f.db.FindAutoTranslateJob(ctx, j.ID); !j.Completed || j.Done != 10 || j.Updated != 3 || j.Finished.IsZero() {
		t.Errorf("finished job = %+v", j)
	}
	checkStoredStats(t, f.db)
	// A completed job is kept its retention by the index's clock, then
	// pruned; an open one stays.
	open := autoJob(t, f, "j2", "de", index.AutoTranslate)
	if n, err := f.db.PruneAutoTranslateJobs(ctx, time.Hour); err != nil || n != 0 {
		t.Errorf("prune within the hour = %d, %v", n, err)
	}
	later := time.Now().Add(2 * time.Hour)
	f.clock.Set(func() time.Time { return later })
	if n, err := f.db.PruneAutoTranslateJobs(ctx, time.Hour); err != nil || n != 1 {
		t.Errorf("prune after the hour = %d, %v", n, err)
	}
	if _, err := f.db.FindAutoTranslateJob(ctx, open.ID); err != nil {
		t.Errorf("the open job: %v", err)
	}
}

// TestAutoTranslateModes: fuzzy saves in state 10; suggest adds a
// suggestion and leaves the string, and a second suggest job skips the
// strings that have one.
func TestAutoTranslateModes(t *testing.T) {
	ctx := context.Background()
	f := mustWriteFixture(t)
	j := autoJob(t, f, "fuzzy", "fr", index.AutoFuzzy)
	u := f.unit(t, "fr", 1)
	if _, err := f.db.ApplyAutoTranslateBatch(ctx, j.ID, index.AutoBatch{Cursor: u.ID, Seen: 1,
		Results: []index.AutoResult{{UnitID: u.ID, Target: []string{"Mot 1"}}}}); err != nil {
		t.Fatal(err)
	}
	if u := f.unit(t, "fr", 1); u.State != index.StateFuzzy || !u.AutomaticallyTranslated {
		t.Errorf("fuzzy mode: state %d auto %v", u.State, u.AutomaticallyTranslated)
	}
	s := autoJob(t, f, "suggest", "de", index.AutoSuggest)
	if s.Total != 5 {
		t.Errorf("suggest job total = %d, want 5 untranslated German strings", s.Total)
	}
	u = f.unit(t, "de", 1)
	if n, err := f.db.ApplyAutoTranslateBatch(ctx, s.ID, index.AutoBatch{Cursor: u.ID, Seen: 2,
		Results: []index.AutoResult{{UnitID: u.ID, Target: []string{"Wort 1"}}}}); err != nil || n != 1 {
		t.Fatalf("suggest: %d, %v", n, err)
	}
	if u := f.unit(t, "de", 1); u.State != index.StateEmpty || !u.HasSuggestion || u.AutomaticallyTranslated {
		t.Errorf("suggest mode: state %d suggestion %v auto %v", u.State, u.HasSuggestion, u.AutomaticallyTranslated)
	}
	if s2 := autoJob(t, f, "suggest2", "de", index.AutoSuggest); s2.Total != 4 {
		t.Errorf("second suggest job total = %d, want 4 (one has a suggestion)", s2.Total)
	}
	checkStoredStats(t, f.db)
}

// TestSameSourceUsesIndex: the "others" lookup is driven by the source
// units' prefix index, partial since migration 0064, not a scan of the
// project's units: SQLite's plan of FindSameSource's own statement
// starts there. PostgreSQL plans by its statistics, which a fixture this
// small does not make; TestFindSameSourceMatchesUnitScan checks its plan
// on a corpus component.
func TestSameSourceUsesIndex(t *testing.T) {
	f := mustWriteFixture(t)
	if f.db.dialect.name != "sqlite" {
		t.Skip("PostgreSQL's plan: TestFindSameSourceMatchesUnitScan")
	}
	plan, _ := explain(t, f.db, sameSourceQuery(2, 2, false), "Word number 1", "Word number 2",
		"Word number 1", "Word number 2", "Word number 1", "Word number 2",
		f.comp.ProjectID, 0, "en", "de", index.StateTranslated)
	if !strings.HasPrefix(plan, "SEARCH s USING INDEX units_source_prefix") {
		t.Errorf("plan does not start from the source units' prefixes:\n%s", plan)
	}
}
