package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestGroupCommitKeepsWritesApart runs edits from many goroutines at
// once, so that they share transactions, with every third one failing
// after it has written (its decide error comes back only after the
// writes of a second edit in the same function) and one panicking: each
// must answer its own outcome, the failed ones must leave nothing, and
// the statistics deferred to each batch's end must equal a recount.
func TestGroupCommitKeepsWritesApart(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	errRefused := errors.New("refused")
	const writers, each = 12, 20
	commits := f.db.commits.Load()
	before := f.changeCount(t)
	out := make(chan struct{}, writers*each)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lang := []string{"de", "fr"}[w%2]
			for n := range each {
				i := (w + n) % 10
				id := f.unit(t, lang, i).ID
				target := fmt.Sprintf("w%d n%d", w, n)
				fail := (w+n)%3 == 0
				err := f.db.writeNarrow(ctx, func(tx *Tx) error {
					u, tr, err := findUnitAndTranslation(tx, id)
					if err != nil {
						return err
					}
					e := editorOf(tx, &tr, f.user)
					if _, err := e.edit(&u, index.UnitEdit{Target: []string{target}, State: index.StateTranslated}, 0); err != nil {
						return err
					}
					if err := e.finish(); err != nil {
						return err
					}
					if fail {
						return errRefused
					}
					return nil
				})
				if fail && !errors.Is(err, errRefused) || !fail && err != nil {
					t.Errorf("edit %s/%d (fail %v): %v", lang, i, fail, err)
				}
				if !fail {
					out <- struct{}{}
				}
			}
		}()
	}
	// One write panics in the middle of the others: the panic reaches its
	// caller and no other write.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "boom") {
				t.Errorf("recovered %v, want the write's panic", v)
			}
		}()
		f.db.write(ctx, func(tx *Tx) error {
			if _, err := tx.Exec(`UPDATE units SET target = 'panicked'`); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	wg.Wait()
	close(out)

	// A failed edit's target is nowhere; each unit holds some successful
	// edit's.
	var succeeded int
	for range out {
		succeeded++
	}
	var panicked, failedTargets int
	f.db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM units WHERE target = 'panicked'`).Scan(&panicked)
	if panicked != 0 {
		t.Errorf("%d units hold the panicked write's target", panicked)
	}
	rows, err := f.db.r.QueryContext(context.Background(), `SELECT target FROM changes WHERE action IN (2, 5)`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var target string
		rows.Scan(&target)
		var w, n int
		if _, err := fmt.Sscanf(target, "w%d n%d", &w, &n); err == nil && (w+n)%3 == 0 {
			failedTargets++
		}
	}
	rows.Close()
	if failedTargets != 0 {
		t.Errorf("%d changes of failed edits were kept", failedTargets)
	}
	// Every successful edit changed its unit (new targets each time), so
	// each recorded one change, plus at most one New contributor per
	// translation.
	if got := f.changeCount(t) - before; got < succeeded || got > succeeded+2 {
		t.Errorf("%d changes recorded for %d successful edits", got, succeeded)
	}
	if c := f.db.commits.Load() - commits; c >= writers*each {
		t.Errorf("%d commits for %d writes: nothing was grouped", c, writers*each+1)
	} else {
		t.Logf("%d writes in %d transactions", writers*each+1, c)
	}
	checkStoredStats(t, f.db)
}

// TestWriteSkipsEndedRequest checks that a write whose context ended
// before it started is not run.
func TestWriteSkipsEndedRequest(t *testing.T) {
	f := mustWriteFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := f.db.write(ctx, func(*Tx) error { ran = true; return nil })
	if !errors.Is(err, context.Canceled) || ran {
		t.Errorf("write with an ended context: ran %v, err %v", ran, err)
	}
}

// TestEditKeepsOtherTranslationsCached checks that a unit edit makes
// stale only what it touched: the cached units page and statistics of
// another translation are served from memory afterwards (the very same
// rows), while the edited translation's page and statistics show the
// edit at once.
func TestEditKeepsOtherTranslationsCached(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	page := func(lang string) []index.Unit {
		units, _, err := f.db.FindUnits(ctx, index.UnitFilter{TranslationID: f.tr[lang], Page: index.Page{Number: 1, Size: 50}})
		if err != nil {
			t.Fatal(err)
		}
		return units
	}
	deBefore, frBefore := page("de"), page("fr")
	frStats, err := f.db.TranslationStats(ctx, f.tr["fr"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", 1).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"neu"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if frAfter := page("fr"); &frAfter[0] != &frBefore[0] {
		t.Error("fr's units page was read again after an edit in de")
	}
	if deAfter := page("de"); &deAfter[0] == &deBefore[0] || deAfter[1].Target[0] != "neu" {
		t.Errorf("de's page after the edit: cached %v, unit 1 %q", &deAfter[0] == &deBefore[0], deAfter[1].Target)
	}
	de, err := f.db.TranslationStats(ctx, f.tr["de"])
	if err != nil || de.Translated != 6 {
		t.Errorf("de statistics after the edit: %d translated (%v), want 6", de.Translated, err)
	}
	if fr, _ := f.db.TranslationStats(ctx, f.tr["fr"]); fr != frStats {
		t.Errorf("fr statistics moved with an edit in de: %+v, was %+v", fr, frStats)
	}
	// A write that is not narrowed makes everything stale.
	if _, _, err := f.db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"}); err != nil {
		t.Fatal(err)
	}
	if frAfter := page("fr"); &frAfter[0] == &frBefore[0] {
		t.Error("fr's units page was served from memory after a write that touches everything")
	}
}

// TestRecentChangesFollowEdits checks that recent_changes counts every
// change at once, whether the count is taken whole or added to since the
// last whole count (recentChanges), at each scope.
func TestRecentChangesFollowEdits(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	want := func(column string, arg any) int {
		var n int
		if err := f.db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM changes WHERE `+column+` = ? AND timestamp > ?`,
			arg, formatTime(f.db.now().Add(-recentWindow))).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	check := func(step string) {
		t.Helper()
		tr, err := f.db.TranslationStats(ctx, f.tr["de"])
		if err != nil {
			t.Fatal(err)
		}
		comp, err := f.db.ComponentStats(ctx, f.comp.ID)
		if err != nil {
			t.Fatal(err)
		}
		lang, err := f.db.LanguageStats(ctx, "de")
		if err != nil {
			t.Fatal(err)
		}
		if tr.RecentChanges != want("translation_id", f.tr["de"]) || comp.RecentChanges != want("component_id", f.comp.ID) ||
			lang.RecentChanges != want("language_code", "de") {
			t.Errorf("%s: recent changes translation %d, component %d, language %d; want %d, %d, %d", step,
				tr.RecentChanges, comp.RecentChanges, lang.RecentChanges, want("translation_id", f.tr["de"]),
				want("component_id", f.comp.ID), want("language_code", "de"))
		}
	}
	check("before")
	for i := range 3 {
		if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", i).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{fmt.Sprint("neu ", i)}, State: index.StateTranslated}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprint("after edit ", i))
	}
}

// TestEditSeesBatchChanges checks that an edit's rules judge the
// translation as stored at that moment, though the writer answers
// translation reads from the lookup cache in batches of narrow writes
// (cachedTranslation): a write that changed the translation earlier in
// the same batch, or in an earlier one, is seen.
func TestEditSeesBatchChanges(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	unit := f.unit(t, "de", 1)
	// The edit's read of the translation, by a narrow write.
	seen := func(w *[]string) func(tx *Tx) error {
		return func(tx *Tx) error {
			_, tr, err := findUnitAndTranslation(tx, unit.ID)
			*w = append(*w, tr.Filename)
			return err
		}
	}
	rename := func(name string) func(tx *Tx) error {
		return func(tx *Tx) error {
			_, err := tx.Exec(`UPDATE translations SET filename = ? WHERE id = ?`, name, unit.TranslationID)
			return err
		}
	}
	batch := func(reqs ...*writeRequest) {
		t.Helper()
		for _, r := range reqs {
			r.ctx, r.done = ctx, make(chan writeResult, 1)
		}
		f.db.commitBatch(reqs)
		for i, r := range reqs {
			if res := <-r.done; res.err != nil {
				t.Fatalf("write %d: %v", i, res.err)
			}
		}
	}
	var got []string
	// Warm the cache: by a reader, then by the writer.
	if _, err := f.db.FindTranslationByID(ctx, unit.TranslationID); err != nil {
		t.Fatal(err)
	}
	batch(&writeRequest{fn: seen(&got), narrow: true}, &writeRequest{fn: seen(&got), narrow: true})
	// Renamed, then read, in one batch; then read in the next.
	batch(&writeRequest{fn: seen(&got), narrow: true}, &writeRequest{fn: rename("one.json")},
		&writeRequest{fn: seen(&got), narrow: true})
	batch(&writeRequest{fn: seen(&got), narrow: true})
	// A narrow write that widens renames too.
	batch(&writeRequest{fn: func(tx *Tx) error { tx.widen(); return rename("two.json")(tx) }, narrow: true},
		&writeRequest{fn: seen(&got), narrow: true})
	want := []string{"de.json", "de.json", "de.json", "one.json", "one.json", "two.json"}
	if !slices.Equal(got, want) {
		t.Errorf("edits read the filenames %q, want %q", got, want)
	}
}

// TestSignInKeepsCaches: signing in and out (a session stored or
// removed, a sign-in link stored or redeemed) writes rows no cache
// holds, so a cached units page is served from memory after each, the
// very same rows; a write that is not narrowed still drops it.
func TestSignInKeepsCaches(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	page := func() []index.Unit {
		units, _, err := f.db.FindUnits(ctx, index.UnitFilter{TranslationID: f.tr["de"], Page: index.Page{Number: 1, Size: 50}})
		if err != nil {
			t.Fatal(err)
		}
		return units
	}
	before := page()
	expires := f.db.now().Add(time.Hour)
	cookie := index.NewToken(index.SessionPrefix)
	link := index.NewToken(index.LoginLinkPrefix)
	redeemed := index.NewToken(index.SessionPrefix)
	for _, step := range []struct {
		what string
		do   func() error
	}{
		{"CreateSession", func() error {
			return f.db.CreateSession(ctx, index.Session{Hash: index.HashToken(cookie), UserID: f.user.UserID, Expires: expires})
		}},
		{"DeleteSession", func() error { return f.db.DeleteSession(ctx, index.HashToken(cookie)) }},
		{"CreateLoginLink", func() error {
			return f.db.CreateLoginLink(ctx, index.Session{Hash: index.HashToken(link), UserID: f.user.UserID, Expires: expires})
		}},
		{"RedeemLoginLink", func() error {
			_, err := f.db.RedeemLoginLink(ctx, link, index.Session{Hash: index.HashToken(redeemed), Expires: expires})
			return err
		}},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.what, err)
		}
		if after := page(); &after[0] != &before[0] {
			t.Errorf("the units page was read again after %s", step.what)
		}
	}
	// The redeemed link's session signs in.
	if _, err := f.db.SessionPrincipal(ctx, redeemed); err != nil {
		t.Errorf("the session RedeemLoginLink stored: %v", err)
	}
	if _, _, err := f.db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"}); err != nil {
		t.Fatal(err)
	}
	if after := page(); &after[0] == &before[0] {
		t.Error("the units page was served from memory after a write that touches everything")
	}
}
