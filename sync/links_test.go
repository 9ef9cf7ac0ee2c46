package sync_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
)

// linkFiles is a repository of two components: the app's strings and
// the documentation's.
var linkFiles = map[string]string{
	"locales/en.json": `{"hello": "Hello", "bye": "Goodbye"}` + "\n",
	"locales/de.json": `{"hello": "Hallo"}` + "\n",
	"docs/en.json":    `{"title": "Manual", "intro": "Read me"}` + "\n",
	"docs/de.json":    `{"title": "Handbuch"}` + "\n",
}

// linkedEnv is the app component and docs, linked to it
// (weblate://test/app).
type linkedEnv struct {
	commitEnv
	docs index.Component
}

func linkedComponent(slug, parent, mask, template string) index.Component {
	c := jsonComponent(slug, index.LinkScheme+"test/"+parent, mask, template, "en")
	return c
}

func mustLinkedEnv(tb testing.TB, e env) linkedEnv {
	tb.Helper()
	url, work := mustRepo(tb, linkFiles)
	comps := e.reconcile(tb, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"),
		linkedComponent("docs", "app", "docs/*.json", "docs/en.json"))
	ce := commitEnv{env: e, bare: strings.TrimPrefix(url, "file://"), work: work,
		ann: mustUser(tb, e.db, "ann", "Ann Example")}
	le := linkedEnv{commitEnv: ce}
	for _, c := range comps {
		switch c.Slug {
		case "app":
			le.c = c
		case "docs":
			le.docs = c
		}
	}
	if le.docs.LinkedID != le.c.ID || le.c.LinkedID != 0 {
		tb.Fatalf("docs linked to %d, app to %d; want docs → app (%d)", le.docs.LinkedID, le.c.LinkedID, le.c.ID)
	}
	return le
}

// editIn sets the target of key in lang of component slug, as u.
func editIn(tb testing.TB, e env, slug, lang, key, target string, u index.User) {
	tb.Helper()
	unit := unitIn(tb, e, slug, lang, key)
	if _, err := e.db.UpdateUnit(context.Background(), unit.ID, index.UserActor(&u),
		func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
		}); err != nil {
		tb.Fatal(err)
	}
}

// targetIn is the stored target of key in lang of component slug.
func targetIn(tb testing.TB, e env, slug, lang, key string) string {
	tb.Helper()
	return strings.Join(unitIn(tb, e, slug, lang, key).Target, "")
}

// TestLinkedComponentsShareCheckout: a component linked to another
// (weblate://test/app) is imported from its parent's checkout, never
// cloned; a commit asked of either commits the edits of both, one push
// carries them, and a pull of the parent brings upstream's changes to
// both.
func TestLinkedComponentsShareCheckout(t *testing.T) {
	ctx := context.Background()
	e := mustLinkedEnv(t, mustCommitEnvEnv(t))
	if _, err := os.Stat(filepath.Join(e.dir, "repos", "test", "docs")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("docs has a checkout of its own (%v): want the app's shared", err)
	}
	if got := targetIn(t, e.env, "docs", "de", "title"); got != "Handbuch" {
		t.Fatalf("docs/de title = %q, want imported from the shared checkout", got)
	}

	editIn(t, e.env, "app", "de", "bye", "Tschüss", e.ann)
	editIn(t, e.env, "docs", "de", "intro", "Lies mich", e.ann)
	res, err := e.svc.Commit(ctx, e.docs, nil)
	if err != nil || len(res.Commits) != 2 || res.Translations != 2 {
		t.Fatalf("Commit(docs) = %+v, %v; want the app's commit and the docs' (2 translations)", res, err)
	}
	for _, c := range []index.Component{e.c, e.docs} {
		if p, err := e.db.PendingUnits(ctx, c.ID); err != nil || p.Any() {
			t.Fatalf("%s still owes %+v (%v) after the shared commit", c.Slug, p, err)
		}
	}
	if err := e.svc.Push(ctx, e.docs, nil); err != nil {
		t.Fatal(err)
	}
	log := e.log(t)
	if len(log) != 3 {
		t.Fatalf("upstream's log after one push:\n%s\nwant two commits on the initial one", strings.Join(log, "\n"))
	}
	if got := git(t, e.bare, "show", "main:locales/de.json"); !strings.Contains(got, "Tschüss") {
		t.Errorf("upstream's locales/de.json lacks the app's edit:\n%s", got)
	}
	if got := git(t, e.bare, "show", "main:docs/de.json"); !strings.Contains(got, "Lies mich") {
		t.Errorf("upstream's docs/de.json lacks the docs' edit:\n%s", got)
	}

	// Upstream changes both; the parent's pull brings both in.
	e.upstream(t, map[string]string{
		"locales/de.json": `{"hello": "Servus", "bye": "Tschüss"}` + "\n",
		"docs/de.json":    `{"title": "Anleitung", "intro": "Lies mich"}` + "\n",
	}, "upstream edit")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if got := targetIn(t, e.env, "docs", "de", "title"); got != "Anleitung" {
		t.Errorf("docs/de title after the app's pull = %q, want upstream's", got)
	}
	if got := targetIn(t, e.env, "app", "de", "hello"); got != "Servus" {
		t.Errorf("app/de hello after the pull = %q, want upstream's", got)
	}
	// A pull asked of the linked component runs on the parent.
	e.upstream(t, map[string]string{"docs/de.json": `{"title": "Buch", "intro": "Lies mich"}` + "\n"}, "again")
	if err := e.svc.Pull(ctx, e.docs, nil); err != nil {
		t.Fatal(err)
	}
	if got := targetIn(t, e.env, "docs", "de", "title"); got != "Buch" {
		t.Errorf("docs/de title after the docs' pull = %q, want upstream's", got)
	}
	st, err := e.svc.RepositoryStatus(ctx, e.docs)
	if err != nil || st.NeedsCommit || st.Outgoing != 0 {
		t.Errorf("docs' repository status = %+v, %v", st, err)
	}
	if b, err := e.svc.ReadFile(ctx, e.docs, "docs/de.json"); err != nil || !strings.Contains(string(b), "Buch") {
		t.Errorf("ReadFile(docs) = %q, %v", b, err)
	}
	indextest.CheckCounts(t, e.db)

	// Removing the parent removes what links to it (the reference's
	// cascade), with exact counters.
	if _, err := e.db.DeleteComponent(ctx, e.c.ID, index.Actor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.FindComponentByID(ctx, e.docs.ID); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("docs after its parent's removal: %v, want ErrNotFound", err)
	}
	indextest.CheckCounts(t, e.db)
}

// mustCommitEnvEnv is the environment commitEnv uses: a committer set.
func mustCommitEnvEnv(tb testing.TB) env {
	tb.Helper()
	return mustEnvWith(tb, processOptions)
}

// TestLinkRefusals: a link to nothing, to itself, to a linked
// component, or from a component others link to (which would make a
// cycle) is refused on "repo", and so are a branch or push URL of its
// own; nothing is saved.
func TestLinkRefusals(t *testing.T) {
	ctx := context.Background()
	e := mustLinkedEnv(t, mustCommitEnvEnv(t))
	create := func(c index.Component) error {
		c.ProjectID = e.c.ProjectID
		_, err := e.db.CreateComponent(ctx, c, index.Actor{})
		return err
	}
	for _, tc := range []struct {
		name  string
		c     index.Component
		field string
		msg   string
	}{
		{"missing target", linkedComponent("x1", "nope", "docs/*.json", "docs/en.json"), "repo", index.MsgLinkInvalid},
		{"malformed", jsonComponent("x2", "weblate://test", "docs/*.json", "docs/en.json", "en"), "repo", index.MsgLinkInvalid},
		{"to a linked one", linkedComponent("x3", "docs", "docs/*.json", "docs/en.json"), "repo", index.MsgLinkToLinked},
		{"own branch", func() index.Component {
			c := linkedComponent("x4", "app", "docs/*.json", "docs/en.json")
			c.Branch = "main"
			return c
		}(), "branch", index.MsgLinkNotOption},
	} {
		err := create(tc.c)
		var fe *index.FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.msg) || !fe.Has(tc.field) {
			t.Errorf("%s: %v, want a field error on %s: %s", tc.name, err, tc.field, tc.msg)
		}
		if _, err := e.db.FindComponent(ctx, "test", tc.c.Slug); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("%s: component saved after the refusal (%v)", tc.name, err)
		}
	}
	// The cycle: app, which docs links to, linking to docs; and a
	// component linking to itself.
	for _, tc := range []struct {
		id   int64
		repo string
		msg  string
	}{
		{e.c.ID, index.LinkScheme + "test/docs", index.MsgLinkToLinked},
		{e.docs.ID, index.LinkScheme + "test/docs", index.MsgLinkSelf},
	} {
		_, _, err := e.db.UpdateComponent(ctx, tc.id, func(c *index.Component) error {
			c.Repo = tc.repo
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("update %d to %s: %v, want %q", tc.id, tc.repo, err, tc.msg)
		}
	}
	// A third component, linked to app, then app linked to it: app has
	// links, so the refusal names that.
	if err := create(linkedComponent("more", "app", "docs/*.json", "docs/en.json")); err != nil {
		t.Fatal(err)
	}
	_, _, err := e.db.UpdateComponent(ctx, e.c.ID, func(c *index.Component) error {
		c.Repo = index.LinkScheme + "test/more"
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), index.MsgLinkToLinked) && !strings.Contains(err.Error(), index.MsgLinkedParent) {
		t.Errorf("app linked to a component linked to it: %v", err)
	}
	// Renaming the parent rewrites its links.
	_, after, err := e.db.UpdateComponent(ctx, e.c.ID, func(c *index.Component) error {
		c.Slug = "application"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := e.db.FindComponentByID(ctx, e.docs.ID)
	if err != nil || docs.Repo != index.LinkScheme+"test/application" || docs.LinkedID != after.ID {
		t.Errorf("docs after the parent's rename: repo %q linked %d (%v)", docs.Repo, docs.LinkedID, err)
	}
}

// TestProcessesShareLinkedCheckout: on two processes sharing one
// PostgreSQL index, the git lock of the parent covers its linked
// component (a commit of docs on B waits while A holds the app's lock),
// and B builds on the commit A made for the linked component.
func TestProcessesShareLinkedCheckout(t *testing.T) {
	ctx := context.Background()
	a, b, _, _ := mustTwoProcesses(t)
	la := mustLinkedEnv(t, a)
	url := "file://" + la.bare
	b.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"),
		linkedComponent("docs", "app", "docs/*.json", "docs/en.json"))
	lb := la
	lb.env = b

	unlock, err := a.db.LockComponent(ctx, la.c.ID)
	if err != nil {
		t.Fatal(err)
	}
	editIn(t, b, "docs", "de", "intro", "Lies mich", la.ann)
	wctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = b.svc.Commit(wctx, lb.docs, nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("B's commit of docs while A holds the app's lock = %v, want it to wait", err)
	}
	unlock()

	if res, err := a.svc.Commit(ctx, la.docs, nil); err != nil || len(res.Commits) != 1 {
		t.Fatalf("A's commit of docs = %+v, %v", res, err)
	}
	editIn(t, b, "app", "de", "bye", "Tschüss", la.ann)
	if res, err := b.svc.Commit(ctx, lb.c, nil); err != nil || len(res.Commits) != 1 {
		t.Fatalf("B's commit of app = %+v, %v", res, err)
	}
	got, err := b.svc.ReadFile(ctx, lb.docs, "docs/de.json")
	if err != nil || !strings.Contains(string(got), "Lies mich") {
		t.Fatalf("B's docs/de.json = %q, %v; want A's commit under B's", got, err)
	}
	if err := a.svc.Push(ctx, la.docs, nil); err != nil {
		t.Fatal(err)
	}
	if log := la.log(t); len(log) != 3 {
		t.Errorf("upstream's log:\n%s\nwant A's and B's commits on the initial one", strings.Join(log, "\n"))
	}
	if _, err := os.Stat(filepath.Join(b.dir, "repos", "test", "docs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("B made a checkout for docs (%v)", err)
	}
}
