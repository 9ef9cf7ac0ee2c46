package sync_test

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
)

// TestTemplateReimportKeepsSourceReview: under the project's
// source_review, template strings approved or edited in Tolk and
// committed keep their state when a pull re-reads the template (the
// file stores no review state; the import read each as read-only, 100),
// while a string upstream reworded loses its approval and waits for
// review again (20), as the reference's get_unit_state drops the kept
// state of a changed string. Strings nobody touched stay read-only.
func TestTemplateReimportKeepsSourceReview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	p, err := e.db.FindProject(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	p.SourceReview = true
	if _, _, err := e.db.SaveProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	e.c.EditTemplate = true
	if e.c, _, err = e.db.SaveComponent(ctx, e.c); err != nil {
		t.Fatal(err)
	}
	set := func(key string, state index.State) {
		t.Helper()
		u := e.unit(t, "en", key)
		if _, err := e.db.UpdateUnit(ctx, u.ID, index.UserActor(&e.ann), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: u.Target, State: state}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	set("hello", index.StateApproved)
	set("bye", index.StateApproved)
	set("menu.file", index.StateTranslated)
	if _, err := e.svc.Commit(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	e.upstream(t, map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Goodbye\",\n  \"menu\": {\"file\": \"File\"},\n  \"new\": \"New\"\n}\n",
	}, "upstream: bye reworded, a new string")
	if err := e.svc.Pull(ctx, e.c, &e.bob); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key    string
		source string
		want   index.State
	}{
		{"hello", "Hello", index.StateApproved},
		{"menu.file", "File", index.StateTranslated},
		{"bye", "Goodbye", index.StateTranslated},
		{"new", "New", index.StateReadOnly},
	} {
		u := e.unit(t, "en", tc.key)
		if u.Source[0] != tc.source || u.State != tc.want || u.PreviousSource != "" {
			t.Errorf("en %s after the pull = %q state %d previous %q, want %q state %d", tc.key, u.Source, u.State,
				u.PreviousSource, tc.source, tc.want)
		}
	}
	// A re-import of the same template (a re-scan) changes nothing.
	if _, err := e.svc.ImportComponent(ctx, e.c); err != nil {
		t.Fatal(err)
	}
	if u := e.unit(t, "en", "hello"); u.State != index.StateApproved {
		t.Errorf("en hello after a re-scan = state %d, want approved", u.State)
	}
	indextest.CheckCounts(t, e.db)
}
