package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// importComponent creates a component of f's project with the given
// settings and imports its languages: lang → key → [source, target];
// "en" is the source.
func (f *writeFixture) importComponent(tb testing.TB, slug string, edit func(*index.Component),
	langs map[string][][3]string) (index.Component, map[string]int64) {
	tb.Helper()
	ctx := context.Background()
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template = f.comp.ProjectID, slug, slug, "en.json"
	edit(&c)
	c, _, err := f.db.SaveComponent(ctx, c)
	if err != nil {
		tb.Fatal(err)
	}
	tr := map[string]int64{}
	order := slices.DeleteFunc(slices.Sorted(maps.Keys(langs)), func(l string) bool { return l == "en" })
	for _, lang := range append([]string{"en"}, order...) {
		imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: lang, Filename: lang + ".json", Revision: "r",
			Monolingual: true, IsSource: lang == "en", IsTemplate: lang == "en", SourceTranslationID: tr["en"]}
		for _, u := range langs[lang] {
			iu := index.ImportUnit{Context: u[0], Source: []string{u[1]}, Target: []string{u[2]}, State: index.StateTranslated}
			if lang == "en" {
				iu.State = index.StateReadOnly
			}
			imp.Units = append(imp.Units, iu)
		}
		res, err := f.db.ImportTranslation(ctx, imp)
		if err != nil {
			tb.Fatal(err)
		}
		tr[lang] = res.TranslationID
	}
	return c, tr
}

// unitChecks lists the stored checks of the unit with key k in a
// translation, "!" before a dismissed one.
func (f *writeFixture) unitChecks(tb testing.TB, translationID int64, k string) []string {
	tb.Helper()
	ctx := context.Background()
	id, err := f.db.FindUnitIDByHash(ctx, translationID, index.IDHash(true, nil, k))
	if err != nil {
		tb.Fatalf("%s: %v", k, err)
	}
	cs, err := f.db.UnitChecks(ctx, id)
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

// editKey saves a target and state on the unit with key k of a translation.
func (f *writeFixture) editKey(tb testing.TB, translationID int64, k, target string, state index.State) {
	tb.Helper()
	ctx := context.Background()
	id, err := f.db.FindUnitIDByHash(ctx, translationID, index.IDHash(true, nil, k))
	if err != nil {
		tb.Fatalf("%s: %v", k, err)
	}
	if _, err := f.db.UpdateUnit(ctx, id, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: state}}, nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// TestGlossaryChecks: a glossary's terms starting with a formula
// character fail prohibited_initial_character (its read-only source
// strings too); a component with check-glossary fails check_glossary
// where a German translation leaves out the term's translation, and an
// edit of the glossary flips it.
func TestGlossaryChecks(t *testing.T) {
	f := mustWriteFixture(t)
	_, gl := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"apple", "apple", "apple"}, {"sum", "=SUM", "=SUM"}, {"pear", "pear", "pear"}},
		"de": {{"apple", "apple", "Apfel"}, {"sum", "=SUM", "SUMME"}, {"pear", "pear", "-Birne"}},
	})
	for _, c := range []struct {
		tr   int64
		k    string
		want []string
	}{
		{gl["en"], "sum", []string{"prohibited_initial_character"}},
		{gl["en"], "apple", nil},
		{gl["de"], "sum", []string{"prohibited_initial_character"}},
		{gl["de"], "pear", []string{"prohibited_initial_character"}},
		{gl["de"], "apple", nil}, // no other check runs in a glossary ("same" would not either)
	} {
		if got := f.unitChecks(t, c.tr, c.k); !slices.Equal(got, c.want) {
			t.Errorf("glossary %d %s: %q, want %q", c.tr, c.k, got, c.want)
		}
	}
	checkStoredStats(t, f.db)

	_, fr := f.importComponent(t, "fruit", func(c *index.Component) { c.CheckFlags = "check-glossary" }, map[string][][3]string{
		"en": {{"a", "I like an apple", "I like an apple"}, {"b", "I like apples", "I like apples"}},
		"de": {{"a", "I like an apple", "Ich mag Birnen"}, {"b", "I like apples", "Ich mag Kirschen"}},
	})
	if got := f.unitChecks(t, fr["de"], "a"); !slices.Equal(got, []string{"check_glossary"}) {
		t.Errorf("without Apfel: %q", got)
	}
	// "apple" is not a word of "apples": the reference's lookup wants
	// word boundaries.
	if got := f.unitChecks(t, fr["de"], "b"); len(got) != 0 {
		t.Errorf("apples: %q", got)
	}
	f.editKey(t, fr["de"], "a", "Ich mag einen Apfel", index.StateTranslated)
	if got := f.unitChecks(t, fr["de"], "a"); len(got) != 0 {
		t.Errorf("with Apfel: %q", got)
	}
	checkStoredStats(t, f.db)

	// The glossary's edit reaches the component that uses it.
	f.editKey(t, gl["de"], "apple", "Paradiesapfel", index.StateTranslated)
	if got := f.unitChecks(t, fr["de"], "a"); !slices.Equal(got, []string{"check_glossary"}) {
		t.Errorf("after the glossary's edit: %q", got)
	}
	checkStoredStats(t, f.db)
	// Marked forbidden, the old translation must not be used.
	f.editKey(t, gl["de"], "apple", "Apfel", index.StateTranslated)
	if got := f.unitChecks(t, fr["de"], "a"); len(got) != 0 {
		t.Errorf("after the glossary's edit back: %q", got)
	}
	ctx := context.Background()
	id, err := f.db.FindUnitIDByHash(ctx, gl["en"], index.IDHash(true, nil, "apple"))
	if err != nil {
		t.Fatal(err)
	}
	forbidden := "forbidden"
	if _, err := f.db.UpdateUnit(ctx, id, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{ExtraFlags: &forbidden}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.unitChecks(t, fr["de"], "a"); !slices.Equal(got, []string{"check_glossary"}) {
		t.Errorf("a forbidden term used: %q", got)
	}
	checkStoredStats(t, f.db)
	// The term removed, nothing is asked of the translation.
	allow := func(index.Unit, index.Translation) error { return nil }
	if err := f.db.DeleteUnit(ctx, id, f.user, allow); err != nil {
		t.Fatal(err)
	}
	if got := f.unitChecks(t, fr["de"], "a"); len(got) != 0 {
		t.Errorf("after the term's removal: %q", got)
	}
	checkStoredStats(t, f.db)
	// The component without the flag is not checked against the glossary.
	if got := f.unitChecks(t, f.tr["de"], "k0"); len(got) != 0 {
		t.Errorf("a component without check-glossary: %q", got)
	}
}

// TestTranslatedCheck: a string cleared or marked needing editing after
// it had a translation fails translated, also when its translation is
// settled whole; translating it again passes.
func TestTranslatedCheck(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	de := f.tr["de"]
	f.editKey(t, de, "k1", "Wort 1", index.StateTranslated)
	f.editKey(t, de, "k1", "", index.StateEmpty)
	if got := f.unitChecks(t, de, "k1"); !slices.Equal(got, []string{"translated"}) {
		t.Errorf("cleared: %q", got)
	}
	if got := f.search(t, "de", "check:translated"); !slices.Equal(got, []string{"k1"}) {
		t.Errorf("check:translated finds %q", got)
	}
	checkStoredStats(t, f.db)
	// A component's flags settle the translation whole: the empty unit
	// with history keeps its check.
	if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.CheckFlags = "max-length:100"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.unitChecks(t, de, "k1"); !slices.Equal(got, []string{"translated"}) {
		t.Errorf("after settling the translation: %q", got)
	}
	f.editKey(t, de, "k1", "Wort 1", index.StateTranslated)
	if got := f.unitChecks(t, de, "k1"); len(got) != 0 {
		t.Errorf("translated again: %q", got)
	}
	// Marked for edit (37) on purpose: the history ends there.
	f.editKey(t, de, "k1", "Wort eins", index.StateFuzzy)
	if got := f.unitChecks(t, de, "k1"); len(got) != 0 {
		t.Errorf("marked for edit: %q", got)
	}
	// Needing rewriting saved directly records "Marked for edit" too
	// (37, index.EditAction): the walk ends there, and the store reads
	// no history for it (historyEnds).
	f.editKey(t, de, "k5", "Wort 5", index.StateTranslated)
	f.editKey(t, de, "k5", "Wort fünf", index.StateNeedsRewriting)
	if got := f.unitChecks(t, de, "k5"); len(got) != 0 {
		t.Errorf("needing rewriting: %q", got)
	}
	// Emptied after it: the walk passes the empty change and stops at
	// the 37, which ended the history before it.
	f.editKey(t, de, "k5", "", index.StateEmpty)
	if got := f.unitChecks(t, de, "k5"); len(got) != 0 {
		t.Errorf("emptied after a marking for edit: %q", got)
	}
	// Translated again, then emptied: the new translation counts.
	f.editKey(t, de, "k5", "Wort fünf", index.StateTranslated)
	f.editKey(t, de, "k5", "", index.StateEmpty)
	if got := f.unitChecks(t, de, "k5"); !slices.Equal(got, []string{"translated"}) {
		t.Errorf("emptied after a translation: %q", got)
	}
	// Never translated: nothing.
	f.editKey(t, de, "k3", "", index.StateEmpty)
	if got := f.unitChecks(t, de, "k3"); len(got) != 0 {
		t.Errorf("never translated: %q", got)
	}
	checkStoredStats(t, f.db)
}

// TestReusedCheck: two strings of different sources translated the same
// both fail reused, right after the edit that made them share a target
// and whenever their translation is settled whole (an import, a change
// of the component's flags); an edit away from the target clears the
// other's; an import finds them from memory.
func TestReusedCheck(t *testing.T) {
	f := mustWriteFixture(t)
	de := f.tr["de"]
	wholeRecheck := func(flags string) {
		t.Helper()
		if _, _, err := f.db.UpdateComponent(context.Background(), f.comp.ID, func(c *index.Component) error {
			c.CheckFlags = flags
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	f.editKey(t, de, "k1", "Wort Nummer 0", index.StateTranslated) // k0's translation
	// The edit finds k0 by target (units_target_prefix) and settles it
	// in the second round.
	if got := f.unitChecks(t, de, "k1"); !slices.Equal(got, []string{"reused"}) {
		t.Errorf("k1 right after the edit: %q", got)
	}
	if got := f.unitChecks(t, de, "k0"); !slices.Equal(got, []string{"reused"}) {
		t.Errorf("k0 right after k1's edit: %q", got)
	}
	checkStoredStats(t, f.db)
	f.editKey(t, de, "k1", "Wort Nummer 1", index.StateTranslated)
	if got := f.unitChecks(t, de, "k0"); len(got) != 0 {
		t.Errorf("k0 right after k1 left its target: %q", got)
	}
	checkStoredStats(t, f.db)
	f.editKey(t, de, "k1", "Wort Nummer 0", index.StateTranslated)
	wholeRecheck("strict-same")
	if got := f.unitChecks(t, de, "k1"); !slices.Equal(got, []string{"reused"}) {
		t.Errorf("k1: %q", got)
	}
	if got := f.unitChecks(t, de, "k0"); !slices.Equal(got, []string{"reused"}) {
		t.Errorf("k0, sharing the target: %q", got)
	}
	checkStoredStats(t, f.db)
	f.editKey(t, de, "k1", "Wort Nummer 1", index.StateTranslated)
	if got := f.unitChecks(t, de, "k1"); len(got) != 0 {
		t.Errorf("k1 after its own translation: %q", got)
	}
	wholeRecheck("")
	if got := f.unitChecks(t, de, "k0"); len(got) != 0 {
		t.Errorf("k0 after k1 left its target: %q", got)
	}
	checkStoredStats(t, f.db)

	// An import of a new translation finds them from memory.
	_, tr := f.importComponent(t, "more", func(*index.Component) {}, map[string][][3]string{
		"en": {{"a", "Open", "Open"}, {"b", "Opening", "Opening"}, {"c", "Close", "Close"}},
		"de": {{"a", "Open", "Öffnen"}, {"b", "Opening", "Öffnen"}, {"c", "Close", "Schließen"}},
	})
	for k, want := range map[string][]string{"a": {"reused"}, "b": {"reused"}, "c": nil} {
		if got := f.unitChecks(t, tr["de"], k); !slices.Equal(got, want) {
			t.Errorf("imported %s: %q, want %q", k, got, want)
		}
	}
	checkStoredStats(t, f.db)
	// Removing one of them leaves the other alone with its target.
	ctx := context.Background()
	id, err := f.db.FindUnitIDByHash(ctx, tr["de"], index.IDHash(true, nil, "b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.db.DeleteUnit(ctx, id, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// Its translation settled whole again: a is alone with its target.
	more, err := f.db.FindComponent(ctx, "p", "more")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.db.UpdateComponent(ctx, more.ID, func(c *index.Component) error {
		c.CheckFlags = "strict-same"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.unitChecks(t, tr["de"], "a"); len(got) != 0 {
		t.Errorf("a after b's removal: %q", got)
	}
	checkStoredStats(t, f.db)
}

// TestTargetLookupPlan: the lookups of reused (sameTargets, rechecks)
// find a translation's units by target through units_target_prefix
// (migration 0032) on both engines, not by scanning the translation.
// On PostgreSQL it looks at the plan a writer runs: a generic plan, in a
// translation created after the table's statistics were taken (an
// automatic translation's copy, session 7), run with the targets of a
// batch; byTarget's IN lists read every unit of the translation there
// and compared each with every target (a Filter removing 1,700 rows in
// AutoTranslateJellyfin), or at best sought the index with 400
// expressions built anew for every execution.
func TestTargetLookupPlan(t *testing.T) {
	f := mustWriteFixture(t)
	if testengine.Engine() != testengine.Postgres {
		for _, n := range []int{1, 3} {
			targets := make([]string, n)
			for i := range targets {
				targets[i] = "Wort Nummer " + strings.Repeat("x", 100*i)
			}
			cond, args := byTarget(targets)
			q := `SELECT id, source, target FROM units WHERE translation_id = ? AND state >= ? AND ` + cond
			plan, _ := explain(t, f.db, q, append([]any{f.tr["de"], index.StateTranslated}, args...)...)
			if !strings.Contains(plan, "units_target_prefix (translation_id=? AND <expr>=?)") {
				t.Errorf("%d targets: the plan does not seek units_target_prefix:\n%s", n, plan)
			}
		}
		return
	}
	const units, batch = 2000, 200
	comp := func(slug string) map[string][][3]string { return pairedTargets(slug, units) }
	f.importComponent(t, "old", func(*index.Component) {}, comp("old"))
	ctx := context.Background()
	conn := analyzedConn(t, f.db)
	_, tr := f.importComponent(t, "new", func(*index.Component) {}, comp("new"))
	targets := make([]string, batch)
	for i := range targets {
		targets[i] = fmt.Sprintf("Wort new %d", i*3)
	}
	plan, removed := genericPlan(t, conn, pgUnitsByTarget,
		fmt.Sprintf(`'%s', %d, %d`, pgTextArray(targets), tr["de"], index.StateTranslated))
	// 2 units a target (1,000 targets in 2,000 units); what a plan may
	// read and not keep is bounded by the targets, not the translation.
	// And no ARRAY[substr($3, 1, 64), ...]: byTarget's lists in a generic
	// plan, 2×200 expressions evaluated for every execution (15 ms in
	// this plan, 1.1 ms the join).
	if removed > batch || strings.Contains(plan, "ARRAY[") || !strings.Contains(plan, "unit_targets_pkey") {
		t.Errorf("the lookup of %d targets reads %d rows it does not keep, builds its lists per execution, "+
			"or does not use unit_targets' key (migration 0114):\n%s", batch, removed, plan)
	}
	var found int
	err := f.db.write(ctx, func(tx *Tx) error {
		found = 0
		return tx.unitsByTarget(tr["de"], targets, func(int64, string, string) error { found++; return nil })
	})
	if err != nil || found != 2*batch {
		t.Errorf("unitsByTarget found %d units (%v), want %d", found, err, 2*batch)
	}
}

// pairedTargets is a component of units strings, English and German,
// each German target shared by two strings ("Wort <slug> <i mod
// units/2>"): the plan tests' translations.
func pairedTargets(slug string, units int) map[string][][3]string {
	langs := map[string][][3]string{}
	for i := range units {
		k := fmt.Sprintf("k%d", i)
		langs["en"] = append(langs["en"], [3]string{k, "Word " + k, "Word " + k})
		langs["de"] = append(langs["de"], [3]string{k, "Word " + k, fmt.Sprintf("Wort %s %d", slug, i%(units/2))})
	}
	return langs
}

// pgTextArray is a PostgreSQL array literal of strings, each quoted
// (the trigram step wrote text arrays until migration 0077; only this
// test's EXPLAIN still spells one).
func pgTextArray(items []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, c := range []byte(s) {
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// TestTargetGuessPlan: targetGuess's lookup (pgTargetGuess), in its
// generic plan, probes unit_targets' key for each of its two targets
// and reads no row of the translation that it does not keep; its first
// form (a join on "prefix IN" the two) probed by translation alone and
// filtered every row of it (629 µs a call in tolk-bench's writes).
func TestTargetGuessPlan(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("PostgreSQL's statement")
	}
	f := mustWriteFixture(t)
	const units = 2000
	f.importComponent(t, "old", func(*index.Component) {}, pairedTargets("old", units))
	ctx := context.Background()
	conn := analyzedConn(t, f.db)
	_, tr := f.importComponent(t, "new", func(*index.Component) {}, pairedTargets("new", units))
	id, err := f.db.FindUnitIDByHash(ctx, tr["de"], index.IDHash(true, nil, "k7"))
	if err != nil {
		t.Fatal(err)
	}
	// k7's target is shared with k1007; the expected one with k8 and
	// k1008.
	plan, removed := genericPlan(t, conn, pgTargetGuess,
		fmt.Sprintf(`'%[1]s', '%[1]s', %[2]d, %[3]d, %[2]d, '%[1]s', %[3]d`, "Wort new 8", id, index.StateTranslated))
	t.Logf("plan:\n%s", plan)
	if removed > 4 || strings.Contains(plan, "Seq Scan") || strings.Count(plan, "unit_targets_pkey") != 2 {
		t.Errorf("the guess's lookup reads %d rows it does not keep, scans a table or does not probe unit_targets' key "+
			"for each target:\n%s", removed, plan)
	}
	var got []int64
	err = f.db.write(ctx, func(tx *Tx) error {
		g := &targetGuess{unit: id, target: "Wort new 8"}
		if err := queueTargetGuess(tx, g); err != nil {
			return err
		}
		if err := tx.flush(); err != nil {
			return err
		}
		for _, r := range g.rows {
			got = append(got, r.id)
		}
		return nil
	})
	if err != nil || len(got) != 3 {
		t.Errorf("the guess found %v (%v), want k8, k1008 and k1007", got, err)
	}
}

// genericPlan runs query (the index's dialect) in its generic plan on
// conn, with args (SQL literals), under EXPLAIN ANALYZE, and returns the
// plan and the rows its filters read and dropped.
func genericPlan(t *testing.T, conn *sql.Conn, query, args string) (plan string, removed int) {
	t.Helper()
	ctx := context.Background()
	prepare, _ := PostgresSQL(query, nil)
	for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE generic AS ` + prepare} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer conn.ExecContext(ctx, `DEALLOCATE generic; RESET plan_cache_mode`)
	rows, err := conn.QueryContext(ctx, `EXPLAIN (ANALYZE, COSTS OFF) EXECUTE generic(`+args+`)`)
	if err != nil {
		t.Fatal(err)
	}
	plan = planText(t, rows)
	for _, line := range strings.Split(plan, "\n") {
		var n int
		line = strings.TrimSpace(line)
		if _, err := fmt.Sscanf(line, "Rows Removed by Filter: %d", &n); err == nil {
			removed += n
		} else if _, err := fmt.Sscanf(line, "Rows Removed by Join Filter: %d", &n); err == nil {
			removed += n
		}
	}
	return plan, removed
}
