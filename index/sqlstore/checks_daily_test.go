package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestBatchChecks: the daily pass flags a source string whose
// translations fail checks in two languages (multiple_failures) and an
// old one translated far less than its component (long_untranslated),
// clears them when that stops being so (a dismissal, a translation),
// obeys the flags, survives a settle of the source unit, and keeps the
// counts equal to a recount throughout.
func TestBatchChecks(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	start := time.Now() // the fixture's strings were imported just now
	en, de, fr := f.tr["en"], f.tr["de"], f.tr["fr"]
	pass := func(want int) {
		t.Helper()
		n, err := f.db.SettleBatchChecks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("SettleBatchChecks settled %d strings, want %d", n, want)
		}
		checkStoredStats(t, f.db)
	}
	pass(0)

	// k1 fails end_exclamation in de and fr.
	f.editKey(t, de, "k1", "Wort Nummer 1!", index.StateTranslated)
	f.editKey(t, fr, "k1", "Mot numéro 1!", index.StateTranslated)
	// fr translates every string but k9: the component is 24 of 30
	// translated (80%), k9 one of three (33%, under half of 80%), the
	// other odd strings two of three.
	for i := range 9 {
		if i != 1 {
			f.editKey(t, fr, fmt.Sprintf("k%d", i), fmt.Sprintf("Mot numéro %d", i), index.StateTranslated)
		}
	}
	if got := f.unitChecks(t, en, "k1"); len(got) != 0 {
		t.Fatalf("k1's source before the pass: %q", got)
	}
	pass(1)
	if got := f.unitChecks(t, en, "k1"); !slices.Equal(got, []string{"multiple_failures"}) {
		t.Errorf("k1's source: %q", got)
	}
	if got := f.search(t, "en", "check:multiple_failures"); !slices.Equal(got, []string{"k1"}) {
		t.Errorf("check:multiple_failures finds %q", got)
	}
	if got := f.unitChecks(t, en, "k9"); len(got) != 0 {
		t.Errorf("k9's source, new: %q", got)
	}
	pass(0) // nothing changed: nothing written

	// 91 days on, k9 is long untranslated; the others are not.
	f.clock.Set(func() time.Time { return start.Add(91 * 24 * time.Hour) })
	pass(1)
	if got := f.unitChecks(t, en, "k9"); !slices.Equal(got, []string{"long_untranslated"}) {
		t.Errorf("k9's source, 91 days on: %q", got)
	}
	if got := f.search(t, "en", "check:long_untranslated"); !slices.Equal(got, []string{"k9"}) {
		t.Errorf("check:long_untranslated finds %q", got)
	}

	// The source units' own settle (a change of the component's flags
	// settles every translation whole) keeps what the pass found.
	if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.CheckFlags = "strict-same"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.unitChecks(t, en, "k9"); !slices.Equal(got, []string{"long_untranslated"}) {
		t.Errorf("k9's source after a settle of its translation: %q", got)
	}
	if got := f.unitChecks(t, en, "k1"); !slices.Equal(got, []string{"multiple_failures"}) {
		t.Errorf("k1's source after a settle of its translation: %q", got)
	}
	checkStoredStats(t, f.db)

	// A dismissed check is not a failure: one language left.
	if _, err := f.db.SetCheckDismissed(ctx, f.unit(t, "de", 1).ID, "end_exclamation", true, f.user,
		func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// k9 translated in fr: two of three.
	f.editKey(t, fr, "k9", "Mot numéro 9", index.StateTranslated)
	pass(2)
	if got := f.unitChecks(t, en, "k1"); len(got) != 0 {
		t.Errorf("k1's source with one language failing: %q", got)
	}
	if got := f.unitChecks(t, en, "k9"); len(got) != 0 {
		t.Errorf("k9's source once translated: %q", got)
	}

	// The flags apply: ignore-multiple-failures on the component.
	f.editKey(t, fr, "k1", "Mot numéro 1 !", index.StateTranslated) // French spacing: no end_exclamation
	f.editKey(t, fr, "k3", "Mot numéro 3!", index.StateTranslated)
	f.editKey(t, de, "k3", "Wort Nummer 3!", index.StateTranslated)
	if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.CheckFlags = "ignore-multiple-failures"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	pass(0)
	if got := f.unitChecks(t, en, "k3"); len(got) != 0 {
		t.Errorf("k3's source under ignore-multiple-failures: %q", got)
	}
	if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.CheckFlags = ""
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	pass(1)
	if got := f.unitChecks(t, en, "k3"); !slices.Equal(got, []string{"multiple_failures"}) {
		t.Errorf("k3's source: %q", got)
	}
	if n := f.failing(t, "en"); n != 1 {
		t.Errorf("failing source strings: %d, want 1", n)
	}
}
