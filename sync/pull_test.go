package sync_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	tolksync "github.com/tolk-project/tolk/sync"
)

// upstream commits files as the developer working in e.work, after
// taking what the bare repository has.
func (e commitEnv) upstream(tb testing.TB, files map[string]string, msg string) {
	tb.Helper()
	git(tb, e.work, "pull", "--quiet", "--rebase", "origin", "main")
	writeAndPush(tb, e.work, files, msg)
}

// unit returns the unit of lang with the given key.
func (e commitEnv) unit(tb testing.TB, lang, key string) index.Unit {
	tb.Helper()
	return unitIn(tb, e.env, "app", lang, key)
}

// unitIn returns the unit with the given key of lang in component slug.
func unitIn(tb testing.TB, e env, slug, lang, key string) index.Unit {
	tb.Helper()
	tr := mustTranslation(tb, e, slug, lang)
	units, _, err := e.db.FindUnits(context.Background(), index.UnitFilter{TranslationID: tr.ID,
		Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		tb.Fatal(err)
	}
	for _, u := range units {
		if u.Context == key {
			return u
		}
	}
	tb.Fatalf("%s/%s has no unit %q", slug, lang, key)
	return index.Unit{}
}

// TestPullKeepsUnpushedCommit: a translator's edit is committed but not
// pushed while upstream adds, changes and removes strings. The pull
// brings upstream in with the reference's actions and re-applies the
// commit on top, the push is a fast-forward, and upstream's file differs
// from its own only in the edited value.
func TestPullKeepsUnpushedCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	if _, err := e.svc.Commit(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	e.upstream(t, map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"new\": \"New\"\n}\n",
		"locales/de.json": "{\n  \"hello\": \"Grüß dich\",\n  \"bye\": \"\",\n  \"new\": \"Neu\"\n}\n",
	}, "upstream: new string, hello reworded, menu gone")

	if err := e.svc.Pull(ctx, e.c, &e.bob); err != nil {
		t.Fatal(err)
	}
	if u := e.unit(t, "de", "hello"); u.Target[0] != "Grüß dich" || u.Pending {
		t.Errorf("de hello = %q pending %v, want upstream's text", u.Target, u.Pending)
	}
	if u := e.unit(t, "de", "new"); u.Target[0] != "Neu" {
		t.Errorf("de new = %q", u.Target)
	}
	if u := e.unit(t, "de", "bye"); u.Target[0] != "Tschüss" || u.Pending {
		t.Errorf("de bye = %q pending %v, want the edit, committed again", u.Target, u.Pending)
	}
	// One 59 for the reworded string (no conflict recorded for bye), a
	// 71 per translation for the new one, 63 for the removed ones.
	var updated []string
	for _, ch := range e.changesOf(t, index.ActionStringRepoUpdate) {
		updated = append(updated, ch.Target)
	}
	if strings.Join(updated, "|") != "Grüß dich" {
		t.Errorf("59 changes = %q, want only upstream's rewording", updated)
	}
	if n := len(e.changesOf(t, index.ActionStringRepoAdd)); n != 3 {
		t.Errorf("71 changes = %d, want 3 (en, de, fr)", n)
	}
	if n := len(e.changesOf(t, index.ActionStringRemove)); n != 3 {
		t.Errorf("63 changes = %d, want 3 (menu.file in en, de, fr)", n)
	}
	if n := len(e.changesOf(t, index.ActionRebase)); n != 1 {
		t.Errorf("21 changes = %d, want 1", n)
	}
	if err := e.svc.Push(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	log := e.log(t)
	if len(log) != 3 || !strings.HasPrefix(log[0], "Ann Example <ann@example.com> | Tolk Bot") ||
		!strings.HasSuffix(log[1], "upstream: new string, hello reworded, menu gone") {
		t.Fatalf("log:\n%s\nwant ann's commit on top of upstream's", strings.Join(log, "\n"))
	}
	diff := git(t, e.bare, "diff", "main~1", "main")
	if !strings.Contains(diff, "-  \"bye\": \"\",\n+  \"bye\": \"Tschüss\",") || strings.Count(diff, "\n+") != 2 {
		t.Errorf("re-applied commit changes more than the edit:\n%s", diff)
	}
	st, err := e.svc.RepositoryStatus(ctx, e.c)
	if err != nil {
		t.Fatal(err)
	}
	if st.NeedsCommit || st.NeedsMerge || st.NeedsPush || st.MergeFailure != "" {
		t.Errorf("status after pull and push = %+v", st)
	}
}

// TestPullConflictTranslatorWins: upstream changes the string a
// translator edited since the last sync. The edit wins, upstream's text
// is in the history as a 59, nothing is locked, and the commit on top
// writes the edit.
func TestPullConflictTranslatorWins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "hello", "Servus", e.ann)
	e.upstream(t, map[string]string{"locales/de.json": "{\n  \"hello\": \"Hallöchen\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"}\n}\n"}, "upstream rewords hello")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if u := e.unit(t, "de", "hello"); u.Target[0] != "Servus" {
		t.Errorf("de hello = %q, want the translator's edit", u.Target)
	}
	chs := e.changesOf(t, index.ActionStringRepoUpdate)
	if len(chs) != 1 || chs[0].Target != "Hallöchen" {
		t.Errorf("59 changes = %+v, want upstream's text kept", chs)
	}
	if got := git(t, e.bare, "show", "main:locales/de.json"); !strings.Contains(got, `"hello": "Hallöchen"`) {
		t.Errorf("upstream changed by a pull:\n%s", got)
	}
	e.checkCommittedOnTop(t, "de", "hello", `"hello": "Servus"`)
}

// TestPullConflictUpstreamWins is the same conflict on a component that
// takes upstream's text: the index takes it and the edit stays in the
// history.
func TestPullConflictUpstreamWins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.c.ConflictPolicy = index.ConflictUpstreamWins
	e.edit(t, "de", "hello", "Servus", e.ann)
	e.upstream(t, map[string]string{"locales/de.json": "{\n  \"hello\": \"Hallöchen\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"}\n}\n"}, "upstream rewords hello")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if u := e.unit(t, "de", "hello"); u.Target[0] != "Hallöchen" || u.Pending {
		t.Errorf("de hello = %q pending %v, want upstream's text", u.Target, u.Pending)
	}
	var texts []string
	for _, ch := range e.changesOf(t) {
		if ch.Target == "Servus" || ch.Target == "Hallöchen" {
			texts = append(texts, ch.Target)
		}
	}
	if strings.Join(texts, "|") != "Servus|Hallöchen" {
		t.Errorf("history = %q, want the edit then upstream's text", texts)
	}
}

// TestPullAfterSquashMerge: Tolk pushes to a branch of its own, upstream
// squash-merges it and commits more. The pull re-applies nothing (the
// edit is in), and the next edit rebuilds Tolk's branch on top of main
// with exactly one commit, pushed with a lease.
func TestPullAfterSquashMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.c.PushBranch = "tolk"
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	if err := e.svc.Push(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	git(t, e.work, "fetch", "--quiet", "origin")
	git(t, e.work, "merge", "--quiet", "--squash", "origin/tolk")
	git(t, e.work, "commit", "--quiet", "-m", "Translations from Tolk (squashed)")
	writeAndPush(t, e.work, map[string]string{"locales/fr.json": "{\n  \"hello\": \"Salut\"\n}\n"}, "upstream: fr")

	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after the pull = %+v, want nothing: the squash holds the edit", p)
	}
	if u := e.unit(t, "fr", "hello"); u.Target[0] != "Salut" {
		t.Errorf("fr hello = %q", u.Target)
	}
	if head, main := git(t, e.dir+"/repos/test/app", "rev-parse", "HEAD"), git(t, e.bare, "rev-parse", "main"); head != main {
		t.Errorf("HEAD %s != main %s: nothing was to be re-applied", head, main)
	}
	e.edit(t, "de", "hello", "Servus", e.bob)
	if err := e.svc.Push(ctx, e.c, &e.bob); err != nil {
		t.Fatal(err)
	}
	if got := git(t, e.bare, "log", "--format=%an | %s", "main..tolk"); got != "Bob Example | Translated using Tolk (German)" {
		t.Errorf("main..tolk:\n%s\nwant bob's one commit", got)
	}
	if got := git(t, e.bare, "rev-parse", "tolk~1"); got != git(t, e.bare, "rev-parse", "main") {
		t.Error("tolk is not rebuilt on top of main")
	}
	if n := len(e.changesOf(t, index.ActionFailedPush)); n != 0 {
		t.Errorf("%d failed pushes", n)
	}
}

// TestPushPullsAndRetries: upstream moved since Tolk's last sync; the
// push is rejected, pulls, re-applies the edit on top and succeeds.
func TestPushPullsAndRetries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.upstream(t, map[string]string{"README": "moved upstream\n"}, "upstream moves")
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	if err := e.svc.Push(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	log := e.log(t)
	if len(log) != 3 || !strings.HasPrefix(log[0], "Ann Example") || !strings.HasSuffix(log[1], "upstream moves") {
		t.Fatalf("log:\n%s", strings.Join(log, "\n"))
	}
	if n := len(e.changesOf(t, index.ActionPush)); n != 1 {
		t.Errorf("18 changes = %d, want 1", n)
	}
}

// TestPullUnreachableRemote: git itself fails. The pull records 22 with
// the reason, the status shows it as merge_failure, edits go on, and a
// later successful pull clears it.
func TestPullUnreachableRemote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	moved := e.bare + ".moved"
	if err := os.Rename(e.bare, moved); err != nil {
		t.Fatal(err)
	}
	err := e.svc.Pull(ctx, e.c, &e.ann)
	if !errors.Is(err, index.ErrConflict) || !strings.HasPrefix(index.ErrorMessage(err), "Could not update the repository of test/app: ") {
		t.Fatalf("pull = %v", err)
	}
	st, err := e.svc.RepositoryStatus(ctx, e.c)
	if err != nil {
		t.Fatal(err)
	}
	if st.MergeFailure == "" {
		t.Error("merge_failure empty after a failed pull")
	}
	e.edit(t, "de", "bye", "Tschüss", e.ann) // not locked
	if err := os.Rename(moved, e.bare); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Pull(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Push(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	if st, err = e.svc.RepositoryStatus(ctx, e.c); err != nil || st.MergeFailure != "" {
		t.Errorf("merge_failure after recovering = %q, %v", st.MergeFailure, err)
	}
}

// TestReset: a committed edit not pushed, a pending edit and a removed
// string are all discarded; the index holds upstream's text again and
// 19 says what went.
func TestReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	if _, err := e.svc.Commit(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	e.edit(t, "de", "hello", "Servus", e.bob)
	menu := e.unit(t, "fr", "hello")
	if err := e.db.DeleteUnit(ctx, menu.ID, index.UserActor(&e.bob), func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	e.upstream(t, map[string]string{"README": "moved upstream\n"}, "upstream moves")

	if err := e.svc.Reset(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	if u := e.unit(t, "de", "bye"); u.Target[0] != "" || u.Pending {
		t.Errorf("de bye = %q pending %v, want upstream's empty text", u.Target, u.Pending)
	}
	if u := e.unit(t, "de", "hello"); u.Target[0] != "Hallo" || u.Pending {
		t.Errorf("de hello = %q pending %v, want upstream's text", u.Target, u.Pending)
	}
	if u := e.unit(t, "fr", "hello"); u.Target[0] != "Bonjour" {
		t.Errorf("fr hello = %q, want it back", u.Target)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after reset = %+v", p)
	}
	if head, main := git(t, e.dir+"/repos/test/app", "rev-parse", "HEAD"), git(t, e.bare, "rev-parse", "main"); head != main {
		t.Errorf("HEAD %s, want upstream's %s", head, main)
	}
	chs := e.changesOf(t, index.ActionReset)
	if len(chs) != 1 || !strings.HasPrefix(chs[0].Target, "Discarded 1 pending strings, 1 removed strings, 0 files to add or delete and 1 local commits;") {
		t.Errorf("19 changes = %+v", chs)
	}
}

// TestSharedRepositoryPush: two components share one repository, each in
// a checkout of its own. Both push; the second is behind the first's
// commit, and its push pulls, re-applies its edit on top and succeeds.
func TestSharedRepositoryPush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustEnv(t)
	url, _ := mustRepo(t, map[string]string{
		"app/en.json":  "{\n  \"hello\": \"Hello\"\n}\n",
		"app/de.json":  "{\n  \"hello\": \"\"\n}\n",
		"docs/en.json": "{\n  \"title\": \"Manual\"\n}\n",
		"docs/de.json": "{\n  \"title\": \"\"\n}\n",
	})
	comps := e.reconcile(t, jsonComponent("app", url, "app/*.json", "app/en.json", "en"),
		jsonComponent("docs", url, "docs/*.json", "docs/en.json", "en"))
	ann := mustUser(t, e.db, "ann", "Ann Example")
	for _, c := range comps {
		tr := mustTranslation(t, e, c.Slug, "de")
		units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 10}})
		if err != nil || len(units) != 1 {
			t.Fatalf("%s units: %v %v", c.Slug, units, err)
		}
		if _, err := e.db.UpdateUnit(ctx, units[0].ID, index.UserActor(&ann), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Hallo " + c.Slug}, State: index.StateTranslated}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range comps {
		if err := e.svc.Push(ctx, c, &ann); err != nil {
			t.Fatalf("push %s: %v", c.Slug, err)
		}
	}
	bare := strings.TrimPrefix(url, "file://")
	if got := git(t, bare, "show", "main:app/de.json"); got != "{\n  \"hello\": \"Hallo app\"\n}" {
		t.Errorf("app/de.json = %q", got)
	}
	if got := git(t, bare, "show", "main:docs/de.json"); got != "{\n  \"title\": \"Hallo docs\"\n}" {
		t.Errorf("docs/de.json = %q", got)
	}
	if n := git(t, bare, "rev-list", "--count", "main"); n != "3" {
		t.Errorf("%s commits upstream, want the initial one and one per component", n)
	}
}

// TestPullOfUnparsableFileKeepsEdit: upstream breaks the file a
// translator has a pending edit in. The pull fails with a message naming
// the file and the position (an operation's failure, not an internal
// error), the edit waits, and once upstream repairs the file the next
// pull commits it on top.
func TestPullOfUnparsableFileKeepsEdit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.edit(t, "fr", "hello", "Salut", e.ann)
	e.upstream(t, map[string]string{"locales/de.json": "{\n  \"hello\": \"Hallo\" \"bye\"\n}\n"}, "upstream breaks de")
	err := e.svc.Pull(ctx, e.c, nil)
	if !errors.Is(err, index.ErrConflict) {
		t.Fatalf("pull = %v, want a conflict", err)
	}
	if msg := index.ErrorMessage(err); !strings.HasPrefix(msg, "Could not commit test/app: locales/de.json: line 2, column ") {
		t.Errorf("message = %q", msg)
	}
	if !e.unit(t, "de", "bye").Pending {
		t.Error("the edit is no longer pending after a failed commit")
	}
	// A download of the broken file says why instead of failing inside.
	de := mustTranslation(t, e.env, "app", "de")
	pending, err := e.db.FindPendingUnits(ctx, de.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RenderTranslation(ctx, de, pending); !errors.Is(err, index.ErrConflict) ||
		!strings.HasPrefix(index.ErrorMessage(err), "locales/de.json cannot be rendered with its pending edits: line 2") {
		t.Errorf("download of the broken file = %v", err)
	}
	// The broken file holds up no other: French is committed.
	if e.unit(t, "fr", "hello").Pending {
		t.Error("the French edit waits for the German file")
	}
	if got := git(t, e.dir+"/repos/test/app", "show", "HEAD:locales/fr.json"); !strings.Contains(got, `"hello": "Salut"`) {
		t.Errorf("fr.json at HEAD:\n%s", got)
	}
	e.upstream(t, map[string]string{"locales/de.json": commitFiles["locales/de.json"]}, "upstream repairs de")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	e.checkCommittedOnTop(t, "de", "bye", `"bye": "Tschüss"`)
}

// TestPullFinishesFromCheckoutWhenRemoteIsDown: a pull moved the branch
// onto upstream and died before importing; the remote is unreachable
// when the next pull comes. The pull fails (22) but indexes the
// checkout as it stands, so the index does not serve a mix of two
// revisions meanwhile.
func TestPullFinishesFromCheckoutWhenRemoteIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.upstream(t, map[string]string{"locales/de.json": "{\n  \"hello\": \"Grüß dich\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"}\n}\n"}, "upstream rewords hello")
	// The part of a pull that ran before the crash: fetch, move.
	checkout := e.dir + "/repos/test/app"
	git(t, checkout, "fetch", "--quiet", "origin")
	git(t, checkout, "update-ref", "refs/heads/main", "refs/remotes/origin/main")
	if u := e.unit(t, "de", "hello"); u.Target[0] != "Hallo" {
		t.Fatalf("de hello before the pull = %q", u.Target)
	}
	if err := os.Rename(e.bare, e.bare+".down"); err != nil {
		t.Fatal(err)
	}
	err := e.svc.Pull(ctx, e.c, nil)
	if !errors.Is(err, index.ErrConflict) {
		t.Fatalf("pull with the remote down = %v, want a failure", err)
	}
	// On SQLite the checkout is the record: its HEAD is indexed. On
	// PostgreSQL the index records the head the processes share, and the
	// checkout goes back to it: the index keeps what it served. Either
	// way the index shows one revision, not a mix.
	want := "Grüß dich"
	if indextest.Engine() == "postgres" {
		want = "Hallo"
	}
	if u := e.unit(t, "de", "hello"); u.Target[0] != want {
		t.Errorf("de hello after the pull = %q, want %q", u.Target, want)
	}
}

// TestResetKeep: the reference's reset-keep. The branch goes back to
// upstream (its new commit kept, Tolk's unpushed one replaced), and the
// index's translations are written on top: the translator's committed
// edit survives, and so does the index's text of a string upstream
// changed, as the reference's "reapply translations" does.
func TestResetKeep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	if _, err := e.svc.Commit(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	e.upstream(t, map[string]string{
		"README":          "moved upstream\n",
		"locales/de.json": "{\n  \"hello\": \"Grüß dich\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"}\n}\n",
	}, "upstream moves")
	if err := e.svc.ResetKeep(ctx, e.c, &e.bob); err != nil {
		t.Fatal(err)
	}
	checkout := e.dir + "/repos/test/app"
	// One commit per author on top of upstream: Ann's edit, and the
	// index's own text of the string upstream changed (nobody's edit:
	// the committer signs it).
	if got := git(t, checkout, "log", "--format=%an", "main~2..main"); got != "Ann Example\nTolk Bot" {
		t.Errorf("commits on top of upstream, by author:\n%s", got)
	}
	if base, main := git(t, checkout, "rev-parse", "HEAD~2"), git(t, e.bare, "rev-parse", "main"); base != main {
		t.Errorf("HEAD~2 = %s, want upstream's %s", base, main)
	}
	got := git(t, checkout, "show", "HEAD:locales/de.json")
	if want := "{\n  \"hello\": \"Hallo\",\n  \"bye\": \"Tschüss\",\n  \"menu\": {\"file\": \"Datei\"}\n}"; got != want {
		t.Errorf("de.json at HEAD =\n%s\nwant\n%s", got, want)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after reset-keep = %+v", p)
	}
	chs := e.changesOf(t, index.ActionReset)
	if len(chs) != 1 || !strings.Contains(chs[0].Target, "keeping the translations") {
		t.Errorf("19 changes = %+v", chs)
	}
	if err := e.svc.Push(ctx, e.c, &e.bob); err != nil {
		t.Fatal(err)
	}
	if got := git(t, e.bare, "show", "main:README"); got != "moved upstream" {
		t.Errorf("README upstream = %q: upstream's commit must stay", got)
	}
}

// TestPullImportsOnlyChangedFile: after an upstream commit changing one
// translation, the pull imports that file alone (the template is read
// for its strings, not imported again) and the index reads upstream's
// text.
func TestPullImportsOnlyChangedFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var last tolksync.ImportSummary
	e := mustEnvWith(t, tolksync.Options{OnImportDone: func(_ index.Component, sum tolksync.ImportSummary, _ time.Duration, _ error) {
		last = sum
	}})
	url, work := mustRepo(t, commitFiles)
	c := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))[0]
	ce := commitEnv{env: e, c: c, work: work}
	ce.upstream(t, map[string]string{"locales/fr.json": "{\n  \"hello\": \"Salut\"\n}\n"}, "upstream: fr reworded")
	if err := e.svc.Pull(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	if last.Files != 3 || last.Skipped != 2 || last.Updated != 1 || last.Added != 0 {
		t.Errorf("pull summary %+v, want 3 files, 2 skipped (en, de), 1 unit updated", last)
	}
	if u := ce.unit(t, "fr", "hello"); u.Target[0] != "Salut" {
		t.Errorf("fr hello = %q, want upstream's", u.Target)
	}
}

// checkCommittedOnTop checks that a pull committed the edit of key in
// lang on top of upstream: the checkout's HEAD file holds want and the
// unit is no longer pending.
func (e *commitEnv) checkCommittedOnTop(t *testing.T, lang, key, want string) {
	t.Helper()
	if got := git(t, e.dir+"/repos/test/app", "show", "HEAD:locales/"+lang+".json"); !strings.Contains(got, want) {
		t.Errorf("the checkout's HEAD lacks the edit on top:\n%s", got)
	}
	if e.unit(t, lang, key).Pending {
		t.Error("the edit is still pending after the pull committed it")
	}
}

// TestPullInterruptedThenRetried: a pull cut short once it moved the
// branch onto upstream (before its import, or after it and before the
// commit on top) and then retried ends as a pull that ran through does:
// the kept edits (a local commit upstream lacks and an edit still
// pending) committed on top of upstream, nothing pending, one 21.
func TestPullInterruptedThenRetried(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) commitEnv {
		t.Helper()
		e := mustCommitEnv(t)
		e.edit(t, "de", "bye", "Tschüss", e.ann)
		if _, err := e.svc.Commit(context.Background(), e.c, &e.ann); err != nil {
			t.Fatal(err)
		}
		e.edit(t, "fr", "hello", "Salut", e.bob)
		e.upstream(t, map[string]string{
			"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"new\": \"New\",\n  \"menu\": {\"file\": \"File\"}\n}\n",
			"locales/de.json": "{\n  \"hello\": \"Grüß dich\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"}\n}\n",
		}, "upstream moves")
		return e
	}
	// outcome is what a pull leaves: the commits on top of upstream, the
	// files at HEAD, what is pending, the 21s.
	outcome := func(t *testing.T, e commitEnv) string {
		t.Helper()
		checkout := e.dir + "/repos/test/app"
		var b strings.Builder
		b.WriteString(git(t, checkout, "log", "--format=%an | %s", git(t, e.bare, "rev-parse", "main")+"..HEAD"))
		for _, f := range []string{"en", "de", "fr"} {
			b.WriteString("\n" + git(t, checkout, "show", "HEAD:locales/"+f+".json"))
		}
		fmt.Fprintf(&b, "\npending %+v, 21s %d", e.pending(t), len(e.changesOf(t, index.ActionRebase)))
		return b.String()
	}
	through := setup(t)
	if err := through.svc.Pull(context.Background(), through.c, &through.bob); err != nil {
		t.Fatal(err)
	}
	want := outcome(t, through)
	for _, step := range []string{"moved", "imported"} {
		t.Run(step, func(t *testing.T) {
			e := setup(t)
			ctx, cancel := context.WithCancel(context.Background())
			tolksync.SetPullStep(e.svc, func(s string) {
				if s == step {
					cancel()
				}
			})
			if err := e.svc.Pull(ctx, e.c, &e.bob); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted pull = %v, want context.Canceled", err)
			}
			tolksync.SetPullStep(e.svc, nil)
			if err := e.svc.Pull(context.Background(), e.c, &e.bob); err != nil {
				t.Fatal(err)
			}
			if got := outcome(t, e); got != want {
				t.Errorf("interrupted at %q and retried:\n%s\n\nrun through:\n%s", step, got, want)
			}
		})
	}
}
