package sqlstore

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// Suggestions, comments and uploads are scoped writes too (writers.go:
// writeScoped): these tests are TestWritersRunAtOnce and
// TestWritersKeepEveryUpdate for them.

// during runs write through b while a holds an edit of unit hold open
// (inside its write transaction, waiting at most wait), and reports
// whether write ended while a's transaction was still open: it did not
// wait for a's locks.
func during(t *testing.T, a *DB, actor index.Actor, hold int64, wait time.Duration, write func() error) bool {
	t.Helper()
	inside, done := make(chan struct{}), make(chan struct{})
	var beside bool
	var wg sync.WaitGroup
	wg.Go(func() {
		var once sync.Once
		_, err := a.UpdateUnit(context.Background(), hold, actor, func(u index.Unit, tr index.Translation) (index.UnitUpdate, error) {
			once.Do(func() { close(inside) })
			select {
			case <-done:
				beside = true
			case <-time.After(wait):
			}
			return setTarget("held")(u, tr)
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-inside
	if err := write(); err != nil {
		t.Error(err)
	}
	close(done)
	wg.Wait()
	return beside
}

// allowSuggest is AddSuggestion's rules letting the suggester vote.
func allowSuggest(index.Unit, index.Translation) (index.SuggestionRights, error) {
	return index.SuggestionRights{Vote: true}, nil
}

// onUnit is AddComment's rules storing the comment on the unit itself.
func onUnit(u index.Unit, _ index.Translation) (int64, error) { return u.ID, nil }

func suggest(db *DB, unit int64, user int64, text string) (int64, error) {
	out, err := db.AddSuggestion(context.Background(), unit, index.NewSuggestion{Target: []string{text}, UserID: user}, allowSuggest)
	if err != nil || out.Suggestion == nil {
		return 0, fmt.Errorf("suggest %q: %v (%v)", text, err, out.Result)
	}
	return out.Suggestion.ID, nil
}

func comment(db *DB, unit int64, actor index.Actor, text string) (int64, error) {
	c, err := db.AddComment(context.Background(), unit, actor, index.NewComment{Scope: index.ScopeTranslation, Comment: text}, onUnit)
	return c.ID, err
}

// upload translates the German units keys of f's translation as text
// (an upload of the merge method "translate").
func upload(db *DB, translation int64, actor index.Actor, keys []int, text string) error {
	up := index.Upload{Method: index.UploadTranslate, UserID: actor.UserID}
	for _, k := range keys {
		up.Units = append(up.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", k), Target: []string{fmt.Sprintf("%s %d", text, k)},
			State: index.StateTranslated})
	}
	_, err := db.ApplyUpload(context.Background(), translation, up)
	return err
}

func translationOf(t testing.TB, db *DB, unit int64) int64 {
	t.Helper()
	u, err := db.FindUnitByID(context.Background(), unit)
	if err != nil {
		t.Fatal(err)
	}
	return u.TranslationID
}

// TestWritersScopeSuggestionsCommentsUploads: while process a is inside
// an edit of a component, process b adds, accepts, votes on and deletes
// suggestions, adds and resolves comments and uploads a file in a
// component of another project, each ending before a's edit commits.
// With the exclusive lock these writes took before, each waited for
// it. A suggestion in a's own component waits (the scope is real).
func TestWritersScopeSuggestionsCommentsUploads(t *testing.T) {
	a, b, _ := twoWriters(t)
	actor := mustWriter(t, a)
	here := mustScopeFixture(t, a, "p1", "a", false, 4)
	there := mustScopeFixture(t, a, "p2", "b", true, 6)
	ctx := context.Background()
	s1, err := suggest(b, there.units[1], actor.UserID, "accept me")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := suggest(b, there.units[2], actor.UserID, "delete me")
	if err != nil {
		t.Fatal(err)
	}
	c1, err := comment(b, there.units[3], actor, "resolve me")
	if err != nil {
		t.Fatal(err)
	}
	other, err := a.SaveUser(ctx, index.User{Username: "voter", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	s3, err := suggest(b, there.units[4], actor.UserID, "vote for me")
	if err != nil {
		t.Fatal(err)
	}
	trThere := translationOf(t, a, there.units[0])
	writes := []struct {
		name  string
		write func() error
	}{
		{"a suggestion added", func() error { _, err := suggest(b, there.units[0], actor.UserID, "beside"); return err }},
		{"a suggestion accepted", func() error {
			_, err := b.AcceptSuggestion(ctx, s1, actor, func(index.Suggestion, index.Unit, index.Translation) (index.State, error) {
				return index.StateTranslated, nil
			})
			return err
		}},
		{"a suggestion voted on", func() error {
			_, err := b.VoteSuggestion(ctx, s3, other.ID, 1, func(index.Suggestion, index.Unit, index.Translation) error { return nil })
			return err
		}},
		{"a suggestion deleted", func() error {
			return b.DeleteSuggestion(ctx, s2, actor, index.Rejection{Reason: "no"}, func(index.Suggestion, index.Unit, index.Translation) error { return nil })
		}},
		{"a comment added", func() error { _, err := comment(b, there.units[5], actor, "beside"); return err }},
		{"a comment resolved", func() error {
			_, err := b.SetCommentResolved(ctx, c1, true, actor, func(index.Comment, index.Translation) error { return nil })
			return err
		}},
		{"a file uploaded", func() error { return upload(b, trThere, actor, []int{0, 1, 2}, "Hochgeladen") }},
	}
	for i, w := range writes {
		if !during(t, a, actor, here.units[i%len(here.units)], 10*time.Second, w.write) {
			t.Errorf("%s in another project waited for an edit's commit", w.name)
		}
	}
	if during(t, a, actor, here.units[0], 300*time.Millisecond, func() error {
		_, err := suggest(b, here.units[1], actor.UserID, "same component")
		return err
	}) {
		t.Error("a suggestion in the edited component did not wait for the edit")
	}
	checkStoredStats(t, a)
	// Each process reads the other's writes.
	for _, db := range []*DB{a, b} {
		u, err := db.FindUnitByID(ctx, there.units[0])
		if err != nil {
			t.Fatal(err)
		}
		if u.Target[0] != "Hochgeladen 0" {
			t.Errorf("the uploaded unit reads %q", u.Target)
		}
	}
}

// TestWritersKeepEverySuggestion: two processes, two writers each, add
// suggestions and comments to the same unit and upload files into its
// translation at once: every one is kept and every counter (statistics'
// suggestions and comments, the suggestion lists' counts) equals a
// recount.
func TestWritersKeepEverySuggestion(t *testing.T) {
	a, b, _ := twoWriters(t)
	actor := mustWriter(t, a)
	f := mustScopeFixture(t, a, "p", "app", true, 6)
	peer := mustScopeFixture(t, a, "p", "peer", true, 6) // propagation reaches it
	tr := translationOf(t, a, f.units[0])
	const perWriter = 12
	fourWriters(t, a, b, func(w int, db *DB) error {
		for i := range perWriter {
			if _, err := suggest(db, f.units[0], actor.UserID, fmt.Sprintf("w%d s%d", w, i)); err != nil {
				return err
			}
			if _, err := comment(db, f.units[0], actor, fmt.Sprintf("w%d c%d", w, i)); err != nil {
				return err
			}
			if err := upload(db, tr, actor, []int{1 + (w+i)%5}, fmt.Sprintf("w%d u%d", w, i)); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := context.Background()
	var suggestions, comments int
	if err := a.r.QueryRowContext(ctx, `SELECT count(*) FROM suggestions WHERE unit_id = ?`, f.units[0]).Scan(&suggestions); err != nil {
		t.Fatal(err)
	}
	if err := a.r.QueryRowContext(ctx, `SELECT count(*) FROM comments WHERE unit_id = ?`, f.units[0]).Scan(&comments); err != nil {
		t.Fatal(err)
	}
	if suggestions != 4*perWriter || comments != 4*perWriter {
		t.Errorf("%d suggestions and %d comments kept, want %d of each", suggestions, comments, 4*perWriter)
	}
	for _, db := range []*DB{a, b} {
		got, _, err := db.FindSuggestions(ctx, index.SuggestionFilter{UnitID: f.units[0], Page: index.Page{Number: 1, Size: 100}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4*perWriter {
			t.Errorf("the unit's suggestion list holds %d, want %d", len(got), 4*perWriter)
		}
	}
	// The uploads propagated to the peer component.
	u, err := b.FindUnitByID(ctx, peer.units[1])
	if err != nil {
		t.Fatal(err)
	}
	if u.State != index.StateTranslated {
		t.Errorf("the peer's unit k1 is %v after the uploads, want translated", u.State)
	}
	checkStoredStats(t, a)
	checkStoredStats(t, b)
}

// fourWriters runs write in four writers at once, two through each of
// a and b (w numbers them), and fails t with the first error.
func fourWriters(t *testing.T, a, b *DB, write func(w int, db *DB) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w, db := range []*DB{a, b, a, b} {
		wg.Go(func() {
			if err := write(w, db); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestWritersScopeGlossaryRecheck: a glossary's edit rechecks
// check_glossary on every unit of its project's translations whose
// components name check-glossary, of the edited term's language, in its
// own transaction (checks_batch.go: rechecks). With two writers
// (PostgreSQL), an edit of a unit of such a translation and the
// glossary's edit take turns whichever comes first, as the recheck
// would otherwise read the unit before the other edit committed and
// write its check rows after (migration 0113); an edit of the same
// component's other language, or of a component without check-glossary,
// runs beside the glossary's. The check rows end as the targets and
// terms have them, and every counter as a recount. No component
// propagates translations: where all do (the default), a language's
// translations of the project are one scope already.
func TestWritersScopeGlossaryRecheck(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("several writers in one process are PostgreSQL's")
	}
	f := mustWriteFixtureWith(t, Options{Writers: 2})
	ctx := context.Background()
	_, gl := f.importComponent(t, "glossary", func(c *index.Component) {
		c.IsGlossary, c.AllowTranslationPropagation = true, false
	}, map[string][][3]string{
		"en": {{"apple", "apple", "apple"}, {"pear", "pear", "pear"}},
		"de": {{"apple", "apple", "Apfel"}, {"pear", "pear", "Birne"}},
	})
	_, fruit := f.importComponent(t, "fruit", func(c *index.Component) {
		c.CheckFlags, c.AllowTranslationPropagation = "check-glossary", false
	}, map[string][][3]string{
		"en": {{"a", "I like an apple", "I like an apple"}, {"b", "A pear", "A pear"}},
		"de": {{"a", "I like an apple", "Ich mag Birnen"}, {"b", "A pear", "Eine Birne"}},
		"fr": {{"a", "I like an apple", "J'aime les poires"}, {"b", "A pear", "Une poire"}},
	})
	_, plain := f.importComponent(t, "plain", func(c *index.Component) { c.AllowTranslationPropagation = false }, map[string][][3]string{
		"en": {{"a", "I like an apple", "I like an apple"}},
		"de": {{"a", "I like an apple", "Ich mag Birnen"}},
	})
	unit := func(tr int64, k string) int64 { return f.unitID(t, tr, k) }
	edit := func(unit int64, target string) func() error {
		return func() error {
			_, err := f.db.UpdateUnit(ctx, unit, f.user, setTarget(target))
			return err
		}
	}
	if during(t, f.db, f.user, unit(gl["de"], "apple"), 300*time.Millisecond, edit(unit(fruit["de"], "a"), "Ich mag einen Apfel")) {
		t.Error("an edit of a check-glossary translation ran beside an edit of its glossary")
	}
	if during(t, f.db, f.user, unit(fruit["de"], "b"), 300*time.Millisecond, edit(unit(gl["de"], "pear"), "Birnchen")) {
		t.Error("a glossary's edit ran beside an edit of a check-glossary translation it rechecks")
	}
	if during(t, f.db, f.user, unit(fruit["fr"], "b"), 300*time.Millisecond, edit(unit(gl["en"], "pear"), "pears")) {
		t.Error("a glossary's source term's edit ran beside an edit of a check-glossary translation of another language")
	}
	if !during(t, f.db, f.user, unit(gl["de"], "apple"), 10*time.Second, edit(unit(fruit["fr"], "a"), "J'aime une pomme")) {
		t.Error("a glossary's edit held an edit of a check-glossary translation of another language")
	}
	if !during(t, f.db, f.user, unit(gl["de"], "pear"), 10*time.Second, edit(unit(plain["de"], "a"), "Ich mag Äpfel")) {
		t.Error("a glossary's edit held an edit of a component without check-glossary")
	}
	// The terms now: apple → "held" (a held edit), and "pears", which
	// "A pear" does not hold.
	for _, c := range []struct {
		tr   int64
		k    string
		want []string
	}{
		{fruit["de"], "a", []string{"check_glossary"}},
		{fruit["de"], "b", nil},
	} {
		if got := f.unitChecks(t, c.tr, c.k); !slices.Equal(got, c.want) {
			t.Errorf("fruit de %s: %q, want %q", c.k, got, c.want)
		}
	}
	checkAllCounts(t, f.db)
}

// unitID is the id of the unit of key k in translation tr.
func (f *writeFixture) unitID(tb testing.TB, tr int64, k string) int64 {
	tb.Helper()
	id, err := f.db.FindUnitIDByHash(context.Background(), tr, index.IDHash(true, nil, k))
	if err != nil {
		tb.Fatalf("%s: %v", k, err)
	}
	return id
}

// importGlossaryFruit imports a glossary ("apple", in English and
// German) and a component "fruit" that checks against it, in four
// languages, neither propagating; it returns their translations' ids by
// language.
func importGlossaryFruit(t *testing.T, f *writeFixture) (gl, fruit map[string]int64) {
	t.Helper()
	_, gl = f.importComponent(t, "glossary", func(c *index.Component) {
		c.IsGlossary, c.AllowTranslationPropagation = true, false
	}, map[string][][3]string{
		"en": {{"apple", "apple", "apple"}},
		"de": {{"apple", "apple", "Apfel"}},
	})
	_, fruit = f.importComponent(t, "fruit", func(c *index.Component) {
		c.CheckFlags, c.AllowTranslationPropagation = "check-glossary", false
	}, map[string][][3]string{
		"en": {{"a", "I like an apple", "I like an apple"}},
		"de": {{"a", "I like an apple", "Ich mag Äpfel"}},
		"fr": {{"a", "I like an apple", "J'aime les pommes"}},
		"it": {{"a", "I like an apple", "Mi piacciono le mele"}},
	})
	return gl, fruit
}

// TestLockWriteScopesGlossaryLocks counts the advisory locks
// lock_write_scopes takes for a glossary's edits (migration 0113), in
// components that do not propagate: a translated term's locks its
// glossary translation and the check-glossary translation of its
// language (a component key shared and a translation key each); a source
// term's, which rechecks every language, the glossary component and the
// check-glossary component whole (exclusive), one key each, not a key a
// translation (which grew as components × languages).
func TestLockWriteScopesGlossaryLocks(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("lock_write_scopes is PostgreSQL's")
	}
	f := mustWriteFixture(t)
	ctx := context.Background()
	gl, _ := importGlossaryFruit(t, f)
	const space, part = 424242, 434343 // apart from the writers' spaces
	locks := func(tr int64) (whole, parts int) {
		t.Helper()
		id, err := f.db.FindUnitIDByHash(ctx, tr, index.IDHash(true, nil, "apple"))
		if err != nil {
			t.Fatal(err)
		}
		tx, err := f.db.rdb.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`SELECT lock_write_scopes(%d, %d, ARRAY[%d]::bigint[], '{}', '{}', '{}', '{}')`,
			space, part, id)); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*) FILTER (WHERE classid = %d), count(*) FILTER (WHERE classid = %d)
			FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`, space, part)).Scan(&whole, &parts); err != nil {
			t.Fatal(err)
		}
		return whole, parts
	}
	if whole, parts := locks(gl["de"]); whole != 2 || parts != 2 {
		t.Errorf("a translated term's edit took %d component and %d translation locks, want 2 and 2", whole, parts)
	}
	if whole, parts := locks(gl["en"]); whole != 2 || parts != 0 {
		t.Errorf("a source term's edit took %d component and %d translation locks, want 2 and 0 (each component whole)", whole, parts)
	}
}

// lockFixture is the lock tests' index: importGlossaryFruit's glossary
// and fruit components and shared, a component that propagates.
func lockFixture(t *testing.T) (f *writeFixture, gl, fruit, shared map[string]int64) {
	t.Helper()
	f = mustWriteFixture(t)
	gl, fruit = importGlossaryFruit(t, f)
	_, shared = f.importComponent(t, "shared", func(c *index.Component) { c.AllowTranslationPropagation = true },
		map[string][][3]string{
			"en": {{"a", "I like an apple", "I like an apple"}},
			"de": {{"a", "I like an apple", "Ich mag Äpfel"}},
		})
	return f, gl, fruit, shared
}

// TestLockWriteUnitLocks: lock_write_unit (migration 0123), which a
// batch of one unit edit calls in place of the shared write lock's
// statement and lock_write_scopes, takes the same advisory locks in the
// same modes, and sets the same settings, for a unit of every kind: a
// translation's and a source string's, in a component that propagates
// and one that does not, a glossary's (which lock_write_scopes takes on
// with its recheck's translations) and a unit that is gone. The
// statements and the settings are the dialect's own (lockShared,
// lockScopes, lockUnit), so a setting added to the shared statement
// and not to lock_write_unit fails here (the settings compared are
// those lockShared names).
func TestLockWriteUnitLocks(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("lock_write_unit is PostgreSQL's")
	}
	f, gl, fruit, shared := lockFixture(t)
	unit := func(tr int64, k string) int64 { return f.unitID(t, tr, k) }
	d := f.db.dialect
	if d.lockUnit == "" {
		t.Fatal("no lock_write_unit on a schema migrated to the end")
	}
	for _, c := range []struct {
		name string
		id   int64
		// locks are the advisory locks the call takes, the write lock's
		// included: whole and part keys (a glossary's unit more).
		locks int
	}{
		{"a translation's, not propagating", unit(fruit["de"], "a"), 3},
		{"a source string's, not propagating", unit(fruit["en"], "a"), 2},
		{"a translation's, propagating", unit(shared["de"], "a"), 3},
		{"a source string's, propagating", unit(shared["en"], "a"), 2},
		{"a glossary's translated term", unit(gl["de"], "apple"), 5},
		{"a glossary's source term", unit(gl["en"], "apple"), 3},
		{"a unit that is gone", 1 << 40, 1},
	} {
		want := heldLocks(t, f.db, lockCall{d.lockShared, nil}, lockCall{d.lockScopes, []int64{c.id}})
		got := heldLocks(t, f.db, lockCall{d.lockUnit, c.id})
		if !slices.Equal(got, want) {
			t.Errorf("%s: lock_write_unit holds %q, the two statements %q", c.name, got, want)
		}
		if settings := lockSettings(d.lockShared); len(want) != c.locks+1 || want[len(want)-1] != strings.Repeat("on", len(settings)) {
			t.Errorf("%s: the two statements hold %q, want %d locks and the settings %q on", c.name, want, c.locks, settings)
		}
	}
}

// TestLockWriteBatchLocks: lock_write_batch (migration 0129), which a
// batch of several scoped writes calls in place of the shared write
// lock's statement and lock_write_scopes, takes the same advisory locks
// in the same modes and sets the same settings (lockShared's), for
// batches of units of every kind (TestLockWriteUnitLocks' kinds: apart,
// propagating, a source string's, a glossary's, one gone) and for a
// batch naming a translation beside its units (lockScopesAny's form).
func TestLockWriteBatchLocks(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("lock_write_batch is PostgreSQL's")
	}
	f, gl, fruit, shared := lockFixture(t)
	unit := func(tr int64, k string) int64 { return f.unitID(t, tr, k) }
	d := f.db.dialect
	if d.lockBatch == "" || d.lockBatchAny == "" {
		t.Fatal("no lock_write_batch on a schema migrated to the end")
	}
	for _, c := range []struct {
		name  string
		units []int64
		locks int // the advisory locks the two statements take, the write lock's included
	}{
		{"translations apart", []int64{unit(fruit["de"], "a"), unit(fruit["fr"], "a")}, 4},
		{"propagating and a source string's", []int64{unit(shared["de"], "a"), unit(shared["en"], "a"), unit(fruit["en"], "a")}, 4},
		{"a glossary's terms and a translation's", []int64{unit(gl["de"], "apple"), unit(gl["en"], "apple"), unit(fruit["it"], "a")}, 6},
		{"one gone", []int64{unit(fruit["de"], "a"), 1 << 40}, 3},
	} {
		want := heldLocks(t, f.db, lockCall{d.lockShared, nil}, lockCall{d.lockScopes, c.units})
		got := heldLocks(t, f.db, lockCall{d.lockBatch, c.units})
		if !slices.Equal(got, want) {
			t.Errorf("%s: lock_write_batch holds %q, the two statements %q", c.name, got, want)
		}
		if settings := lockSettings(d.lockShared); len(want) != c.locks+1 || want[len(want)-1] != strings.Repeat("on", len(settings)) {
			t.Errorf("%s: the two statements hold %q, want %d locks and the settings %q on", c.name, want, c.locks, settings)
		}
	}
	// lockScopesAny's form: a translation named (an upload's) beside a unit.
	named := func(stmt string) string {
		args := []string{fmt.Sprintf("'{%d}'", unit(shared["de"], "a")), "'{}'", "'{}'", "'{}'", fmt.Sprintf("'{%d}'", fruit["fr"])}
		for _, a := range args {
			stmt = strings.Replace(stmt, "?", a, 1)
		}
		return stmt
	}
	want := heldLocks(t, f.db, lockCall{d.lockShared, nil}, lockCall{named(d.lockScopesAny), nil})
	if got := heldLocks(t, f.db, lockCall{named(d.lockBatchAny), nil}); !slices.Equal(got, want) || len(want) != 6 {
		t.Errorf("a unit and a translation: lock_write_batch holds %q, the two statements %q (want 5 locks and the settings)", got, want)
	}
}

// TestLockWriteUnitFallback: on a schema migrated up to before
// lock_write_unit (migration 0123), as the tests of older migrations
// open one, a batch of one unit edit takes the shared write lock's
// statement and lock_write_scopes (startShared clears lockUnit), the
// edit lands, and those hold the locks and settings lock_write_unit
// holds for the same unit once the index is migrated to the end.
// Production never runs on such a schema (Open migrates first); the
// tests that write an old schema do. It swaps the engine's migrations
// while it opens the old index, so it does not run in parallel.
func TestLockWriteUnitFallback(t *testing.T) {
	ctx := context.Background()
	o, old, rt := openLocksBefore(t, 123)
	closeOld := sync.OnceValue(old.Close)
	defer closeOld()
	d := old.dialect
	if d.lockUnit != "" || d.lockBatch != "" || d.lockShared == "" || d.lockScopesOld {
		t.Fatalf("a schema before 0123 locks with %q, %q, shared %q, old scopes %v", d.lockUnit, d.lockBatch, d.lockShared, d.lockScopesOld)
	}
	f := newWriteFixture(t, old)
	id := f.unit(t, "de", 0).ID
	if _, err := old.UpdateUnit(ctx, id, f.user, setTarget("warm")); err != nil {
		t.Fatal(err)
	}
	one := rt.during(func() {
		if _, err := old.UpdateUnit(ctx, id, f.user, setTarget("one")); err != nil {
			t.Fatal(err)
		}
	})
	sent := func(stmt string) bool {
		stmt = strings.Join(strings.Fields(d.rebind(stmt)), " ")
		return slices.ContainsFunc(one, func(s string) bool { return strings.TrimPrefix(s, "+ ") == stmt })
	}
	if !sent(d.lockShared) || !sent(d.lockScopes) ||
		slices.ContainsFunc(one, func(s string) bool { return strings.Contains(s, "lock_write_unit(") }) {
		t.Errorf("one edit on a schema before 0123 did not lock by the shared lock and lock_write_scopes:\n%s", strings.Join(one, "\n"))
	}
	if u, err := old.FindUnitByID(ctx, id); err != nil || u.Target[0] != "one" {
		t.Fatalf("the edit reads %q, %v", u.Target, err)
	}
	want := heldLocks(t, old, lockCall{d.lockShared, nil}, lockCall{d.lockScopes, []int64{id}})
	if err := closeOld(); err != nil {
		t.Fatal(err)
	}
	o.roundTrip = nil
	now, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer now.Close()
	if now.dialect.lockUnit == "" {
		t.Fatal("no lock_write_unit once migrated to the end")
	}
	got := heldLocks(t, now, lockCall{now.dialect.lockUnit, id})
	// A translation's unit in a component that does not propagate: the
	// write lock, the component's and the translation's scope.
	if !slices.Equal(got, want) || len(want) != 4 || want[3] != strings.Repeat("on", len(lockSettings(d.lockShared))) {
		t.Errorf("before 0123 the batch's statements hold %q; lock_write_unit after it %q", want, got)
	}
}

// openLocksBefore opens, on PostgreSQL (skipping t elsewhere), an index
// migrated only to the migrations before first (openBefore), with one
// writer whose round trips rt records; o reopens it. The caller closes
// old.
func openLocksBefore(t *testing.T, first int) (o Options, old *DB, rt *roundTrips) {
	t.Helper()
	if testengine.Engine() != testengine.Postgres {
		t.Skip("the write locks' functions are PostgreSQL's")
	}
	o, _, _ = reopenable(t)
	rt = &roundTrips{}
	o.roundTrip, o.Writers = rt.record, 1
	old, err := openBefore(context.Background(), o, first)
	if err != nil {
		t.Fatal(err)
	}
	return o, old, rt
}

// TestLockWriteBatchFallback: on a schema migrated up to before
// lock_write_batch (migration 0129) but after lock_write_unit (0123),
// startShared clears lockBatch and keeps lockUnit: a batch of two edits
// takes the shared write lock's statement and lock_write_scopes (a
// missing lock_write_batch would fail every batch of several scoped
// writes on such a schema), both edits land and the stored statistics
// are exact. It swaps the engine's migrations while it opens the old
// index, so it does not run in parallel.
func TestLockWriteBatchFallback(t *testing.T) {
	ctx := context.Background()
	_, old, rt := openLocksBefore(t, 129)
	defer old.Close()
	d := old.dialect
	if d.lockUnit == "" || d.lockBatch != "" || d.lockBatchAny != "" || d.lockShared == "" || d.lockScopesOld {
		t.Fatalf("a schema before 0129 locks with unit %q, batch %q %q, shared %q, old scopes %v",
			d.lockUnit, d.lockBatch, d.lockBatchAny, d.lockShared, d.lockScopesOld)
	}
	old.trigrams.hold() // its statements are no edit's
	f := newWriteFixture(t, old)
	ids := []int64{f.unit(t, "de", 1).ID, f.unit(t, "fr", 2).ID}
	for _, id := range ids { // warm: the contributor's row, the statements
		if _, err := old.UpdateUnit(ctx, id, f.user, setTarget("warm")); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(id int64, target string) func() error {
		return func() error {
			_, err := old.UpdateUnit(ctx, id, f.user, setTarget(target))
			return err
		}
	}
	log := rt.during(func() { inOneBatch(t, old, edit(ids[0], "eins"), edit(ids[1], "deux")) })
	if i := slices.Index(log, "+ COMMIT"); i >= 0 {
		log = log[i+1:] // the holding write's
	}
	if n, shared, scopes := countStatements(log, "SELECT lock_write_batch("), countStatements(log, d.rebind(d.lockShared)),
		countStatements(log, "SELECT lock_write_scopes("); n != 0 || shared != 1 || scopes != 1 {
		t.Errorf("a batch of two edits on a schema before 0129 sent %d lock_write_batch calls, %d shared lock statements and %d lock_write_scopes calls, want 0, 1 and 1:\n%s",
			n, shared, scopes, strings.Join(log, "\n"))
	}
	for i, want := range []string{"eins", "deux"} {
		if u, err := old.FindUnitByID(ctx, ids[i]); err != nil || index.JoinPlural(u.Target) != want {
			t.Errorf("edit %d reads %q, %v, want %q", i, u.Target, err, want)
		}
	}
	checkStoredStats(t, old)
}

// lockCall is a statement of the write locks' with its one argument
// (none when nil).
type lockCall struct {
	sql string
	arg any
}

// heldLocks runs the calls in a transaction of db's readers and returns
// the advisory locks it then holds, then the settings the shared write
// lock sets (lockSettings), each "on" or "", in one string. The locks
// are the writers' own: a writer meanwhile waits for the rollback.
func heldLocks(t *testing.T, db *DB, calls ...lockCall) []string {
	t.Helper()
	ctx := context.Background()
	settings := lockSettings(db.dialect.lockShared)
	if len(settings) == 0 {
		t.Fatalf("the shared write lock sets no setting: %s", db.dialect.lockShared)
	}
	var shown []string
	for _, s := range settings {
		shown = append(shown, fmt.Sprintf("coalesce(current_setting('%s', true), '')", s))
	}
	tx, err := db.rdb.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, c := range calls {
		var args []any
		if c.arg != nil {
			args = append(args, c.arg)
		}
		if _, err := tx.ExecContext(ctx, db.dialect.rebind(c.sql), args...); err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT classid || '/' || objid || '/' || objsubid || ' ' || mode FROM pg_locks
		WHERE locktype = 'advisory' AND pid = pg_backend_pid()
		UNION ALL SELECT `+strings.Join(shown, " || ")+`
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// lockSettings returns the names of the settings a write lock's
// statement sets on (postgresLocks' shared).
func lockSettings(stmt string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`set_config\('([^']+)', 'on', true\)`).FindAllStringSubmatch(stmt, -1) {
		names = append(names, m[1])
	}
	return names
}
