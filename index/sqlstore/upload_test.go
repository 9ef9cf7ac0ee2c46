package sqlstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestApplyUploadPlurals checks that a file whose plural forms do not fit
// the language is refused as a whole, with the reference's message on
// "file", before anything is stored, and that one that fits is written.
func TestApplyUploadPlurals(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	if err := db.SeedLanguages(ctx, []index.Language{{Code: "de", Name: "German", Direction: "ltr",
		Plural: index.Plural{Number: 2, Formula: "n != 1"}}}); err != nil {
		t.Fatal(err)
	}
	p, _, err := db.SaveProject(ctx, index.Project{Name: "Demo", Slug: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.FileFormat = p.ID, "Glossary", "glossary", "tbx"
	if c, _, err = db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	plural := []string{"apple", "apples"}
	src, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		IsSource: true, Units: []index.ImportUnit{
			{Source: plural, Target: plural, State: index.StateReadOnly},
			{Source: []string{"pear"}, Target: []string{"pear"}, State: index.StateReadOnly}}})
	if err != nil {
		t.Fatal(err)
	}
	de, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
		Filename: "de.tbx", SourceTranslationID: src.TranslationID, Units: []index.ImportUnit{
			{Source: plural, Target: []string{"", ""}, State: index.StateEmpty},
			{Source: []string{"pear"}, Target: []string{""}, State: index.StateEmpty}}})
	if err != nil {
		t.Fatal(err)
	}
	changes := func() int {
		_, n, err := db.FindChanges(ctx, index.ChangeFilter{TranslationID: de.TranslationID, Page: index.Page{Number: 1, Size: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := changes()
	up := index.Upload{Method: index.UploadTranslate, Units: []index.ImportUnit{
		{Source: []string{"pear"}, Target: []string{"Birne"}, State: index.StateTranslated},
		{Source: plural, Target: []string{"Apfel"}, State: index.StateTranslated}}}
	_, err = db.ApplyUpload(ctx, de.TranslationID, up)
	var fe *index.FieldError
	if !errors.As(err, &fe) || fe.Fields["file"].Detail != "Plural forms do not match the language." {
		t.Fatalf("one form for a plural = %v, want the plural mismatch on file", err)
	}
	if pending, err := db.FindPendingUnits(ctx, de.TranslationID); err != nil || len(pending) != 0 || changes() != before {
		t.Fatalf("after a refused upload: %d pending units (%v), %d changes (was %d)", len(pending), err, changes(), before)
	}

	up.Units[1].Target = []string{"Apfel", "Äpfel"}
	res, err := db.ApplyUpload(ctx, de.TranslationID, up)
	if err != nil || res != (index.UploadResult{Accepted: 2, Total: 2}) {
		t.Fatalf("ApplyUpload = %+v, %v; want 2 of 2 accepted", res, err)
	}
	pending, err := db.FindPendingUnits(ctx, de.TranslationID)
	if err != nil || len(pending) != 2 || pending[0].Target[1] != "Äpfel" || pending[1].Target[0] != "Birne" {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	st, err := db.TranslationStats(ctx, de.TranslationID)
	if err != nil || st.Translated != 2 || st.Total != 2 {
		t.Errorf("stats = %+v, %v; want 2 of 2 translated", st, err)
	}
}
