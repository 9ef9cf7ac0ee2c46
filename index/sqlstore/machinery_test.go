package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestMachinerySettings: a project's services are stored and replaced
// whole, a refusal of decide changes nothing, an unknown project is
// ErrNotFound, and a removed project takes its settings with it.
func TestMachinerySettings(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	c := mustComponent(t, db)
	if s, err := db.FindMachinerySettings(ctx, c.ProjectID); err != nil || len(s) != 0 {
		t.Fatalf("fresh project: %v, %v", s, err)
	}
	set := func(next index.MachinerySettings) error {
		_, err := db.UpdateMachinerySettings(ctx, c.ProjectID, func(cur index.MachinerySettings) (index.MachinerySettings, error) {
			return next, nil
		})
		return err
	}
	if err := set(index.MachinerySettings{"deepl": {"key": "k"}, "weblate": {}}); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("no")
	_, err := db.UpdateMachinerySettings(ctx, c.ProjectID, func(cur index.MachinerySettings) (index.MachinerySettings, error) {
		delete(cur, "deepl")
		return cur, refused
	})
	if !errors.Is(err, refused) {
		t.Errorf("refused update: %v", err)
	}
	if s, err := db.FindMachinerySettings(ctx, c.ProjectID); err != nil || fmt.Sprint(s) != "map[deepl:map[key:k] weblate:map[]]" {
		t.Errorf("stored = %v, %v", s, err)
	}
	if err := set(index.MachinerySettings{"apertium-apy": {"url": "https://apy.example"}}); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.FindMachinerySettings(ctx, c.ProjectID); fmt.Sprint(s) != "map[apertium-apy:map[url:https://apy.example]]" {
		t.Errorf("replaced = %v", s)
	}
	if _, err := db.FindMachinerySettings(ctx, 999999); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("unknown project: %v", err)
	}
	if _, err := db.UpdateMachinerySettings(ctx, 999999, func(s index.MachinerySettings) (index.MachinerySettings, error) {
		return s, nil
	}); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("update of an unknown project: %v", err)
	}
}

// TestFindSameSource: translated strings of the project's other
// components with the same source text and language, never the asking
// component's own, another language's, an untranslated one's or another
// project's.
func TestFindSameSource(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	app := mustComponent(t, db)
	imp := func(c index.Component, lang string, u []index.ImportUnit) {
		t.Helper()
		src, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
			Filename: "en.json", Revision: "s", IsSource: true, IsTemplate: true, Monolingual: true,
			Units: units("save", "Save", "Save", "open", "Open", "Open")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang,
			Filename: lang + ".json", Revision: "t", Monolingual: true, SourceTranslationID: src.TranslationID,
			Units: u}); err != nil {
			t.Fatal(err)
		}
	}
	component := func(projectID int64, slug string) index.Component {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug = projectID, slug, slug
		c, _, err := db.SaveComponent(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	web := component(app.ProjectID, "web")
	other, _, err := db.SaveProject(ctx, index.Project{Name: "Other", Slug: "other"})
	if err != nil {
		t.Fatal(err)
	}
	stranger := component(other.ID, "stranger")
	imp(app, "de", units("save", "Save", "Speichern (app)", "open", "Open", ""))
	imp(web, "de", units("save", "Save", "Speichern", "open", "Open", ""))
	imp(stranger, "de", units("save", "Save", "Sichern (other project)", "open", "Open", "Öffnen"))
	got, err := db.FindSameSource(ctx, index.SameSourceFilter{ProjectID: app.ProjectID, ExcludeComponentID: app.ID,
		SourceLanguage: "en", Language: "de", Sources: []string{"Save", "Open", "Missing"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Source != "Save" || got[0].Target[0] != "Speichern" || got[0].ComponentSlug != "web" {
		t.Errorf("FindSameSource = %+v, want web's Speichern only", got)
	}
}
