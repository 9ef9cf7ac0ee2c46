package sqlstore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestEditTargetGuess: an edit whose target is hinted
// (UpdateUnitExpecting, as the API's PATCH hints it) has its same-target
// lookups sent with its batch's first round trip (targetGuess). Where
// they answer, the reused check comes out as a lookup in the edit's own
// round trip leaves it, and a batch of one such edit is two round trips
// (was three); where the guess misses (its rules saved another target:
// an autofix; an earlier edit of the batch changed the translation),
// the edit looks up as before, at the cost of the round trip it always
// took, and the answers are exact. On SQLite nothing is sent ahead: the
// same answers.
func TestEditTargetGuess(t *testing.T) {
	db, rt, f := roundTripFixture(t)
	ctx := context.Background()
	pg := testengine.Engine() == testengine.Postgres
	de := f.tr["de"]
	// k0, k2, k4 are translated "Wort Nummer i"; k1, k3 empty.
	edit := func(k, hint string, upd index.UnitEdit) func() error {
		return func() error {
			id, err := db.FindUnitIDByHash(ctx, de, index.IDHash(true, nil, k))
			if err != nil {
				return err
			}
			_, err = db.UpdateUnitExpecting(ctx, id, f.user, []string{hint},
				func(index.Unit, index.Translation) (index.UnitUpdate, error) {
					return index.UnitUpdate{Edit: &upd}, nil
				})
			return err
		}
	}
	// Warm: the author's contributor row, the caches, the statements
	// of a second round (k8 takes k6's target: both fail reused).
	for _, w := range []func() error{
		edit("k7", "Warm", index.UnitEdit{Target: []string{"Warm"}, State: index.StateTranslated}),
		edit("k8", "Wort Nummer 6", index.UnitEdit{Target: []string{"Wort Nummer 6"}, State: index.StateTranslated}),
	} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	want := func(step string, checks map[string][]string) {
		t.Helper()
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range checks {
				if !yield(k) {
					return
				}
			}
		}) {
			if got := f.unitChecks(t, de, k); !slices.Equal(got, checks[k]) {
				t.Errorf("%s: %s's checks %q, want %q", step, k, got, checks[k])
			}
		}
		checkStoredStats(t, db)
	}
	// run runs fns in one batch and reports its round trips and the
	// guesses taken.
	run := func(fns ...func() error) (trips int, taken uint64) {
		t.Helper()
		before := db.paths.guessTaken.Load()
		log := rt.during(func() {
			if len(fns) == 1 {
				if err := fns[0](); err != nil {
					t.Fatal(err)
				}
				return
			}
			inOneBatch(t, db, fns...)
		})
		if i := slices.Index(log, "+ COMMIT"); len(fns) > 1 && i >= 0 {
			log = log[i+1:] // the holding write's
		}
		t.Logf("%d round trips:\n%s", countRoundTrips(log), strings.Join(log, "\n"))
		return countRoundTrips(log), db.paths.guessTaken.Load() - before
	}
	expect := func(step string, trips int, taken uint64, wantTrips int, wantTaken uint64) {
		t.Helper()
		if !pg {
			return
		}
		if trips != wantTrips || taken != wantTaken {
			t.Errorf("%s: %d round trips, %d guesses taken; want %d and %d", step, trips, taken, wantTrips, wantTaken)
		}
	}

	want("warm", map[string][]string{"k6": {"reused"}, "k7": nil, "k8": {"reused"}})

	// Hit, no other unit of the target: the edit's statements ride with
	// COMMIT.
	trips, taken := run(edit("k1", "Einzig", index.UnitEdit{Target: []string{"Einzig"}, State: index.StateTranslated}))
	expect("k1 takes a new target", trips, taken, maxEditRoundTrips, 1)
	want("k1 takes a new target", map[string][]string{"k0": nil, "k1": nil})

	// Hit: k3 takes k0's target; the guess finds k0, both fail reused.
	_, taken = run(edit("k3", "Wort Nummer 0", index.UnitEdit{Target: []string{"Wort Nummer 0"},
		State: index.StateTranslated}))
	expect("k3 takes k0's target", 0, taken, 0, 1)
	want("k3 takes k0's target", map[string][]string{"k0": {"reused"}, "k3": {"reused"}, "k2": nil})

	// Hit, the target left: k3 saved as needing editing leaves k0's
	// target, which the guess looked up too; k0 is settled again and
	// passes.
	_, taken = run(edit("k3", "Neu", index.UnitEdit{Target: []string{"Neu"}, State: index.StateFuzzy}))
	expect("k3 leaves k0's target", 0, taken, 0, 1)
	want("k3 leaves k0's target", map[string][]string{"k0": nil, "k3": nil})

	// Miss, the rules saved another target: the hint keeps a trailing
	// space that the autofix takes off (the source has none); the
	// lookup is the edit's own round trip, as without the hint.
	trips, taken = run(edit("k5", "Allein ", index.UnitEdit{Target: []string{"Allein "},
		State: index.StateTranslated, Autofix: true}))
	expect("k5 autofixed", trips, taken, maxEditRoundTrips+1, 0)
	want("k5 autofixed", map[string][]string{"k5": nil})
	// ... to k2's target, which the lookup finds.
	_, taken = run(edit("k5", "Wort Nummer 2 ", index.UnitEdit{Target: []string{"Wort Nummer 2 "},
		State: index.StateTranslated, Autofix: true}))
	expect("k5 autofixed to k2's target", 0, taken, 0, 0)
	want("k5 autofixed to k2's target", map[string][]string{"k2": {"reused"}, "k5": {"reused"}})

	// Miss, an earlier edit of the batch: k4 takes a new target, then k9
	// the same one. k9's guess, sent before k4's edit, found nothing;
	// it is not taken (k4 wrote its translation), and k9's own lookup
	// finds k4.
	_, taken = run(
		edit("k4", "Gemeinsam", index.UnitEdit{Target: []string{"Gemeinsam"}, State: index.StateTranslated}),
		edit("k9", "Gemeinsam", index.UnitEdit{Target: []string{"Gemeinsam"}, State: index.StateTranslated}))
	expect("k4 and k9 take one new target", 0, taken, 0, 1)
	want("k4 and k9 take one new target", map[string][]string{"k4": {"reused"}, "k9": {"reused"}})

	// Hit, the target saved is the old one: k4 saved as needing editing
	// keeps "Gemeinsam" and leaves it (the guess's one lookup: its
	// second branch is for an old target that differs); k9 is settled
	// again and passes. Then k4 translated again takes it back.
	_, taken = run(edit("k4", "Gemeinsam", index.UnitEdit{Target: []string{"Gemeinsam"}, State: index.StateFuzzy}))
	expect("k4 keeps its target, needing editing", 0, taken, 0, 1)
	want("k4 keeps its target, needing editing", map[string][]string{"k4": nil, "k9": nil})
	_, taken = run(edit("k4", "Gemeinsam", index.UnitEdit{Target: []string{"Gemeinsam"}, State: index.StateTranslated}))
	expect("k4 keeps its target, translated", 0, taken, 0, 1)
	want("k4 keeps its target, translated", map[string][]string{"k4": {"reused"}, "k9": {"reused"}})

	// Hit, plural targets: the hint is the forms, looked up joined as
	// the unit stores them.
	plural := func(k string) func() error {
		id, err := db.FindUnitIDByHash(ctx, de, index.IDHash(true, nil, k))
		if err != nil {
			t.Fatal(err)
		}
		forms := []string{"Ein Ding", "Viele Dinge"}
		return func() error {
			_, err := db.UpdateUnitExpecting(ctx, id, f.user, forms,
				func(index.Unit, index.Translation) (index.UnitUpdate, error) {
					return index.UnitUpdate{Edit: &index.UnitEdit{Target: forms, State: index.StateTranslated}}, nil
				})
			return err
		}
	}
	_, taken = run(plural("k1"))
	expect("k1 takes plural forms", 0, taken, 0, 1)
	_, taken = run(plural("k3"))
	expect("k3 takes k1's plural forms", 0, taken, 0, 1)
	want("k3 takes k1's plural forms", map[string][]string{"k1": {"reused"}, "k3": {"reused"}})
}

// TestEditTargetGuessOnce: the guess answers the write's first settle
// only, even one that settles nothing (an edit that changes nothing) or
// fails: a later settle of the same write, after what it wrote since,
// looks up afresh (settleRound takes the guess at its start).
func TestEditTargetGuessOnce(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("nothing is sent ahead on SQLite")
	}
	db, _, f := roundTripFixture(t)
	ctx := context.Background()
	id, err := db.FindUnitIDByHash(ctx, f.tr["de"], index.IDHash(true, nil, "k1"))
	if err != nil {
		t.Fatal(err)
	}
	var before, after bool
	err = db.writeUnitEdit(ctx, id, f.user.AuthorID, []string{"Einzig"}, func(tx *Tx) error {
		if _, _, err := readUnitForEdit(tx, id, f.user.AuthorID); err != nil {
			return err
		}
		before = tx.pre.guess != nil
		_, err := settleChecks(tx) // nothing marked
		after = tx.pre.guess != nil
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !before || after {
		t.Errorf("guess taken with the unit: %v, left after a settle of nothing: %v; want true, false", before, after)
	}
}

// TestEditTargetGuessTwoUnits: a hinted write that edits another unit of
// its unit's translation too (two edits in one write) does not take the
// guess, sent before either edit (Tx.recheckUnit drops it), and its
// checks are exact. k2, hinted to k0's target, and k0 are both saved as
// needing editing and leave their targets, which the guess looked up:
// without the drop the settle's recheck lookup took it.
func TestEditTargetGuessTwoUnits(t *testing.T) {
	db, _, f := roundTripFixture(t)
	ctx := context.Background()
	de := f.tr["de"]
	find := func(k string) int64 { return keyedUnit(t, db, de, k) }
	k0, k2 := find("k0"), find("k2") // "Wort Nummer 0", "Wort Nummer 2"
	before := db.paths.guessTaken.Load()
	err := db.writeUnitEdit(ctx, k2, f.user.AuthorID, []string{"Wort Nummer 0"}, func(tx *Tx) error {
		u, tr, err := readUnitForEdit(tx, k2, f.user.AuthorID)
		if err != nil {
			return err
		}
		e := editorOf(tx, &tr, f.user)
		if _, err := e.edit(&u, index.UnitEdit{Target: []string{"Wort Nummer 0"}, State: index.StateFuzzy}, 0); err != nil {
			return err
		}
		other, err := findUnitTx(tx, k0)
		if err != nil {
			return err
		}
		if _, err := e.edit(&other, index.UnitEdit{Target: []string{"Anders"}, State: index.StateFuzzy}, 0); err != nil {
			return err
		}
		return finishUnitWrite(e, &u)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k0", "k2", "k4"} {
		if got := f.unitChecks(t, de, k); len(got) != 0 {
			t.Errorf("%s's checks %q, want none", k, got)
		}
	}
	if got := db.paths.guessTaken.Load() - before; got != 0 {
		t.Errorf("%d guesses taken, want 0", got)
	}
	checkStoredStats(t, db)
}

// TestEditTargetGuessRefusedText: a hint PostgreSQL cannot take (a NUL,
// bytes not UTF-8), which the write's rules refuse, is not sent ahead:
// its lookup's error aborted the batch's first round trip, so that the
// refused edit answered a database error (the editor's save a 404) and
// the batch's other edits failed with it.
func TestEditTargetGuessRefusedText(t *testing.T) {
	db, _, f := roundTripFixture(t)
	ctx := context.Background()
	de := f.tr["de"]
	find := func(k string) int64 { return keyedUnit(t, db, de, k) }
	k1, k3, k5 := find("k1"), find("k3"), find("k5")
	refused := errors.New("refused by the rules")
	refuse := func(id int64, text string) func() error {
		return func() error {
			_, err := db.UpdateUnitExpecting(ctx, id, f.user, []string{text},
				func(index.Unit, index.Translation) (index.UnitUpdate, error) { return index.UnitUpdate{}, refused })
			return err
		}
	}
	errs := inOneBatchErrs(t, db,
		refuse(k1, "a\x00b"),
		refuse(k5, "a\xffb"),
		func() error {
			_, err := db.UpdateUnitExpecting(ctx, k3, f.user, []string{"Gut"}, setTarget("Gut"))
			return err
		})
	if !errors.Is(errs[0], refused) || !errors.Is(errs[1], refused) || errs[2] != nil {
		t.Errorf("errors %v, want the rules' refusal twice and the other edit saved", errs)
	}
	if u, err := db.FindUnitByID(ctx, k3); err != nil || !slices.Equal(u.Target, []string{"Gut"}) {
		t.Errorf("k3 reads %q, %v; want [Gut]", u.Target, err)
	}
}

// keyedUnit is the id of translation tid's unit of key k.
func keyedUnit(t *testing.T, db *DB, tid int64, k string) int64 {
	t.Helper()
	id, err := db.FindUnitIDByHash(context.Background(), tid, index.IDHash(true, nil, k))
	if err != nil {
		t.Fatal(err)
	}
	return id
}
