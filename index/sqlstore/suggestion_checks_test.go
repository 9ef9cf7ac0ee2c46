package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestSuggestionChecksFollowSource: a suggestion's stored checks are run
// again when what they depend on changes after it was added: the source
// string's extra flags, the component's check flags, the source string
// itself (a template import); an edit of the unit leaves them alone.
func TestSuggestionChecksFollowSource(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	id := f.suggestOn(t, "de", 3, "Word number 3")
	other := f.suggestOn(t, "de", 5, "Wort Nummer fünf")
	checksOf := func(stage string, sid int64, want ...string) {
		t.Helper()
		got, err := storedSuggestionChecks(ctx, f.db, sid)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: suggestion %d checks %q, want %q", stage, sid, got, want)
		}
	}
	checksOf("added", id, "same")
	checksOf("added", other)

	src := f.unit(t, "en", 3)
	flags := "ignore-same"
	if _, err := f.db.UpdateUnit(ctx, src.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{ExtraFlags: &flags}, nil
	}); err != nil {
		t.Fatal(err)
	}
	checksOf("ignore-same on the source string", id)
	checksOf("ignore-same on another source string", other)

	if _, _, err := f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.CheckFlags = "max-length:14"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	checksOf("component's max-length", other, "max-length")
	checksOf("component's max-length", id)

	f.edit(t, 5, "Fünf")
	checksOf("the unit's own edit", other, "max-length")

	// The template's k3 now ends with a full stop and the suggestion
	// does not.
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "en", Filename: "en.json", Revision: "r2",
		Monolingual: true, IsSource: true, IsTemplate: true}
	for i := range 10 {
		s := fmt.Sprintf("Word number %d", i)
		if i == 3 {
			s = "Word nr. 3."
		}
		imp.Units = append(imp.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{s},
			Target: []string{s}, State: index.StateReadOnly})
	}
	if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	// Then German, as a pull imports each translation after the template.
	de := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "de", Filename: "de.json", Revision: "r2",
		Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i, u := range imp.Units {
		du := index.ImportUnit{Context: u.Context, Source: u.Source, Target: []string{""}}
		if i%2 == 0 {
			du.Target, du.State = []string{fmt.Sprintf("Wort Nummer %d", i)}, index.StateTranslated
		}
		de.Units = append(de.Units, du)
	}
	if _, err := f.db.ImportTranslation(ctx, de); err != nil {
		t.Fatal(err)
	}
	checksOf("the source string changed", id, "end_stop")
	checkStoredStats(t, f.db)
}
