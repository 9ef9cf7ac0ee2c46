package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// crudEnv is an index with two users, a project and a component whose
// source (en) and German translation are imported.
type crudEnv struct {
	db         *DB
	admin, ann index.User // a superuser and a plain user
	p          index.Project
	c          index.Component
	src, de    int64 // translation ids
}

func mustCrudEnv(tb testing.TB) *crudEnv {
	tb.Helper()
	ctx := context.Background()
	db, err := openFreshWith(tb, Options{Now: func() time.Time { return time.Date(2026, 11, 23, 1, 2, 3, 0, time.UTC) }})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if err := db.SeedLanguages(ctx, []index.Language{
		{Code: "en", Name: "English", Direction: "ltr", Plural: index.Plural{Number: 2, Formula: "n != 1"}},
		{Code: "de", Name: "German", Direction: "ltr", Plural: index.Plural{Number: 2, Formula: "n != 1"}},
		{Code: "fr", Name: "French", Direction: "ltr", Plural: index.Plural{Number: 2, Formula: "n > 1"}},
	}); err != nil {
		tb.Fatal(err)
	}
	e := &crudEnv{db: db}
	if e.admin, err = db.SaveUser(ctx, index.User{Username: "admin", IsActive: true, IsSuperuser: true}); err != nil {
		tb.Fatal(err)
	}
	if e.ann, err = db.SaveUser(ctx, index.User{Username: "ann", IsActive: true}); err != nil {
		tb.Fatal(err)
	}
	if e.p, err = db.CreateProject(ctx, index.Project{Name: "Shop", Slug: "shop"}, index.UserActor(&e.admin)); err != nil {
		tb.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template, c.Filemask = e.p.ID, "App", "app", "po/en.json", "po/*.json"
	if e.c, err = db.CreateComponent(ctx, c, index.UserActor(&e.admin)); err != nil {
		tb.Fatal(err)
	}
	src := []index.ImportUnit{
		{Context: "yes", Source: []string{"Yes"}, Target: []string{"Yes"}, State: index.StateReadOnly},
		{Context: "no", Source: []string{"No"}, Target: []string{"No"}, State: index.StateReadOnly},
	}
	res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: e.c.ID, LanguageCode: "en",
		Filename: "po/en.json", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
	if err != nil {
		tb.Fatal(err)
	}
	e.src = res.TranslationID
	de := []index.ImportUnit{
		{Context: "yes", Source: []string{"Yes"}, Target: []string{"Ja"}, State: index.StateTranslated},
		{Context: "no", Source: []string{"No"}, Target: []string{""}, State: index.StateEmpty},
	}
	if res, err = db.ImportTranslation(ctx, index.TranslationImport{ComponentID: e.c.ID, LanguageCode: "de",
		Filename: "po/de.json", Monolingual: true, SourceTranslationID: e.src, Units: de}); err != nil {
		tb.Fatal(err)
	}
	e.de = res.TranslationID
	return e
}

// checkStatsSums checks that every kept aggregate equals the sum of its
// translations' rows, and that no row outlives its translation,
// component or project.
func checkStatsSums(t *testing.T, db *DB) {
	t.Helper()
	const sums = `
		SELECT 'c', CAST(t.component_id AS TEXT), sum(s.total), sum(s.translated) FROM translations t
			JOIN stats s ON s.scope = 't' AND s.scope_key = CAST(t.id AS TEXT) GROUP BY 1, 2
		UNION ALL SELECT 'p', CAST(c.project_id AS TEXT), sum(s.total), sum(s.translated) FROM translations t
			JOIN components c ON c.id = t.component_id
			JOIN stats s ON s.scope = 't' AND s.scope_key = CAST(t.id AS TEXT) GROUP BY 1, 2
		UNION ALL SELECT 'l', t.language_code, sum(s.total), sum(s.translated) FROM translations t
			JOIN stats s ON s.scope = 't' AND s.scope_key = CAST(t.id AS TEXT) GROUP BY 1, 2`
	read := func(query string) []string {
		rows, err := db.r.QueryContext(context.Background(), query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var scope, key string
			var total, translated int
			if err := rows.Scan(&scope, &key, &total, &translated); err != nil {
				t.Fatal(err)
			}
			if total != 0 || translated != 0 {
				out = append(out, fmt.Sprintf("%s/%s=%d,%d", scope, key, total, translated))
			}
		}
		slices.Sort(out)
		return out
	}
	got := read(`SELECT scope, scope_key, total, translated FROM stats WHERE scope IN ('c', 'p', 'l')`)
	if want := read(sums); !slices.Equal(got, want) {
		t.Errorf("statistics differ from the sums of their translations:\n got  %s\n want %s",
			strings.Join(got, " "), strings.Join(want, " "))
	}
	var orphans int
	if err := db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM stats WHERE
		(scope = 't' AND CAST(scope_key AS INTEGER) NOT IN (SELECT id FROM translations)) OR
		(scope = 'c' AND CAST(scope_key AS INTEGER) NOT IN (SELECT id FROM components)) OR
		(scope = 'p' AND CAST(scope_key AS INTEGER) NOT IN (SELECT id FROM projects))`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d statistics rows outlive what they count", orphans)
	}
}

// actions lists the action, user id and target of a project's changes.
func actions(t *testing.T, db *DB, projectID int64) []string {
	t.Helper()
	rows, err := db.r.QueryContext(context.Background(), `SELECT action, coalesce(user_id, 0), coalesce(translation_id, 0) != 0, target
		FROM changes WHERE project_id = ? ORDER BY id`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var action, user int
		var onTranslation bool
		var target string
		if err := rows.Scan(&action, &user, &onTranslation, &target); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d/u%d/t%v/%s", action, user, onTranslation, target))
	}
	return out
}

func TestCreateProjectGrantsAndUniqueness(t *testing.T) {
	ctx := context.Background()
	e := mustCrudEnv(t)
	p, err := e.db.CreateProject(ctx, index.Project{Name: "Blog", Slug: "blog"}, index.UserActor(&e.ann))
	if err != nil {
		t.Fatal(err)
	}
	grants, err := e.db.FindGrants(ctx, e.ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(grants, func(g index.Grant) bool {
		return g.UserID == e.ann.ID && g.Role == "Administration" && g.ProjectID == p.ID && g.ComponentID == 0 &&
			g.Languages == nil
	}) {
		t.Errorf("creator's grants = %v, want Administration in the new project", grants)
	}
	if g, _ := e.db.FindGrants(ctx, e.admin.ID); len(g) != 0 {
		t.Errorf("superuser creator got grants %v", g)
	}
	if got, want := actions(t, e.db, p.ID), []string{fmt.Sprintf("50/u%d/tfalse/Blog", e.ann.ID)}; !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}

	_, err = e.db.CreateProject(ctx, index.Project{Name: "Blog", Slug: "blog"}, index.Actor{})
	var fe *index.FieldError
	if !errors.As(err, &fe) || fe.Fields["name"].Detail != projectNameTaken || fe.Fields["slug"].Detail != projectSlugTaken {
		t.Errorf("duplicate = %v, want name and slug taken", err)
	}
	_, _, err = e.db.UpdateProject(ctx, p.ID, func(q *index.Project) error { q.Slug = "shop"; return nil })
	if !errors.As(err, &fe) || len(fe.Fields) != 1 || fe.Fields["slug"].Code != "unique" {
		t.Errorf("rename onto shop = %v, want slug taken", err)
	}
	before, after, err := e.db.UpdateProject(ctx, p.ID, func(q *index.Project) error {
		q.Slug, q.AccessControl = "journal", index.AccessPrivate
		return nil
	})
	if err != nil || before.Slug != "blog" || after.Slug != "journal" || after.AccessControl != index.AccessPrivate {
		t.Errorf("update = %v → %v, %v", before, after, err)
	}

	// Removing the project takes its grants along.
	if _, err := e.db.DeleteProject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if g, _ := e.db.FindGrants(ctx, e.ann.ID); len(g) != 0 {
		t.Errorf("grants after removal = %v", g)
	}
	if _, err := e.db.DeleteProject(ctx, p.ID); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("second removal = %v, want ErrNotFound", err)
	}
}

func TestTranslationAddAndRemove(t *testing.T) {
	ctx := context.Background()
	e := mustCrudEnv(t)
	by := index.UserActor(&e.ann)
	fr, err := e.db.CreateTranslation(ctx, e.c.ID, "fr", "po/fr.json", by)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.db.FindTranslationByID(ctx, fr)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Filename != "po/fr.json" || tr.IsSource || tr.Stats.Total != 2 || tr.Stats.Translated != 0 {
		t.Errorf("new translation = %+v", tr)
	}
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: fr, Page: index.Page{Number: 1, Size: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(units) != 2 || units[0].Context != "yes" || units[0].State != index.StateEmpty ||
		units[0].SourceUnitID == 0 || units[0].Target[0] != "" || units[0].Pending {
		t.Errorf("new units = %+v", units)
	}
	if l, _ := e.db.LanguageStats(ctx, "fr"); l.Total != 2 {
		t.Errorf("French total = %d, want 2", l.Total)
	}
	checkStatsSums(t, e.db)
	if files, _ := e.db.FindPendingFiles(ctx, e.c.ID); !slices.Equal(files,
		[]index.PendingFile{{Path: "po/fr.json", Operation: "add", LanguageCode: "fr", UserID: e.ann.ID}}) {
		t.Errorf("pending files = %v, want fr to add", files)
	}
	if got := actions(t, e.db, e.p.ID); got[len(got)-1] != fmt.Sprintf("48/u%d/ttrue/", e.ann.ID) {
		t.Errorf("changes = %v, want to end with Language added by ann", got)
	}
	var fe *index.FieldError
	if _, err := e.db.CreateTranslation(ctx, e.c.ID, "fr", "po/fr.json", by); !errors.As(err, &fe) {
		t.Errorf("second add = %v, want a field error", err)
	}

	// A translation never committed leaves nothing for the commit to do;
	// one read from the repository leaves its file to delete.
	if err := e.db.DeleteTranslation(ctx, fr, by); err != nil {
		t.Fatal(err)
	}
	if err := e.db.DeleteTranslation(ctx, e.de, by); err != nil {
		t.Fatal(err)
	}
	if files, _ := e.db.FindPendingFiles(ctx, e.c.ID); !slices.Equal(files,
		[]index.PendingFile{{Path: "po/de.json", Operation: "delete", LanguageCode: "de", UserID: e.ann.ID}}) {
		t.Errorf("pending files = %v, want de to delete", files)
	}
	if err := e.db.DeleteTranslation(ctx, e.src, by); !errors.Is(err, index.ErrPermission) {
		t.Errorf("removing the source = %v, want ErrPermission", err)
	}
	if l, _ := e.db.LanguageStats(ctx, "de"); l.Total != 0 || l.Translated != 0 {
		t.Errorf("German after removal = %+v", l)
	}
	checkStatsSums(t, e.db)
	checkListCounts(t, e.db)
	// The translations' own changes go with them; their removal stays.
	got := actions(t, e.db, e.p.ID)
	want := []string{
		fmt.Sprintf("25/u%d/tfalse/po/fr.json", e.ann.ID),
		fmt.Sprintf("25/u%d/tfalse/po/de.json", e.ann.ID),
	}
	if len(got) < 2 || !slices.Equal(got[len(got)-2:], want) {
		t.Errorf("changes = %v, want to end with %v", got, want)
	}
}

func TestStaleTranslationsKeepPendingAdds(t *testing.T) {
	ctx := context.Background()
	e := mustCrudEnv(t)
	if _, err := e.db.CreateTranslation(ctx, e.c.ID, "fr", "po/fr.json", index.UserActor(&e.ann)); err != nil {
		t.Fatal(err)
	}
	removed, err := e.db.RemoveStaleTranslations(ctx, e.c.ID, nil)
	if err != nil || !slices.Equal(removed, []string{"de"}) {
		t.Fatalf("removed %v, %v; want de only (en is the source, fr waits for its commit)", removed, err)
	}
	revs, _ := e.db.TranslationRevisions(ctx, e.c.ID)
	if _, ok := revs["fr"]; !ok || len(revs) != 2 {
		t.Errorf("translations left = %v, want en and fr", revs)
	}
	checkStatsSums(t, e.db)
}

func TestDeleteComponentAndProject(t *testing.T) {
	ctx := context.Background()
	e := mustCrudEnv(t)
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug = e.p.ID, "App", "other"
	var fe *index.FieldError
	if _, err := e.db.CreateComponent(ctx, c, index.Actor{}); !errors.As(err, &fe) || fe.Fields["name"].Detail != componentNameTaken {
		t.Errorf("duplicate name = %v", err)
	}
	removed, err := e.db.DeleteComponent(ctx, e.c.ID, index.UserActor(&e.admin))
	if err != nil || removed.Slug != "app" {
		t.Fatalf("DeleteComponent = %v, %v", removed, err)
	}
	if got := actions(t, e.db, e.p.ID); !slices.Equal(got, []string{
		fmt.Sprintf("50/u%d/tfalse/Shop", e.admin.ID), fmt.Sprintf("38/u%d/tfalse/App", e.admin.ID)}) {
		t.Errorf("changes = %v; want the component's own gone, its removal recorded", got)
	}
	if s, _ := e.db.ProjectStats(ctx, e.p.ID); s.Total != 0 {
		t.Errorf("project total = %d", s.Total)
	}
	checkStatsSums(t, e.db)
	checkListCounts(t, e.db)

	e2 := mustCrudEnv(t)
	comps, err := e2.db.DeleteProject(ctx, e2.p.ID)
	if err != nil || len(comps) != 1 || comps[0].Slug != "app" {
		t.Fatalf("DeleteProject = %v, %v", comps, err)
	}
	if l, _ := e2.db.LanguageStats(ctx, "de"); l.Total != 0 {
		t.Errorf("German total after removal = %d", l.Total)
	}
	checkStatsSums(t, e2.db)
	checkListCounts(t, e2.db)
}

func TestLanguageWrites(t *testing.T) {
	ctx := context.Background()
	e := mustCrudEnv(t)
	tlh := index.Language{Code: "tlh", Name: "Klingon", Direction: "ltr", Aliases: []string{},
		Plural: index.Plural{Number: 1, Formula: "0"}}
	created, err := e.db.CreateLanguage(ctx, tlh)
	if err != nil || created.Plural.ID == 0 {
		t.Fatalf("CreateLanguage = %+v, %v", created, err)
	}
	var fe *index.FieldError
	if _, err := e.db.CreateLanguage(ctx, tlh); !errors.As(err, &fe) || fe.Fields["code"].Detail != languageCodeTaken {
		t.Errorf("duplicate = %v", err)
	}
	// Seeding the built-in table leaves the deployment's own languages be.
	if err := e.db.SeedLanguages(ctx, []index.Language{{Code: "tlh", Name: "Seeded", Plural: index.Plural{Number: 2}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.UpdateLanguage(ctx, "de", func(l *index.Language) error { l.Name = "Deutsch"; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := e.db.SeedLanguages(ctx, []index.Language{{Code: "de", Name: "German", Plural: index.Plural{Number: 2}}}); err != nil {
		t.Fatal(err)
	}
	for code, name := range map[string]string{"tlh": "Klingon", "de": "Deutsch"} {
		if l, err := e.db.FindLanguage(ctx, code); err != nil || l.Name != name {
			t.Errorf("%s after seeding = %q, %v; want %q", code, l.Name, err, name)
		}
	}
	if _, err := e.db.UpdateLanguage(ctx, "de", func(l *index.Language) error { l.Code = "de_AT"; return nil }); !errors.As(err, &fe) {
		t.Errorf("renaming a language in use = %v, want a field error", err)
	}
	if err := e.db.DeleteLanguage(ctx, "de"); !errors.Is(err, index.ErrInvalid) {
		t.Errorf("deleting a language in use = %v, want ErrInvalid", err)
	}
	if err := e.db.DeleteLanguage(ctx, "tlh"); err != nil {
		t.Errorf("deleting an unused language = %v", err)
	}
	if _, err := e.db.FindLanguage(ctx, "tlh"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("deleted language still found: %v", err)
	}
}
