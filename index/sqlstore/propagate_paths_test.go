package sqlstore

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestPropagationOnUploadAndAccept: a merge upload and an accepted
// suggestion propagate what they write, as the reference's
// merge_translations and Suggestion.accept save through Unit.translate
// (77 by the same user, counters exact); a replace upload does not.
func TestPropagationOnUploadAndAccept(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	web := f.twin(t, "web", true)
	count77 := func(unitID int64) (n int) {
		t.Helper()
		if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE unit_id = ? AND action = ? AND user_id = ?`,
			unitID, index.ActionPropagated, f.user.UserID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	upload := func(m index.UploadMethod, i int, target string) {
		t.Helper()
		src := web.unitOf(t, "de", i).Source
		_, err := f.db.ApplyUpload(ctx, web.tr["de"], index.Upload{Method: m, UserID: f.user.UserID,
			Conflicts: index.ConflictsReplaceTranslated,
			Units:     []index.ImportUnit{{Context: web.unitOf(t, "de", i).Context, Source: src, Target: []string{target}}}})
		if err != nil {
			t.Fatal(err)
		}
		checkStoredStats(t, f.db)
	}

	upload(index.UploadTranslate, 2, "Zwei")
	if u := f.unit(t, "de", 2); u.Target[0] != "Zwei" || !u.State.Translated() || count77(u.ID) != 1 {
		t.Errorf("app/de k2 = %q state %d, %d changes 77; want the upload propagated", u.Target, u.State, count77(u.ID))
	}
	upload(index.UploadFuzzy, 4, "Vier?")
	if u := f.unit(t, "de", 4); u.Target[0] != "Vier?" || u.State != index.StateFuzzy || count77(u.ID) != 1 {
		t.Errorf("app/de k4 = %q state %d; want the fuzzy upload propagated", u.Target, u.State)
	}
	upload(index.UploadReplace, 6, "Sechs")
	if u := f.unit(t, "de", 6); u.Target[0] == "Sechs" || count77(u.ID) != 0 {
		t.Errorf("app/de k6 = %q: a replace upload propagated", u.Target)
	}

	id := f.suggestOn(t, "de", 8, "Acht")
	if _, err := f.db.AcceptSuggestion(ctx, id, f.user, func(index.Suggestion, index.Unit, index.Translation) (index.State, error) {
		return index.StateTranslated, nil
	}); err != nil {
		t.Fatal(err)
	}
	checkStoredStats(t, f.db)
	if u := web.unitOf(t, "de", 8); u.Target[0] != "Acht" || count77(u.ID) != 1 {
		t.Errorf("web/de k8 = %q, %d changes 77; want the accepted suggestion propagated", u.Target, count77(u.ID))
	}
}
