package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestInconsistentReuseMatchesLookup runs the same edits on two indexes,
// one whose inconsistent check reuses propagation's lookup
// (propagatedLookup) and one that looks the string up again
// (Options.lookUpAgain, as before session 12), and checks that after
// every write both hold the same units, check rows, has_failing_check
// and statistics, and that the counters are exact: edits propagated to
// peers, one locked (left as read), one saved as needing editing, one
// whose peers already hold the target, edits of one string in one
// batch (an earlier write changing the peers' units the later one
// reads), and a peer holding the string twice (which unit a lookup
// keeps depends on its plan: not reused). Where no peer holds a string
// twice, the stored inconsistent rows are also a recount's. It checks
// that the first index did reuse (pathCounts.lookupsReused), on both engines:
// were reuse never to happen the dumps would agree all the same.
func TestInconsistentReuseMatchesLookup(t *testing.T) {
	var dumps [2][]string
	var reused [2][]uint64
	var steps []string
	for i, again := range []bool{false, true} {
		f := mustWriteFixtureWith(t, Options{lookUpAgain: again, Writers: 1})
		steps, dumps[i], reused[i] = reuseScenario(t, f)
	}
	// The comparison below holds only if the first index reused: on
	// SQLite no statement log shows it (checkLookedUpOnce is
	// PostgreSQL's), so the settler counts its reuses. Every step but
	// the duplicate's reuses (the edit's string group and its peers'
	// each, in a batch each write's); a peer holding the string twice
	// is never reused, and the second index looks up every time.
	t.Logf("inconsistent checks answered by propagation's lookup, by step: %v; looking up again: %v", reused[0], reused[1])
	for k, step := range steps {
		wantReuse := !strings.Contains(step, "twice") && !strings.Contains(step, "that peer's")
		if got := reused[0][k] > 0; got != wantReuse {
			t.Errorf("after %s, the inconsistent check reused propagation's lookup %d times; want reuse: %v",
				step, reused[0][k], wantReuse)
		}
		if reused[1][k] != 0 {
			t.Errorf("after %s, the index told to look up again reused %d times", step, reused[1][k])
		}
	}
	for k, step := range steps {
		if dumps[0][k] != dumps[1][k] {
			t.Errorf("after %s, reusing propagation's lookup left\n%s\nwhere looking up again left\n%s",
				step, dumps[0][k], dumps[1][k])
		}
	}
}

// reuseScenario makes TestInconsistentReuseMatchesLookup's writes on f
// and returns, after each, its name and what the index holds (dumpChecked).
func reuseScenario(t *testing.T, f *writeFixture) (steps, dumps []string, reused []uint64) {
	ctx := context.Background()
	a, b, c := f.twin(t, "a", true), f.twin(t, "b", true), f.twin(t, "c", true)
	f.twin(t, "d", false) // holds the strings, shares none
	edit := func(u index.Unit, target string, state index.State) func() error {
		return func() error {
			_, err := f.db.UpdateUnit(ctx, u.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
				return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: state}}, nil
			})
			return err
		}
	}
	lock := func(w *writeFixture, locked bool) {
		if _, _, err := f.db.UpdateComponent(ctx, w.comp.ID, func(c *index.Component) error {
			c.Locked = locked
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	step := func(name string, recount bool, fn func()) {
		t.Helper()
		before := f.db.paths.lookupsReused.Load()
		fn()
		reused = append(reused, f.db.paths.lookupsReused.Load()-before)
		if recount {
			if want, got := recountInconsistent(t, f.db, f.comp.ProjectID); !slices.Equal(want, got) {
				t.Errorf("%s: units with an inconsistent row %v; a recount says %v", name, got, want)
			}
			checkAllCounts(t, f.db)
		}
		steps, dumps = append(steps, name), append(dumps, dumpChecked(t, f.db))
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	step("an edit reaching three peers", true, func() { must(edit(f.unit(t, "de", 1), "Eins", index.StateTranslated)()) })
	step("a peer's edit saved as needing editing", true, func() {
		must(edit(a.unitOf(t, "de", 2), "Zwei", index.StateFuzzy)())
	})
	step("an edit beside a locked peer", true, func() {
		lock(b, true)
		must(edit(f.unit(t, "de", 1), "Anders", index.StateTranslated)())
		lock(b, false)
	})
	step("an edit whose peers but one hold the target", true, func() {
		must(edit(c.unitOf(t, "de", 1), "Anders", index.StateApproved)())
	})
	step("edits of one string in one batch", true, func() {
		inOneBatch(t, f.db, edit(c.unitOf(t, "de", 3), "Drei", index.StateTranslated),
			edit(f.unit(t, "de", 3), "Vier", index.StateFuzzy),
			edit(a.unitOf(t, "de", 3), "Drei", index.StateTranslated),
			edit(b.unitOf(t, "de", 5), "Fünf", index.StateTranslated))
	})
	step("an edit of the string a peer's earlier edit in the batch changed", true, func() {
		inOneBatch(t, f.db, edit(b.unitOf(t, "de", 6), "Sechs", index.StateTranslated),
			edit(f.unit(t, "de", 6), "Sechs", index.StateFuzzy))
	})
	// b/de holds k4 twice: a second unit of its string, translated
	// otherwise.
	dup := b.unitOf(t, "de", 4)
	must(f.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`INSERT INTO units (translation_id, source_unit_id, position, context, source, target,
			previous_source, id_hash, content_hash, location, note, flags, explanation, extra_flags, state, pending,
			priority, num_words, has_suggestion, has_comment, has_failing_check, timestamp, automatically_translated)
			SELECT translation_id, source_unit_id, position + 100, context, source, 'Doppelt', previous_source, id_hash,
			content_hash, location, note, flags, explanation, extra_flags, ?, pending, priority, num_words,
			has_suggestion, has_comment, has_failing_check, timestamp, automatically_translated FROM units WHERE id = ?`,
			index.StateTranslated, dup.ID)
		return err
	}))
	step("an edit reaching a peer that holds the string twice", false, func() {
		must(edit(f.unit(t, "de", 4), "Vier", index.StateTranslated)())
	})
	step("that peer's edit of the string", false, func() {
		must(edit(b.unitOf(t, "de", 4), "Noch", index.StateTranslated)())
	})
	return steps, dumps, reused
}

// dumpChecked returns, as text, every unit of the index's translations
// (by component, language and position: the ids may differ between two
// indexes) with its target, state, has_failing_check and check rows,
// and every statistics row.
func dumpChecked(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	err := db.write(context.Background(), func(tx *Tx) error {
		rows, err := tx.Query(`SELECT c.slug, t.language_code, u.position, u.context, u.target, u.state,
			u.has_failing_check FROM units u JOIN translations t ON t.id = u.translation_id
			JOIN components c ON c.id = t.component_id ORDER BY c.slug, t.language_code, u.position`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var slug, lang, context, target string
			var position, state, failing int64
			if err := rows.Scan(&slug, &lang, &position, &context, &target, &state, &failing); err != nil {
				rows.Close()
				return err
			}
			fmt.Fprintf(&b, "%s/%s %d %s %q %d %d\n", slug, lang, position, context, target, state, failing)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		rows, err = tx.Query(`SELECT c.slug, t.language_code, u.position, k.name, k.dismissed FROM checks k
			JOIN units u ON u.id = k.unit_id JOIN translations t ON t.id = u.translation_id
			JOIN components c ON c.id = t.component_id ORDER BY c.slug, t.language_code, u.position, k.name`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var slug, lang, name string
			var position, dismissed int64
			if err := rows.Scan(&slug, &lang, &position, &name, &dismissed); err != nil {
				rows.Close()
				return err
			}
			fmt.Fprintf(&b, "check %s/%s %d %s %d\n", slug, lang, position, name, dismissed)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		rows, err = tx.Query(`SELECT scope, scope_key, total, translated, fuzzy, failing, failing_words, approved,
			readonly FROM stats ORDER BY scope, scope_key`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var scope, key string
			var n [7]int64
			if err := rows.Scan(&scope, &key, &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6]); err != nil {
				return err
			}
			fmt.Fprintf(&b, "stats %s %s %v\n", scope, key, n)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
