package sqlstore

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestUserActivityMatchesChanges: the user_activity rows the triggers of
// migration 0031 keep equal a recount from the change log (VerifyCounts)
// after each kind of write that adds, removes or re-credits changes, and
// the statistics read from them are those the writes make.
func TestUserActivityMatchesChanges(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		checkStoredStats(t, f.db)
		if t.Failed() {
			t.Fatalf("after %s", step)
		}
	}
	stats := func(actor index.Actor, hidden ...int64) index.UserStats {
		t.Helper()
		st, err := f.db.UserStatistics(ctx, actor.AuthorID, hidden)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	bo, err := f.db.SaveUser(ctx, index.User{Username: "bo", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	boActor := index.UserActor(&bo)
	edit := func(a index.Actor, lang string, i int, target string) {
		t.Helper()
		u := f.unit(t, lang, i)
		if _, err := f.db.UpdateUnit(ctx, u.ID, a, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	edit(f.user, "de", 1, "Eins")
	edit(f.user, "de", 1, "Eins!")
	edit(f.user, "fr", 1, "Un")
	edit(boActor, "de", 3, "Drei")
	if _, err := f.db.AddSuggestion(ctx, f.unit(t, "fr", 2).ID, index.NewSuggestion{Target: []string{"Deux"},
		UserID: bo.ID}, func(index.Unit, index.Translation) (index.SuggestionRights, error) {
		return index.SuggestionRights{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddComment(ctx, f.unit(t, "fr", 2).ID, boActor, index.NewComment{Scope: index.ScopeTranslation,
		Comment: "Hm"}, func(u index.Unit, _ index.Translation) (int64, error) { return u.ID, nil }); err != nil {
		t.Fatal(err)
	}
	if res, err := f.db.ApplyUpload(ctx, f.tr["fr"], index.Upload{Method: index.UploadTranslate, UserID: f.user.UserID,
		Units: []index.ImportUnit{{Context: "k4", Target: []string{"Quatre"}}, {Context: "k5", Target: []string{"Cinq"}}}}); err != nil || res.Accepted != 2 {
		t.Fatalf("upload: %+v, %v", res, err)
	}
	check("writes")
	if got, want := stats(f.user), (index.UserStats{Translated: 5, Uploaded: 1, Languages: 2}); got != want {
		t.Errorf("ed = %+v, want %+v", got, want)
	}
	if got, want := stats(boActor), (index.UserStats{Translated: 1, Suggested: 1, Commented: 1, Languages: 1}); got != want {
		t.Errorf("bo = %+v, want %+v", got, want)
	}
	if got := stats(f.user, f.comp.ProjectID); got != (index.UserStats{}) {
		t.Errorf("ed without the project = %+v", got)
	}

	// Re-crediting a change (no store write does it yet; the trigger
	// must hold anyway) moves it from one user's counts to the other's.
	if err := f.db.writeNarrow(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE changes SET author_id = ? WHERE id = (SELECT max(id) FROM changes WHERE action = ?)`,
			bo.ID, index.ActionFileUpload)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	check("re-credit")
	if got := stats(boActor); got.Uploaded != 1 {
		t.Errorf("bo after re-credit = %+v", got)
	}

	// Removing the French translation takes its changes out of the counts.
	if _, err := f.db.RemoveStaleTranslations(ctx, f.comp.ID, []string{"en", "de"}); err != nil {
		t.Fatal(err)
	}
	check("translation removed")
	if got, want := stats(f.user), (index.UserStats{Translated: 2, Languages: 1}); got != want {
		t.Errorf("ed after fr removed = %+v, want %+v", got, want)
	}
	if _, err := f.db.DeleteComponent(ctx, f.comp.ID, index.Actor{}); err != nil {
		t.Fatal(err)
	}
	check("component removed")
	if got := stats(f.user); got != (index.UserStats{}) {
		t.Errorf("ed after the component went = %+v", got)
	}
}

// TestUserActivityActions: the triggers keep exactly the actions the
// statistics count: one credited change of every action code, then a
// recount.
func TestUserActivityActions(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	var cs []index.Change
	for a := range index.Action(120) {
		cs = append(cs, index.Change{Action: a, ProjectID: f.comp.ProjectID, ComponentID: f.comp.ID,
			LanguageCode: "de", UserID: f.user.UserID, AuthorID: f.user.AuthorID})
	}
	if err := f.db.writeNarrow(ctx, func(tx *Tx) error { return insertChanges(tx, cs) }); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
	st, err := f.db.UserStatistics(ctx, f.user.AuthorID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (index.UserStats{Translated: len(index.StatsTranslatedActions), Suggested: 1, Uploaded: 1,
		Commented: 1, Languages: 1}); st != want {
		t.Errorf("statistics = %+v, want %+v", st, want)
	}
}
