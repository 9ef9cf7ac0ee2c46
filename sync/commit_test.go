package sync_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// commitFiles is the repository the commit tests start from: untouched
// lines must stay byte for byte what they are.
var commitFiles = map[string]string{
	"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"menu\": {\"file\": \"File\"}\n}\n",
	"locales/de.json": "{\n  \"hello\": \"Hallo\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"Datei\"}\n}\n",
	"locales/fr.json": "{\n  \"hello\": \"Bonjour\"\n}\n",
	"README":          "not a translation\n",
}

// commitEnv is a component imported from a fresh bare repository, with
// two translators.
type commitEnv struct {
	env
	c        index.Component
	bare     string // path of the bare repository
	work     string // a clone playing upstream
	ann, bob index.User
}

func mustCommitEnv(tb testing.TB) commitEnv {
	tb.Helper()
	e := mustEnvWith(tb, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
	url, work := mustRepo(tb, commitFiles)
	comps := e.reconcile(tb, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))
	return commitEnv{env: e, c: comps[0], bare: strings.TrimPrefix(url, "file://"), work: work,
		ann: mustUser(tb, e.db, "ann", "Ann Example"), bob: mustUser(tb, e.db, "bob", "Bob Example")}
}

// mustUser creates an active user with the given name and an address at
// example.com, to credit edits to.
func mustUser(tb testing.TB, db *sqlstore.DB, username, fullName string) index.User {
	tb.Helper()
	u, err := db.CreateUser(context.Background(), index.User{Username: username, FullName: fullName,
		Email: username + "@example.com", IsActive: true})
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// edit sets the target of the unit of lang with the given key, as u.
func (e commitEnv) edit(tb testing.TB, lang, key, target string, u index.User) {
	tb.Helper()
	unit := e.unit(tb, lang, key)
	if _, err := e.db.UpdateUnit(context.Background(), unit.ID, index.UserActor(&u), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// log returns the bare repository's log, newest first, one line per
// commit: author, committer, subject, as git prints them.
func (e commitEnv) log(tb testing.TB) []string {
	tb.Helper()
	out := git(tb, e.bare, "log", "--format=%an <%ae> | %cn <%ce> | %s", "main")
	return strings.Split(out, "\n")
}

func (e commitEnv) pending(tb testing.TB) index.Pending {
	tb.Helper()
	p, err := e.db.PendingUnits(context.Background(), e.c.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestCommitAuthorWithoutEmail commits the edits of users without an
// e-mail address: each stays their commit's author, under the
// reference's private address <username>@users.noreply.<site domain>
// (PRIVATE_COMMIT_EMAIL_TEMPLATE), its port left out; a username that
// cannot be an address's local part becomes user-<id>, as there.
func TestCommitAuthorWithoutEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ site, domain string }{
		{"https://Tolk.Example.com:8443/", "tolk.example.com"},
		// Without a site name, the committer's domain.
		{"http://127.0.0.1:8080", "tolk.example"},
		{"", "tolk.example"},
	} {
		e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"},
			SiteURL: tc.site})
		url, _ := mustRepo(t, commitFiles)
		c := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))[0]
		ce := commitEnv{env: e, c: c, bare: strings.TrimPrefix(url, "file://")}
		var users []index.User
		for _, name := range []string{"Cid", "dee..x", "eve@home"} {
			u, err := e.db.CreateUser(ctx, index.User{Username: name, IsActive: true})
			if err != nil {
				t.Fatal(err)
			}
			users = append(users, u)
		}
		ce.edit(t, "de", "hello", "Servus", users[0])
		ce.edit(t, "de", "bye", "Tschüss", users[1])
		ce.edit(t, "fr", "hello", "Salut", users[2])
		if err := e.svc.Push(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
		want := []string{
			fmt.Sprintf("eve@home <user-%d@users.noreply.%s> | Tolk Bot <bot@tolk.example> | Translated using Tolk (French)", users[2].ID, tc.domain),
			"dee..x <dee__x@users.noreply." + tc.domain + "> | Tolk Bot <bot@tolk.example> | Translated using Tolk (German)",
			"Cid <cid@users.noreply." + tc.domain + "> | Tolk Bot <bot@tolk.example> | Translated using Tolk (German)",
		}
		if log := ce.log(t)[:3]; strings.Join(log, "\n") != strings.Join(want, "\n") {
			t.Errorf("site %q: log:\n%s\nwant:\n%s", tc.site, strings.Join(log, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestCommitOnePerAuthor edits two translations as two authors, commits
// and pushes, and reads the bare repository with git: one commit per
// author and translation (authors in the order of their units' ids) with the translator as author and the service
// as committer, only the edited values changed, nothing left pending,
// change 17 recorded and the revision set so the next import skips.
func TestCommitOnePerAuthor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.edit(t, "de", "hello", "Servus", e.bob)
	e.edit(t, "fr", "hello", "Salut", e.ann)

	res, err := e.svc.Commit(ctx, e.c, &e.ann)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commits) != 3 || res.Translations != 2 {
		t.Errorf("commit = %+v, want 3 commits over 2 translations", res)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after commit = %+v, want nothing", p)
	}
	// The second push has nothing to push and records nothing.
	for range 2 {
		if err := e.svc.Push(ctx, e.c, &e.ann); err != nil {
			t.Fatal(err)
		}
	}
	log := e.log(t)
	want := []string{
		"Ann Example <ann@example.com> | Tolk Bot <bot@tolk.example> | Translated using Tolk (French)",
		"Ann Example <ann@example.com> | Tolk Bot <bot@tolk.example> | Translated using Tolk (German)",
		"Bob Example <bob@example.com> | Tolk Bot <bot@tolk.example> | Translated using Tolk (German)",
		"Test <test@example.invalid> | Test <test@example.invalid> | initial",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	body := git(t, e.bare, "log", "-1", "--format=%B", "main~1")
	if !strings.Contains(body, "Translation: Test/app\nTranslate-URL: /projects/test/app/de/") {
		t.Errorf("message body:\n%s\nwant the Translation and Translate-URL lines", body)
	}
	de := git(t, e.bare, "show", "main:locales/de.json")
	if wantDE := "{\n  \"hello\": \"Servus\",\n  \"bye\": \"Tschüss\",\n  \"menu\": {\"file\": \"Datei\"}\n}"; de != wantDE {
		t.Errorf("de.json =\n%s\nwant\n%s", de, wantDE)
	}
	changes, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ComponentID: e.c.ID, Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		t.Fatal(err)
	}
	commits, pushes := 0, 0
	for _, ch := range changes {
		switch ch.Action {
		case index.ActionCommit:
			commits++
			if ch.UserID != e.ann.ID || ch.AuthorID != 0 || ch.TranslationID == 0 || ch.UnitID != 0 {
				t.Errorf("change 17 = %+v, want user ann, no author, a translation, no unit", ch)
			}
		case index.ActionPush:
			pushes++
		}
	}
	if commits != 2 || pushes != 1 {
		t.Errorf("changes 17 = %d, 18 = %d; want 2 and 1", commits, pushes)
	}
	// The import finds its revisions current: nothing to re-read.
	sum, err := e.svc.ImportComponent(ctx, e.c)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Parsed != 0 {
		t.Errorf("import after commit parsed %d files, want 0 (%+v)", sum.Parsed, sum)
	}
	// Nothing pending: a second commit makes no commit.
	if res, err := e.svc.Commit(ctx, e.c, &e.ann); err != nil || len(res.Commits) != 0 {
		t.Errorf("second commit = %+v, %v; want nothing", res, err)
	}
}

// cutCommit commits the pending edits as ann with the index update
// failing after the git commit, as a crash there would.
func (e commitEnv) cutCommit(tb testing.TB) {
	tb.Helper()
	crash := errors.New("crash")
	tolksync.SetAfterGitCommit(e.svc, func() error { return crash })
	defer tolksync.SetAfterGitCommit(e.svc, nil)
	if _, err := e.svc.Commit(context.Background(), e.c, &e.ann); !errors.Is(err, crash) {
		tb.Fatalf("commit = %v, want the crash", err)
	}
}

// TestCommitCrashBetweenGitAndIndex makes the index update fail after the
// git commit, as a crash there would, and commits again: the edits are
// found in HEAD and forgotten, with no second commit.
func TestCommitCrashBetweenGitAndIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.cutCommit(t)
	if p := e.pending(t); p.Units != 1 {
		t.Fatalf("pending after the crash = %+v, want the edit", p)
	}
	res, err := e.svc.Commit(ctx, e.c, &e.ann)
	if err != nil {
		t.Fatal(err)
	}
	// On SQLite the checkout is the record of what was committed, so the
	// edits are found in HEAD. On PostgreSQL the index records each
	// head for the other processes, and the unrecorded commit is not
	// one: the checkout goes back to the recorded head and the edits are
	// committed anew. Either way the log below has the edit once.
	wantCommits := 0
	if indextest.Engine() == "postgres" {
		wantCommits = 1
	}
	if len(res.Commits) != wantCommits || res.Translations != 1 {
		t.Errorf("commit after the crash = %+v, want %d commits and one translation done", res, wantCommits)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending = %+v, want nothing", p)
	}
	if err := e.svc.Push(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(e.log(t)); n != 2 {
		t.Errorf("log has %d commits, want 2 (initial and one edit):\n%s", n, strings.Join(e.log(t), "\n"))
	}
}

// TestCommitAddAndDeleteTranslation adds a translation and removes
// another through the store: the commit creates the one's file from the
// template emptied, with add_message, and deletes the other's with
// delete_message.
func TestCommitAddAndDeleteTranslation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	if _, err := e.db.CreateTranslation(ctx, e.c.ID, "cs", "locales/cs.json", index.UserActor(&e.bob)); err != nil {
		t.Fatal(err)
	}
	e.edit(t, "cs", "hello", "Ahoj", e.bob)
	fr := mustTranslation(t, e.env, "app", "fr")
	if err := e.db.DeleteTranslation(ctx, fr.ID, index.UserActor(&e.ann)); err != nil {
		t.Fatal(err)
	}
	// The second push has nothing to push and records nothing.
	for range 2 {
		if err := e.svc.Push(ctx, e.c, &e.ann); err != nil {
			t.Fatal(err)
		}
	}
	log := e.log(t)
	want := []string{
		"Bob Example <bob@example.com> | Tolk Bot <bot@tolk.example> | Added translation using Tolk (Czech)",
		"Ann Example <ann@example.com> | Tolk Bot <bot@tolk.example> | Deleted translation using Tolk (French)",
	}
	if len(log) != 3 || log[0] != want[0] || log[1] != want[1] {
		t.Errorf("log:\n%s\nwant first:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	files := git(t, e.bare, "ls-tree", "-r", "--name-only", "main")
	if files != "README\nlocales/cs.json\nlocales/de.json\nlocales/en.json" {
		t.Errorf("files at main:\n%s", files)
	}
	// No new_base: the template with every value emptied, then the edit.
	if cs, want := git(t, e.bare, "show", "main:locales/cs.json"),
		"{\n  \"hello\": \"Ahoj\",\n  \"bye\": \"\",\n  \"menu\": {\"file\": \"\"}\n}"; cs != want {
		t.Errorf("cs.json =\n%s\nwant\n%s", cs, want)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending = %+v, want nothing", p)
	}
}

// TestPushRejected pushes to a push URL (a fork) whose branch holds a
// commit Tolk does not have: the push pulls upstream (which does not
// help), retries once, and fails with 28 and the remote's message; the
// fork is untouched and the edit stays committed locally.
func TestPushRejected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	forkURL, forkWork := mustRepo(t, commitFiles)
	writeAndPush(t, forkWork, map[string]string{"README": "the fork moves\n"}, "fork moves")
	e.c.Push = forkURL
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	err := e.svc.Push(ctx, e.c, &e.ann)
	if !errors.Is(err, vcs.ErrNonFastForward) || !errors.Is(err, index.ErrConflict) {
		t.Fatalf("push = %v, want a non-fast-forward conflict", err)
	}
	if msg := index.ErrorMessage(err); !strings.HasPrefix(msg, "Could not push test/app: ") {
		t.Errorf("message = %q", msg)
	}
	changes, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ComponentID: e.c.ID, Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		t.Fatal(err)
	}
	var failed []index.Change
	for _, ch := range changes {
		if ch.Action == index.ActionFailedPush {
			failed = append(failed, ch)
		}
	}
	if len(failed) != 1 || failed[0].Target == "" || strings.Contains(failed[0].Target, e.dir) {
		t.Errorf("28 changes = %+v, want one with the remote's message", failed)
	}
	st, err := e.svc.RepositoryStatus(ctx, e.c)
	if err != nil {
		t.Fatal(err)
	}
	if !st.NeedsPush || st.NeedsCommit || st.MergeFailure != failed[0].Target {
		t.Errorf("status = %+v, want needs push, nothing to commit, the push failure as merge_failure", st)
	}
	if git(t, strings.TrimPrefix(forkURL, "file://"), "log", "-1", "--format=%s", "main") != "fork moves" {
		t.Error("the fork changed by a rejected push")
	}
}

// TestCommitRemovedString removes a source string (from the template and
// every translation) through the store: the commit takes its key out of
// each JSON file, leaving the other bytes alone, and nothing waits.
func TestCommitRemovedString(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	en := mustTranslation(t, e.env, "app", "en")
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: en.ID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	var bye int64
	for _, u := range units {
		if u.Context == "bye" {
			bye = u.ID
		}
	}
	if err := e.db.DeleteUnit(ctx, bye, index.UserActor(&e.bob), func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if p := e.pending(t); p.Removed == 0 {
		t.Fatalf("pending after the removal = %+v, want removed strings", p)
	}
	// A download shows the file as the commit will write it.
	if got, err := e.svc.RenderTranslation(ctx, mustTranslation(t, e.env, "app", "de"), nil); err != nil ||
		string(got) != "{\n  \"hello\": \"Hallo\",\n  \"menu\": {\"file\": \"Datei\"}\n}\n" {
		t.Errorf("rendered de.json = %q, %v; want bye gone", got, err)
	}
	if err := e.svc.Push(ctx, e.c, &e.bob); err != nil {
		t.Fatal(err)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after commit = %+v, want nothing", p)
	}
	for path, want := range map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"menu\": {\"file\": \"File\"}\n}",
		"locales/de.json": "{\n  \"hello\": \"Hallo\",\n  \"menu\": {\"file\": \"Datei\"}\n}",
		"locales/fr.json": "{\n  \"hello\": \"Bonjour\"\n}",
	} {
		if got := git(t, e.bare, "show", "main:"+path); got != want {
			t.Errorf("%s =\n%s\nwant\n%s", path, got, want)
		}
	}
	if log := e.log(t); len(log) != 3 || !strings.HasPrefix(log[0], "Bob Example <bob@example.com> | Tolk Bot") {
		t.Errorf("log:\n%s\nwant two commits by bob (template, German) over the initial one", strings.Join(log, "\n"))
	}
}

// TestCommitKeepsEditMadeDuringCommit edits a unit between the git commit
// and the index update: the newer value stays pending and the next
// commit writes it.
func TestCommitKeepsEditMadeDuringCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	tolksync.SetAfterGitCommit(e.svc, func() error {
		e.edit(t, "de", "bye", "Tschau", e.bob)
		return nil
	})
	if _, err := e.svc.Commit(ctx, e.c, &e.ann); err != nil {
		t.Fatal(err)
	}
	tolksync.SetAfterGitCommit(e.svc, nil)
	if p := e.pending(t); p.Units != 1 {
		t.Fatalf("pending = %+v, want the edit made during the commit", p)
	}
	e.c.PushOnCommit = true
	if res, err := e.svc.Commit(ctx, e.c, &e.ann); err != nil || len(res.Commits) != 1 {
		t.Fatalf("second commit = %+v, %v; want one commit", res, err)
	}
	// push_on_commit pushed it.
	if got := git(t, e.bare, "log", "-1", "--format=%an | %s", "main"); got != "Bob Example | Translated using Tolk (German)" {
		t.Errorf("upstream head = %s", got)
	}
	if got := git(t, e.bare, "show", "main:locales/de.json"); !strings.Contains(got, `"bye": "Tschau",`) {
		t.Errorf("de.json =\n%s", got)
	}
}

// TestPushRedactsCredentials pushes to a push URL carrying a password
// that cannot be reached: neither the error nor the change 28 holds the
// password.
func TestPushRedactsCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.c.Push = "http://tolk:s3cret-pw@127.0.0.1:1/app.git"
	err := e.svc.Push(ctx, e.c, &e.ann)
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") || strings.Contains(index.ErrorMessage(err), "s3cret-pw") {
		t.Fatalf("push = %v, want a failure without the password", err)
	}
	changes, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ComponentID: e.c.ID, Actions: []index.Action{index.ActionFailedPush},
		Page: index.Page{Number: 1, Size: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Target == "" || strings.Contains(changes[0].Target, "s3cret-pw") {
		t.Errorf("28 changes = %+v, want one without the password", changes)
	}
}

// TestCommitRemovedGlossaryTerm removes a glossary term (from the source
// and so from every translation) through the store: the commit takes its
// termEntry out of each TBX file, every other byte stays, and nothing
// waits afterwards.
func TestCommitRemovedGlossaryTerm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
	entry := func(en, target, lang string) string {
		return "\t\t\t<termEntry>\n\t\t\t\t<langSet xml:lang=\"en\"><tig><term>" + en + "</term></tig></langSet>\n" +
			"\t\t\t\t<langSet xml:lang=\"" + lang + "\"><tig><term>" + target + "</term></tig></langSet>\n\t\t\t</termEntry>\n"
	}
	doc := func(entries ...string) string {
		return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<martif type=\"TBX\" xml:lang=\"en\">\n\t<text>\n\t\t<body>\n" +
			strings.Join(entries, "") + "\t\t</body>\n\t</text>\n</martif>\n"
	}
	url, _ := mustRepo(t, map[string]string{
		"de.tbx": doc(entry("apple", "Apfel", "de"), entry("pear", "Birne", "de"), entry("plum", "Pflaume", "de")),
		"fr.tbx": doc(entry("pear", "poire", "fr"), entry("apple", "pomme", "fr")),
	})
	c := e.reconcile(t, tbxComponent("gloss", url, "*.tbx"))[0]
	bob, err := e.db.CreateUser(ctx, index.User{Username: "bob", FullName: "Bob Example", Email: "bob@example.com", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	en := mustTranslation(t, e, "gloss", "en")
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: en.ID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	var pear int64
	for _, u := range units {
		if u.Source[0] == "pear" {
			pear = u.ID
		}
	}
	if pear == 0 {
		t.Fatalf("no source unit for pear in %+v", units)
	}
	if err := e.db.DeleteUnit(ctx, pear, index.UserActor(&bob), func(index.Unit, index.Translation) error { return nil }); err != nil {
		t.Fatal(err)
	}
	st, err := e.svc.RepositoryStatus(ctx, c)
	if err != nil || !st.NeedsCommit {
		t.Fatalf("status after the removal = %+v, %v; want needs_commit", st, err)
	}
	wantDE := doc(entry("apple", "Apfel", "de"), entry("plum", "Pflaume", "de"))
	if got, err := e.svc.RenderTranslation(ctx, mustTranslation(t, e, "gloss", "de"), nil); err != nil || string(got) != wantDE {
		t.Errorf("rendered de.tbx = %q, %v; want pear gone", got, err)
	}
	if err := e.svc.Push(ctx, c, &bob); err != nil {
		t.Fatal(err)
	}
	bare := strings.TrimPrefix(url, "file://")
	for path, want := range map[string]string{
		"de.tbx": wantDE,
		"fr.tbx": doc(entry("apple", "pomme", "fr")),
	} {
		// git show drops the final newline.
		if got := git(t, bare, "show", "main:"+path); got+"\n" != want {
			t.Errorf("%s =\n%s\nwant\n%s", path, got, want)
		}
	}
	if log := git(t, bare, "log", "--format=%an | %cn", "main"); log != "Bob Example | Tolk Bot\nBob Example | Tolk Bot\nTest | Test" {
		t.Errorf("log:\n%s\nwant one commit by bob per file over the initial one", log)
	}
	st, err = e.svc.RepositoryStatus(ctx, c)
	if err != nil || st.NeedsCommit {
		t.Errorf("status after the commit = %+v, %v; want nothing to commit", st, err)
	}
	if p, err := e.db.PendingUnits(ctx, c.ID); err != nil || p.Any() {
		t.Errorf("pending after the commit = %+v, %v; want nothing", p, err)
	}
	// The next import (which recounts the bilingual source from every
	// file) does not bring the term back.
	sum, err := e.svc.ImportComponent(ctx, c)
	if err != nil || sum.Added != 0 || sum.Removed != 0 {
		t.Errorf("re-import after the commit: %+v, %v; want nothing added or removed", sum, err)
	}
	if units, n, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: en.ID, Page: index.Page{Number: 1, Size: 50}}); err != nil || n != 2 {
		t.Errorf("source units after the re-import: %d, %v; want apple and plum", n, err)
	} else {
		for _, u := range units {
			if u.Source[0] == "pear" {
				t.Errorf("pear is back: %+v", u)
			}
		}
	}
}

// TestCommitThroughSymlink edits a translation whose file is a symbolic
// link and the one it points to: both edits land in the link's target,
// the link stays a link, and the other translations commit as usual.
func TestCommitThroughSymlink(t *testing.T) {
	ctx := context.Background()
	e := mustCommitEnv(t)
	if err := os.Symlink("de.json", filepath.Join(e.work, "locales", "de_AT.json")); err != nil {
		t.Fatal(err)
	}
	writeAndPush(t, e.work, nil, "link")
	if _, err := e.svc.ImportComponent(ctx, e.c); err != nil {
		t.Fatal(err)
	}
	e.edit(t, "de", "hello", "Hallöchen", e.ann)
	e.edit(t, "de_AT", "bye", "Servus", e.ann)
	e.edit(t, "fr", "hello", "Salut", e.ann)
	if _, err := e.svc.Commit(ctx, e.c, nil); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if err := e.svc.Push(ctx, e.c, nil); err != nil {
		t.Fatalf("Push: %v", err)
	}
	de := git(t, e.bare, "show", "main:locales/de.json")
	if !strings.Contains(de, `"Hallöchen"`) || !strings.Contains(de, `"Servus"`) {
		t.Errorf("de.json = %s, want both edits", de)
	}
	if mode := git(t, e.bare, "ls-tree", "main", "locales/de_AT.json"); !strings.HasPrefix(mode, "120000 ") {
		t.Errorf("de_AT.json = %q, want still a symbolic link", mode)
	}
	if fr := git(t, e.bare, "show", "main:locales/fr.json"); !strings.Contains(fr, `"Salut"`) {
		t.Errorf("fr.json = %s, want its edit", fr)
	}
}
