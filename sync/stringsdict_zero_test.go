package sync_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// stringsdictOf is a .stringsdict file with one key whose variable has
// the given category → text entries, in order.
func stringsdictOf(forms ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>files</key>
	<dict>
		<key>NSStringLocalizedFormatKey</key>
		<string>%#@count@</string>
		<key>count</key>
		<dict>
			<key>NSStringFormatSpecTypeKey</key>
			<string>NSStringPluralRuleType</string>
			<key>NSStringFormatValueTypeKey</key>
			<string>d</string>
`)
	for i := 0; i+1 < len(forms); i += 2 {
		b.WriteString("\t\t\t<key>" + forms[i] + "</key>\n\t\t\t<string>" + forms[i+1] + "</string>\n")
	}
	b.WriteString("\t\t</dict>\n\t</dict>\n</dict>\n</plist>\n")
	return b.String()
}

// TestStringsdictZero checks that a stringsdict component's translations
// have their language's plural forms with "zero" in front, as the
// reference gives them: the template's zero text is the source's first
// form, a German translation without one reads it empty, and an edit of
// it is written as the variable's zero category, before "one".
func TestStringsdictZero(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, _ := mustRepo(t, map[string]string{
		"Base.lproj/Localizable.stringsdict": stringsdictOf("zero", "No files", "one", "%d file", "other", "%d files"),
		"de.lproj/Localizable.stringsdict":   stringsdictOf("one", "%d Datei", "other", "%d Dateien"),
	})
	e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
	c := index.DefaultComponent()
	c.Name, c.Slug, c.Repo, c.Filemask, c.Template = "dict", "dict", url, "*.lproj/Localizable.stringsdict", "Base.lproj/Localizable.stringsdict"
	c.FileFormat, c.SourceLanguage = "stringsdict", "en"
	c = e.reconcile(t, c)[0]
	de := mustTranslation(t, e, "dict", "de")
	if got := de.Language.PluralCategories(); !slices.Equal(got, []string{"zero", "one", "other"}) {
		t.Fatalf("German in a stringsdict component has forms %q", got)
	}
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: de.ID, Page: index.Page{Number: 1, Size: 10}})
	if err != nil {
		t.Fatal(err)
	}
	var u index.Unit
	for _, x := range units {
		if x.Context == "files:count" {
			u = x
		}
	}
	if !slices.Equal(u.Source, []string{"No files", "%d file", "%d files"}) || !slices.Equal(u.Target, []string{"", "%d Datei", "%d Dateien"}) {
		t.Fatalf("files:count reads %q → %q", u.Source, u.Target)
	}
	ann := mustUser(t, e.db, "ann", "Ann Example")
	if _, err := e.db.UpdateUnit(ctx, u.ID, index.UserActor(&ann), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Keine Dateien", "%d Datei", "%d Dateien"},
			State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Push(ctx, c, &ann); err != nil {
		t.Fatal(err)
	}
	want := stringsdictOf("zero", "Keine Dateien", "one", "%d Datei", "other", "%d Dateien")
	if got := gitShow(t, strings.TrimPrefix(url, "file://"), "de.lproj/Localizable.stringsdict"); string(got) != want {
		t.Errorf("committed file:\n%s\nwant\n%s", got, want)
	}
	indextest.CheckCounts(t, e.db)
}
