package servertest

import (
	"context"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// MustPersonalTranslation adds project slug, sharing no memory, whose
// component "app" holds one English string (key, source), and saves
// user's translation of it into lang: in another project, only user's
// personal memory scope then answers source with target.
func MustPersonalTranslation(tb testing.TB, db *sqlstore.DB, slug, lang, key, source, target string, user index.User) index.Project {
	tb.Helper()
	tr := MustUnsharedTranslation(tb, db, index.Project{Name: strings.ToUpper(slug[:1]) + slug[1:], Slug: slug}, lang,
		Unit(key, source, source, index.StateReadOnly))
	id, err := db.FindUnitIDByHash(context.Background(), tr.ID, index.IDHash(true, nil, key))
	if err != nil {
		tb.Fatal(err)
	}
	MustEdit(tb, db, id, index.UserActor(&user), target)
	return tr.Component.Project
}

// MustUnsharedTranslation adds project p, sharing no memory, whose
// component "app" (monolingual JSON) has the English source strings
// sources (Unit(key, text, text, index.StateReadOnly)) and a
// translation into lang holding them untranslated, and returns that
// translation as FindTranslation does.
func MustUnsharedTranslation(tb testing.TB, db *sqlstore.DB, p index.Project, lang string, sources ...index.ImportUnit) index.Translation {
	tb.Helper()
	ctx := context.Background()
	p = MustProject(tb, db, p)
	if err := db.SetProjectMemorySharing(ctx, p.ID, false, false); err != nil {
		tb.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, "App", "app", "*.json", "en.json"
	c = MustComponent(tb, db, c)
	empty := make([]index.ImportUnit, len(sources))
	for i, u := range sources {
		empty[i] = index.ImportUnit{Context: u.Context, Source: u.Source, Target: []string{""}, State: index.StateEmpty}
	}
	src := MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: "en.json", Revision: "s", IsSource: true, IsTemplate: true, Monolingual: true, Units: sources})
	MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang,
		Filename: lang + ".json", Revision: "t", Monolingual: true, SourceTranslationID: src, Units: empty})
	tr, err := db.FindTranslation(ctx, p.Slug, c.Slug, lang)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// MustEdit saves text as the translation of unit id, by actor.
func MustEdit(tb testing.TB, db *sqlstore.DB, id int64, actor index.Actor, text string) {
	tb.Helper()
	if _, err := db.UpdateUnit(context.Background(), id, actor, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{text}, State: index.StateTranslated}}, nil
	}); err != nil {
		tb.Fatal(err)
	}
}
