package sqlstore_test

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestSourceLinks checks that every unit points at the source unit with
// its id_hash, that source units point at themselves, and that a source
// unit replaced upstream is relinked on the next import without that
// counting as a change of the translation.
func TestSourceLinks(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	source := func(rev string, u []index.ImportUnit) int64 {
		t.Helper()
		for i := range u {
			u[i].State = index.StateReadOnly
		}
		res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
			Filename: "en.json", Revision: rev, IsSource: true, IsTemplate: true, Monolingual: true, Units: u})
		if err != nil {
			t.Fatal(err)
		}
		return res.TranslationID
	}
	byContext := func(translationID int64) map[string]index.Unit {
		t.Helper()
		list, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: translationID, Page: index.Page{Number: 1, Size: 50}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]index.Unit{}
		for _, u := range list {
			out[u.Context] = u
		}
		return out
	}

	srcID := source("a", units("hello", "Hello", "Hello", "bye", "Good bye", "Good bye"))
	de := index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "de.json", Revision: "b,a",
		Monolingual: true, SourceTranslationID: srcID,
		Units: units("hello", "Hello", "Hallo", "bye", "Good bye", "", "orphan", "Orphan", "Waise")}
	res, err := db.ImportTranslation(ctx, de)
	if err != nil {
		t.Fatal(err)
	}
	src, got := byContext(srcID), byContext(res.TranslationID)
	for _, k := range []string{"hello", "bye"} {
		if src[k].SourceUnitID != src[k].ID {
			t.Errorf("source unit %s links to %d, want itself (%d)", k, src[k].SourceUnitID, src[k].ID)
		}
		if got[k].SourceUnitID != src[k].ID {
			t.Errorf("de unit %s links to %d, want %d", k, got[k].SourceUnitID, src[k].ID)
		}
	}
	if got["orphan"].SourceUnitID != 0 {
		t.Errorf("a unit with no source unit links to %d", got["orphan"].SourceUnitID)
	}

	// "bye" vanishes from the template and comes back: a new source unit.
	source("b", units("hello", "Hello", "Hello"))
	source("c", units("hello", "Hello", "Hello", "bye", "Good bye", "Good bye"))
	newBye := byContext(srcID)["bye"]
	if newBye.ID == src["bye"].ID {
		t.Fatal("the re-added source unit kept its id; the test needs a new one")
	}
	de.Revision = "b,c"
	again, err := db.ImportTranslation(ctx, de)
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed || again.Updated != 0 {
		t.Errorf("relinking counted as a change: %+v", again)
	}
	if bye := byContext(res.TranslationID)["bye"]; bye.SourceUnitID != newBye.ID {
		t.Errorf("de unit bye links to %d after the source changed, want %d", bye.SourceUnitID, newBye.ID)
	}
}

// TestImportTranslationsBatch checks that a batch is one transaction (a
// failure keeps every translation of it out, revisions included, so a
// re-import does not skip them) and that a translation in a batch links to
// the source units as the batch left them, not as an earlier file of the
// batch saw them.
func TestImportTranslationsBatch(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	src := func(rev string, u []index.ImportUnit) index.TranslationImport {
		for i := range u {
			u[i].State = index.StateReadOnly
		}
		return index.TranslationImport{ComponentID: c.ID, LanguageCode: "en", Filename: "en.json",
			Revision: rev, IsSource: true, IsTemplate: true, Monolingual: true, Units: u}
	}
	res, err := db.ImportTranslations(ctx, []index.TranslationImport{src("a", units("hello", "Hello", "Hello", "bye", "Bye", "Bye"))})
	if err != nil {
		t.Fatal(err)
	}
	srcID := res[0].TranslationID
	tr := func(lang, rev string, u []index.ImportUnit) index.TranslationImport {
		return index.TranslationImport{ComponentID: c.ID, LanguageCode: lang, Filename: lang + ".json",
			Revision: rev, Monolingual: true, SourceTranslationID: srcID, Units: u}
	}

	broken := tr("it", "x", units("hello", "Hello", "Ciao"))
	broken.ComponentID = c.ID + 1000 // no such component: the second import fails
	if _, err := db.ImportTranslations(ctx, []index.TranslationImport{tr("fr", "x", units("hello", "Hello", "Salut")), broken}); err == nil {
		t.Fatal("a batch with a failing import succeeded")
	}
	revs, err := db.TranslationRevisions(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := revs["fr"]; ok {
		t.Errorf("fr was committed by a failed batch: revisions %v", revs)
	}

	// fr looks the source units up; the template then trades "bye" for
	// "welcome"; de, after it in the same batch, must link to "welcome".
	res, err = db.ImportTranslations(ctx, []index.TranslationImport{
		tr("fr", "b,a", units("hello", "Hello", "Salut", "bye", "Bye", "Au revoir")),
		src("c", units("hello", "Hello", "Hello", "welcome", "Welcome", "Welcome")),
		tr("de", "d,c", units("hello", "Hello", "Hallo", "welcome", "Welcome", "Willkommen")),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[1].TranslationID != srcID || !res[2].Created || res[2].Added != 2 {
		t.Fatalf("results = %+v", res)
	}
	srcUnits := map[string]int64{}
	list, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: srcID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range list {
		srcUnits[u.Context] = u.ID
	}
	list, _, err = db.FindUnits(ctx, index.UnitFilter{TranslationID: res[2].TranslationID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range list {
		if u.SourceUnitID == 0 || u.SourceUnitID != srcUnits[u.Context] {
			t.Errorf("de unit %s links to %d, want %d", u.Context, u.SourceUnitID, srcUnits[u.Context])
		}
	}
	if revs, err = db.TranslationRevisions(ctx, c.ID); err != nil || revs["fr"] != "b,a" || revs["de"] != "d,c" || revs["en"] != "c" {
		t.Errorf("revisions = %v, %v", revs, err)
	}
}
