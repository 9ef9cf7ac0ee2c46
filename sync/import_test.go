package sync_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
)

const corpusDir = "../../shared/corpus"

// mustCorpusRepo turns a corpus folder into a bare repository with
// make-repo.sh and returns its file:// URL.
func mustCorpusRepo(tb testing.TB, folder string) string {
	tb.Helper()
	script := filepath.Join(corpusDir, "make-repo.sh")
	if _, err := os.Stat(script); err != nil {
		tb.Skipf("corpus not available: %v", err)
	}
	dest := filepath.Join(tb.TempDir(), filepath.Base(folder)+".git")
	out, err := exec.Command("bash", script, filepath.Join(corpusDir, folder), dest).CombinedOutput()
	if err != nil {
		tb.Fatalf("make-repo %s: %v\n%s", folder, err, out)
	}
	return "file://" + dest
}

// git runs a git command in dir with a fixed identity.
func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// mustRepo creates a bare repository holding files in one commit on main
// and returns its URL and a work tree to push further commits from.
func mustRepo(tb testing.TB, files map[string]string) (url, work string) {
	tb.Helper()
	root := tb.TempDir()
	bare, work := filepath.Join(root, "remote.git"), filepath.Join(root, "work")
	git(tb, root, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	git(tb, root, "clone", "--quiet", bare, work)
	git(tb, work, "checkout", "--quiet", "-b", "main")
	writeAndPush(tb, work, files, "initial")
	return "file://" + bare, work
}

func writeAndPush(tb testing.TB, work string, files map[string]string, msg string) {
	tb.Helper()
	for name, body := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	git(tb, work, "add", "-A")
	git(tb, work, "commit", "--quiet", "-m", msg)
	git(tb, work, "push", "--quiet", "origin", "main")
}

// The tests run once on each engine.
func TestMain(m *testing.M) { indextest.Main(m) }

type env struct {
	db  *sqlstore.DB
	svc *tolksync.Service
	dir string // the data directory
	// dbClock is db's clock: the real time until a test sets it.
	dbClock *indextest.Clock
}

func mustEnv(tb testing.TB) env {
	tb.Helper()
	return mustEnvWith(tb, tolksync.Options{})
}

// mustEnvWith is mustEnv with service options; DataDir is filled in.
func mustEnvWith(tb testing.TB, opts tolksync.Options) env {
	tb.Helper()
	ctx := context.Background()
	dir := tb.TempDir()
	clock := &indextest.Clock{}
	db := indextest.OpenWith(tb, sqlstore.Options{Now: clock.Now, FormatPlural: tolksync.FormatPlural})
	langs := langdata.Default()
	if err := db.SeedLanguages(ctx, langs.All()); err != nil {
		tb.Fatal(err)
	}
	opts.DataDir = dir
	svc, err := tolksync.New(db, langs, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return env{db, svc, dir, clock}
}

func jsonComponent(slug, url, mask, template, source string) index.Component {
	c := index.DefaultComponent()
	c.Name, c.Slug, c.Repo, c.Filemask, c.Template, c.SourceLanguage = slug, slug, url, mask, template, source
	return c
}

func tbxComponent(slug, url, mask string) index.Component {
	c := index.DefaultComponent()
	c.Name, c.Slug, c.Repo, c.Filemask, c.FileFormat, c.IsGlossary = slug, slug, url, mask, "tbx", true
	return c
}

func (e env) reconcile(tb testing.TB, comps ...index.Component) []index.Component {
	tb.Helper()
	ctx := context.Background()
	spec := tolksync.ProjectSpec{Project: index.Project{Name: "Test", Slug: "test"}, Components: comps}
	if err := e.svc.Reconcile(ctx, []tolksync.ProjectSpec{spec}); err != nil {
		tb.Fatal(err)
	}
	p, err := e.db.FindProject(ctx, "test")
	if err != nil {
		tb.Fatal(err)
	}
	out, err := e.db.FindComponents(ctx, p.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestImportCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus import in -short mode")
	}
	ctx := context.Background()
	e := mustEnv(t)
	comps := e.reconcile(t,
		jsonComponent("jellyfin", mustCorpusRepo(t, "jellyfin-web"), "src/strings/*.json", "src/strings/en-us.json", "en-us"),
		jsonComponent("kavita", mustCorpusRepo(t, "kavita"), "UI/Web/src/assets/langs/*.json", "UI/Web/src/assets/langs/en.json", "en"),
		tbxComponent("slicer", mustCorpusRepo(t, "tbx/slicer"), "glossary/*.tbx"),
	)
	// Expected figures are the corpus SOURCE.md measurements: every
	// translation of a monolingual component lists every template key.
	want := map[string]struct{ translations, total, translated int }{
		"jellyfin": {106, 106 * 1946, 124760},
		"kavita":   {31, 31 * 2063, 37408},
	}
	for _, c := range comps {
		trs, err := e.db.FindTranslations(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		st, err := e.db.ComponentStats(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trs {
			if tr.LoadError != "" {
				t.Errorf("%s/%s: load error %s", c.Slug, tr.LanguageCode, tr.LoadError)
			}
		}
		checkFailingCounts(t, e, c, trs, st)
		if c.Slug == "slicer" {
			// 46 files plus the source translation. The files hold 6,938
			// entries, 1,105 translated (tbx/SOURCE.md), but 30 repeat
			// an earlier entry's source and id ("Glyph" three times,
			// one with id="1"): a unit is keyed by source + context, so
			// the first of each stays, leaving 6,908 units of which
			// 1,103 are translated, over 292 distinct source strings
			// (counted independently with Python's ElementTree).
			if len(trs) != 47 {
				t.Errorf("slicer: %d translations, want 47", len(trs))
			}
			var src index.Translation
			for _, tr := range trs {
				if tr.IsSource {
					src = tr
				}
			}
			if src.Stats.Total != 292 || st.Total-src.Stats.Total != 6908 || st.Translated-src.Stats.Translated != 1103 {
				t.Errorf("slicer: total %d translated %d beside source %+v", st.Total, st.Translated, src.Stats)
			}
			continue
		}
		w := want[c.Slug]
		if len(trs) != w.translations || st.Total != w.total || st.Translated != w.translated {
			t.Errorf("%s: %d translations, total %d, translated %d; want %d, %d, %d",
				c.Slug, len(trs), st.Total, st.Translated, w.translations, w.total, w.translated)
		}
	}

	// Re-import of the unchanged repositories parses nothing and records
	// no change.
	_, before, _ := e.db.FindChanges(ctx, index.ChangeFilter{Page: index.Page{Number: 1, Size: 1}})
	for _, c := range comps {
		sum, err := e.svc.ImportComponent(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Parsed != 0 || sum.Added+sum.Updated+sum.Removed != 0 {
			t.Errorf("%s re-import: %+v", c.Slug, sum)
		}
	}
	_, after, _ := e.db.FindChanges(ctx, index.ChangeFilter{Page: index.Page{Number: 1, Size: 1}})
	if after != before {
		t.Errorf("re-import recorded %d changes", after-before)
	}
}

// checkFailingCounts: the quality checks ran on every translated string
// of c; each translation's stored failing count equals a recount of its
// units with a failing check, and the component's (st) is their sum.
func checkFailingCounts(t *testing.T, e env, c index.Component, trs []index.Translation, st index.Stats) {
	t.Helper()
	sum := 0
	for _, tr := range trs {
		_, n, err := e.db.FindUnits(context.Background(), index.UnitFilter{TranslationID: tr.ID, Query: "has:check",
			Page: index.Page{Number: 1, Size: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Stats.Failing != n {
			t.Errorf("%s/%s: failing %d, recount %d", c.Slug, tr.LanguageCode, tr.Stats.Failing, n)
		}
		sum += n
	}
	if st.Failing != sum {
		t.Errorf("%s: failing %d, its translations' %d", c.Slug, st.Failing, sum)
	}
	if !c.IsGlossary && sum == 0 {
		t.Errorf("%s: no string of the real corpus fails a check", c.Slug)
	}
	t.Logf("%s: %d strings fail a check", c.Slug, sum)
}

func TestImportMalformedFileMarksOnlyItsTranslation(t *testing.T) {
	ctx := context.Background()
	e := mustEnv(t)
	url, work := mustRepo(t, map[string]string{
		"locales/en.json": `{"hello": "Hello", "bye": "Bye"}`,
		"locales/de.json": `{"hello": "Hallo"}`,
		"locales/fr.json": `{"hello": "Bonjour", `,
	})
	comps := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))
	fr, err := e.db.FindTranslation(ctx, "test", "app", "fr")
	if err != nil {
		t.Fatal(err)
	}
	if fr.LoadError == "" || !strings.Contains(fr.LoadError, "locales/fr.json") {
		t.Errorf("fr load error = %q, want one naming the file", fr.LoadError)
	}
	de, err := e.db.FindTranslation(ctx, "test", "app", "de")
	if err != nil || de.Stats.Total != 2 || de.Stats.Translated != 1 {
		t.Fatalf("de = %+v, %v", de.Stats, err)
	}
	deUnits, _, _ := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: de.ID, Page: index.Page{Number: 1, Size: 50}})

	// Fix fr, translate "bye" in de upstream: fr imports, de keeps its
	// unit ids and records a 59 change with the new text.
	writeAndPush(t, work, map[string]string{
		"locales/fr.json": `{"hello": "Bonjour", "bye": "Salut"}`,
		"locales/de.json": `{"hello": "Hallo", "bye": "Tschüss"}`,
	}, "fix")
	if _, err := e.svc.ImportComponent(ctx, comps[0]); err != nil {
		t.Fatal(err)
	}
	fr, _ = e.db.FindTranslation(ctx, "test", "app", "fr")
	if fr.LoadError != "" || fr.Stats.Translated != 2 {
		t.Errorf("fr after fix = %q %+v", fr.LoadError, fr.Stats)
	}
	deAfter, _, _ := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: de.ID, Page: index.Page{Number: 1, Size: 50}})
	if len(deAfter) != 2 || deAfter[0].ID != deUnits[0].ID || deAfter[1].ID != deUnits[1].ID {
		t.Fatalf("unit ids changed: %v -> %v", deUnits, deAfter)
	}
	ch, _, _ := e.db.FindChanges(ctx, index.ChangeFilter{TranslationID: de.ID,
		Actions: []index.Action{index.ActionStringRepoUpdate}, Page: index.Page{Number: 1, Size: 50}})
	if len(ch) != 1 || ch[0].Target != "Tschüss" || ch[0].UnitID != deAfter[1].ID || ch[0].UserID != 0 || ch[0].AuthorID != 0 {
		t.Errorf("changes = %+v", ch)
	}
}

func TestImportNestedJSONAndSourceLinks(t *testing.T) {
	ctx := context.Background()
	e := mustEnv(t)
	url, _ := mustRepo(t, map[string]string{
		"l/en.json":    "{\n    \"menu\": {\"file\": \"File\", \"edit\": \"Edit\"},\n    \"title\": \"Title\"\n}\n",
		"l/pt-br.json": "{\n    \"menu\": {\"file\": \"Arquivo\"}\n}\n",
	})
	e.reconcile(t, jsonComponent("app", url, "l/*.json", "l/en.json", "en"))
	pt, err := e.db.FindTranslation(ctx, "test", "app", "pt_BR")
	if err != nil {
		t.Fatalf("pt-br.json must import as pt_BR: %v", err)
	}
	units, total, _ := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: pt.ID, Page: index.Page{Number: 1, Size: 50}})
	if total != 3 {
		t.Fatalf("total = %d, want 3", total)
	}
	if units[0].Context != "menu.file" || units[0].Target[0] != "Arquivo" || units[0].State != index.StateTranslated {
		t.Errorf("unit 0 = %+v", units[0])
	}
	if units[1].Context != "menu.edit" || units[1].Target[0] != "" || units[1].State != index.StateEmpty {
		t.Errorf("unit 1 = %+v", units[1])
	}
	if units[0].IDHash != index.HashParts("menu.file") {
		t.Errorf("id_hash of a monolingual unit must hash the context alone")
	}
	src, _ := e.db.FindUnitByID(ctx, units[0].SourceUnitID)
	if src.Context != "menu.file" || src.State != index.StateReadOnly || src.SourceUnitID != src.ID {
		t.Errorf("source unit = %+v", src)
	}
}

// TestImportTemplateChangeUnderBrokenFile removes a string from the
// template while a translation's file does not parse: the translation
// keeps no unit of the removed string (none links to a missing source
// unit, none is counted), the others stay.
func TestImportTemplateChangeUnderBrokenFile(t *testing.T) {
	ctx := context.Background()
	e := mustEnv(t)
	url, work := mustRepo(t, map[string]string{
		"locales/en.json": `{"hello": "Hello", "bye": "Bye"}`,
		"locales/de.json": `{"hello": "Hallo", "bye": "Tschüss"}`,
	})
	comps := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))
	writeAndPush(t, work, map[string]string{
		"locales/en.json": `{"hello": "Hello"}`,
		"locales/de.json": `{"hello": "Hallo", `,
	}, "drop bye, break de")
	if _, err := e.svc.ImportComponent(ctx, comps[0]); err != nil {
		t.Fatal(err)
	}
	de, err := e.db.FindTranslation(ctx, "test", "app", "de")
	if err != nil {
		t.Fatal(err)
	}
	if de.LoadError == "" || de.Stats.Total != 1 || de.Stats.Translated != 1 {
		t.Errorf("de = load error %q, stats %+v; want the error and 1 unit", de.LoadError, de.Stats)
	}
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: de.ID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if _, err := e.db.FindUnitByID(ctx, u.SourceUnitID); err != nil || u.Context != "hello" {
			t.Errorf("de unit %q links to source unit %d: %v", u.Context, u.SourceUnitID, err)
		}
	}
	if len(units) != 1 {
		t.Errorf("de has %d units, want 1", len(units))
	}
	if st, err := e.db.ComponentStats(ctx, comps[0].ID); err != nil || st.Total != 2 {
		t.Errorf("component total = %d, %v; want 2 (hello in en and de)", st.Total, err)
	}
	ch, _, _ := e.db.FindChanges(ctx, index.ChangeFilter{TranslationID: de.ID,
		Actions: []index.Action{index.ActionStringRemove}, Page: index.Page{Number: 1, Size: 50}})
	if len(ch) != 1 || ch[0].Target != "Tschüss" {
		t.Errorf("de string removals = %+v, want one with Tschüss", ch)
	}
}

// TestImportTemplateDropsPendingString removes from the template a
// string a translator has a pending edit of: the edit goes with its
// source unit (its text stays in the change), instead of a unit linking
// to a missing source unit.
func TestImportTemplateDropsPendingString(t *testing.T) {
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	writeAndPush(t, e.work, map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"menu\": {\"file\": \"File\"}\n}\n",
	}, "drop bye")
	if _, err := e.svc.ImportComponent(ctx, e.c); err != nil {
		t.Fatal(err)
	}
	de, err := e.db.FindTranslation(ctx, "test", "app", "de")
	if err != nil {
		t.Fatal(err)
	}
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: de.ID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if _, err := e.db.FindUnitByID(ctx, u.SourceUnitID); err != nil {
			t.Errorf("de unit %q links to source unit %d: %v", u.Context, u.SourceUnitID, err)
		}
	}
	if len(units) != 2 || de.Stats.Total != 2 {
		t.Errorf("de has %d units, total %d; want 2", len(units), de.Stats.Total)
	}
}
