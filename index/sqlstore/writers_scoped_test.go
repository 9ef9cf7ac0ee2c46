package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// Suggestions, comments and uploads are scoped writes too (writers.go:
// writeScoped): these tests are TestWritersRunAtOnce and
// TestWritersKeepEveryUpdate for them.

// during runs write through b while a holds an edit of unit hold open
// (inside its write transaction, waiting at most wait), and reports
// whether write ended while a's transaction was still open: it did not
// wait for a's locks.
func during(t *testing.T, a *DB, actor index.Actor, hold int64, wait time.Duration, write func() error) bool {
	t.Helper()
	inside, done := make(chan struct{}), make(chan struct{})
	var beside bool
	var wg sync.WaitGroup
	wg.Go(func() {
		var once sync.Once
		_, err := a.UpdateUnit(context.Background(), hold, actor, func(u index.Unit, tr index.Translation) (index.UnitUpdate, error) {
			once.Do(func() { close(inside) })
			select {
			case <-done:
				beside = true
			case <-time.After(wait):
			}
			return setTarget("held")(u, tr)
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-inside
	if err := write(); err != nil {
		t.Error(err)
	}
	close(done)
	wg.Wait()
	return beside
}

// allowSuggest is AddSuggestion's rules letting the suggester vote.
func allowSuggest(index.Unit, index.Translation) (index.SuggestionRights, error) {
	return index.SuggestionRights{Vote: true}, nil
}

// onUnit is AddComment's rules storing the comment on the unit itself.
func onUnit(u index.Unit, _ index.Translation) (int64, error) { return u.ID, nil }

func suggest(db *DB, unit int64, user int64, text string) (int64, error) {
	out, err := db.AddSuggestion(context.Background(), unit, index.NewSuggestion{Target: []string{text}, UserID: user}, allowSuggest)
	if err != nil || out.Suggestion == nil {
		return 0, fmt.Errorf("suggest %q: %v (%v)", text, err, out.Result)
	}
	return out.Suggestion.ID, nil
}

func comment(db *DB, unit int64, actor index.Actor, text string) (int64, error) {
	c, err := db.AddComment(context.Background(), unit, actor, index.NewComment{Scope: index.ScopeTranslation, Comment: text}, onUnit)
	return c.ID, err
}

// upload translates the German units keys of f's translation as text
// (an upload of the merge method "translate").
func upload(db *DB, translation int64, actor index.Actor, keys []int, text string) error {
	up := index.Upload{Method: index.UploadTranslate, UserID: actor.UserID}
	for _, k := range keys {
		up.Units = append(up.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", k), Target: []string{fmt.Sprintf("%s %d", text, k)},
			State: index.StateTranslated})
	}
	_, err := db.ApplyUpload(context.Background(), translation, up)
	return err
}

func translationOf(t testing.TB, db *DB, unit int64) int64 {
	t.Helper()
	u, err := db.FindUnitByID(context.Background(), unit)
	if err != nil {
		t.Fatal(err)
	}
	return u.TranslationID
}

// TestWritersScopeSuggestionsCommentsUploads: while process a is inside
// an edit of a component, process b adds, accepts, votes on and deletes
// suggestions, adds and resolves comments and uploads a file in a
// component of another project, each ending before a's edit commits.
// With the exclusive lock these writes took before, each waited for
// it. A suggestion in a's own component waits (the scope is real).
func TestWritersScopeSuggestionsCommentsUploads(t *testing.T) {
	a, b, _ := twoWriters(t)
	actor := mustWriter(t, a)
	here := mustScopeFixture(t, a, "p1", "a", false, 4)
	there := mustScopeFixture(t, a, "p2", "b", true, 6)
	ctx := context.Background()
	s1, err := suggest(b, there.units[1], actor.UserID, "accept me")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := suggest(b, there.units[2], actor.UserID, "delete me")
	if err != nil {
		t.Fatal(err)
	}
	c1, err := comment(b, there.units[3], actor, "resolve me")
	if err != nil {
		t.Fatal(err)
	}
	other, err := a.SaveUser(ctx, index.User{Username: "voter", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	s3, err := suggest(b, there.units[4], actor.UserID, "vote for me")
	if err != nil {
		t.Fatal(err)
	}
	trThere := translationOf(t, a, there.units[0])
	writes := []struct {
		name  string
		write func() error
	}{
		{"a suggestion added", func() error { _, err := suggest(b, there.units[0], actor.UserID, "beside"); return err }},
		{"a suggestion accepted", func() error {
			_, err := b.AcceptSuggestion(ctx, s1, actor, func(index.Suggestion, index.Unit, index.Translation) (index.State, error) {
				return index.StateTranslated, nil
			})
			return err
		}},
		{"a suggestion voted on", func() error {
			_, err := b.VoteSuggestion(ctx, s3, other.ID, 1, func(index.Suggestion, index.Unit, index.Translation) error { return nil })
			return err
		}},
		{"a suggestion deleted", func() error {
			return b.DeleteSuggestion(ctx, s2, actor, index.Rejection{Reason: "no"}, func(index.Suggestion, index.Unit, index.Translation) error { return nil })
		}},
		{"a comment added", func() error { _, err := comment(b, there.units[5], actor, "beside"); return err }},
		{"a comment resolved", func() error {
			_, err := b.SetCommentResolved(ctx, c1, true, actor, func(index.Comment, index.Translation) error { return nil })
			return err
		}},
		{"a file uploaded", func() error { return upload(b, trThere, actor, []int{0, 1, 2}, "Hochgeladen") }},
	}
	for i, w := range writes {
		if !during(t, a, actor, here.units[i%len(here.units)], 10*time.Second, w.write) {
			t.Errorf("%s in another project waited for an edit's commit", w.name)
		}
	}
	if during(t, a, actor, here.units[0], 300*time.Millisecond, func() error {
		_, err := suggest(b, here.units[1], actor.UserID, "same component")
		return err
	}) {
		t.Error("a suggestion in the edited component did not wait for the edit")
	}
	checkStoredStats(t, a)
	// Each process reads the other's writes.
	for _, db := range []*DB{a, b} {
		u, err := db.FindUnitByID(ctx, there.units[0])
		if err != nil {
			t.Fatal(err)
		}
		if u.Target[0] != "Hochgeladen 0" {
			t.Errorf("the uploaded unit reads %q", u.Target)
		}
	}
}

// TestWritersKeepEverySuggestion: two processes, two writers each, add
// suggestions and comments to the same unit and upload files into its
// translation at once: every one is kept and every counter (statistics'
// suggestions and comments, the suggestion lists' counts) equals a
// recount.
func TestWritersKeepEverySuggestion(t *testing.T) {
	a, b, _ := twoWriters(t)
	actor := mustWriter(t, a)
	f := mustScopeFixture(t, a, "p", "app", true, 6)
	peer := mustScopeFixture(t, a, "p", "peer", true, 6) // propagation reaches it
	tr := translationOf(t, a, f.units[0])
	const perWriter = 12
	fourWriters(t, a, b, func(w int, db *DB) error {
		for i := range perWriter {
			if _, err := suggest(db, f.units[0], actor.UserID, fmt.Sprintf("w%d s%d", w, i)); err != nil {
				return err
			}
			if _, err := comment(db, f.units[0], actor, fmt.Sprintf("w%d c%d", w, i)); err != nil {
				return err
			}
			if err := upload(db, tr, actor, []int{1 + (w+i)%5}, fmt.Sprintf("w%d u%d", w, i)); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := context.Background()
	var suggestions, comments int
	if err := a.r.QueryRowContext(ctx, `SELECT count(*) FROM suggestions WHERE unit_id = ?`, f.units[0]).Scan(&suggestions); err != nil {
		t.Fatal(err)
	}
	if err := a.r.QueryRowContext(ctx, `SELECT count(*) FROM comments WHERE unit_id = ?`, f.units[0]).Scan(&comments); err != nil {
		t.Fatal(err)
	}
	if suggestions != 4*perWriter || comments != 4*perWriter {
		t.Errorf("%d suggestions and %d comments kept, want %d of each", suggestions, comments, 4*perWriter)
	}
	for _, db := range []*DB{a, b} {
		got, _, err := db.FindSuggestions(ctx, index.SuggestionFilter{UnitID: f.units[0], Page: index.Page{Number: 1, Size: 100}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4*perWriter {
			t.Errorf("the unit's suggestion list holds %d, want %d", len(got), 4*perWriter)
		}
	}
	// The uploads propagated to the peer component.
	u, err := b.FindUnitByID(ctx, peer.units[1])
	if err != nil {
		t.Fatal(err)
	}
	if u.State != index.StateTranslated {
		t.Errorf("the peer's unit k1 is %v after the uploads, want translated", u.State)
	}
	checkStoredStats(t, a)
	checkStoredStats(t, b)
}

// fourWriters runs write in four writers at once, two through each of
// a and b (w numbers them), and fails t with the first error.
func fourWriters(t *testing.T, a, b *DB, write func(w int, db *DB) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w, db := range []*DB{a, b, a, b} {
		wg.Go(func() {
			if err := write(w, db); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
