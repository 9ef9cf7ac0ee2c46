package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// setTarget saves a translation of key k<i> in lang through UpdateUnit,
// as the API's PATCH does, and returns the unit as written.
func (f *writeFixture) setTarget(tb testing.TB, lang string, i int, target string) index.Unit {
	tb.Helper()
	u, err := f.db.UpdateUnit(context.Background(), f.unit(tb, lang, i).ID, f.user,
		func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
		})
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// checkNames lists a unit's stored checks, "!" before a dismissed one.
func (f *writeFixture) checkNames(tb testing.TB, lang string, i int) []string {
	tb.Helper()
	cs, err := f.db.UnitChecks(context.Background(), f.unit(tb, lang, i).ID)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		if c.Dismissed {
			out = append(out, "!"+c.Name)
		} else {
			out = append(out, c.Name)
		}
	}
	return out
}

// search returns the keys of the units of lang a query finds.
func (f *writeFixture) search(tb testing.TB, lang, q string) []string {
	tb.Helper()
	units, _, err := f.db.FindUnits(context.Background(), index.UnitFilter{TranslationID: f.tr[lang], Query: q,
		Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, u := range units {
		out = append(out, u.Context)
	}
	return out
}

func (f *writeFixture) failing(tb testing.TB, lang string) int {
	tb.Helper()
	st, err := f.db.TranslationStats(context.Background(), f.tr[lang])
	if err != nil {
		tb.Fatal(err)
	}
	return st.Failing
}

// TestChecksFollowEveryWrite: an edit that loses the source's "!" fails
// end_exclamation, the row and the counts follow each later write
// (fixing, dismissing, restoring, the source string's flags, the
// component's flags, removal), and every statistics row stays equal to a
// recount.
func TestChecksFollowEveryWrite(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	if n := f.failing(t, "de"); n != 0 {
		t.Fatalf("fixture: %d failing", n)
	}

	u := f.setTarget(t, "de", 1, "Wort Nummer 1!")
	if !u.HasFailingCheck {
		t.Error("the unit as written does not say it has a failing check")
	}
	if got := f.checkNames(t, "de", 1); !slices.Equal(got, []string{"end_exclamation"}) {
		t.Errorf("checks after a stray '!': %q", got)
	}
	if f.failing(t, "de") != 1 {
		t.Errorf("failing = %d, want 1", f.failing(t, "de"))
	}
	if got := f.search(t, "de", "check:end_exclamation"); !slices.Equal(got, []string{"k1"}) {
		t.Errorf("check:end_exclamation finds %q", got)
	}
	if got := f.search(t, "de", "has:check AND key:k1"); !slices.Equal(got, []string{"k1"}) {
		t.Errorf("has:check finds %q", got)
	}
	checkStoredStats(t, f.db)

	// Fixed: the row goes, and the count with it.
	if u := f.setTarget(t, "de", 1, "Wort Nummer 1"); u.HasFailingCheck {
		t.Error("fixed unit still has a failing check")
	}
	if got := f.checkNames(t, "de", 1); len(got) != 0 || f.failing(t, "de") != 0 {
		t.Errorf("after the fix: checks %q, failing %d", got, f.failing(t, "de"))
	}

	// Left as the source: same, then dismissed and restored.
	f.setTarget(t, "de", 3, "Word number 3")
	if got := f.checkNames(t, "de", 3); !slices.Equal(got, []string{"same"}) {
		t.Fatalf("checks of an unchanged translation: %q", got)
	}
	id := f.unit(t, "de", 3).ID
	allow := func(index.Unit, index.Translation) error { return nil }
	changed, err := f.db.SetCheckDismissed(ctx, id, "same", true, f.user, allow)
	if err != nil || !changed {
		t.Fatalf("dismiss: %v, %v", changed, err)
	}
	if got := f.checkNames(t, "de", 3); !slices.Equal(got, []string{"!same"}) || f.failing(t, "de") != 0 ||
		f.unit(t, "de", 3).HasFailingCheck {
		t.Errorf("after dismissing: checks %q, failing %d", got, f.failing(t, "de"))
	}
	if got := f.search(t, "de", "dismissed_check:same"); !slices.Equal(got, []string{"k3"}) {
		t.Errorf("dismissed_check:same finds %q", got)
	}
	if got := f.search(t, "de", "check:same"); len(got) != 0 {
		t.Errorf("check:same finds a dismissed check: %q", got)
	}
	if got := f.search(t, "de", "has:dismissed-check"); !slices.Equal(got, []string{"k3"}) {
		t.Errorf("has:dismissed-check finds %q", got)
	}
	checkStoredStats(t, f.db)
	// A save that leaves the check failing keeps it dismissed.
	f.setTarget(t, "de", 3, "Word number 3") // no change: nothing written
	if changed, err := f.db.SetCheckDismissed(ctx, id, "same", true, f.user, allow); err != nil || changed {
		t.Errorf("dismissing twice: %v, %v", changed, err)
	}
	if _, err := f.db.SetCheckDismissed(ctx, id, "end_stop", true, f.user, allow); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("dismissing a check that does not fail: %v", err)
	}
	refused := errors.New("no")
	if _, err := f.db.SetCheckDismissed(ctx, id, "same", false, f.user,
		func(index.Unit, index.Translation) error { return refused }); !errors.Is(err, refused) {
		t.Errorf("allow's error: %v", err)
	}
	if _, err := f.db.SetCheckDismissed(ctx, id, "same", false, f.user, allow); err != nil {
		t.Fatal(err)
	}
	if f.failing(t, "de") != 1 || !f.unit(t, "de", 3).HasFailingCheck {
		t.Errorf("restored check does not count: failing %d", f.failing(t, "de"))
	}

	// ignore-same on the source string silences it in every translation.
	src := f.unit(t, "en", 3)
	flags := "ignore-same"
	if _, err := f.db.UpdateUnit(ctx, src.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{ExtraFlags: &flags}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.checkNames(t, "de", 3); len(got) != 0 || f.failing(t, "de") != 0 {
		t.Errorf("after ignore-same on the source: checks %q, failing %d", got, f.failing(t, "de"))
	}
	checkStoredStats(t, f.db)

	// The component's flags reach every unit at once.
	if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.CheckFlags = "max-length:12"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"k0", "k1", "k2", "k3", "k4", "k6", "k8"} // every translation: 13 characters
	if got := f.search(t, "de", "check:max-length"); !slices.Equal(got, want) {
		t.Errorf("max-length:12 fails on %q; want %q", got, want)
	}
	if f.failing(t, "de") != 7 {
		t.Errorf("failing = %d, want 7", f.failing(t, "de"))
	}
	checkStoredStats(t, f.db)

	// Removing a failing unit takes its count away.
	if err := f.db.DeleteUnit(ctx, f.unit(t, "de", 0).ID, f.user, allow); err != nil {
		t.Fatal(err)
	}
	if f.failing(t, "de") != 6 {
		t.Errorf("failing after removing one = %d, want 6", f.failing(t, "de"))
	}
	checkStoredStats(t, f.db)

	cc, err := f.db.ComponentChecks(ctx, f.comp.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The source strings (13 characters, read-only in their own
	// translation as imported) run the source checks: an English source
	// at 85% of max-length:12 fails source-max-length.
	if want := []index.CheckCount{{Name: "max-length", LanguageCode: "de", Failing: 6},
		{Name: "source-max-length", LanguageCode: "en", Failing: 10}}; !slices.Equal(cc, want) {
		t.Errorf("component summary: %+v, want %+v", cc, want)
	}
}

// TestEnforcedCheckDemotes: a save that leaves an enforced check failing
// is kept in state 11 with change 76; the statistics count it as needing
// editing.
func TestEnforcedCheckDemotes(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.EnforcedChecks = []string{"end_stop"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	before, err := f.db.TranslationStats(ctx, f.tr["de"])
	if err != nil {
		t.Fatal(err)
	}
	u := f.setTarget(t, "de", 1, "Wort Nummer 1.")
	if u.State != index.StateNeedsRewriting || !u.State.Fuzzy() {
		t.Errorf("state after failing an enforced check: %d, want 11", u.State)
	}
	if stored := f.unit(t, "de", 1); stored.State != index.StateNeedsRewriting {
		t.Errorf("stored state %d", stored.State)
	}
	after, err := f.db.TranslationStats(ctx, f.tr["de"])
	if err != nil {
		t.Fatal(err)
	}
	if after.Fuzzy != before.Fuzzy+1 || after.Translated != before.Translated || after.Failing != 1 {
		t.Errorf("stats: fuzzy %d→%d, translated %d→%d, failing %d", before.Fuzzy, after.Fuzzy,
			before.Translated, after.Translated, after.Failing)
	}
	if got := f.search(t, "de", "is:fuzzy"); !slices.Equal(got, []string{"k1"}) {
		t.Errorf("is:fuzzy finds %q", got)
	}
	var n int
	var details string
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*), max(details) FROM changes WHERE action = ? AND unit_id = ?`,
		index.ActionEnforcedCheck, u.ID).Scan(&n, &details); err != nil || n != 1 {
		t.Errorf("changes 76: %d, %v", n, err)
	}
	// The states before and after, as every state change keeps them.
	if !strings.HasPrefix(details, `{"state":11,"old_state":20,"checks":["`) {
		t.Errorf("change 76 details %s", details)
	}
	checkStoredStats(t, f.db)
	// A check that is not enforced leaves the state alone.
	if u := f.setTarget(t, "de", 3, "Wort Nummer 3!"); u.State != index.StateTranslated {
		t.Errorf("state after failing a check that is not enforced: %d", u.State)
	}
}

// TestImportRunsChecks: an import checks every translated unit of the
// file, and a re-import of the same content writes nothing.
func TestImportRunsChecks(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "fr", Filename: "fr.json",
		Revision: "r2", Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i := range 10 {
		k := "k" + itoa(int64(i))
		target := ""
		switch i {
		case 1:
			target = "Mot numéro 1 " // a stray trailing space
		case 2:
			target = "Word number 2" // unchanged
		case 3:
			target = "Mot  numéro 3" // a double space
		}
		state := index.StateEmpty
		if target != "" {
			state = index.StateTranslated
		}
		imp.Units = append(imp.Units, index.ImportUnit{Context: k, Source: []string{"Word number " + itoa(int64(i))},
			Target: []string{target}, State: state})
	}
	if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int][]string{1: {"end_space"}, 2: {"same"}, 3: {"double_space"}, 4: nil} {
		if got := f.checkNames(t, "fr", i); !slices.Equal(got, want) {
			t.Errorf("fr k%d: checks %q, want %q", i, got, want)
		}
	}
	if f.failing(t, "fr") != 3 {
		t.Errorf("failing = %d, want 3", f.failing(t, "fr"))
	}
	checkStoredStats(t, f.db)
	var rows int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM checks`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	imp.Revision = "r3"
	if res, err := f.db.ImportTranslation(ctx, imp); err != nil || res.Changed {
		t.Fatalf("re-import: %+v, %v", res, err)
	}
	var again int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM checks`).Scan(&again); err != nil || again != rows {
		t.Errorf("re-import changed the check rows: %d → %d (%v)", rows, again, err)
	}
}

// TestHostileTextChecksQuickly: a 100,000-character target under a
// pathological regex flag and deep markup is checked without stalling
// the write (Go's regexp is linear; superlinear checks skip what is
// over their bound).
func TestHostileTextChecksQuickly(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	flags := "regex:(a+)+$, max-length:10"
	if _, err := f.db.UpdateUnit(ctx, f.unit(t, "en", 5).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{ExtraFlags: &flags}, nil
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f.setTarget(t, "de", 5, strings.Repeat("a", 100_000)+"!")
	f.setTarget(t, "de", 7, strings.Repeat("<b>", 20_000)+"x"+strings.Repeat("</b>", 20_000))
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("two hostile saves took %v", d)
	}
	got := f.checkNames(t, "de", 5)
	if !slices.Contains(got, "regex") || !slices.Contains(got, "max-length") {
		t.Errorf("checks of the hostile text: %q, want regex and max-length among them", got)
	}
	checkStoredStats(t, f.db)
}

// TestSettleManyUnits: an import of more units than one goroutine checks
// (parallelChecks) gets every unit's checks, as `go test -race` sees
// them computed side by side.
func TestSettleManyUnits(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	n := 4*parallelChecks + 3
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "cs", Filename: "cs.json",
		Revision: "r", Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i := range n {
		target := fmt.Sprintf("Slovo %d", i)
		if i%3 == 0 {
			target += "!" // the source has no "!"
		}
		imp.Units = append(imp.Units, index.ImportUnit{Context: fmt.Sprintf("many%d", i),
			Source: []string{fmt.Sprintf("Word %d", i)}, Target: []string{target}, State: index.StateTranslated})
	}
	res, err := f.db.ImportTranslation(ctx, imp)
	if err != nil {
		t.Fatal(err)
	}
	f.tr["cs"] = res.TranslationID
	if got, want := f.failing(t, "cs"), (n+2)/3; got != want {
		t.Errorf("failing = %d, want %d", got, want)
	}
	checkStoredStats(t, f.db)
}
