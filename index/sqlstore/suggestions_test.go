package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// allowSuggestion is a rule that lets every suggestion through, with or
// without the vote.
func allowSuggestion(vote bool) func(index.Unit, index.Translation) (index.SuggestionRights, error) {
	return func(index.Unit, index.Translation) (index.SuggestionRights, error) {
		return index.SuggestionRights{Vote: vote}, nil
	}
}

// suggestOn adds a suggestion of target to lang's k<i> by the fixture's
// user and returns its id.
func (f *writeFixture) suggestOn(tb testing.TB, lang string, i int, target string) int64 {
	tb.Helper()
	out, err := f.db.AddSuggestion(context.Background(), f.unit(tb, lang, i).ID,
		index.NewSuggestion{Target: []string{target}, UserID: f.user.UserID}, allowSuggestion(false))
	if err != nil {
		tb.Fatal(err)
	}
	return out.Suggestion.ID
}

// storedSuggestionChecks is SuggestionChecksOf for one suggestion;
// ErrNotFound for no such suggestion.
func storedSuggestionChecks(ctx context.Context, db *DB, id int64) ([]string, error) {
	all, err := db.SuggestionChecksOf(ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	names, ok := all[id]
	if !ok {
		return nil, index.ErrNotFound
	}
	return names, nil
}

// TestSuggestionChecks: a suggestion's text runs the unit's quality
// checks when it is added, for the editor to show; the unit's own checks
// and counts are not touched.
func TestSuggestionChecks(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	bad := f.suggestOn(t, "de", 1, "Wort Nummer 1…")
	good := f.suggestOn(t, "de", 3, "Wort Nummer 3")
	for _, tc := range []struct {
		id   int64
		want []string
	}{{bad, []string{"end_ellipsis"}}, {good, nil}} {
		got, err := storedSuggestionChecks(ctx, f.db, tc.id)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("suggestion %d: checks %q (%v), want %q", tc.id, got, err, tc.want)
		}
	}
	if names := f.checkNames(t, "de", 1); len(names) != 0 {
		t.Errorf("the unit's own checks: %q", names)
	}
	if _, err := storedSuggestionChecks(ctx, f.db, 1<<40); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("missing suggestion: %v", err)
	}
	// The editor's batch: both, the missing one absent.
	all, err := f.db.SuggestionChecksOf(ctx, []int64{bad, good, 1 << 40})
	if _, missing := all[1<<40]; err != nil || len(all) != 2 || !slices.Equal(all[bad], []string{"end_ellipsis"}) ||
		all[good] != nil || missing {
		t.Errorf("SuggestionChecksOf = %v, %v", all, err)
	}
	checkStoredStats(t, f.db)
}

// BenchmarkSuggestionChecks reads the failed checks of a string's 20
// suggestions, as the editor lists them: "each", a query per suggestion
// (the editor before SuggestionChecksOf), and "batch", one query.
//
//	go test ./index/sqlstore -run '^$' -bench SuggestionChecks -count 6
func BenchmarkSuggestionChecks(b *testing.B) {
	f := mustWriteFixture(b)
	ctx := context.Background()
	var ids []int64
	for i := range 20 {
		ids = append(ids, f.suggestOn(b, "de", 1, fmt.Sprintf("Wort Nummer %d…", i)))
	}
	b.Run("each", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, id := range ids {
				if names, err := storedSuggestionChecks(ctx, f.db, id); err != nil || len(names) != 1 {
					b.Fatal(names, err)
				}
			}
		}
	})
	b.Run("batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if all, err := f.db.SuggestionChecksOf(ctx, ids); err != nil || len(all) != len(ids) {
				b.Fatal(all, err)
			}
		}
	})
}

// TestSuggestionCountsFollowUnits: suggestions go with their unit, and
// the statistics with them: a unit a re-import drops, a unit deleted, a
// translation removed; every count equals a recount after each.
func TestSuggestionCountsFollowUnits(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	for i := range 4 {
		f.suggestOn(t, "de", i, fmt.Sprintf("Vorschlag %d", i))
		f.suggestOn(t, "fr", i, fmt.Sprintf("Suggestion %d", i))
	}
	// A second suggestion on a unit counts it once.
	f.suggestOn(t, "de", 0, "Noch ein Vorschlag")
	checkStoredStats(t, f.db)
	tr, err := f.db.FindTranslationByID(ctx, f.tr["de"])
	if err != nil || tr.Stats.Suggestions != 4 {
		t.Fatalf("de counts %d suggestions (%v), want 4", tr.Stats.Suggestions, err)
	}

	// Re-importing de without k1.
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "de", Filename: "de.json", Revision: "r2",
		Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i := range 10 {
		if i != 1 {
			src := fmt.Sprintf("Word number %d", i)
			imp.Units = append(imp.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{src}, Target: []string{""}})
		}
	}
	if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)

	// Deleting k2 of de.
	if err := f.db.DeleteUnit(ctx, f.unit(t, "de", 2).ID, f.user,
		func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
	if tr, _ = f.db.FindTranslationByID(ctx, f.tr["de"]); tr.Stats.Suggestions != 2 {
		t.Errorf("de counts %d suggestions, want 2", tr.Stats.Suggestions)
	}

	// Removing fr altogether.
	if err := f.db.DeleteTranslation(ctx, f.tr["fr"], f.user); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
	all, n, err := f.db.FindSuggestions(ctx, index.SuggestionFilter{Page: index.Page{Number: 1, Size: 100}})
	if err != nil || n != 3 || len(all) != 3 {
		t.Errorf("suggestions left: %d of %d (%v), want 3", len(all), n, err)
	}
	c, err := readStats(ctx, f.db.r, "c", itoa(f.comp.ID))
	if err != nil || c.Suggestions != 2 {
		t.Errorf("component counts %d suggestions (%v), want 2", c.Suggestions, err)
	}
}

// TestSuggestionAutoAcceptOnce: votes queued at once on one suggestion
// accept it once; the votes after find it gone.
func TestSuggestionAutoAcceptOnce(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	f.comp.SuggestionVoting, f.comp.SuggestionAutoaccept = true, 3
	if _, _, err := f.db.SaveComponent(ctx, f.comp); err != nil {
		t.Fatal(err)
	}
	id := f.suggestOn(t, "de", 5, "Wort Nummer fünf")
	const voters = 10
	results := make(chan string, voters)
	for i := range voters {
		u, err := f.db.SaveUser(ctx, index.User{Username: fmt.Sprintf("v%d", i), IsActive: true})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			out, err := f.db.VoteSuggestion(ctx, id, u.ID, 1,
				func(index.Suggestion, index.Unit, index.Translation) error { return nil })
			switch {
			case errors.Is(err, index.ErrNotFound):
				results <- "gone"
			case err != nil:
				results <- err.Error()
			default:
				results <- string(out.Result)
			}
		}()
	}
	got := map[string]int{}
	for range voters {
		got[<-results]++
	}
	if got["accepted"] != 1 || got["voted"] != 2 || got["gone"] != voters-3 {
		t.Errorf("results %v, want 1 accepted, 2 voted, %d gone", got, voters-3)
	}
	if u := f.unit(t, "de", 5); u.Target[0] != "Wort Nummer fünf" || u.State != index.StateTranslated || u.HasSuggestion {
		t.Errorf("unit: %+v", u)
	}
	checkStoredStats(t, f.db)
}
