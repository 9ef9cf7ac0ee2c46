package sync_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
)

// languageFiles are two components on one repository: app in German and
// French, web in German and Czech, closed in Italian (it accepts no new
// translations) and picky in Spanish (its language_regex refuses Czech).
var languageFiles = map[string]string{
	"app/en.json":    "{\n  \"hello\": \"Hello\"\n}\n",
	"app/de.json":    "{\n  \"hello\": \"Hallo\"\n}\n",
	"app/fr.json":    "{\n  \"hello\": \"Bonjour\"\n}\n",
	"web/en.json":    "{\n  \"title\": \"Title\"\n}\n",
	"web/de.json":    "{\n  \"title\": \"Titel\"\n}\n",
	"web/cs.json":    "{\n  \"title\": \"Nadpis\"\n}\n",
	"closed/en.json": "{\n  \"x\": \"X\"\n}\n",
	"closed/it.json": "{\n  \"x\": \"Ics\"\n}\n",
	"picky/en.json":  "{\n  \"y\": \"Y\"\n}\n",
	"picky/es.json":  "{\n  \"y\": \"Ye\"\n}\n",
}

// codesOf are the language codes of a component's translations, sorted.
func codesOf(tb testing.TB, e env, c index.Component) []string {
	tb.Helper()
	ts, err := e.db.FindTranslations(context.Background(), c.ID)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, t := range ts {
		out = append(out, t.LanguageCode)
	}
	slices.Sort(out)
	return out
}

// waitAddons waits for the background add-on runs.
func waitAddons(tb testing.TB, e env) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.svc.WaitAddons(ctx); err != nil {
		tb.Fatal(err)
	}
}

// TestLanguageConsistencyAddon: installed on a project, the add-on gives
// every component every language of the project (its source language
// aside): the new translations are empty, credited to nobody as
// "Language added", and their files reach the repository with the next
// commit. A language a later import brings to one component reaches the
// others; a component with new_lang "none" is left alone and one whose
// language_regex refuses a language gets an alert change, not a failed
// import. The counters stay exact.
func TestLanguageConsistencyAddon(t *testing.T) {
	ctx := context.Background()
	e := mustEnv(t)
	url, work := mustRepo(t, languageFiles)
	comp := func(slug string) index.Component {
		c := jsonComponent(slug, url, slug+"/*.json", slug+"/en.json", "en")
		c.LanguageCode = "posix" // the files' names are plain codes
		return c
	}
	closed, picky := comp("closed"), comp("picky")
	closed.NewLang = "none"
	picky.LanguageRegex = "^(en|de|es|fr|it)$"
	comps := e.reconcile(t, comp("app"), comp("web"), closed, picky)
	bySlug := map[string]index.Component{}
	for _, c := range comps {
		bySlug[c.Slug] = c
	}
	app, web := bySlug["app"], bySlug["web"]
	// Installed: nothing happens before a trigger (the API's install
	// queues a run).
	if _, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonLanguages, ProjectID: app.ProjectID}); err != nil {
		t.Fatal(err)
	}
	e.svc.QueueLanguageConsistency(app.ProjectID)
	waitAddons(t, e)
	want := []string{"cs", "de", "en", "es", "fr", "it"}
	for _, slug := range []string{"app", "web"} {
		if got := codesOf(t, e, bySlug[slug]); !slices.Equal(got, want) {
			t.Errorf("%s: languages %v, want %v", slug, got, want)
		}
	}
	if got := codesOf(t, e, bySlug["closed"]); !slices.Equal(got, []string{"en", "it"}) {
		t.Errorf("closed (new_lang none): %v, want en, it only", got)
	}
	if got := codesOf(t, e, bySlug["picky"]); !slices.Equal(got, []string{"de", "en", "es", "fr", "it"}) {
		t.Errorf("picky: %v, want all but cs", got)
	}
	alerts, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ComponentID: bySlug["picky"].ID,
		Actions: []index.Action{index.ActionAlertTriggered}, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if len(alerts) != 1 || !strings.Contains(alerts[0].Target, "weblate.consistency.languages") ||
		!strings.Contains(alerts[0].Target, "could not add cs") {
		t.Errorf("picky's alerts = %+v, want one about cs", alerts)
	}
	added, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ComponentID: web.ID,
		Actions: []index.Action{index.ActionLanguageAdded}, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 3 || added[0].UserID != 0 {
		t.Errorf("web's Language added changes = %+v, want 3 by nobody", added)
	}
	// A second run has nothing to do.
	if n, err := e.svc.LanguageConsistency(ctx, app.ProjectID); err != nil || n != 0 {
		t.Errorf("second run added %d, %v; want 0", n, err)
	}
	// The files come with the next commit.
	if _, err := e.svc.Commit(ctx, web, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Push(ctx, web, nil); err != nil {
		t.Fatal(err)
	}
	bare := strings.TrimPrefix(url, "file://")
	if fr := git(t, bare, "show", "main:web/fr.json"); !strings.Contains(fr, `"title"`) {
		t.Errorf("upstream web/fr.json:\n%s", fr)
	}
	// A language another import brings reaches the other components.
	git(t, work, "pull", "--quiet", "origin", "main")
	writeAndPush(t, work, map[string]string{"app/pt_BR.json": "{\n  \"hello\": \"Olá\"\n}\n"}, "Portuguese")
	if _, err := e.svc.ImportComponent(ctx, app); err != nil {
		t.Fatal(err)
	}
	waitAddons(t, e)
	if got := codesOf(t, e, web); !slices.Contains(got, "pt_BR") {
		t.Errorf("web after app's import of pt_BR: %v", got)
	}
	// A translation added through the API (its post_add) does the same.
	if _, err := e.db.CreateTranslation(ctx, web.ID, "ja", "web/ja.json", index.Actor{}); err != nil {
		t.Fatal(err)
	}
	e.svc.TranslationAdded(web)
	waitAddons(t, e)
	if got := codesOf(t, e, app); !slices.Contains(got, "ja") {
		t.Errorf("app after web's new ja: %v", got)
	}
	indextest.CheckCounts(t, e.db)
}
