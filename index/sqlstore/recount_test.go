package sqlstore

import (
	"context"
	"strings"
	"testing"
)

// TestVerifyCountsFindsEachCounter breaks each kind of counter behind the
// store's back and checks that VerifyCounts names it, then that putting
// it back makes the recount clean again: a recount that cannot fail
// proves nothing about the writes tested with it.
func TestVerifyCountsFindsEachCounter(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	checkStoredStats(t, f.db)
	de := f.unit(t, "de", 0) // translated
	exec := func(query string, args ...any) {
		t.Helper()
		if err := f.db.write(ctx, func(tx *Tx) error {
			_, err := tx.Exec(query, args...)
			return err
		}); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	for _, tc := range []struct {
		name         string
		break_, mend string
		want         string
	}{
		{"words", `UPDATE units SET num_words = num_words + 1 WHERE id = ?`,
			`UPDATE units SET num_words = num_words - 1 WHERE id = ?`, "num_words"},
		{"characters", `UPDATE units SET num_chars = num_chars + 1 WHERE id = ?`,
			`UPDATE units SET num_chars = num_chars - 1 WHERE id = ?`, "num_chars"},
		{"failing flag without a check", `UPDATE units SET has_failing_check = 1 WHERE id = ?`,
			`UPDATE units SET has_failing_check = 0 WHERE id = ?`, "has_failing_check true, recount false"},
		{"a check without the flag", `INSERT INTO checks (unit_id, name) VALUES (?, 'same')`,
			`DELETE FROM checks WHERE unit_id = ?`, "has_failing_check false, recount true"},
		{"a suggestion without the flag", `INSERT INTO suggestions (unit_id, target, timestamp) VALUES (?, 'x', '2026-01-01')`,
			`DELETE FROM suggestions WHERE unit_id = ?`, "has_suggestion false, recount true"},
		{"an unresolved comment without the flag", `INSERT INTO comments (unit_id, comment, timestamp) VALUES (?, 'x', '2026-01-01')`,
			`DELETE FROM comments WHERE unit_id = ?`, "has_comment false, recount true"},
		{"the flag of a resolved comment", `UPDATE units SET has_comment = 1 WHERE id = ?`,
			`UPDATE units SET has_comment = 0 WHERE id = ?`, "has_comment true, recount false"},
		{"a state the statistics missed", `UPDATE units SET state = 30 WHERE id = ?`,
			`UPDATE units SET state = 20 WHERE id = ?`, "recount {total=10"},
		{"a list count", `UPDATE list_counts SET n = n + 1 WHERE list = 'ut' AND scope = (SELECT translation_id FROM units WHERE id = ?)`,
			`UPDATE list_counts SET n = n - 1 WHERE list = 'ut' AND scope = (SELECT translation_id FROM units WHERE id = ?)`, "list count ut/"},
	} {
		exec(tc.break_, de.ID)
		problems, err := f.db.VerifyCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(problems, "\n"), tc.want) {
			t.Errorf("%s: VerifyCounts = %q, want a line with %q", tc.name, problems, tc.want)
		}
		exec(tc.mend, de.ID)
		checkStoredStats(t, f.db)
	}
	// A statistics row at each level, and a row left with counts after
	// its scope is gone.
	for _, scope := range []string{"t", "c", "p", "l", "pl"} {
		exec(`UPDATE stats SET comments = comments + 1 WHERE scope = ? AND total > 0 AND scope_key = (
			SELECT min(scope_key) FROM stats WHERE scope = ? AND total > 0)`, scope, scope)
		problems, err := f.db.VerifyCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != 1 || !strings.HasPrefix(problems[0], "stats "+scope+"/") {
			t.Errorf("scope %s: VerifyCounts = %q", scope, problems)
		}
		exec(`UPDATE stats SET comments = comments - 1 WHERE scope = ? AND comments > 0`, scope)
	}
	exec(`INSERT INTO stats (scope, scope_key, ` + statsColumns + `) VALUES ('c', '999999',
		1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)`)
	if problems, _ := f.db.VerifyCounts(ctx); len(problems) != 1 || !strings.Contains(problems[0], "stats c/999999: stored {total=1}") {
		t.Errorf("a row of a component that is gone: %q", problems)
	}
}
