package sqlstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// waitRechecks waits for the background rechecks to end.
func (db *DB) waitRechecks(tb testing.TB) {
	tb.Helper()
	db.waitRechecksFor(tb, 30*time.Second)
}

// waitRechecksFor waits at most d for the background rechecks to end.
func (db *DB) waitRechecksFor(tb testing.TB, d time.Duration) {
	tb.Helper()
	for deadline := time.Now().Add(d); ; {
		db.rechecks.mu.Lock()
		n := len(db.rechecks.running)
		db.rechecks.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("background recheck still running after %v", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBackgroundRecheck: a change of a big component's check flags
// returns before its units are rechecked; the recheck then runs in
// batches through the writer, other writes go on meanwhile, and in the
// end the checks are those of the new flags with the counts equal to a
// recount, as the inline recheck leaves them.
func TestBackgroundRecheck(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	f.db.rechecks.inline = -1 // every component is "big"
	f.db.rechecks.batch = 3   // 10 units a translation: four batches each
	setFlags := func(flags string) {
		t.Helper()
		if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
			c.CheckFlags = flags
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	setFlags("max-length:12")
	// An edit of the same component while the recheck runs.
	f.editKey(t, f.tr["fr"], "k1", "Mot numéro un", index.StateTranslated)
	f.db.waitRechecks(t)
	// The de translations are 13 characters ("Wort Nummer 0"), the fr
	// one too; the sources too (source-max-length at 85% of 12).
	if got, want := f.search(t, "de", "check:max-length"), []string{"k0", "k2", "k4", "k6", "k8"}; !slices.Equal(got, want) {
		t.Errorf("de check:max-length: %q, want %q", got, want)
	}
	if got := f.unitChecks(t, f.tr["fr"], "k1"); !slices.Equal(got, []string{"max-length"}) {
		t.Errorf("fr k1: %q", got)
	}
	if n := f.failing(t, "en"); n != 10 {
		t.Errorf("failing source strings: %d, want 10", n)
	}
	checkStoredStats(t, f.db)

	// Two changes in a row: the recheck ends with the last.
	setFlags("max-length:5")
	setFlags("")
	f.db.waitRechecks(t)
	for _, lang := range []string{"en", "de", "fr"} {
		if n := f.failing(t, lang); n != 0 {
			t.Errorf("%s: %d failing without flags", lang, n)
		}
	}
	checkStoredStats(t, f.db)
}
