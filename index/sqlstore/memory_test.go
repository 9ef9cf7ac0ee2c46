package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// memFixture is projects of one component each: English sources and a
// German translation, both monolingual, keyed k0, k1, ….
type memFixture struct {
	db       *sqlstore.DB
	projects map[string]index.Project
	de       map[string]int64 // German translation id by project slug
}

// memUnit is one string: its English source, German target and state.
type memUnit struct {
	source, target string
	state          index.State
}

func (f *memFixture) project(tb testing.TB, p index.Project, strs ...memUnit) {
	tb.Helper()
	ctx := context.Background()
	p, _, err := f.db.SaveProject(ctx, p)
	if err != nil {
		tb.Fatal(err)
	}
	f.projects[p.Slug] = p
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template = p.ID, "App", "app", "en.json"
	if c, _, err = f.db.SaveComponent(ctx, c); err != nil {
		tb.Fatal(err)
	}
	var srcID int64
	for _, lang := range []string{"en", "de"} {
		imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: lang, Filename: lang + ".json",
			Revision: "r", Monolingual: true, IsSource: lang == "en", IsTemplate: lang == "en", SourceTranslationID: srcID}
		for i, s := range strs {
			iu := index.ImportUnit{Context: fmt.Sprintf("k%d", i), Source: []string{s.source},
				Target: []string{s.target}, State: s.state}
			if lang == "en" {
				iu.Target, iu.State = iu.Source, index.StateReadOnly
			}
			imp.Units = append(imp.Units, iu)
		}
		res, err := f.db.ImportTranslation(ctx, imp)
		if err != nil {
			tb.Fatal(err)
		}
		if lang == "en" {
			srcID = res.TranslationID
		} else {
			f.de[p.Slug] = res.TranslationID
		}
	}
}

func (f *memFixture) lookup(tb testing.TB, project, text, unitContext string, threshold int) []index.MemoryMatch {
	tb.Helper()
	q := index.MemoryQuery{ProjectID: f.projects[project].ID, SourceLanguage: "en", TargetLanguage: "de",
		Text: text, Context: unitContext, Threshold: threshold}
	got, err := f.db.LookupMemory(context.Background(), q)
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

// summary is "target quality[x]" of each match: x for exact.
func summary(ms []index.MemoryMatch) []string {
	var out []string
	for _, m := range ms {
		s := fmt.Sprintf("%s %d", m.Target, m.Quality)
		if m.Exact {
			s += "x"
		}
		out = append(out, s)
	}
	return out
}

func same(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func newMemFixture(tb testing.TB) *memFixture {
	tb.Helper()
	f := &memFixture{db: mustOpen(tb), projects: map[string]index.Project{}, de: map[string]int64{}}
	f.project(tb, index.Project{Name: "Pub", Slug: "pub"},
		memUnit{"The page was not found", "Die Seite wurde nicht gefunden", index.StateTranslated},
		memUnit{"Save changes", "Änderungen speichern", index.StateFuzzy},
		memUnit{"Hello world", "", index.StateEmpty},
		memUnit{"Approved string", "Bestätigt", index.StateApproved})
	f.project(tb, index.Project{Name: "Priv", Slug: "priv", AccessControl: index.AccessPrivate},
		memUnit{"The page was not found", "GEHEIM", index.StateTranslated},
		memUnit{"Secret launch date", "Geheimes Datum", index.StateTranslated})
	f.project(tb, index.Project{Name: "Rev", Slug: "rev", TranslationReview: true},
		memUnit{"Translated under review", "Übersetzt, nicht geprüft", index.StateTranslated},
		memUnit{"Approved string", "Geprüft", index.StateApproved})
	f.project(tb, index.Project{Name: "Other", Slug: "other"})
	return f
}

func TestMemoryLookup(t *testing.T) {
	f := newMemFixture(t)
	for _, tc := range []struct {
		name, project, text, context string
		threshold                    int
		want                         []string
	}{
		// The private project's translation of the same string never
		// reaches another project.
		{"exact, private left out", "pub", "The page was not found", "", 0,
			[]string{"Die Seite wurde nicht gefunden 100x"}},
		{"seen from another project", "other", "The page was not found", "", 0,
			[]string{"Die Seite wurde nicht gefunden 100x"}},
		{"private project sees itself first and the pool", "priv", "The page was not found", "k0", 0,
			[]string{"Die Seite wurde nicht gefunden 100x", "GEHEIM 100x"}},
		{"private strings stay home", "other", "Secret launch date", "", 0, nil},
		// 200·22/52 = 84.6: the worked example of TestSimilarityWorkedExamples.
		{"fuzzy", "pub", "The page {page} was not found.", "", 0, []string{"Die Seite wurde nicht gefunden 84"}},
		{"fuzzy under the threshold", "pub", "The page {page} was not found.", "", 85, nil},
		{"context differs", "pub", "The page was not found", "elsewhere", 0,
			[]string{"Die Seite wurde nicht gefunden 95x"}},
		// A string that needs editing is pending: 100·0.7.
		{"pending under the default threshold", "pub", "Save changes", "", 0, nil},
		{"pending at 70", "pub", "Save changes", "k1", 70, []string{"Änderungen speichern 70x"}},
		// Under review only approved strings are active.
		{"review: translated is pending", "rev", "Translated under review", "k0", 70,
			[]string{"Übersetzt, nicht geprüft 70x"}},
		{"approved in both, context first", "other", "Approved string", "k3", 0, []string{"Bestätigt 100x", "Geprüft 95x"}},
		{"untranslated is no entry", "pub", "Hello world", "", 0, nil},
		{"nothing like it", "pub", "Completely unrelated text", "", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.context
			if ctx == "" {
				ctx = "k0"
			}
			if got := summary(f.lookup(t, tc.project, tc.text, ctx, tc.threshold)); !same(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestMemoryBatchKeepsScopes: queries of different projects in one batch
// read their entries together and still each see only their own.
func TestMemoryBatchKeepsScopes(t *testing.T) {
	f := newMemFixture(t)
	q := func(project, text string) index.MemoryQuery {
		return index.MemoryQuery{ProjectID: f.projects[project].ID, SourceLanguage: "en", TargetLanguage: "de",
			Text: text, Context: "k0"}
	}
	got, err := f.db.LookupMemoryMany(context.Background(), []index.MemoryQuery{
		q("priv", "The page was not found"), q("pub", "The page was not found"), q("other", "Secret launch date"),
		q("priv", "Secret launch date"), {SourceLanguage: "xx", TargetLanguage: "de", Text: "nothing"}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"Die Seite wurde nicht gefunden 100x", "GEHEIM 100x"}, {"Die Seite wurde nicht gefunden 100x"},
		nil, {"Geheimes Datum 95x"}, nil}
	for i := range want {
		if s := summary(got[i]); !same(s, want[i]) {
			t.Errorf("query %d: %q, want %q", i, s, want[i])
		}
	}
}

func TestMemorySharingAndFreshness(t *testing.T) {
	f := newMemFixture(t)
	ctx := context.Background()
	pub := f.projects["pub"]
	if err := f.db.SetProjectMemorySharing(ctx, pub.ID, true, false); err != nil {
		t.Fatal(err)
	}
	if got := f.lookup(t, "other", "The page was not found", "k0", 0); len(got) != 0 {
		t.Errorf("a project that does not contribute reached another: %q", summary(got))
	}
	if got := f.lookup(t, "pub", "The page was not found", "k0", 0); len(got) != 1 {
		t.Errorf("a project's own strings: %q", summary(got))
	}
	// A project that does not use the pool sees only its own strings.
	other := f.projects["other"]
	if err := f.db.SetProjectMemorySharing(ctx, pub.ID, true, true); err != nil {
		t.Fatal(err)
	}
	if err := f.db.SetProjectMemorySharing(ctx, other.ID, false, true); err != nil {
		t.Fatal(err)
	}
	if got := f.lookup(t, "other", "The page was not found", "k0", 0); len(got) != 0 {
		t.Errorf("use_shared_tm off still reads the pool: %q", summary(got))
	}

	// An edit is in the memory the moment it is saved.
	u, err := f.db.FindUnitIDByHash(ctx, f.de["pub"], index.IDHash(true, nil, "k2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.UpdateUnit(ctx, u, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Hallo Welt"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := summary(f.lookup(t, "pub", "Hello world!", "k2", 0)); !same(got, []string{"Hallo Welt 95"}) {
		t.Errorf("after the edit: %q", got)
	}
	// So is a newly imported source string.
	f.project(t, index.Project{Name: "New", Slug: "new"}, memUnit{"Brand new string", "Ganz neu", index.StateTranslated})
	if got := summary(f.lookup(t, "pub", "Brand new string", "k0", 0)); !same(got, []string{"Ganz neu 100x"}) {
		t.Errorf("after an import: %q", got)
	}
}

func TestMemoryImportedEntries(t *testing.T) {
	f := newMemFixture(t)
	ctx := context.Background()
	priv := f.projects["priv"]
	n, err := f.db.ImportMemory(ctx, 0, 0, []index.MemoryImportEntry{
		{SourceLanguage: "en", TargetLanguage: "de", Source: "Imported everywhere", Target: "Überall", Origin: "a.tmx"},
		{SourceLanguage: "en", TargetLanguage: "de", Source: "Imported everywhere", Target: "Überall", Origin: "a.tmx"},
		{SourceLanguage: "en", TargetLanguage: "fr", Source: "Imported everywhere", Target: "Partout", Origin: "a.tmx"},
	})
	if err != nil || n != 2 {
		t.Fatalf("site-wide import: %d, %v; want 2 (one duplicate)", n, err)
	}
	if _, err := f.db.ImportMemory(ctx, priv.ID, 0, []index.MemoryImportEntry{
		{SourceLanguage: "en", TargetLanguage: "de", Source: "Imported in private", Target: "Privat", Origin: "p.json"},
	}); err != nil {
		t.Fatal(err)
	}
	got := f.lookup(t, "other", "Imported everywhere", "", 0)
	if !same(summary(got), []string{"Überall 100x"}) || !got[0].Imported || got[0].Origin != "a.tmx" {
		t.Fatalf("site-wide entry: %+v", got)
	}
	if got := f.lookup(t, "other", "Imported in private", "", 0); len(got) != 0 {
		t.Errorf("a project's imported entry reached another: %q", summary(got))
	}
	mine := f.lookup(t, "priv", "Imported in private", "", 0)
	if !same(summary(mine), []string{"Privat 100x"}) {
		t.Fatalf("the project's own imported entry: %q", summary(mine))
	}

	// Lists: every entry a reader may see, the private project hidden.
	hidden := index.MemoryFilter{TargetLanguage: "de", Hidden: []int64{priv.ID}}
	all, total, err := f.db.FindMemory(ctx, hidden, index.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if e.ProjectID == priv.ID {
			t.Errorf("hidden project listed: %+v", e)
		}
	}
	// pub's translated, fuzzy and approved strings, rev's two, and the
	// site-wide import, first.
	if len(all) != 6 || total != 6 || !all[0].Imported {
		t.Errorf("listed %d entries of %d, want 6 with the import first: %+v", len(all), total, all)
	}
	some, _, err := f.db.FindMemory(ctx, index.MemoryFilter{Source: "PAGE WAS", Hidden: []int64{priv.ID}}, index.Page{})
	if err != nil || len(some) != 1 || some[0].Target != "Die Seite wurde nicht gefunden" {
		t.Errorf("source filter: %+v, %v", some, err)
	}
	// Pages of four: the import and three units, then two units.
	p1, _, _ := f.db.FindMemory(ctx, hidden, index.Page{Number: 1, Size: 4})
	p2, n2, _ := f.db.FindMemory(ctx, hidden, index.Page{Number: 2, Size: 4})
	if len(p1) != 4 || len(p2) != 2 || n2 != 6 || p2[0].ID != all[4].ID {
		t.Errorf("pages: %+v then %+v", p1, p2)
	}
	var walked []int64
	if err := f.db.EachMemory(ctx, hidden, func(e index.MemoryEntry) error {
		walked = append(walked, e.ID)
		return nil
	}); err != nil || len(walked) != 6 || walked[5] != all[5].ID {
		t.Errorf("EachMemory: %v, %v", walked, err)
	}

	e, err := f.db.FindMemoryEntry(ctx, mine[0].ID)
	if err != nil || e.Target != "Privat" || e.ProjectID != priv.ID {
		t.Errorf("FindMemoryEntry: %+v, %v", e, err)
	}
	if err := f.db.DeleteMemoryEntry(ctx, mine[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := f.lookup(t, "priv", "Imported in private", "", 0); len(got) != 0 {
		t.Errorf("deleted entry still found: %q", summary(got))
	}
	if err := f.db.DeleteMemoryEntry(ctx, mine[0].ID); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
	unitEntry := f.lookup(t, "pub", "The page was not found", "k0", 0)[0]
	if err := f.db.DeleteMemoryEntry(ctx, unitEntry.ID); !errors.Is(err, index.ErrInvalid) {
		t.Errorf("deleting a unit's entry: %v, want ErrInvalid", err)
	}
	ue, err := f.db.FindMemoryEntry(ctx, unitEntry.ID)
	if err != nil || ue.Origin != "pub/app" || ue.SourceLanguage != "en" || ue.Status != index.MemoryActive {
		t.Errorf("unit entry: %+v, %v", ue, err)
	}
}

// TestMemoryBilingualStringsOfOneLanguage: a bilingual component's
// translation may hold strings its source translation lacks (a
// glossary's terms differ by language); they are in the memory too.
func TestMemoryBilingualStringsOfOneLanguage(t *testing.T) {
	f := &memFixture{db: mustOpen(t), projects: map[string]index.Project{}, de: map[string]int64{}}
	ctx := context.Background()
	p, _, err := f.db.SaveProject(ctx, index.Project{Name: "Gloss", Slug: "gloss"})
	if err != nil {
		t.Fatal(err)
	}
	f.projects["gloss"] = p
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.FileFormat, c.IsGlossary = p.ID, "Terms", "terms", "tbx", true
	if c, _, err = f.db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	src, err := f.db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: "en.tbx", Revision: "r", IsSource: true, Units: []index.ImportUnit{
			{Source: []string{"apple"}, Target: []string{"apple"}, State: index.StateReadOnly}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
		Filename: "de.tbx", Revision: "r", SourceTranslationID: src.TranslationID, Units: []index.ImportUnit{
			{Source: []string{"apple"}, Target: []string{"Apfel"}, State: index.StateTranslated},
			{Source: []string{"pear tree"}, Target: []string{"Birnbaum"}, State: index.StateTranslated}}}); err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string][]string{"apple": {"Apfel 100x"}, "pear tree": {"Birnbaum 100x"},
		"pear trees": {"Birnbaum 94"}} {
		if got := summary(f.lookup(t, "gloss", text, "", 0)); !same(got, want) {
			t.Errorf("%s: %q, want %q", text, got, want)
		}
	}
}

// TestMemoryPersonalScope: a user's own translations are found by that
// user from any project though neither project shares its memory (the
// reference's personal scope), marked Personal; not by another user,
// not without a user, not in a project hidden from the user, and no
// longer once someone else's translation replaced the user's.
func TestMemoryPersonalScope(t *testing.T) {
	f := newMemFixture(t)
	ctx := context.Background()
	for _, p := range []string{"pub", "priv", "other"} {
		if err := f.db.SetProjectMemorySharing(ctx, f.projects[p].ID, false, false); err != nil {
			t.Fatal(err)
		}
	}
	users := map[string]int64{}
	for _, name := range []string{"ann", "bob"} {
		u, err := f.db.CreateUser(ctx, index.User{Username: name, Email: name + "@example.com", IsActive: true})
		if err != nil {
			t.Fatal(err)
		}
		users[name] = u.ID
	}
	edit := func(project, key, text, by string) {
		t.Helper()
		id, err := f.db.FindUnitIDByHash(ctx, f.de[project], index.IDHash(true, nil, key))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.UpdateUnit(ctx, id, index.Actor{UserID: users[by], AuthorID: users[by]},
			func(index.Unit, index.Translation) (index.UnitUpdate, error) {
				return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{text}, State: index.StateTranslated}}, nil
			}); err != nil {
			t.Fatal(err)
		}
	}
	edit("pub", "k2", "Hallo Welt", "ann")
	edit("priv", "k1", "Geheimes Startdatum", "ann")
	look := func(user string, hidden []int64, text string) []index.MemoryMatch {
		t.Helper()
		got, err := f.db.LookupMemory(ctx, index.MemoryQuery{ProjectID: f.projects["other"].ID, SourceLanguage: "en",
			TargetLanguage: "de", Text: text, Context: "k0", UserID: users[user], Hidden: hidden})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := look("ann", nil, "Hello world")
	if len(got) != 1 || got[0].Target != "Hallo Welt" || !got[0].Personal || got[0].ProjectSlug != "pub" {
		t.Fatalf("ann's own translation from another project: %+v", got)
	}
	if o := index.MemoryOriginDisplay(got[0].MemoryEntry, f.projects["other"].ID); o != "Personal: pub/app" {
		t.Errorf("origin shown as %q", o)
	}
	// pub's imported translations are not ann's: not in her scope.
	if got := look("ann", nil, "The page was not found"); len(got) != 0 {
		t.Errorf("a string ann did not translate: %q", summary(got))
	}
	if got := look("bob", nil, "Hello world"); len(got) != 0 {
		t.Errorf("bob found ann's personal entry: %q", summary(got))
	}
	if got := look("", nil, "Hello world"); len(got) != 0 {
		t.Errorf("a lookup without a user found a personal entry: %q", summary(got))
	}
	if got := look("ann", nil, "Secret launch date"); len(got) != 1 || got[0].Target != "Geheimes Startdatum" {
		t.Errorf("ann's translation in a private project she reads: %q", summary(got))
	}
	if got := look("ann", []int64{f.projects["priv"].ID}, "Secret launch date"); len(got) != 0 {
		t.Errorf("a project hidden from ann answered: %q", summary(got))
	}
	// Seen through the pool, the same entry is the pool's, not personal.
	if err := f.db.SetProjectMemorySharing(ctx, f.projects["pub"].ID, false, true); err != nil {
		t.Fatal(err)
	}
	if err := f.db.SetProjectMemorySharing(ctx, f.projects["other"].ID, true, false); err != nil {
		t.Fatal(err)
	}
	if got := look("ann", nil, "Hello world"); len(got) != 1 || got[0].Personal || !got[0].Shared {
		t.Errorf("through the pool: %+v", got)
	} else if o := index.MemoryOriginDisplay(got[0].MemoryEntry, f.projects["other"].ID); o != "Shared: pub/app" {
		t.Errorf("pool entry shown as %q", o)
	}
	if err := f.db.SetProjectMemorySharing(ctx, f.projects["pub"].ID, false, false); err != nil {
		t.Fatal(err)
	}
	// Once bob's translation replaces hers, the string is no longer ann's.
	edit("pub", "k2", "Hallo, Welt", "bob")
	if got := look("ann", nil, "Hello world"); len(got) != 0 {
		t.Errorf("after bob's edit ann still finds %q", summary(got))
	}
	if got := look("bob", nil, "Hello world"); len(got) != 1 || got[0].Target != "Hallo, Welt" || !got[0].Personal {
		t.Errorf("bob's own translation: %+v", got)
	}
}
