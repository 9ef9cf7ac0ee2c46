package sync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/codecs"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// TestStringCatalog imports icecubesapp's one String Catalog with all
// its languages (one translation each, whose file is the catalog), edits
// the language the file spells "nb" and the index keeps as nb_NO, and
// removes a language: each commit changes only that language's values
// in the shared file, and a re-import finds what the index holds.
func TestStringCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus import in -short mode")
	}
	t.Parallel()
	ctx := context.Background()
	const path = "IceCubesApp/Resources/Localization/Localizable.xcstrings"
	url := mustCorpusRepo(t, "icecubesapp")
	e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
	c := index.DefaultComponent()
	c.Name, c.Slug, c.Repo, c.Filemask, c.FileFormat, c.SourceLanguage = "corpus", "corpus", url, path, "xcstrings", "en"
	c = e.reconcile(t, c)[0]
	ce := commitEnv{env: e, c: c, bare: strings.TrimPrefix(url, "file://"), ann: mustUser(t, e.db, "ann", "Ann Example")}
	codec, _ := codecs.Lookup("xcstrings")

	// SOURCE.md: en and 18 other languages; nb is nb_NO in the index.
	spelled := map[string]string{"be": "be", "ca": "ca", "de": "de", "en_GB": "en-GB", "es": "es", "eu": "eu",
		"fr": "fr", "it": "it", "ja": "ja", "ko": "ko", "nb_NO": "nb", "nl": "nl", "pl": "pl", "pt_BR": "pt-BR",
		"tr": "tr", "uk": "uk", "zh_Hans": "zh-Hans", "zh_Hant": "zh-Hant"}
	ts, err := e.db.FindTranslations(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != len(spelled)+1 {
		t.Errorf("%d translations, want %d", len(ts), len(spelled)+1)
	}
	data := gitShow(t, ce.bare, path)
	for _, tr := range ts {
		if tr.IsSource {
			continue
		}
		tag, ok := spelled[tr.LanguageCode]
		if !ok || tr.Filename != path || tr.LoadError != "" {
			t.Errorf("translation %s: file %s, load error %q", tr.LanguageCode, tr.Filename, tr.LoadError)
			continue
		}
		f := formats.File{Source: formats.Language{Code: "en", Plurals: []string{"one", "other"}},
			Target: formats.Language{Code: tr.LanguageCode, Plurals: tr.Language.PluralCategories()}, PathCode: tag}
		units, err := codec.Decode(data, f)
		if err != nil {
			t.Fatal(err)
		}
		translated := 0
		for _, u := range units {
			if !index.IsBlank(u.Target) && !u.Fuzzy {
				translated++
			}
		}
		// 733 keys, 4 of them one unit per device (19), 91 substitutions.
		if tr.Stats.Total != len(units) || tr.Stats.Translated != translated || len(units) < 733 {
			t.Errorf("%s: total %d, translated %d; the catalog says %d, %d", tr.LanguageCode,
				tr.Stats.Total, tr.Stats.Translated, len(units), translated)
		}
	}

	// An edit of nb_NO is written into "nb", one place of the file.
	nb := mustTranslation(t, e, "corpus", "nb_NO")
	u := editableUnit(t, ce, nb)
	ce.editUnit(t, u, hostile)
	if err := e.svc.Push(ctx, c, &ce.ann); err != nil {
		t.Fatal(err)
	}
	after := gitShow(t, ce.bare, path)
	diff := git(t, ce.bare, "diff", "--unified=0", "main~1", "main")
	if hunks := entryHunks(t, diff, data, false); hunks != 1 || strings.Contains(string(after), `"nb-NO"`) {
		t.Errorf("editing %q of nb changed %d places:\n%s", u.Context, hunks, diff)
	}
	nbFile := formats.File{Source: formats.Language{Code: "en", Plurals: []string{"one", "other"}},
		Target: formats.Language{Code: "nb_NO", Plurals: []string{"one", "other"}}, PathCode: "nb"}
	sameButEdit(t, codec, nbFile, data, after, u, hostile)

	// A re-import reads the same catalog: nothing added, changed or
	// removed, and the edit stays.
	sum, err := e.svc.ImportComponent(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 0 || sum.Updated != 0 || sum.Removed != 0 || len(sum.StaleRemoved) != 0 {
		t.Errorf("re-import after the commit: %+v", sum)
	}

	// Removing de takes its values out of the file, and only them.
	de := mustTranslation(t, e, "corpus", "de")
	if err := e.db.DeleteTranslation(ctx, de.ID, index.UserActor(&ce.ann)); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Push(ctx, c, &ce.ann); err != nil {
		t.Fatal(err)
	}
	without := gitShow(t, ce.bare, path)
	if strings.Contains(string(without), "\n        \"de\" : {") {
		t.Error(`"de" localizations left in the catalog`)
	}
	for _, tag := range []string{"fr", "nb"} {
		f := nbFile
		f.Target.Code, f.PathCode = tag, tag
		old, _ := codec.Decode(after, f)
		now, err := codec.Decode(without, f)
		if err != nil || len(now) != len(old) {
			t.Fatalf("%s after removing de: %d units (%v), before %d", tag, len(now), err, len(old))
		}
		for i := range old {
			if strings.Join(old[i].Target, "\x00") != strings.Join(now[i].Target, "\x00") {
				t.Errorf("%s %q: %q became %q", tag, old[i].Context, old[i].Target, now[i].Target)
			}
		}
	}
	if _, err := e.svc.ImportComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.FindTranslation(ctx, "test", "corpus", "de"); err == nil {
		t.Error("de came back after its removal was committed")
	}
	indextest.CheckCounts(t, e.db)
}

// catalog is a small String Catalog: "hello" in English, German and
// French, and, with bye, a "bye" only in English.
func catalog(de, fr string, bye bool) string {
	loc := func(lang, v string) string {
		return `        "` + lang + `" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "` + v + `"
          }
        }`
	}
	out := "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n"
	if bye {
		out += "    \"bye\" : {\n      \"localizations\" : {\n" + loc("en", "Bye") + "\n      }\n    },\n"
	}
	out += "    \"hello\" : {\n      \"localizations\" : {\n" + loc("de", de) + ",\n" + loc("en", "Hello") + ",\n" +
		loc("fr", fr) + "\n      }\n    }\n  },\n  \"version\" : \"1.0\"\n}"
	return out
}

// TestStringCatalogPullKeepsLocalCommits commits edits of two languages
// of one catalog without pushing, lets upstream change the catalog, and
// pulls: both languages' edits are made pending again and committed on
// top of upstream's catalog, since the one file is every translation's.
func TestStringCatalogPullKeepsLocalCommits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ce := mustCatalogEnv(t, map[string]string{"L.xcstrings": catalog("Hallo", "Bonjour", false)})
	e, c := ce.env, ce.c
	edit := func(lang, text string) {
		t.Helper()
		tr := mustTranslation(t, e, "cat", lang)
		units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 10}})
		if err != nil || len(units) != 1 {
			t.Fatalf("%s units: %v %v", lang, units, err)
		}
		ce.editUnit(t, units[0], text)
	}
	edit("de", "Servus")
	edit("fr", "Salut")
	if _, err := e.svc.Commit(ctx, c, &ce.ann); err != nil {
		t.Fatal(err)
	}
	ce.upstream(t, map[string]string{"L.xcstrings": catalog("Hallo", "Bonjour", true)}, "upstream adds bye")
	if err := e.svc.Push(ctx, c, &ce.ann); err != nil {
		t.Fatal(err)
	}
	if got, want := string(gitShow(t, ce.bare, "L.xcstrings")), catalog("Servus", "Salut", true); got != want {
		t.Errorf("pushed catalog:\n%s\nwant\n%s", got, want)
	}
	indextest.CheckCounts(t, e.db)
}

// TestStringCatalogTwoLanguagesOneWindow removes two languages of one
// catalog before a commit, and adds two others: the pending file rows
// are one language's each (migration 0054), so an import before the
// commit keeps both added languages, the commit takes both removed ones
// out of the file, and a re-import brings neither back. Keyed by path
// alone, the second removal overwrote the first, and fr came back.
func TestStringCatalogTwoLanguagesOneWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ce := mustCatalogEnv(t, map[string]string{"L.xcstrings": catalog("Hallo", "Bonjour", true)})
	e, c := ce.env, ce.c
	by := index.UserActor(&ce.ann)
	for _, lang := range []string{"it", "es"} {
		if _, err := e.db.CreateTranslation(ctx, c.ID, lang, "L.xcstrings", by); err != nil {
			t.Fatalf("add %s: %v", lang, err)
		}
	}
	for _, lang := range []string{"de", "fr"} {
		if err := e.db.DeleteTranslation(ctx, mustTranslation(t, e, "cat", lang).ID, by); err != nil {
			t.Fatalf("remove %s: %v", lang, err)
		}
	}
	pending, err := e.db.FindPendingFiles(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range pending {
		got = append(got, f.Operation+" "+f.LanguageCode)
	}
	if want := "delete de, add es, delete fr, add it"; strings.Join(got, ", ") != want {
		t.Errorf("pending files %q, want %s", got, want)
	}
	// An import before the commit takes neither added language for
	// stale, though the file holds neither yet.
	if _, err := e.svc.ImportComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"it", "es"} {
		if _, err := e.db.FindTranslation(ctx, "test", "cat", lang); err != nil {
			t.Errorf("%s, added before the import: %v", lang, err)
		}
	}
	if err := e.svc.Push(ctx, c, &ce.ann); err != nil {
		t.Fatal(err)
	}
	pushed := string(gitShow(t, ce.bare, "L.xcstrings"))
	for _, v := range []string{"Hallo", "Bonjour"} {
		if strings.Contains(pushed, v) {
			t.Errorf("%q left in the pushed catalog:\n%s", v, pushed)
		}
	}
	if !strings.Contains(pushed, `"Hello"`) || !strings.Contains(pushed, `"Bye"`) {
		t.Errorf("the source's values left the catalog:\n%s", pushed)
	}
	if p, err := e.db.FindPendingFiles(ctx, c.ID); err != nil || len(p) != 0 {
		t.Errorf("pending files after the commit: %+v %v", p, err)
	}
	if _, err := e.svc.ImportComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"de", "fr"} {
		if _, err := e.db.FindTranslation(ctx, "test", "cat", lang); err == nil {
			t.Errorf("%s came back after its removal was committed", lang)
		}
	}
	indextest.CheckCounts(t, e.db)
}

// TestStringCatalogPullKeepsAddedLanguages adds two languages to a
// catalog component whose repository has no catalog yet, commits the
// catalog those adds create without pushing, and pulls a change of
// upstream's: the local commits created the file for both languages, so
// both adds are owed again (one pending row per language) and both
// translations survive the import that follows the move. With one row
// for the file, the other language was taken for stale and removed.
func TestStringCatalogPullKeepsAddedLanguages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ce := mustCatalogEnv(t, map[string]string{"README": "catalog to come\n"})
	e, c := ce.env, ce.c
	by := index.UserActor(&ce.ann)
	for _, lang := range []string{"de", "fr"} {
		if _, err := e.db.CreateTranslation(ctx, c.ID, lang, "L.xcstrings", by); err != nil {
			t.Fatalf("add %s: %v", lang, err)
		}
	}
	if _, err := e.svc.Commit(ctx, c, &ce.ann); err != nil {
		t.Fatal(err)
	}
	if p, err := e.db.FindPendingFiles(ctx, c.ID); err != nil || len(p) != 0 {
		t.Fatalf("pending files after the commit: %+v %v", p, err)
	}
	ce.upstream(t, map[string]string{"README": "catalog still to come\n"}, "upstream edits the README")
	if err := e.svc.Push(ctx, c, &ce.ann); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"de", "fr"} {
		tr, err := e.db.FindTranslation(ctx, "test", "cat", lang)
		if err != nil || tr.Filename != "L.xcstrings" {
			t.Errorf("%s after the pull: %+v %v", lang, tr, err)
		}
	}
	if got := string(gitShow(t, ce.bare, "README")); got != "catalog still to come\n" {
		t.Errorf("pushed README %q", got)
	}
	gitShow(t, ce.bare, "L.xcstrings") // the catalog the adds made is pushed
	if p, err := e.db.FindPendingFiles(ctx, c.ID); err != nil || len(p) != 0 {
		t.Errorf("pending files after the push: %+v %v", p, err)
	}
	indextest.CheckCounts(t, e.db)
}

// mustCatalogEnv is a component "cat" over one String Catalog,
// L.xcstrings, in a repository holding files, with a committer and a
// user ann to commit as.
func mustCatalogEnv(t *testing.T, files map[string]string) commitEnv {
	t.Helper()
	url, work := mustRepo(t, files)
	e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
	c := index.DefaultComponent()
	c.Name, c.Slug, c.Repo, c.Filemask, c.FileFormat, c.SourceLanguage = "cat", "cat", url, "L.xcstrings", "xcstrings", "en"
	c = e.reconcile(t, c)[0]
	return commitEnv{env: e, c: c, bare: strings.TrimPrefix(url, "file://"), work: work, ann: mustUser(t, e.db, "ann", "Ann Example")}
}
