package sync_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
)

// waitTasks waits until every task of the service has completed.
func waitTasks(tb testing.TB, e env) {
	tb.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		busy := slices.ContainsFunc(e.svc.Tasks(), func(t index.Task) bool { return !t.Completed })
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatal("tasks still running after a minute")
		}
	}
}

// discoveryConfig finds po/<component>/<language>.json.
var discoveryConfig = index.Discovery{Match: `po/(?P<component>[^/]+)/(?P<language>[^/.]+)\.json`,
	FileFormat: "json", NameTemplate: "{{ component }}", BaseFileTemplate: "po/{{ component }}/en.json",
	LanguageRegex: "^[^.]+$", Confirm: true}

// TestDiscoveryAddon: on a repository of three components, discovery
// installed on the first previews the three (the first marked as
// existing), creates the two others linked to it (weblate://test/app)
// and imports them; a component a later update brings is created by the
// update's run.
func TestDiscoveryAddon(t *testing.T) {
	ctx := context.Background()
	e := mustEnv(t)
	url, work := mustRepo(t, map[string]string{
		"po/app/en.json": `{"hello": "Hello"}`, "po/app/de.json": `{"hello": "Hallo"}`,
		"po/web/en.json": `{"title": "Title"}`, "po/web/de.json": `{"title": "Titel"}`, "po/web/fr.json": `{"title": "Titre"}`,
		"po/docs/en.json": `{"intro": "Intro"}`, "README.md": "not a translation",
	})
	c := jsonComponent("app", url, "po/app/*.json", "po/app/en.json", "en")
	c.LanguageCode = "posix"
	app := e.reconcile(t, c)[0]
	found, err := e.svc.Discover(ctx, discoveryConfig, app)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, fmt.Sprintf("%s %s %s %v %v", f.Slug, f.Filemask, f.Template, f.Languages, f.Exists))
	}
	want := []string{"app po/app/*.json po/app/en.json [de en] true", "docs po/docs/*.json po/docs/en.json [en] false",
		"web po/web/*.json po/web/en.json [de en fr] false"}
	if !slices.Equal(got, want) {
		t.Fatalf("preview:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	a, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonDiscovery, ProjectID: app.ProjectID,
		ComponentID: app.ID, Discovery: discoveryConfig})
	if err != nil {
		t.Fatal(err)
	}
	made, _, err := e.svc.DiscoverCreate(ctx, a, app)
	if err != nil || len(made) != 2 {
		t.Fatalf("DiscoverCreate = %v, %v; want docs and web", made, err)
	}
	waitTasks(t, e)
	web, err := e.db.FindComponent(ctx, "test", "web")
	if err != nil {
		t.Fatal(err)
	}
	if web.Repo != "weblate://test/app" || web.LinkedID != app.ID {
		t.Errorf("web = repo %q linked %d, want a link to app", web.Repo, web.LinkedID)
	}
	if codes := codesOf(t, e, web); !slices.Equal(codes, []string{"de", "en", "fr"}) {
		t.Errorf("web's languages = %v", codes)
	}
	// A second run finds nothing new.
	if made, _, err := e.svc.DiscoverCreate(ctx, a, app); err != nil || len(made) != 0 {
		t.Errorf("second run = %v, %v; want nothing", made, err)
	}
	// An update bringing a component: the update's run creates it.
	git(t, work, "pull", "--quiet", "origin", "main")
	writeAndPush(t, work, map[string]string{"po/help/en.json": `{"faq": "FAQ"}`, "po/help/de.json": `{"faq": "FAQ"}`}, "help")
	if _, err := e.svc.ImportComponent(ctx, app); err != nil {
		t.Fatal(err)
	}
	waitAddons(t, e)
	waitTasks(t, e)
	help, err := e.db.FindComponent(ctx, "test", "help")
	if err != nil {
		t.Fatalf("help after the update: %v", err)
	}
	if codes := codesOf(t, e, help); !slices.Equal(codes, []string{"de", "en"}) {
		t.Errorf("help's languages = %v", codes)
	}
	indextest.CheckCounts(t, e.db)
}

// TestDiscoveryBound: a tree of more than index.MaxDiscoveryPaths
// entries (one subtree of 400 files named 300 times: 120,300 entries,
// cheap to build) is refused with a message, nothing created.
func TestDiscoveryBound(t *testing.T) {
	ctx := context.Background()
	e := mustEnv(t)
	url, work := mustRepo(t, map[string]string{"po/app/en.json": `{"hello": "Hello"}`})
	// Build the wide tree with git's plumbing.
	var blobs strings.Builder
	blob := git(t, work, "hash-object", "-w", "po/app/en.json")
	for i := range 400 {
		fmt.Fprintf(&blobs, "100644 blob %s\tf%d.json\n", blob, i)
	}
	sub := mktree(t, work, blobs.String())
	var dirs strings.Builder
	for i := range 300 {
		fmt.Fprintf(&dirs, "040000 tree %s\td%d\n", sub, i)
	}
	wide := mktree(t, work, dirs.String())
	git(t, work, "read-tree", "--prefix=wide/", wide)
	git(t, work, "commit", "--quiet", "-m", "wide")
	git(t, work, "push", "--quiet", "origin", "main")
	c := jsonComponent("app", url, "po/app/*.json", "po/app/en.json", "en")
	c.LanguageCode = "posix"
	app := e.reconcile(t, c)[0]
	_, err := e.svc.Discover(ctx, discoveryConfig, app)
	if err == nil || !strings.Contains(err.Error(), "more than 100000 files") {
		t.Fatalf("Discover on a wide tree = %v, want the bound's refusal", err)
	}
}

// mktree writes a tree object from ls-tree lines and returns its hash.
func mktree(tb testing.TB, dir, lines string) string {
	tb.Helper()
	cmd := exec.Command("git", "mktree")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(lines)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git mktree: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestDiscoveryRemove: with "remove", the update after web and docs went
// from the repository removes the two components the add-on created for
// them (38 recorded for each, by nobody), and keeps help, whose files
// are still there, and extra, linked to app by hand, whose files went
// too: the add-on removes only what it created. Without "remove"
// nothing goes.
func TestDiscoveryRemove(t *testing.T) {
	ctx := context.Background()
	e := mustEnv(t)
	url, work := mustRepo(t, map[string]string{
		"po/app/en.json": `{"hello": "Hello"}`, "po/app/de.json": `{"hello": "Hallo"}`,
		"po/web/en.json": `{"title": "Title"}`, "po/web/de.json": `{"title": "Titel"}`,
		"po/docs/en.json": `{"intro": "Intro"}`, "po/help/en.json": `{"faq": "FAQ"}`,
		"extra/en.json": `{"x": "X"}`, "extra/de.json": `{"x": "Ix"}`,
	})
	c := jsonComponent("app", url, "po/app/*.json", "po/app/en.json", "en")
	c.LanguageCode = "posix"
	app := e.reconcile(t, c)[0]
	extra := jsonComponent("extra", index.LinkScheme+"test/app", "extra/*.json", "extra/en.json", "en")
	extra.ProjectID = app.ProjectID
	if _, err := e.db.CreateComponent(ctx, extra, index.Actor{}); err != nil {
		t.Fatal(err)
	}
	cfg := discoveryConfig
	cfg.Remove = true
	a, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonDiscovery, ProjectID: app.ProjectID,
		ComponentID: app.ID, Discovery: cfg})
	if err != nil {
		t.Fatal(err)
	}
	made, removed, err := e.svc.DiscoverCreate(ctx, a, app)
	if err != nil || len(made) != 3 || len(removed) != 0 {
		t.Fatalf("DiscoverCreate = %v, %v, %v; want web, docs and help made", made, removed, err)
	}
	waitTasks(t, e)
	git(t, work, "pull", "--quiet", "origin", "main")
	git(t, work, "rm", "--quiet", "-r", "po/web", "po/docs", "extra")
	git(t, work, "commit", "--quiet", "-m", "web, docs and extra go")
	git(t, work, "push", "--quiet", "origin", "main")
	// The linked components' imports fail on their missing templates;
	// app's, which runs the add-on, does not.
	if _, err := e.svc.ImportComponent(ctx, app); err == nil || strings.Contains(err.Error(), "import test/app") {
		t.Fatalf("update = %v, want only the linked components' failures", err)
	}
	waitAddons(t, e)
	waitTasks(t, e)
	comps, err := e.db.FindComponents(ctx, app.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, k := range comps {
		slugs = append(slugs, k.Slug)
	}
	slices.Sort(slugs)
	if want := []string{"app", "extra", "help"}; !slices.Equal(slugs, want) {
		t.Errorf("components after the update = %v, want %v", slugs, want)
	}
	gone, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ProjectID: app.ProjectID,
		Actions: []index.Action{index.ActionComponentRemoved}, Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(gone) != 2 || gone[0].UserID != 0 {
		t.Errorf("removals recorded = %+v, %v; want web's and docs', by nobody", gone, err)
	}
	// Without remove, a component whose files went stays.
	a, err = e.db.UpdateAddon(ctx, a.ID, func(x *index.Addon) error { x.Discovery.Remove = false; return nil })
	if err != nil {
		t.Fatal(err)
	}
	git(t, work, "rm", "--quiet", "-r", "po/help")
	git(t, work, "commit", "--quiet", "-m", "help goes")
	git(t, work, "push", "--quiet", "origin", "main")
	_, _ = e.svc.ImportComponent(ctx, app) // help's and extra's imports fail
	waitAddons(t, e)
	waitTasks(t, e)
	if _, err := e.db.FindComponent(ctx, "test", "help"); err != nil {
		t.Errorf("help without remove: %v", err)
	}
	indextest.CheckCounts(t, e.db)
}
