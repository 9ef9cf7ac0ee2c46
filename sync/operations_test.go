package sync_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// target returns the target of the unit of lang with the given key, as
// the index holds it.
func (e commitEnv) target(tb testing.TB, lang, key string) string {
	tb.Helper()
	return index.JoinPlural(e.unit(tb, lang, key).Target)
}

// hideUpstreamEdit pushes de.json with hello set to value and imports
// it with the index told beforehand that it has already read that
// blob: the import skips the file and the index keeps the old value, as
// after a write-back the index lost or an edit behind its back.
func (e commitEnv) hideUpstreamEdit(tb testing.TB, value string) {
	tb.Helper()
	ctx := context.Background()
	de := strings.Replace(commitFiles["locales/de.json"], `"Hallo"`, `"`+value+`"`, 1)
	writeAndPush(tb, e.work, map[string]string{"locales/de.json": de}, "hand edit")
	rev := git(tb, e.work, "rev-parse", "HEAD:locales/de.json") + "," + git(tb, e.work, "rev-parse", "HEAD:locales/en.json")
	tr := mustTranslation(tb, e.env, "app", "de")
	if err := e.db.MarkCommitted(ctx, index.Committed{ComponentID: e.c.ID,
		Translations: []index.CommittedTranslation{{TranslationID: tr.ID, Revision: rev}}}); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.svc.ImportComponent(ctx, e.c); err != nil {
		tb.Fatal(err)
	}
	if got := e.target(tb, "de", "hello"); got != "Hallo" {
		tb.Fatalf("de hello after the hidden edit = %q, want the index's Hallo", got)
	}
}

// changesOf returns the component's changes of the given actions, oldest
// first.
func (e commitEnv) changesOf(tb testing.TB, actions ...index.Action) []index.Change {
	tb.Helper()
	changes, _, err := e.db.FindChanges(context.Background(), index.ChangeFilter{ComponentID: e.c.ID, Actions: actions,
		Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		tb.Fatal(err)
	}
	return changes
}

// TestFileSync: a file edited upstream behind the index's back gets the
// index's values back in one commit that changes only that value; a
// file whose bytes differ but whose values the index agrees with gets no
// commit, and neither does a second file-sync.
func TestFileSync(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	// fr.json reformatted upstream: the import reads it, the index agrees.
	compactFR := `{"hello":"Bonjour"}` + "\n"
	writeAndPush(t, e.work, map[string]string{"locales/fr.json": compactFR}, "reformat")
	e.hideUpstreamEdit(t, "Moin")

	res, err := e.svc.FileSync(ctx, e.c, &e.bob)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commits) != 1 {
		t.Errorf("file-sync = %+v, want one commit (German)", res)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after file-sync = %+v, want nothing", p)
	}
	if err := e.svc.Push(ctx, e.c, &e.bob); err != nil {
		t.Fatal(err)
	}
	if got := git(t, e.bare, "log", "-1", "--format=%s", "main"); got != "Translated using Tolk (German)" {
		t.Errorf("upstream head = %q", got)
	}
	if got := git(t, e.bare, "diff", "--name-only", "main~1", "main"); got != "locales/de.json" {
		t.Errorf("file-sync changed %q, want locales/de.json only", got)
	}
	for path, want := range map[string]string{
		"locales/de.json": strings.TrimSuffix(commitFiles["locales/de.json"], "\n"),
		"locales/fr.json": strings.TrimSuffix(compactFR, "\n"),
	} {
		if got := git(t, e.bare, "show", "main:"+path); got != want {
			t.Errorf("%s =\n%s\nwant\n%s", path, got, want)
		}
	}
	if ch := e.changesOf(t, index.ActionForceSync); len(ch) != 1 || ch[0].UserID != e.bob.ID {
		t.Errorf("83 changes = %+v, want one by bob", ch)
	}

	// The index and the files agree now: nothing to commit.
	res, err = e.svc.FileSync(ctx, e.c, nil)
	if err != nil || len(res.Commits) != 0 {
		t.Errorf("second file-sync = %+v, %v; want no commit", res, err)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after the second file-sync = %+v, want nothing", p)
	}
}

// TestFileScan: pending edits are committed first, then every file is
// read again, so a translation the index holds differently from its
// file (its revision current) takes the file's values.
func TestFileScan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.hideUpstreamEdit(t, "Moin")
	e.edit(t, "fr", "hello", "Salut", e.ann)

	if err := e.svc.FileScan(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	if got := e.target(t, "de", "hello"); got != "Moin" {
		t.Errorf("de hello after file-scan = %q, want the file's Moin", got)
	}
	if got := e.target(t, "fr", "hello"); got != "Salut" {
		t.Errorf("fr hello after file-scan = %q, want the committed edit", got)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after file-scan = %+v, want nothing", p)
	}
	ch := e.changesOf(t, index.ActionCommit, index.ActionForceScan)
	if len(ch) != 2 || ch[0].Action != index.ActionCommit || ch[1].Action != index.ActionForceScan ||
		ch[1].UserID != e.ann.ID {
		t.Errorf("changes = %+v, want 17 then 84 by ann", ch)
	}
	// The scan left every revision current: the next import reads nothing.
	sum, err := e.svc.ImportComponent(ctx, e.c)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Parsed != 0 {
		t.Errorf("import after file-scan parsed %d files, want 0 (%+v)", sum.Parsed, sum)
	}
}

// TestCleanup removes untracked files from a checked-out working tree and
// records 88; with its remote gone, it fails with the reference's
// message, records nothing, and says nothing of the cause.
func TestCleanup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	if _, err := e.svc.Commit(ctx, e.c, &e.ann); err != nil { // checks the working tree out
		t.Fatal(err)
	}
	checkout := filepath.Join(e.dir, "repos", "test", "app")
	for _, p := range []string{"stray.txt", "build/out/x.json"} {
		full := filepath.Join(checkout, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.svc.Cleanup(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"stray.txt", "build"} {
		if _, err := os.Lstat(filepath.Join(checkout, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after cleanup: %v, want it gone", p, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(checkout, "locales", "de.json")); err != nil || !strings.Contains(string(b), "Tschüss") {
		t.Errorf("tracked de.json = %q, %v", b, err)
	}
	if ch := e.changesOf(t, index.ActionRepoCleanup); len(ch) != 1 || ch[0].UserID != e.ann.ID {
		t.Errorf("88 changes = %+v, want one by ann", ch)
	}

	if err := os.Rename(e.bare, e.bare+".moved"); err != nil {
		t.Fatal(err)
	}
	err := e.svc.Cleanup(ctx, e.c, &e.ann)
	if !errors.Is(err, index.ErrConflict) || index.ErrorMessage(err) != "Could not clean the repository on test/app." {
		t.Errorf("cleanup without a remote = %v (%q), want the reference's message", err, index.ErrorMessage(err))
	}
	if ch := e.changesOf(t, index.ActionRepoCleanup); len(ch) != 1 {
		t.Errorf("88 changes after the failure = %d, want still 1", len(ch))
	}
}
