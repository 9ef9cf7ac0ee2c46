package sync_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// processes are two Tolk processes on one PostgreSQL database, each with
// its own data directory: a and b share the component's index and
// upstream, never a checkout.
type processes struct {
	a, b commitEnv
	loc  string // the database
	// killA closes A's index, as A's death would.
	killA func()
}

var processOptions = tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}}

// mustProcess starts a process on the database at loc with a data
// directory of its own; closeDB closes its index, which happens when tb
// ends otherwise.
func mustProcess(tb testing.TB, loc string) (e env, closeDB func()) {
	tb.Helper()
	db, err := indextest.OpenPostgres(tb, loc)
	if err != nil {
		tb.Fatal(err)
	}
	closeDB = gosync.OnceFunc(func() { db.Close() })
	tb.Cleanup(closeDB)
	opts := processOptions
	opts.DataDir = tb.TempDir()
	svc, err := tolksync.New(db, langdata.Default(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { svc.Close() })
	return env{db: db, svc: svc, dir: opts.DataDir}, closeDB
}

// mustTwoProcesses starts two processes on a new database with the
// language table; killA closes a's index.
func mustTwoProcesses(tb testing.TB) (a, b env, loc string, killA func()) {
	tb.Helper()
	loc = indextest.PostgresLocation(tb)
	a, killA = mustProcess(tb, loc)
	if err := a.db.SeedLanguages(context.Background(), langdata.Default().All()); err != nil {
		tb.Fatal(err)
	}
	b, _ = mustProcess(tb, loc)
	return a, b, loc, killA
}

// mustProcesses imports the commit tests' repository on a, then on b.
func mustProcesses(tb testing.TB) processes {
	tb.Helper()
	a, b, loc, killA := mustTwoProcesses(tb)
	url, work := mustRepo(tb, commitFiles)
	spec := jsonComponent("app", url, "locales/*.json", "locales/en.json", "en")
	ca := a.reconcile(tb, spec)[0]
	b.reconcile(tb, spec)
	ce := commitEnv{env: a, c: ca, bare: strings.TrimPrefix(url, "file://"), work: work, ann: mustUser(tb, a.db, "ann", "Ann Example")}
	cb := ce
	cb.env = b
	return processes{a: ce, b: cb, loc: loc, killA: killA}
}

// exportedHead is the HEAD e's git export advertises (what a clone of
// its git_export URL gets).
func exportedHead(tb testing.TB, e commitEnv) string {
	tb.Helper()
	h, err := e.svc.GitExport(context.Background(), e.c)
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := git(tb, tb.TempDir(), "ls-remote", srv.URL+"/git/test/app/", "HEAD")
	head, _, _ := strings.Cut(out, "\t")
	return head
}

func mustReadFile(tb testing.TB, e commitEnv, path string) string {
	tb.Helper()
	b, err := e.svc.ReadFile(context.Background(), e.c, path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestProcessesServeOneHead: a commit on A (nothing pushed) is what B
// downloads and builds on; A then reads B's; the push carries both
// commits once and the index forgets their objects.
func TestProcessesServeOneHead(t *testing.T) {
	ctx := context.Background()
	p := mustProcesses(t)
	upstream := mustReadFile(t, p.b, "locales/de.json")

	p.a.edit(t, "de", "bye", "Tschüss", p.a.ann)
	if res, err := p.a.svc.Commit(ctx, p.a.c, nil); err != nil || len(res.Commits) != 1 {
		t.Fatalf("commit on A = %+v, %v", res, err)
	}
	onA := mustReadFile(t, p.a, "locales/de.json")
	if onA == upstream || !strings.Contains(onA, "Tschüss") {
		t.Fatalf("A's file after its commit:\n%s", onA)
	}
	stA, err := p.a.svc.RepositoryStatus(ctx, p.a.c)
	if err != nil {
		t.Fatal(err)
	}
	if got := exportedHead(t, p.b); got != stA.LocalCommit.Revision {
		t.Fatalf("B's git export has HEAD %s, want A's commit %s", got, stA.LocalCommit.Revision)
	}
	if got := mustReadFile(t, p.b, "locales/de.json"); got != onA {
		t.Fatalf("B serves\n%s\nwant A's\n%s", got, onA)
	}

	p.b.edit(t, "de", "hello", "Servus", p.a.ann)
	if res, err := p.b.svc.Commit(ctx, p.b.c, nil); err != nil || len(res.Commits) != 1 {
		t.Fatalf("commit on B = %+v, %v", res, err)
	}
	onB := mustReadFile(t, p.b, "locales/de.json")
	if !strings.Contains(onB, "Tschüss") || !strings.Contains(onB, "Servus") {
		t.Fatalf("B's commit lost A's edit:\n%s", onB)
	}
	if got := mustReadFile(t, p.a, "locales/de.json"); got != onB {
		t.Fatalf("A serves\n%s\nwant B's\n%s", got, onB)
	}
	st, err := p.a.svc.RepositoryStatus(ctx, p.a.c)
	if err != nil || st.Outgoing != 2 || st.NeedsCommit {
		t.Fatalf("A's status = %+v, %v; want 2 outgoing commits, nothing to commit", st, err)
	}
	objs, err := p.a.db.GitObjects(ctx, p.a.c.ID)
	if err != nil || len(objs) == 0 {
		t.Fatalf("objects recorded before the push: %d, %v", len(objs), err)
	}

	if err := p.a.svc.Push(ctx, p.a.c, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Ann Example <ann@example.com> | Tolk Bot <bot@tolk.example> | Translated using Tolk (German)",
		"Ann Example <ann@example.com> | Tolk Bot <bot@tolk.example> | Translated using Tolk (German)",
		"Test <test@example.invalid> | Test <test@example.invalid> | initial",
	}
	if log := p.a.log(t); strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("upstream's log:\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if got := git(t, p.a.bare, "show", "main:locales/de.json") + "\n"; got != onB {
		t.Errorf("upstream's de.json:\n%s\nwant\n%s", got, onB)
	}
	if objs, err := p.a.db.GitObjects(ctx, p.a.c.ID); err != nil || len(objs) != 0 {
		t.Errorf("objects recorded after the push: %d, %v; want none", len(objs), err)
	}
	// B pulls and finds itself up to date: nothing re-applied, nothing
	// committed.
	if err := p.b.svc.Pull(ctx, p.b.c, nil); err != nil {
		t.Fatal(err)
	}
	if st, err := p.b.svc.RepositoryStatus(ctx, p.b.c); err != nil || st.Outgoing != 0 || st.NeedsCommit {
		t.Fatalf("B's status after the pull = %+v, %v", st, err)
	}
}

// TestProcessesTakeTurns: while B's commit (Commit, which the
// scheduler's commit job runs) is between its git commit and its index
// update, the update a webhook started on A (StartUpdate, what the hook
// handlers start) waits for it, then runs on B's commit.
func TestProcessesTakeTurns(t *testing.T) {
	ctx := context.Background()
	p := mustProcesses(t)
	p.b.edit(t, "de", "bye", "Tschüss", p.a.ann)
	inCommit, release := make(chan struct{}), make(chan struct{})
	tolksync.SetAfterGitCommit(p.b.svc, func() error {
		close(inCommit)
		<-release
		return nil
	})
	committed := make(chan error, 1)
	go func() {
		_, err := p.b.svc.Commit(ctx, p.b.c, nil)
		committed <- err
	}()
	receive(t, inCommit, "B's commit")
	task := p.a.svc.StartUpdate(p.a.c)
	time.Sleep(500 * time.Millisecond)
	if tk, _ := p.a.svc.Task(task.ID); tk.Completed {
		t.Fatalf("A's update ran during B's commit: %+v", tk)
	}
	close(release)
	if err := receive(t, committed, "end of B's commit"); err != nil {
		t.Fatal(err)
	}
	tk := waitTask(t, p.a.svc, task.ID)
	if tk.Err != "" {
		t.Fatalf("A's update: %s", tk.Err)
	}
	// A's update ran on B's commit.
	de := mustReadFile(t, p.a, "locales/de.json")
	if !strings.Contains(de, "Tschüss") {
		t.Fatalf("A after its update: de\n%s", de)
	}
	if got := mustReadFile(t, p.b, "locales/de.json"); got != de {
		t.Errorf("B serves\n%s\nwant A's\n%s", got, de)
	}
	if pend := p.a.pending(t); pend.Any() {
		t.Errorf("pending after both = %+v", pend)
	}
}

// TestProcessDiesMidCommit: A dies between its git commit and its index
// update, holding the component. B takes the component at once,
// commits the edit A lost, once; A restarted serves B's commit.
func TestProcessDiesMidCommit(t *testing.T) {
	ctx := context.Background()
	p := mustProcesses(t)
	p.a.edit(t, "de", "bye", "Tschüss", p.a.ann)
	tolksync.SetAfterGitCommit(p.a.svc, func() error {
		p.killA() // the process dies: its sessions, and its lock, end
		return errors.New("killed")
	})
	if _, err := p.a.svc.Commit(ctx, p.a.c, nil); err == nil {
		t.Fatal("A's commit survived its death")
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	res, err := p.b.svc.Commit(wctx, p.b.c, nil)
	if err != nil || len(res.Commits) != 1 {
		t.Fatalf("B's commit = %+v, %v; want the one commit A did not finish", res, err)
	}
	if pend := p.b.pending(t); pend.Any() {
		t.Errorf("pending after B's commit = %+v", pend)
	}
	if err := p.b.svc.Push(ctx, p.b.c, nil); err != nil {
		t.Fatal(err)
	}
	log := p.b.log(t)
	if len(log) != 2 || !strings.HasSuffix(log[0], "Translated using Tolk (German)") {
		t.Errorf("upstream's log:\n%s\nwant one commit on the initial one", strings.Join(log, "\n"))
	}
	if de := git(t, p.b.bare, "show", "main:locales/de.json"); !strings.Contains(de, "Tschüss") {
		t.Errorf("upstream's de.json lost the edit:\n%s", de)
	}

	// A restarts on its data directory: its checkout, left on the commit
	// it never recorded, moves to B's.
	db, err := sqlstore.Open(ctx, sqlstore.Options{Engine: sqlstore.Postgres, Location: p.loc})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	opts := processOptions
	opts.DataDir = p.a.dir
	svc, err := tolksync.New(db, langdata.Default(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	a := p.a
	a.env = env{db: db, svc: svc, dir: p.a.dir}
	if got, want := mustReadFile(t, a, "locales/de.json"), mustReadFile(t, p.b, "locales/de.json"); got != want {
		t.Errorf("A restarted serves\n%s\nwant B's\n%s", got, want)
	}
	// As last fetched: A may not have fetched B's push.
	st, err := svc.RepositoryStatus(ctx, a.c)
	if err != nil || st.NeedsCommit || st.LocalCommit.Revision != git(t, p.b.bare, "rev-parse", "main") {
		t.Errorf("A restarted: status %+v, %v; want upstream's head, nothing to commit", st, err)
	}
}

// TestProcessesShareLocalComponent: a component whose repository Tolk
// owns starts with a commit of its own in each checkout; the second
// process takes the first's, objects and all, since no remote has it.
func TestProcessesShareLocalComponent(t *testing.T) {
	ctx := context.Background()
	a, b, _, _ := mustTwoProcesses(t)
	spec := jsonComponent("local", "", "*.json", "", "en")
	spec.VCS = "local"
	c := a.reconcile(t, spec)[0]
	time.Sleep(1100 * time.Millisecond) // a commit of another second: another hash
	b.reconcile(t, spec)
	sa, err := a.svc.RepositoryStatus(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.svc.RepositoryStatus(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if sa.LocalCommit.Revision == "" || sb.LocalCommit.Revision != sa.LocalCommit.Revision {
		t.Fatalf("heads: A %s, B %s", sa.LocalCommit.Revision, sb.LocalCommit.Revision)
	}
}

// TestProcessClonesWhatAnotherImported: a component A imported (as one
// created through A's API is) and committed to is served by B, which
// never imported it, from a clone B makes on the first download.
func TestProcessClonesWhatAnotherImported(t *testing.T) {
	ctx := context.Background()
	a, b, _, _ := mustTwoProcesses(t)
	url, _ := mustRepo(t, commitFiles)
	ca := commitEnv{env: a, c: a.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))[0]}
	cb := ca
	cb.env = b
	ca.edit(t, "de", "bye", "Tschüss", mustUser(t, a.db, "ann", "Ann Example"))
	if _, err := a.svc.Commit(ctx, ca.c, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := mustReadFile(t, cb, "locales/de.json"), mustReadFile(t, ca, "locales/de.json"); got != want {
		t.Errorf("B serves\n%s\nwant A's\n%s", got, want)
	}
	if st, err := b.svc.RepositoryStatus(ctx, cb.c); err != nil || st.Outgoing != 1 {
		t.Errorf("B's status = %+v, %v; want A's commit outgoing", st, err)
	}
}

// TestProcessPullsAnothersCommit: A's commit, not pushed, stays B's to
// carry when upstream moves: B's pull re-applies it on top of upstream
// and the push holds both.
func TestProcessPullsAnothersCommit(t *testing.T) {
	ctx := context.Background()
	p := mustProcesses(t)
	p.a.edit(t, "de", "bye", "Tschüss", p.a.ann)
	if _, err := p.a.svc.Commit(ctx, p.a.c, nil); err != nil {
		t.Fatal(err)
	}
	writeAndPush(t, p.a.work, map[string]string{"README": "upstream moved\n"}, "upstream")
	if err := p.b.svc.Pull(ctx, p.b.c, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.b.svc.Push(ctx, p.b.c, nil); err != nil {
		t.Fatal(err)
	}
	if de := git(t, p.b.bare, "show", "main:locales/de.json"); !strings.Contains(de, "Tschüss") {
		t.Errorf("upstream's de.json lost A's edit:\n%s", de)
	}
	if readme := git(t, p.b.bare, "show", "main:README"); readme != "upstream moved" {
		t.Errorf("upstream's README = %q", readme)
	}
	if got, want := mustReadFile(t, p.a, "locales/de.json"), mustReadFile(t, p.b, "locales/de.json"); got != want {
		t.Errorf("A serves\n%s\nwant B's\n%s", got, want)
	}
}
