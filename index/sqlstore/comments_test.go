package sqlstore

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// checkHasComment fails unless every unit's has_comment says whether an
// unresolved comment is stored on it, and the statistics equal a
// recount.
func checkHasComment(t *testing.T, db *DB) {
	t.Helper()
	var wrong int
	if err := db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM units u WHERE
		(u.has_comment != 0) != EXISTS (SELECT 1 FROM comments c WHERE c.unit_id = u.id AND c.resolved = 0)`).
		Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 {
		t.Errorf("%d units whose has_comment is wrong", wrong)
	}
	checkStoredStats(t, db)
}

// translationStats reads a translation's stored statistics.
func (f *writeFixture) translationStats(t *testing.T, lang string) index.Stats {
	t.Helper()
	s, err := readStats(context.Background(), f.db.r, "t", itoa(f.tr[lang]))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lastChange returns the action, unit, target and details of the newest
// change.
func (f *writeFixture) lastChange(t *testing.T) (index.Action, int64, string, string) {
	t.Helper()
	var action index.Action
	var unit int64
	var target, details string
	if err := f.db.r.QueryRowContext(context.Background(), `SELECT action, coalesce(unit_id, 0), target, details
		FROM changes ORDER BY id DESC LIMIT 1`).Scan(&action, &unit, &target, &details); err != nil {
		t.Fatal(err)
	}
	return action, unit, target, details
}

// on is a check that stores a comment on the unit with the given id.
func on(id int64) func(index.Unit, index.Translation) (int64, error) {
	return func(index.Unit, index.Translation) (int64, error) { return id, nil }
}

func TestCommentsKeepCounts(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	de1, en1 := f.unit(t, "de", 1), f.unit(t, "en", 1)
	if _, err := f.db.SaveUser(ctx, index.User{Username: "anna", Email: "Anna@example.com", IsActive: true}); err != nil {
		t.Fatal(err)
	}

	// A translation comment on de k1.
	c, err := f.db.AddComment(ctx, de1.ID, f.user,
		index.NewComment{Scope: index.ScopeTranslation, Comment: "Hi @anna and @nobody, mail a@anna."}, on(de1.ID))
	if err != nil {
		t.Fatal(err)
	}
	if c.ID == 0 || c.UnitID != de1.ID || c.Username != "ed" || c.UserID != f.user.UserID || c.Resolved ||
		c.Comment != "Hi @anna and @nobody, mail a@anna." {
		t.Errorf("added %+v", c)
	}
	if got := f.unit(t, "de", 1); !got.HasComment {
		t.Error("de k1 has no comment after one was added")
	}
	if got := f.translationStats(t, "de").Comments; got != 1 {
		t.Errorf("de comments = %d, want 1", got)
	}
	if a, u, target, details := f.lastChange(t); a != index.ActionComment || u != de1.ID || target != "" ||
		details != `{"comment":"Hi @anna and @nobody, mail a@anna."}` {
		t.Errorf("change = %d %d %q %s", a, u, target, details)
	}
	var mentioned []string
	rows, err := f.db.r.QueryContext(ctx, `SELECT u.username FROM comment_mentions m JOIN users u ON u.id = m.user_id
		WHERE m.comment_id = ?`, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		mentioned = append(mentioned, n)
	}
	rows.Close()
	if !slices.Equal(mentioned, []string{"anna"}) {
		t.Errorf("mentioned %q, want [anna]", mentioned)
	}
	checkHasComment(t, f.db)

	// A global one, on the source unit: it marks en k1, not de k1 (the
	// reference's unresolved_comments).
	g, err := f.db.AddComment(ctx, de1.ID, f.user, index.NewComment{Scope: index.ScopeGlobal, Comment: "Source?",
		UserEmail: "anna@EXAMPLE.com", Timestamp: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)}, on(en1.ID))
	if err != nil {
		t.Fatal(err)
	}
	if g.UnitID != en1.ID || g.Username != "anna" || !g.Timestamp.Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("global comment %+v", g)
	}
	if f.translationStats(t, "en").Comments != 1 || f.translationStats(t, "de").Comments != 1 {
		t.Error("a global comment did not count on the source translation alone")
	}
	_, err = f.db.AddComment(ctx, de1.ID, f.user, index.NewComment{Scope: index.ScopeGlobal, Comment: "x",
		UserEmail: "nobody@example.com"}, on(en1.ID))
	var fe *index.FieldError
	if !errors.As(err, &fe) || fe.Fields["user_email"].Detail == "" {
		t.Errorf("unknown user_email: %v", err)
	}
	// The rules' refusal stores nothing.
	refused := errors.New("refused")
	if _, err := f.db.AddComment(ctx, de1.ID, f.user, index.NewComment{Comment: "x"},
		func(index.Unit, index.Translation) (int64, error) { return 0, refused }); !errors.Is(err, refused) {
		t.Errorf("refused comment: %v", err)
	}
	if _, err := f.db.AddComment(ctx, 999999, f.user, index.NewComment{Comment: "x"}, on(1)); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("comment on no unit: %v", err)
	}

	// A second translation comment, then resolve one of two: de k1
	// still has one.
	c2, err := f.db.AddComment(ctx, de1.ID, f.user, index.NewComment{Scope: index.ScopeTranslation, Comment: "Two"}, on(de1.ID))
	if err != nil {
		t.Fatal(err)
	}
	allow := func(index.Comment, index.Translation) error { return nil }
	if r, err := f.db.SetCommentResolved(ctx, c.ID, true, f.user, allow); err != nil || !r.Resolved {
		t.Fatalf("resolve: %+v %v", r, err)
	}
	if a, u, _, _ := f.lastChange(t); a != index.ActionCommentResolve || u != de1.ID {
		t.Errorf("resolve recorded %d on %d", a, u)
	}
	if !f.unit(t, "de", 1).HasComment {
		t.Error("resolving one of two comments cleared has_comment")
	}
	if _, err := f.db.SetCommentResolved(ctx, c2.ID, true, f.user, allow); err != nil {
		t.Fatal(err)
	}
	if f.unit(t, "de", 1).HasComment || f.translationStats(t, "de").Comments != 0 {
		t.Error("resolving every comment left has_comment or the count")
	}
	checkHasComment(t, f.db)
	// Resolving again changes and records nothing.
	n := f.changeCount(t)
	if _, err := f.db.SetCommentResolved(ctx, c2.ID, true, f.user, allow); err != nil || f.changeCount(t) != n {
		t.Errorf("resolving a resolved comment: %v, %d changes, want %d", err, f.changeCount(t), n)
	}
	if _, err := f.db.SetCommentResolved(ctx, c2.ID, false, f.user, allow); err != nil {
		t.Fatal(err)
	}
	if !f.unit(t, "de", 1).HasComment {
		t.Error("reopening left has_comment false")
	}
	if _, err := f.db.SetCommentResolved(ctx, c2.ID, true, f.user,
		func(index.Comment, index.Translation) error { return refused }); !errors.Is(err, refused) {
		t.Errorf("refused resolve: %v", err)
	}
	if err := f.db.DeleteComment(ctx, c2.ID, f.user, allow); err != nil {
		t.Fatal(err)
	}
	if a, u, _, details := f.lastChange(t); a != index.ActionCommentDelete || u != de1.ID || details != `{"comment":"Two"}` {
		t.Errorf("delete recorded %d on %d: %s", a, u, details)
	}
	if _, err := f.db.FindCommentByID(ctx, c2.ID); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("deleted comment found: %v", err)
	}
	checkHasComment(t, f.db)

	// Lists: the unit's own, or with its source unit's.
	own, total, err := f.db.FindComments(ctx, index.CommentFilter{UnitID: de1.ID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil || total != 1 || len(own) != 1 || own[0].ID != c.ID || !own[0].Resolved {
		t.Errorf("de k1 comments = %+v %d %v", own, total, err)
	}
	both, total, err := f.db.FindComments(ctx, index.CommentFilter{UnitID: de1.ID, SourceUnitID: en1.ID,
		Page: index.Page{Number: 1, Size: 50}})
	if err != nil || total != 2 || len(both) != 2 || both[0].ID != g.ID || both[1].ID != c.ID {
		t.Errorf("de k1 comments with the source's = %+v %d %v (oldest first)", both, total, err)
	}

	// A unit removed takes its unresolved comment and its count.
	de3 := f.unit(t, "de", 3)
	if _, err := f.db.AddComment(ctx, de3.ID, f.user, index.NewComment{Scope: index.ScopeTranslation, Comment: "Bye"}, on(de3.ID)); err != nil {
		t.Fatal(err)
	}
	if err := f.db.DeleteUnit(ctx, f.unit(t, "en", 3).ID, f.user, func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	checkHasComment(t, f.db)
	// And a removed translation its statistics.
	if _, err := f.db.AddComment(ctx, f.unit(t, "fr", 2).ID, f.user, index.NewComment{Scope: index.ScopeTranslation, Comment: "Fr"},
		on(f.unit(t, "fr", 2).ID)); err != nil {
		t.Fatal(err)
	}
	if err := f.db.DeleteTranslation(ctx, f.tr["fr"], f.user); err != nil {
		t.Fatal(err)
	}
	checkHasComment(t, f.db)
	checkStatsSums(t, f.db)
}

func TestReportComment(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	en2 := f.unit(t, "en", 2)
	// A template string that can be edited is translated.
	if err := f.db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`UPDATE units SET state = 20 WHERE id = ?`, en2.ID); err != nil {
			return err
		}
		ids, err := translationScope(tx, f.tr["en"])
		if err != nil {
			return err
		}
		return refreshTranslationStats(tx, ids)
	}); err != nil {
		t.Fatal(err)
	}
	report := index.NewComment{Scope: index.ScopeReport, Comment: "Typo"}
	if _, err := f.db.AddComment(ctx, f.unit(t, "de", 2).ID, f.user, report, on(en2.ID)); err != nil {
		t.Fatal(err)
	}
	if got := f.unit(t, "en", 2); got.State != 12 || !got.HasComment {
		t.Errorf("monolingual report left the source at state %d, has_comment %v; want 12, true", got.State, got.HasComment)
	}
	var marked int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE action = 37 AND unit_id = ?`,
		en2.ID).Scan(&marked); err != nil || marked != 1 {
		t.Errorf("report recorded %d Marked for edit on the source unit (%v), want 1", marked, err)
	}
	checkHasComment(t, f.db)

	// Bilingual: the label, created red on demand, then reused.
	bilingual := f.comp
	bilingual.Template = ""
	if _, _, err := f.db.SaveComponent(ctx, bilingual); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{4, 5} {
		src := f.unit(t, "en", i)
		if _, err := f.db.AddComment(ctx, f.unit(t, "de", i).ID, f.user, report, on(src.ID)); err != nil {
			t.Fatal(err)
		}
		de := f.unit(t, "de", i)
		if len(de.Labels) != 1 || de.Labels[0].Name != index.SourceNeedsReview || de.Labels[0].Color != "red" {
			t.Errorf("de k%d labels after a bilingual report: %+v", i, de.Labels)
		}
		if a, u, target, _ := f.lastChange(t); a != index.ActionLabelAdd || u != src.ID || target != index.SourceNeedsReview {
			t.Errorf("bilingual report recorded %d on %d %q", a, u, target)
		}
	}
	labels, total, err := f.db.FindLabels(ctx, f.comp.ProjectID, index.Page{Number: 1, Size: 50})
	if err != nil || total != 1 || len(labels) != 1 {
		t.Errorf("labels after two reports: %+v %d %v", labels, total, err)
	}
}

func TestLabels(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	pid := f.comp.ProjectID
	ok := func() error { return nil }
	bug, err := f.db.CreateLabel(ctx, index.Label{ProjectID: pid, Name: "Bug", Color: "red", Description: "broken"}, ok)
	if err != nil || bug.ID == 0 {
		t.Fatalf("create: %+v %v", bug, err)
	}
	ui, err := f.db.CreateLabel(ctx, index.Label{ProjectID: pid, Name: "UI", Color: "navy"}, ok)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.CreateLabel(ctx, index.Label{ProjectID: pid, Name: "Bug", Color: "blue"}, ok); !errors.Is(err, index.ErrLabelExists) {
		t.Errorf("same name: %v", err)
	}
	if _, err := f.db.CreateLabel(ctx, index.Label{ProjectID: pid, Name: "X", Color: "pink"}, ok); !errors.Is(err, index.ErrInvalid) {
		t.Errorf("pink: %v", err)
	}
	q, _, err := f.db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"})
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := f.db.CreateLabel(ctx, index.Label{ProjectID: q.ID, Name: "Bug", Color: "red"}, ok)
	if err != nil {
		t.Fatalf("the same name in another project: %v", err)
	}

	set := func(i int, ids ...int64) (index.Unit, error) {
		return f.db.UpdateUnit(ctx, f.unit(t, "en", i).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Labels: &ids}, nil
		})
	}
	u, err := set(1, ui.ID, bug.ID, bug.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Labels) != 2 || u.Labels[0].ID != bug.ID || u.Labels[1].ID != ui.ID {
		t.Errorf("write returned labels %+v", u.Labels)
	}
	for _, lang := range []string{"en", "de", "fr"} {
		got := f.unit(t, lang, 1).Labels
		if len(got) != 2 || got[0] != bug || got[1] != ui {
			t.Errorf("%s k1 labels = %+v, want Bug and UI", lang, got)
		}
	}
	page, _, err := f.db.FindUnits(ctx, index.UnitFilter{TranslationID: f.tr["de"], Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	for _, pu := range page {
		want := 0
		if pu.SourceUnitID == f.unit(t, "en", 1).ID {
			want = 2
		}
		if len(pu.Labels) != want {
			t.Errorf("listed de unit %d has %d labels, want %d", pu.ID, len(pu.Labels), want)
		}
	}
	var got []string
	rows, err := f.db.r.QueryContext(ctx, `SELECT action, target FROM changes WHERE action IN (86, 87) ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a int
		var target string
		rows.Scan(&a, &target)
		got = append(got, strconv.Itoa(a)+" "+target)
	}
	rows.Close()
	if !slices.Equal(got, []string{"86 UI", "86 Bug"}) {
		t.Errorf("label changes = %q", got)
	}
	// Setting the same again records nothing; taking one away records 87.
	n := f.changeCount(t)
	if _, err := set(1, bug.ID, ui.ID); err != nil || f.changeCount(t) != n {
		t.Errorf("same labels again: %v, %d new changes", err, f.changeCount(t)-n)
	}
	if u, err := set(1, ui.ID); err != nil || len(u.Labels) != 1 {
		t.Fatalf("remove Bug: %+v %v", u.Labels, err)
	}
	if a, _, target, _ := f.lastChange(t); a != index.ActionLabelRemove || target != "Bug" {
		t.Errorf("removal recorded %d %q", a, target)
	}
	var fe *index.FieldError
	if _, err := set(2, foreign.ID); !errors.As(err, &fe) || fe.Fields["labels"].Detail != index.MsgLabelNotFound {
		t.Errorf("another project's label: %v", err)
	}
	if _, err := set(2, 987654); !errors.As(err, &fe) {
		t.Errorf("a missing label: %v", err)
	}
	// Removing a label takes it off every unit.
	if err := f.db.DeleteLabel(ctx, pid, ui.ID, ok); err != nil {
		t.Fatal(err)
	}
	if got := f.unit(t, "de", 1).Labels; len(got) != 0 {
		t.Errorf("labels after the label's removal: %+v", got)
	}
	if err := f.db.DeleteLabel(ctx, pid, foreign.ID, ok); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("removing another project's label: %v", err)
	}
	checkStoredStats(t, f.db)
}
