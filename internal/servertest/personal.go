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
	ctx := context.Background()
	p := MustProject(tb, db, index.Project{Name: strings.ToUpper(slug[:1]) + slug[1:], Slug: slug})
	if err := db.SetProjectMemorySharing(ctx, p.ID, false, false); err != nil {
		tb.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, "App", "app", "*.json", "en.json"
	c = MustComponent(tb, db, c)
	src := MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: "en.json", Revision: "s", IsSource: true, IsTemplate: true, Monolingual: true,
		Units: []index.ImportUnit{Unit(key, source, source, index.StateReadOnly)}})
	tr := MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang,
		Filename: lang + ".json", Revision: "t", Monolingual: true, SourceTranslationID: src,
		Units: []index.ImportUnit{Unit(key, source, "", index.StateEmpty)}})
	id, err := db.FindUnitIDByHash(ctx, tr, index.IDHash(true, nil, key))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.UpdateUnit(ctx, id, index.UserActor(&user), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
	}); err != nil {
		tb.Fatal(err)
	}
	return p
}
