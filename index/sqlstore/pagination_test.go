package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/internal/testengine"

	"github.com/tolk-project/tolk/index"
)

// These tests hold the keyset pages (keyset.go) to the plain truth: the
// same list read with ORDER BY … LIMIT … OFFSET over a full scan.

var pageSizes = []int{1, 7, 50, 1000}

// fakeClock is a settable clock for DB.Now.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// pagingEnv is an index with two components, imported in several rounds
// that add, update and remove units, under a clock that sometimes goes
// backwards.
type pagingEnv struct {
	db    *DB
	clock *fakeClock
	app   index.Component // translations en (source), de, fr
	lib   index.Component // translations en (source), de
	tr    map[string]int64
	n     int // imports so far
	// clamped counts imports that ran with the clock behind the last
	// change, which DB.write holds back.
	clamped int
}

// keys returns units for keys [from, to) with step, translated with suffix.
func keys(from, to, step int, suffix string) []index.ImportUnit {
	var out []index.ImportUnit
	for i := from; i < to; i += step {
		out = append(out, index.ImportUnit{Context: fmt.Sprintf("k%05d", i), Source: []string{fmt.Sprintf("S %d", i)},
			Target: []string{fmt.Sprintf("T %d %s", i, suffix)}, State: index.StateTranslated})
	}
	return out
}

func (e *pagingEnv) mustImport(tb testing.TB, c index.Component, lang string, us []index.ImportUnit) {
	tb.Helper()
	source := lang == "en"
	var last string
	e.db.r.QueryRowContext(context.Background(), `SELECT coalesce(max(timestamp), '') FROM changes`).Scan(&last)
	if formatTime(e.clock.t) < last {
		e.clamped++
	}
	res, err := e.db.ImportTranslation(context.Background(), index.TranslationImport{ComponentID: c.ID,
		LanguageCode: lang, Filename: lang + ".json", Revision: fmt.Sprint(e.clock.t.UnixNano()),
		IsSource: source, IsTemplate: source, Monolingual: true, Units: us})
	if err != nil {
		tb.Fatal(err)
	}
	e.tr[c.Slug+"/"+lang] = res.TranslationID
	// Each import ten seconds later, except that every third one the
	// clock steps back 15 seconds, as after an NTP correction.
	if e.n++; e.n%3 == 0 {
		e.clock.t = e.clock.t.Add(-15 * time.Second)
	} else {
		e.clock.t = e.clock.t.Add(10 * time.Second)
	}
}

// mustPagingEnv returns a copy of the paging fixture (buildPagingEnv),
// built once per engine and process: its build took 30-120 s on
// PostgreSQL at load 17-30, and four tests use it. Each copy is the
// index the same imports would have made (ids, counts and the clock
// included), opened anew, as after a restart.
func mustPagingEnv(tb testing.TB) *pagingEnv {
	tb.Helper()
	k := keptPagingEnv(tb)
	e := *k.env
	e.clock = &fakeClock{k.env.clock.t}
	e.tr = maps.Clone(k.env.tr)
	var err error
	if e.db, err = openCopy(tb, k.location, Options{Now: e.clock.now}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.db.Close() })
	return &e
}

// keptEnv is a paging fixture built and closed, and where its index is.
type keptEnv struct {
	env      *pagingEnv
	location string
}

// pagingEnvs are the built paging fixtures, by engine.
var pagingEnvs struct {
	mu sync.Mutex // guards by, and is held while one is built
	by map[string]keptEnv
}

// keptPagingEnv returns the engine's paging fixture, built by tb when
// this is its first use (and again after a build that failed).
func keptPagingEnv(tb testing.TB) keptEnv {
	tb.Helper()
	pagingEnvs.mu.Lock()
	defer pagingEnvs.mu.Unlock()
	if k, ok := pagingEnvs.by[testengine.Engine()]; ok {
		return k
	}
	clock := &fakeClock{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	db, location, err := openKept(tb, Options{Now: clock.now})
	if err != nil {
		tb.Fatal(err)
	}
	k := keptEnv{buildPagingEnv(tb, db, clock), location}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	if pagingEnvs.by == nil {
		pagingEnvs.by = map[string]keptEnv{}
	}
	pagingEnvs.by[testengine.Engine()] = k
	return k
}

// buildPagingEnv imports the paging fixture into db.
func buildPagingEnv(tb testing.TB, db *DB, clock *fakeClock) *pagingEnv {
	tb.Helper()
	ctx := context.Background()
	e := &pagingEnv{db: db, clock: clock, tr: map[string]int64{}}
	p, _, err := db.SaveProject(ctx, index.Project{Name: "P", Slug: "p"})
	if err != nil {
		tb.Fatal(err)
	}
	e.app = mustTestComponent(tb, db, p.ID, "app")
	e.lib = mustTestComponent(tb, db, p.ID, "lib")

	e.mustImport(tb, e.app, "en", keys(0, 2600, 1, "en"))
	e.mustImport(tb, e.lib, "en", keys(0, 900, 1, "en"))
	e.mustImport(tb, e.app, "de", keys(0, 1500, 1, "a"))     // created: one change
	e.mustImport(tb, e.lib, "de", keys(0, 300, 1, "a"))      //
	e.mustImport(tb, e.app, "de", keys(500, 2600, 1, "a"))   // removes 500, adds 1,100
	e.mustImport(tb, e.app, "fr", keys(0, 2600, 3, "a"))     //
	e.mustImport(tb, e.lib, "de", keys(0, 900, 1, "a"))      // adds 600
	e.mustImport(tb, e.app, "de", keys(500, 2600, 1, "b"))   // updates 2,100
	e.mustImport(tb, e.app, "de", keys(500, 2600, 2, "b"))   // removes half
	e.mustImport(tb, e.app, "fr", keys(1000, 2600, 2, "b"))  // removes, updates
	e.mustImport(tb, e.app, "de", keys(500, 3000, 1, "c"))   // adds back, updates
	e.mustImport(tb, e.app, "en", keys(100, 2600, 1, "en2")) // source: removes 100
	return e
}

// mustOtherProject adds project q with a component "other" of 50
// strings translated into German: the lists' hidden project.
func (e *pagingEnv) mustOtherProject(tb testing.TB) index.Project {
	tb.Helper()
	p, _, err := e.db.SaveProject(context.Background(), index.Project{Name: "Q", Slug: "q"})
	if err != nil {
		tb.Fatal(err)
	}
	other := mustTestComponent(tb, e.db, p.ID, "other")
	e.mustImport(tb, other, "en", keys(0, 50, 1, "en"))
	e.mustImport(tb, other, "de", keys(0, 50, 1, "a"))
	return p
}

// mustIDList runs a query of ids.
func mustIDList(tb testing.TB, q queryer, query string, args ...any) []int64 {
	tb.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// pagesToCheck returns every page number of a list of n items and the
// first one past the end, or when that is over all pages: the first two,
// a middle one, the last two, two past the end and 40 spread over the
// list, so that offsets fall on every side of bucket boundaries.
func pagesToCheck(n, size, all int) []int {
	last := lastPage(n, size)
	if last <= all {
		var pages []int
		for p := 1; p <= last+1; p++ {
			pages = append(pages, p)
		}
		return pages
	}
	pages := []int{1, 2, last / 2, last - 1, last, last + 1, last + 50}
	for i := 1; i <= 40; i++ {
		pages = append(pages, 1+(i*7919)%last)
	}
	return pages
}

// checkPages compares every page of find with want at every page size
// (up to 400 pages a size; past that, pagesToCheck's spread).
func checkPages(t *testing.T, name string, want []int64, find func(index.Page) ([]int64, int, error)) {
	t.Helper()
	checkPagesUpTo(t, name, want, find, 400)
}

// checkPagesSpread is checkPages for a list whose every page costs a
// search (a source substring, a unit query): all pages of a size up to
// 60, past that pagesToCheck's 47 spread over the list, as checkPages
// does past 400. Every page of size 7 and of size 1 up to 400 made a
// memory source substring check 335 searches and the test minutes long
// on a loaded machine; sizes of up to 60 pages still read every page,
// and their pages concatenated are the list.
func checkPagesSpread(t *testing.T, name string, want []int64, find func(index.Page) ([]int64, int, error)) {
	t.Helper()
	checkPagesUpTo(t, name, want, find, 60)
}

func checkPagesUpTo(t *testing.T, name string, want []int64, find func(index.Page) ([]int64, int, error), all int) {
	t.Helper()
	checkPagesAt(t, name, want, find, func(size int) []int { return pagesToCheck(len(want), size, all) })
}

// checkPagesAt compares the pages of find that pages gives at each page
// size with want, and when they are every page and the one past the
// end, their concatenation with want.
func checkPagesAt(t *testing.T, name string, want []int64, find func(index.Page) ([]int64, int, error),
	pages func(size int) []int) {
	t.Helper()
	for _, size := range pageSizes {
		var got []int64
		numbers := pages(size)
		for _, number := range numbers {
			page, total, err := find(index.Page{Number: number, Size: size})
			if err != nil {
				t.Fatalf("%s size %d page %d: %v", name, size, number, err)
			}
			off := (number - 1) * size
			w := want[min(off, len(want)):min(off+size, len(want))]
			if total != len(want) || !slices.Equal(page, w) {
				t.Fatalf("%s size %d page %d: got %v (total %d), want %v (total %d)",
					name, size, number, short(page), total, short(w), len(want))
			}
			got = append(got, page...)
		}
		if len(numbers) > lastPage(len(want), size) && !slices.Equal(got, want) {
			t.Fatalf("%s size %d: pages concatenated differ from the list", name, size)
		}
	}
}

func short(ids []int64) string {
	if len(ids) <= 6 {
		return fmt.Sprint(ids)
	}
	return fmt.Sprintf("%v…%v (%d)", ids[:3], ids[len(ids)-3:], len(ids))
}

func unitPage(db *DB, f index.UnitFilter) func(index.Page) ([]int64, int, error) {
	return func(p index.Page) ([]int64, int, error) {
		f.Page = p
		us, total, err := db.FindUnits(context.Background(), f)
		ids := []int64{}
		for _, u := range us {
			ids = append(ids, u.ID)
		}
		return ids, total, err
	}
}

func changePage(db *DB, f index.ChangeFilter) func(index.Page) ([]int64, int, error) {
	return func(p index.Page) ([]int64, int, error) {
		f.Page = p
		cs, total, err := db.FindChanges(context.Background(), f)
		ids := []int64{}
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
		return ids, total, err
	}
}

// checkAllLists checks every counted list of the index, and a few
// filtered ones, against the truth, and list_counts against a recount.
func (e *pagingEnv) checkAllLists(t *testing.T) {
	t.Helper()
	db, q := e.db, e.db.r
	checkListCounts(t, db)
	checkUnitLists(t, db)

	checkPages(t, "all changes", mustIDList(t, q, `SELECT id FROM changes ORDER BY timestamp, id`),
		changePage(db, index.ChangeFilter{}))
	for _, scope := range []struct{ name, column string }{
		{"translation", "translation_id"}, {"component", "component_id"}, {"project", "project_id"}, {"unit", "unit_id"},
	} {
		ids := mustIDList(t, q, `SELECT DISTINCT `+scope.column+` FROM changes WHERE `+scope.column+` IS NOT NULL ORDER BY 1`)
		if scope.name == "unit" && len(ids) > 40 {
			ids = ids[:40]
		}
		for _, id := range ids {
			f := index.ChangeFilter{}
			switch scope.name {
			case "translation":
				f.TranslationID = id
			case "component":
				f.ComponentID = id
			case "project":
				f.ProjectID = id
			case "unit":
				f.UnitID = id
			}
			checkPages(t, fmt.Sprintf("changes of %s %d", scope.name, id),
				mustIDList(t, q, `SELECT id FROM changes WHERE `+scope.column+` = ? ORDER BY timestamp, id`, id),
				changePage(db, f))
		}
	}
	// A filtered list takes the other path; it must agree too.
	de := e.tr["app/de"]
	checkPages(t, "string-added changes of app/de", mustIDList(t, q, `SELECT id FROM changes
		WHERE translation_id = ? AND action = ? ORDER BY timestamp, id`, de, index.ActionStringRepoAdd),
		changePage(db, index.ChangeFilter{TranslationID: de, Actions: []index.Action{index.ActionStringRepoAdd}}))
}

func checkUnitLists(t *testing.T, db *DB) {
	t.Helper()
	q := db.r
	checkPages(t, "all units", mustIDList(t, q, `SELECT id FROM units ORDER BY id`), unitPage(db, index.UnitFilter{}))
	for _, tr := range mustIDList(t, q, `SELECT id FROM translations ORDER BY id`) {
		checkPages(t, fmt.Sprintf("units of translation %d", tr),
			mustIDList(t, q, `SELECT id FROM units WHERE translation_id = ? ORDER BY id`, tr),
			unitPage(db, index.UnitFilter{TranslationID: tr}))
		checkPagesSpread(t, fmt.Sprintf("units of translation %d matching k01", tr),
			mustIDList(t, q, `SELECT id FROM units WHERE translation_id = ? AND context LIKE '%k01%' ORDER BY id`, tr),
			unitPage(db, index.UnitFilter{TranslationID: tr, Query: "key:k01"}))
	}
}

// checkListCounts compares list_counts with a recount of the rows.
func checkListCounts(t *testing.T, db *DB) {
	t.Helper()
	read := func(query string) []string {
		rows, err := db.r.QueryContext(context.Background(), query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var list string
			var scope, bucket, n int64
			if err := rows.Scan(&list, &scope, &bucket, &n); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s/%d/%d=%d", list, scope, bucket, n))
		}
		slices.Sort(out)
		return out
	}
	got, want := read(`SELECT list, scope, bucket, n FROM list_counts`), read(listRecount)
	if !slices.Equal(got, want) {
		t.Fatalf("list_counts differ from a recount:\n got  %s\n want %s",
			strings.Join(got, " "), strings.Join(want, " "))
	}
}

// TestPagesMatchOffsetOrder holds every list's pages to the offset
// order, and FindChanges' time bounds to the change ids, under the
// fixture's backward clock: both only read the paging fixture, which
// they share (building it took 60-210 s on PostgreSQL at load 20-30).
func TestPagesMatchOffsetOrder(t *testing.T) {
	e := mustPagingEnv(t)
	var n int
	e.db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM changes WHERE unit_id IS NULL AND action IN (59, 71)`).Scan(&n)
	if n == 0 {
		t.Fatal("no changes of removed units: the fixture does not exercise ON DELETE SET NULL")
	}
	e.checkAllLists(t)
	t.Run("ChangeOrderUnderABackwardClock", func(t *testing.T) { checkChangeOrder(t, e) })
}

func TestPagesAfterCascadingDeletes(t *testing.T) {
	e := mustPagingEnv(t)
	ctx := context.Background()
	// No API deletes yet; delete as one would, relying on the cascades.
	for _, del := range []string{
		`DELETE FROM translations WHERE id = ` + itoa(e.tr["app/fr"]),
		`DELETE FROM components WHERE id = ` + itoa(e.lib.ID),
	} {
		if _, err := e.db.wdb.ExecContext(ctx, del); err != nil {
			t.Fatal(err)
		}
		// A write outside the store's methods: what it cached is stale.
		e.db.clock.advance(touchSet{everything: true})
		e.checkAllLists(t)
	}
	var stale int
	e.db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM list_counts WHERE (list = 'ut' AND scope IN (?, ?)) OR (list = 'cc' AND scope = ?)`,
		e.tr["app/fr"], e.tr["lib/de"], e.lib.ID).Scan(&stale)
	if stale != 0 {
		t.Errorf("%d list_counts rows left for deleted scopes", stale)
	}
	// Writing goes on as before after the deletes.
	e.mustImport(t, e.app, "fr", keys(0, 1200, 1, "again"))
	e.mustImport(t, e.app, "de", keys(0, 3000, 2, "again"))
	e.checkAllLists(t)
}

// checkChangeOrder: FindChanges' time bounds under the paging
// fixture's backward clock.
func checkChangeOrder(t *testing.T, e *pagingEnv) {
	q := e.db.r
	// The invariant FindChanges rests on: timestamps never decrease in id
	// order, though the clock went back a minute several times.
	byID := mustIDList(t, q, `SELECT id FROM changes ORDER BY id`)
	byTime := mustIDList(t, q, `SELECT id FROM changes ORDER BY timestamp, id`)
	if !slices.Equal(byID, byTime) {
		t.Fatal("change ids and timestamps disagree in order")
	}
	var stamps []string
	rows, _ := q.QueryContext(context.Background(), `SELECT DISTINCT timestamp FROM changes ORDER BY timestamp`)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		stamps = append(stamps, s)
	}
	rows.Close()
	if len(stamps) < 4 || e.clamped < 2 {
		t.Fatalf("fixture: %d distinct timestamps, %d imports with the clock behind", len(stamps), e.clamped)
	}
	// Time bounds: at, just before and just after every timestamp.
	var bounds []time.Time
	for _, s := range stamps {
		ts := parseTime(s)
		bounds = append(bounds, ts, ts.Add(-time.Microsecond), ts.Add(time.Microsecond))
	}
	bounds = append(bounds, time.Time{})
	de := e.tr["app/de"]
	// A filter on the action takes the uncounted path, whose time bounds
	// are id bounds as well: every action there is (the same changes), or
	// the most common one.
	var actions []index.Action
	rows, _ = q.QueryContext(context.Background(), `SELECT action FROM changes GROUP BY action ORDER BY count(*) DESC`)
	for rows.Next() {
		var a index.Action
		rows.Scan(&a)
		actions = append(actions, a)
	}
	rows.Close()
	if len(actions) < 2 {
		t.Fatalf("fixture: actions %v", actions)
	}
	for i, after := range bounds {
		for j, before := range []time.Time{{}, bounds[(i*7+3)%len(bounds)], bounds[(i*5+11)%len(bounds)]} {
			for _, tr := range []int64{0, de} {
				f := index.ChangeFilter{TranslationID: tr, After: after, Before: before}
				query, args := `SELECT id FROM changes WHERE (? = 0 OR translation_id = ?)`, []any{tr, tr}
				switch (i + j) % 3 {
				case 1:
					f.Actions = actions
				case 2:
					f.Actions = actions[:1]
					query, args = query+` AND action = ?`, append(args, actions[0])
				}
				if !after.IsZero() {
					query, args = query+` AND timestamp > ?`, append(args, formatTime(after))
				}
				if !before.IsZero() {
					query, args = query+` AND timestamp < ?`, append(args, formatTime(before))
				}
				want := mustIDList(t, q, query+` ORDER BY timestamp, id`, args...)
				for _, size := range pageSizes {
					last := max(1, (len(want)+size-1)/size)
					for _, number := range []int{1, last / 2, last, last + 1} {
						if number < 1 {
							continue
						}
						f.Page = index.Page{Number: number, Size: size}
						got, total, err := changePage(e.db, f)(f.Page)
						off := (number - 1) * size
						w := want[min(off, len(want)):min(off+size, len(want))]
						if err != nil || total != len(want) || !slices.Equal(got, w) {
							t.Fatalf("after %v before %v translation %d size %d page %d: got %s (total %d, %v), want %s (total %d)",
								after, before, tr, size, number, short(got), total, err, short(w), len(want))
						}
					}
				}
			}
		}
	}
}

// TestMigrationFromInitialSchema opens a database that only migration 0001
// created, with changes recorded under a clock that went backwards, and
// checks that 0002 counts the existing rows and repairs the order.
func TestMigrationFromInitialSchema(t *testing.T) {
	if testengine.Engine() != testengine.SQLite {
		t.Skip("a SQLite file from before migration 0002")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	body, err := sqliteMigrations.ReadFile("migrations/sqlite/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE migrations (name TEXT PRIMARY KEY, applied TEXT NOT NULL)`,
		string(body),
		`INSERT INTO migrations VALUES ('migrations/0001_init.sql', '2026-01-01T00:00:00.000000Z')`,
		`INSERT INTO projects (id, slug, name) VALUES (1, 'p', 'P'), (2, 'q', 'Q')`,
		`INSERT INTO components (id, project_id, slug, name, source_language, settings)
			VALUES (1, 1, 'app', 'App', 'en', '{}'), (2, 2, 'lib', 'Lib', 'en', '{}')`,
		`INSERT INTO translations (id, component_id, language_code) VALUES (1, 1, 'en'), (2, 1, 'de'), (3, 2, 'de')`,
		// 3,000 units spread over the translations, ids with gaps.
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
			INSERT INTO units (id, translation_id, position, context, id_hash, content_hash, state, timestamp)
			SELECT i * 2, 1 + i % 3, i, 'k' || i, i, i, 20, '2026-01-01T00:00:00.000000Z' FROM n`,
		// 2,500 changes whose timestamps go back an hour at every 700th.
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
			INSERT INTO changes (id, action, timestamp, project_id, component_id, translation_id, unit_id)
			SELECT i, 71, strftime('%Y-%m-%dT%H:%M:%f000Z', '2026-01-01', (i - 3600 * (i / 700)) || ' seconds'),
				1 + (1 + i % 3) / 3, 1 + (1 + i % 3) / 3, 1 + i % 3, CASE WHEN i % 5 = 0 THEN NULL ELSE 2 * (1 + i % 3000) END
			FROM n`,
	} {
		if _, err := raw.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%.60s: %v", stmt, err)
		}
	}
	var unordered int
	raw.QueryRow(`SELECT count(*) FROM changes a JOIN changes b ON b.id = a.id + 1 WHERE b.timestamp < a.timestamp`).Scan(&unordered)
	if unordered == 0 {
		t.Fatal("fixture: changes already in order")
	}
	raw.Close()

	db, err := Open(ctx, Options{Engine: SQLite, Location: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	byID := mustIDList(t, db.r, `SELECT id FROM changes ORDER BY id`)
	byTime := mustIDList(t, db.r, `SELECT id FROM changes ORDER BY timestamp, id`)
	if !slices.Equal(byID, byTime) {
		t.Fatal("migration left change timestamps out of id order")
	}
	checkListCounts(t, db)
	checkUnitLists(t, db)
	checkPages(t, "all changes", byTime, changePage(db, index.ChangeFilter{}))
	for _, f := range []index.ChangeFilter{{TranslationID: 2}, {ComponentID: 2}, {ProjectID: 1}, {UnitID: 4}} {
		want := mustIDList(t, db.r, `SELECT id FROM changes WHERE (translation_id = ?1 OR ?1 = 0)
			AND (component_id = ?2 OR ?2 = 0) AND (project_id = ?3 OR ?3 = 0) AND (unit_id = ?4 OR ?4 = 0)
			ORDER BY timestamp, id`, f.TranslationID, f.ComponentID, f.ProjectID, f.UnitID)
		checkPages(t, fmt.Sprintf("changes %+v", f), want, changePage(db, f))
	}
}

// TestKeysetQueryPlans guards the costs FindUnits and FindChanges promise:
// every query of a counted list seeks an index and reads none in full,
// and none sorts.
func TestKeysetQueryPlans(t *testing.T) {
	db := mustPagingFixtureUnanalyzed(t, 10, 10).db
	lists := []keyList{
		{list: "ut", allScopes: true, from: "units", id: "id", hi: noBound},
		{list: "ut", scope: 1, from: "units", id: "id", where: " WHERE translation_id = ?", args: []any{1}, hi: noBound},
		changeList(index.ChangeFilter{}), changeList(index.ChangeFilter{TranslationID: 1}),
		changeList(index.ChangeFilter{ComponentID: 1}), changeList(index.ChangeFilter{ProjectID: 1}),
		changeList(index.ChangeFilter{UnitID: 1}),
		suggestionList(index.SuggestionFilter{}), suggestionList(index.SuggestionFilter{UnitID: 1}),
	}
	for _, l := range lists {
		l.hi = 5000
		cond, args, order := l.page(3)
		for _, q := range []struct {
			text string
			args []any
		}{
			{`SELECT ` + l.id + ` FROM ` + l.from + l.and() + l.id + ` >= ? ORDER BY ` + l.id + ` LIMIT 1 OFFSET ?`,
				withArgs(l.args, 3, 1)},
			{`SELECT count(*) FROM ` + l.from + l.and() + l.id + ` >= ? AND ` + l.id + ` < ?`, withArgs(l.args, 3, 1000)},
			{`SELECT * FROM ` + l.from + cond + order + ` LIMIT 50`, args},
		} {
			if plan, ok := explain(t, db, q.text, q.args...); !ok.seeks || !ok.sortless {
				t.Errorf("%s/%d: %s\n%s", l.list, l.scope, q.text, plan)
			}
		}
	}
	for _, q := range []struct {
		text string
		args []any
	}{
		{`SELECT id FROM changes WHERE timestamp > ? ORDER BY timestamp, id LIMIT 1`, []any{"x"}},
		{`SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1`, nil},
	} {
		if plan, ok := explain(t, db, q.text, q.args...); !ok.sortless {
			t.Errorf("%s\n%s", q.text, plan)
		}
	}
}

// planTraits is what TestKeysetQueryPlans asks of a plan.
type planTraits struct {
	seeks    bool // it reads every table through an index, and only the rows it wants
	sortless bool // it sorts nothing: an index gives the order
}

// explain returns the plan of query on the engine under test, and its
// traits. On PostgreSQL the plan is the one chosen with sequential and
// bitmap scans and sorts priced out: the test's tables are too small for
// the planner to prefer an ordered index scan on its own, and what is
// checked is that an index serves the query, filter and order both (a
// plan that still scans or sorts has no index that could).
func explain(t *testing.T, db *DB, query string, args ...any) (string, planTraits) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.beginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	explain := "EXPLAIN QUERY PLAN "
	if testengine.Engine() == testengine.Postgres {
		explain = "EXPLAIN "
		for _, off := range []string{"enable_seqscan", "enable_bitmapscan", "enable_sort"} {
			if _, err := tx.tx.ExecContext(ctx, "SET LOCAL "+off+" = off"); err != nil {
				t.Fatal(err)
			}
		}
	}
	rows, err := tx.QueryContext(ctx, explain+query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	plan := planText(t, rows)
	if testengine.Engine() == testengine.Postgres {
		// A Filter reads rows of the index only to throw them away.
		seeks := !strings.Contains(plan, "Seq Scan") && !strings.Contains(plan, "Filter:")
		return plan, planTraits{seeks: seeks, sortless: !strings.Contains(plan, "Sort")}
	}
	return plan, planTraits{seeks: strings.HasPrefix(plan, "SEARCH"), sortless: !strings.Contains(plan, "TEMP B-TREE")}
}

// planText is the plan an EXPLAIN (PostgreSQL) or EXPLAIN QUERY PLAN
// (SQLite, whose rows carry the detail in their fourth column) answered,
// a line per row.
func planText(t *testing.T, rows *sql.Rows) string {
	t.Helper()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		var detail string
		dest := []any{&detail}
		if len(cols) == 4 { // SQLite: id, parent, notused, detail
			dest = []any{new(int), new(int), new(int), &detail}
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
