package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// importTerms imports a glossary's source strings (read-only, as a
// TBX's source language) into component c as its en translation.
func (f *writeFixture) importTerms(tb testing.TB, c index.Component, terms ...[]string) {
	tb.Helper()
	imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: "en", Filename: "en.json", Revision: "r2",
		Monolingual: true, IsSource: true, IsTemplate: true}
	for i, term := range terms {
		imp.Units = append(imp.Units, index.ImportUnit{Context: "t" + string(rune('a'+i)), Source: term,
			Target: term, State: index.StateReadOnly})
	}
	if _, err := f.db.ImportTranslation(context.Background(), imp); err != nil {
		tb.Fatal(err)
	}
}

// glossaryKeys runs the upkeep step, then searches the app's German
// units with q and returns their keys.
func (f *writeFixture) glossaryKeys(tb testing.TB, q string) string {
	tb.Helper()
	return f.glossaryKeysIn(tb, "de", q)
}

// glossaryKeysIn is glossaryKeys in a language.
func (f *writeFixture) glossaryKeysIn(tb testing.TB, lang, q string) string {
	tb.Helper()
	if _, err := f.db.IndexTrigrams(context.Background()); err != nil {
		tb.Fatal(err)
	}
	var keys []string
	for _, k := range f.searchAll(tb, "component:app language:"+lang+" ("+q+")") {
		keys = append(keys, strings.TrimPrefix(k, lang+"/"))
	}
	slices.Sort(keys)
	return strings.Join(keys, " ")
}

// TestHasGlossary: has:glossary finds the units whose source holds a
// term of their project's glossaries, ignoring case, as whole words (the
// reference's boundaries), through NOT, AND and OR; another project's
// glossary counts for nothing; a term added, changed or removed, a
// source string changed, and a glossary component made an ordinary one
// change the answer once the upkeep step ran.
func TestHasGlossary(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	// The app's sources are "Word number 0" to "Word number 9".
	gl, _ := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "NUMBER 2", "NUMBER 2"}, {"b", "word number 5", "word number 5"}, {"c", "numb", "numb"},
			{"d", "number 8 more", "number 8 more"}},
	})
	// Another project's glossary holds "number 7".
	q, _, err := f.db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"})
	if err != nil {
		t.Fatal(err)
	}
	other := &writeFixture{db: f.db, comp: index.Component{ProjectID: q.ID}, user: f.user}
	other.importComponent(t, "qglossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "number 7", "number 7"}},
	})

	for _, tc := range []struct{ q, want string }{
		{"has:glossary", "k2 k5"},
		{"NOT has:glossary", "k0 k1 k3 k4 k6 k7 k8 k9"},
		{"has:glossary AND state:translated", "k2"},
		{"has:glossary OR context:k9", "k2 k5 k9"},
		{"NOT (has:glossary OR context:k0)", "k1 k3 k4 k6 k7 k8 k9"},
	} {
		if got := f.glossaryKeys(t, tc.q); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.q, got, tc.want)
		}
	}
	// Unscoped, the count is glossary_matches' (countGlossary), alone
	// and as NOT's complement: searchAll holds it to the page's units.
	all := len(f.searchAll(t, "id:>=0"))
	has, not := len(f.searchAll(t, "has:glossary")), len(f.searchAll(t, "NOT has:glossary"))
	if has == 0 || not == 0 || has+not != all {
		t.Errorf("unscoped: has:glossary %d + NOT has:glossary %d, want %d", has, not, all)
	}
	// And within an id range (id terms ANDed), as tolk-bench asks.
	mid := f.unit(t, "de", 5).ID
	upper := len(f.searchAll(t, "id:>="+strconv.FormatInt(mid, 10)))
	has = len(f.searchAll(t, "has:glossary AND id:>="+strconv.FormatInt(mid, 10)))
	not = len(f.searchAll(t, "NOT has:glossary AND id:>="+strconv.FormatInt(mid, 10)))
	if has == 0 || not == 0 || has+not != upper {
		t.Errorf("id:>=%d: has:glossary %d + NOT has:glossary %d, want %d", mid, has, not, upper)
	}
	// The glossary's own terms hold themselves; the other project's
	// units are not the app's.
	if got := f.searchAll(t, "project:p component:glossary has:glossary"); len(got) != 4 {
		t.Errorf("the glossary's own terms: %q", got)
	}
	if got := f.searchAll(t, "project:q has:glossary"); len(got) != 1 {
		t.Errorf("project q: %q", got)
	}
	// Units without a source unit are their own (fr k0 and k2): matched
	// by the project's refresh, and NOT has:glossary keeps those that
	// hold no term (NULL IN (…) is no answer).
	if err := f.db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`UPDATE units SET source_unit_id = NULL WHERE id IN (?, ?)`,
			f.unit(t, "fr", 0).ID, f.unit(t, "fr", 2).ID); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM glossary_sums`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.glossaryKeysIn(t, "fr", "has:glossary"); got != "k2 k5" {
		t.Errorf("fr has:glossary: %q, want k2 k5", got)
	}
	if got := f.glossaryKeysIn(t, "fr", "NOT has:glossary"); got != "k0 k1 k3 k4 k6 k7 k8 k9" {
		t.Errorf("fr NOT has:glossary: %q", got)
	}
	checkAllCounts(t, f.db)
	// VerifyCounts finds a row the matcher would not write, and a
	// translation unit's row (migration 0070) missing; each undone.
	exec := func(q string, id int64) {
		t.Helper()
		if err := f.db.write(ctx, func(tx *Tx) error {
			_, err := tx.Exec(q, id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	const add, remove = `INSERT INTO glossary_matches (unit_id) VALUES (?)`, `DELETE FROM glossary_matches WHERE unit_id = ?`
	for _, tc := range []struct {
		what     string
		do, undo string
		id       int64
	}{
		{"a wrong row", add, remove, f.unit(t, "en", 0).ID},
		{"a translation unit's row missing", remove, add, f.unit(t, "de", 2).ID},
	} {
		exec(tc.do, tc.id)
		if problems, err := f.db.VerifyCounts(ctx); err != nil || len(problems) != 1 ||
			!strings.Contains(problems[0], "glossary_matches: 1 units matched wrong") {
			t.Errorf("VerifyCounts with %s: %q, %v", tc.what, problems, err)
		}
		exec(tc.undo, tc.id)
	}

	// A term changed ("NUMBER 2" is now "number 3") and one removed.
	f.importTerms(t, gl, []string{"number 3"}, []string{"numb"}, []string{"number 8 more"})
	if got := f.glossaryKeys(t, "has:glossary"); got != "k3" {
		t.Errorf("after the terms' change: %q, want k3", got)
	}
	// A term's plural forms each count.
	f.importTerms(t, gl, []string{"number 3"}, []string{"number 4", "number 6"})
	if got := f.glossaryKeys(t, "has:glossary"); got != "k3 k4 k6" {
		t.Errorf("with a plural term: %q, want k3 k4 k6", got)
	}
	// A source string changed: the app's en k1 now says "number 3 too".
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "en", Filename: "en.json", Revision: "r2",
		Monolingual: true, IsSource: true, IsTemplate: true}
	for i := range 10 {
		src := "Word number " + string(rune('0'+i))
		if i == 1 {
			src = "Word, number 3 too"
		}
		imp.Units = append(imp.Units, index.ImportUnit{Context: "k" + string(rune('0'+i)), Source: []string{src},
			Target: []string{src}, State: index.StateReadOnly})
	}
	if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if got := f.glossaryKeys(t, "has:glossary"); got != "k1 k3 k4 k6" {
		t.Errorf("after the source's change: %q, want k1 k3 k4 k6", got)
	}
	checkAllCounts(t, f.db)
	// No longer a glossary: no terms.
	gl.IsGlossary = false
	if _, _, err := f.db.SaveComponent(ctx, gl); err != nil {
		t.Fatal(err)
	}
	if got := f.glossaryKeys(t, "has:glossary"); got != "" {
		t.Errorf("without a glossary: %q", got)
	}
	checkAllCounts(t, f.db)
}

// TestGlossaryDependentsPlan: on PostgreSQL the upkeep's read of noted
// source units' translation units (readDependents) runs as index probes
// per source unit in the generic plan a cached statement runs: no scan
// and no hash of units
// (the UNION ALL it replaced took 3–9 s an execution on the benchmark's
// import). It also finds each translation unit once.
func TestGlossaryDependentsPlan(t *testing.T) {
	// Statistics taken before the import, as a step's plan made while
	// an import runs: of the units, and of the notes while none are left.
	f, conn := indexedPlanFixture(t, `ANALYZE unit_trigrams_pending`)
	ctx := context.Background()
	const units = 300
	langs := map[string][][3]string{}
	for _, lang := range []string{"en", "de", "fr", "cs"} {
		for i := range units {
			k := fmt.Sprintf("k%d", i)
			langs[lang] = append(langs[lang], [3]string{k, "Word " + k, lang + " " + k})
		}
	}
	_, tr := f.importComponent(t, "deps", func(*index.Component) {}, langs)
	var ids []int64
	err := f.db.write(ctx, func(tx *Tx) (err error) {
		ids, err = queryIDs(tx, `SELECT id FROM units WHERE translation_id = ? ORDER BY id`, tr["en"])
		return err
	})
	if err != nil || len(ids) != units {
		t.Fatalf("%d source units (%v), want %d", len(ids), err, units)
	}
	prepare, _ := PostgresSQL(pgGlossaryDependents, nil)
	for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE deps AS ` + prepare} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer conn.ExecContext(ctx, `DEALLOCATE deps; RESET plan_cache_mode`)
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = fmt.Sprint(id)
	}
	rows, err := conn.QueryContext(ctx, `EXPLAIN (COSTS OFF) EXECUTE deps('{`+strings.Join(list, ",")+`}')`)
	if err != nil {
		t.Fatal(err)
	}
	plan := planText(t, rows)
	if strings.Contains(plan, "Seq Scan on units") || strings.Contains(plan, "Hash") ||
		!strings.Contains(plan, "units_translation_hash") {
		t.Errorf("the generic plan scans or hashes units, or does not probe units_translation_hash:\n%s", plan)
	}
	// The notes are read apart (pgLeaveNoted): with their statistics
	// taken while there were none, the anti-join's generic plan read the
	// whole list for each unit (auto_explain in AutoTranslateJellyfin,
	// session 8: 2,446 notes × 1,000 units, 4.3 s an execution at load 30).
	if strings.Contains(plan, "unit_trigrams_pending") {
		t.Errorf("the generic plan reads the notes per dependent:\n%s", plan)
	}
	// The fixture's units are noted until the step runs: index them, so
	// that every translation unit counts.
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	var deps, noted [][2]int64
	err = f.db.write(ctx, func(tx *Tx) (err error) {
		if deps, err = readDependents(tx, ids); err != nil || len(deps) == 0 {
			return err
		}
		// A unit noted itself is left to its own batch.
		if _, err := tx.Exec(`INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (?, 0)`,
			deps[0][0]); err != nil {
			return err
		}
		noted, err = readDependents(tx, ids)
		return err
	})
	seen := map[int64]bool{}
	for _, d := range deps {
		seen[d[0]] = true
	}
	if err != nil || len(deps) != 3*units || len(seen) != 3*units {
		t.Fatalf("readDependents found %d pairs, %d units (%v), want %d", len(deps), len(seen), err, 3*units)
	}
	if len(noted) != 3*units-1 || slices.ContainsFunc(noted, func(d [2]int64) bool { return d[0] == deps[0][0] }) {
		t.Errorf("with unit %d noted, readDependents found %d pairs, want the %d others", deps[0][0], len(noted),
			3*units-1)
	}
}

// analyzedConn is a connection of db's, closed when t ends, after the
// statistics of units are taken (ANALYZE): a plan test's generic plans
// see the units imported after it as a running index's plans do.
// indexedPlanFixture is the write fixture on PostgreSQL (other engines
// skip) with its trigram index built and analyze run on a connection of
// analyzedConn's, for a test of the plans the step or the verifier run.
func indexedPlanFixture(t *testing.T, analyze string) (*writeFixture, *sql.Conn) {
	t.Helper()
	if testengine.Engine() != testengine.Postgres {
		t.Skip("a PostgreSQL plan")
	}
	f := mustWriteFixture(t)
	ctx := context.Background()
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	conn := analyzedConn(t, f.db)
	if _, err := conn.ExecContext(ctx, analyze); err != nil {
		t.Fatal(err)
	}
	return f, conn
}

func analyzedConn(t *testing.T, db *DB) *sql.Conn {
	t.Helper()
	conn, err := db.rdb.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(context.Background(), `ANALYZE units`); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestGlossaryRematchThrottled: the step compares the term lists again
// only after a write that may have moved one (glossaryMoved): an edit of
// another translation does not, a term added by a narrow write (AddUnit
// to the glossary's source translation) and a write that touches
// everything do; and the step, on its own (no IndexTrigrams), matches
// the added term.
func TestGlossaryRematchThrottled(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	_, gl := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "number 2", "number 2"}},
	})
	if got := f.glossaryKeys(t, "has:glossary"); got != "k2" {
		t.Fatalf("has:glossary: %q, want k2", got)
	}
	if f.db.glossaryMoved() {
		t.Error("moved right after a comparison")
	}
	f.setTarget(t, "de", 1, "Wort eins")
	if unitsDep(f.tr["de"]) != unitsDep(gl["en"]) && f.db.glossaryMoved() {
		t.Error("moved after an edit of another translation")
	}
	if _, err := f.db.AddUnit(ctx, gl["en"], f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{Context: "b", Source: []string{"number 4"}, Target: []string{"number 4"},
			State: index.StateReadOnly}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !f.db.glossaryMoved() {
		t.Error("not moved after a term was added")
	}
	// The step runs once the writes pause (trigramQuiet), notes first.
	deadline := time.Now().Add(20 * time.Second)
	for {
		keys := strings.Join(f.searchAll(t, "component:app language:de has:glossary"), " ")
		if keys == "de/k2 de/k4" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the step did not match the added term: %q", keys)
		}
		time.Sleep(20 * time.Millisecond)
	}
	checkAllCounts(t, f.db)
	// A write that touches everything.
	if err := f.db.write(ctx, func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if !f.db.glossaryMoved() {
		t.Error("not moved after a write that touches everything")
	}
}

// TestVerifyGlossaryPlan: on PostgreSQL VerifyCounts' read of the units
// for has:glossary's rows (verifyGlossaryMatches) reads each table once,
// even with statistics taken while the upkeep's tables were empty: no
// subplan, no filter run per row (its EXISTS subqueries were planned as
// a scan of glossary_matches per unit and a loop over every noted unit
// per unit).
func TestVerifyGlossaryPlan(t *testing.T) {
	_, conn := indexedPlanFixture(t, `ANALYZE unit_trigrams_pending, glossary_matches, translations, components`)
	ctx := context.Background()
	q, _ := PostgresSQL(verifyGlossaryMatches, nil)
	rows, err := conn.QueryContext(ctx, `EXPLAIN (COSTS OFF) `+q)
	if err != nil {
		t.Fatal(err)
	}
	// components × translations may loop: a few rows each.
	plan := planText(t, rows)
	bad := strings.Contains(plan, "SubPlan") || strings.Contains(plan, "unit_trigrams_pending") ||
		strings.Contains(plan, "glossary_matches")
	for _, line := range strings.Split(plan, "\n") {
		if strings.Contains(line, "Filter") && (strings.Contains(line, "u.") || strings.Contains(line, "s.")) {
			bad = true
		}
	}
	if bad {
		t.Errorf("the plan runs a subplan, or a filter per unit:\n%s", plan)
	}
}

// TestRelinkNotesGlossary: a re-import that links a translation's unit
// to a source unit that already existed, unchanged (the unit had none:
// a bilingual file's string the template lacked when it was read, or a
// file that did not parse while the template gained it), notes the unit
// for the step, which matches it against its new source unit's source:
// VerifyCounts finds no stale row.
func TestRelinkNotesGlossary(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "number 2", "number 2"}},
	})
	imp := func(lang string, src map[string]string) {
		t.Helper()
		in := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: lang, Filename: lang + ".json",
			Revision: "r" + fmt.Sprint(len(src)), Monolingual: true, IsSource: lang == "en", IsTemplate: lang == "en",
			SourceTranslationID: f.tr["en"]}
		for _, k := range slices.Sorted(maps.Keys(src)) {
			in.Units = append(in.Units, index.ImportUnit{Context: k, Source: []string{src[k]},
				Target: []string{src[k]}, State: index.StateTranslated})
		}
		if _, err := f.db.ImportTranslation(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	step := func(when string) {
		t.Helper()
		if _, err := f.db.IndexTrigrams(ctx); err != nil {
			t.Fatal(err)
		}
		problems, err := f.db.VerifyCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", when, p)
		}
	}
	en := map[string]string{}
	for i := range 10 {
		en[fmt.Sprintf("k%d", i)] = fmt.Sprintf("Word number %d", i)
	}
	// German holds x, which the template lacks: matched on its own text.
	de := maps.Clone(en)
	de["x"] = "Other text"
	imp("de", de)
	step("German's own x")
	// The template gains x, whose source holds the term; German is not
	// read again yet.
	en["x"] = "See number 2 here"
	imp("en", en)
	step("the template's x")
	// German read again, unchanged: x is linked to the template's x.
	imp("de", de)
	step("German read again")
	if got := f.glossaryKeys(t, "has:glossary"); got != "k2 x" {
		t.Errorf("has:glossary: %q, want k2 x", got)
	}
}

// TestGlossaryRefreshInParts: a project's refresh after its terms moved
// writes in parts of about glossaryUnits units (refreshProjectGlossary),
// so an edit queued while a part runs is answered before the refresh
// has matched the component's strings (one write per source
// translation, as before, answered it after them all: set glossaryUnits
// past the component's 1,000 units and this fails); between the parts
// each string's units in every language agree, and the rows are exact
// once it ends. A list that moves during the refresh stops it unrecorded,
// and the next run makes the rows exact.
func TestGlossaryRefreshInParts(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	gl, _ := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "number 2", "number 2"}},
	})
	const strs = 200
	langs := map[string][][3]string{}
	for _, lang := range []string{"en", "de", "fr", "cs", "it"} {
		for i := range strs {
			k := fmt.Sprintf("s%d", i)
			langs[lang] = append(langs[lang], [3]string{k, fmt.Sprintf("Item %d here", i), lang + " " + k})
		}
	}
	_, tr := f.importComponent(t, "big", func(*index.Component) {}, langs)
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	f.db.trigrams.hold() // the refreshes below are the test's own
	f.db.trigrams.glossaryUnits = 100

	// matched reads, outside the writer, how many of big's strings have
	// rows; every string's five units must agree.
	matched := func() (int, error) {
		rows, err := f.db.r.QueryContext(ctx, `SELECT COALESCE(u.source_unit_id, u.id), count(*) FROM units u
			JOIN translations t ON t.id = u.translation_id JOIN glossary_matches g ON g.unit_id = u.id
			WHERE t.component_id = (SELECT component_id FROM translations WHERE id = ?) GROUP BY 1`, tr["en"])
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var src, units int64
			if err := rows.Scan(&src, &units); err != nil {
				return 0, err
			}
			if units != 5 {
				return 0, fmt.Errorf("string %d: %d of its 5 units matched", src, units)
			}
			n++
		}
		return n, rows.Err()
	}
	unit := f.unit(t, "de", 1).ID
	var (
		parts     int
		seen      []int // big's strings matched as each part began
		seenErr   error
		answered  = make(chan int, 1) // big's strings matched when the edit was answered
		editErr   = make(chan error, 1)
		editFirst = true
	)
	f.db.trigrams.onGlossaryPart = func(units int) {
		parts++
		if units > 100 {
			seenErr = fmt.Errorf("a part of %d units, over glossaryUnits", units)
		}
		n, err := matched()
		if err != nil && seenErr == nil {
			seenErr = err
		}
		seen = append(seen, n)
		if n > 0 && editFirst {
			// In the writer, a part under way: an editor's write queues.
			editFirst = false
			go func() {
				_, err := f.db.UpdateUnit(ctx, unit, f.user,
					func(index.Unit, index.Translation) (index.UnitUpdate, error) {
						return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Wort eins"},
							State: index.StateTranslated}}, nil
					})
				n, merr := matched()
				answered <- n
				editErr <- errors.Join(err, merr)
			}()
			time.Sleep(50 * time.Millisecond) // it reaches the writer's queue
		}
	}
	// Every big string holds "here": the list moves from none of them to
	// all of them.
	f.importTerms(t, gl, []string{"number 2"}, []string{"here"})
	if err := f.db.refreshGlossaryMatches(ctx, false); err != nil {
		t.Fatal(err)
	}
	if seenErr != nil {
		t.Fatal(seenErr)
	}
	select {
	case n := <-answered:
		if err := <-editErr; err != nil {
			t.Fatal(err)
		}
		if n >= strs {
			t.Errorf("the edit was answered after all %d strings were matched, not between the parts", n)
		}
	default:
		t.Fatal("the edit was not answered before the refresh ended")
	}
	// 1,000 units in parts of at most 100 (20 strings), plus the app's
	// and the glossary's.
	if parts < 10 || !slices.IsSorted(seen) {
		t.Errorf("%d parts, big's strings matched as they began: %v", parts, seen)
	}
	if n, err := matched(); err != nil || n != strs {
		t.Errorf("after the refresh %d strings matched (%v), want %d", n, err, strs)
	}
	checkAllCounts(t, f.db)

	// The list moves during a refresh: the refresh stops without
	// recording its checksum, VerifyCounts waits for the next, which
	// makes the rows exact.
	f.db.trigrams.onGlossaryPart = nil
	f.importTerms(t, gl, []string{"item 1"})
	moved := make(chan error, 1)
	f.db.trigrams.onGlossaryPart = func(int) {
		if f.db.trigrams.onGlossaryPart != nil {
			f.db.trigrams.onGlossaryPart = nil
			go func() {
				_, err := f.db.ImportTranslation(ctx, index.TranslationImport{ComponentID: gl.ID, LanguageCode: "en",
					Filename: "en.json", Revision: "r3", Monolingual: true, IsSource: true, IsTemplate: true,
					Units: []index.ImportUnit{{Context: "ta", Source: []string{"item 3"}, Target: []string{"item 3"},
						State: index.StateReadOnly}}})
				moved <- err
			}()
			time.Sleep(50 * time.Millisecond) // it reaches the writer's queue
		}
	}
	if err := f.db.refreshGlossaryMatches(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := <-moved; err != nil {
		t.Fatal(err)
	}
	checkAllCounts(t, f.db)
	if err := f.db.refreshGlossaryMatches(ctx, false); err != nil {
		t.Fatal(err)
	}
	checkAllCounts(t, f.db)
	// "item 3" is s3's alone (a whole word: not s30's "Item 30").
	if n, err := matched(); err != nil || n != 1 {
		t.Errorf("after the terms moved mid-refresh: %d strings matched (%v), want 1", n, err)
	}
}

// TestGlossaryRefreshOnce: two runs of the refresh at once in one
// process (IndexTrigrams and the step's own, after an import) take
// turns, and the second finds nothing left to match: a project is
// matched once, not twice.
func TestGlossaryRefreshOnce(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	gl, _ := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "number 2", "number 2"}},
	})
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	f.db.trigrams.hold()
	f.db.trigrams.glossaryUnits = 3 // a string of the app's three languages a part
	var parts atomic.Int32
	f.db.trigrams.onGlossaryPart = func(int) {
		parts.Add(1)
		time.Sleep(time.Millisecond) // long enough for the runs to overlap
	}
	run := func(runs int) int32 {
		parts.Store(0)
		errs := make(chan error, runs)
		for range runs {
			go func() { errs <- f.db.refreshGlossaryMatches(ctx, false) }()
		}
		for range runs {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		return parts.Load()
	}
	f.importTerms(t, gl, []string{"number 3"})
	one := run(1)
	f.importTerms(t, gl, []string{"number 4"})
	if two := run(2); one < 10 || two != one {
		t.Errorf("two runs at once wrote %d parts, one run %d", two, one)
	}
	if got := f.glossaryKeys(t, "has:glossary"); got != "k4" {
		t.Errorf("has:glossary: %q, want k4", got)
	}
	checkAllCounts(t, f.db)
}

// TestGlossaryRefreshLeavesNoted: the refresh leaves the units noted
// for the step, and the translation units of noted source units, to the
// step's batches, which match them against the new list: after an
// import that brings a project's glossary, the refresh writes no row for
// the imported units and the step's batches every one, once.
func TestGlossaryRefreshLeavesNoted(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	f.db.trigrams.hold()
	f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "number 2", "number 2"}},
	})
	_, tr := f.importComponent(t, "fresh", func(*index.Component) {}, map[string][][3]string{
		"en": {{"x", "See number 2", "See number 2"}, {"y", "Other", "Other"}},
		"de": {{"x", "See number 2", "Siehe Nummer 2"}, {"y", "Other", "Anderes"}},
	})
	rows := func() (n int) {
		t.Helper()
		if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM glossary_matches g JOIN units u ON u.id = g.unit_id
			WHERE u.translation_id IN (?, ?)`, tr["en"], tr["de"]).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Its units are noted: the refresh records the list and matches none.
	if err := f.db.refreshGlossaryMatches(ctx, false); err != nil {
		t.Fatal(err)
	}
	var sums int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM glossary_sums`).Scan(&sums); err != nil || sums != 1 {
		t.Fatalf("%d checksums recorded (%v), want 1", sums, err)
	}
	if n := rows(); n != 0 {
		t.Errorf("the refresh matched %d noted units", n)
	}
	checkAllCounts(t, f.db)
	// The step matches them: x in English and German.
	if _, err := f.db.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 2 {
		t.Errorf("%d rows after the step, want 2", n)
	}
	checkAllCounts(t, f.db)
}

// TestGlossaryComparesMovedProjects: has:glossary's step compares the
// term lists of the projects whose glossaries' source translations a
// write touched since the last comparison, and keeps the others' (one
// project read after a term added to it, where every project was read);
// a write that touched another translation on a glossary's stripe of
// the write clock moves nothing (it moved every list: the stripes are
// shared), one replayed from another process by stripe does, and one
// that touched everything makes the step read every list again. The
// answers of has:glossary and VerifyCounts hold throughout.
func TestGlossaryComparesMovedProjects(t *testing.T) {
	f := mustWriteFixture(t)
	db, ctx := f.db, context.Background()
	db.trigrams.hold()
	_, glP := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "number 2", "number 2"}},
	})
	q := mustLangsFixture(t, db, "q", "app", false, []string{"de"}, 4)
	glossaryQ := index.DefaultComponent()
	glossaryQ.ProjectID, glossaryQ.Name, glossaryQ.Slug, glossaryQ.Template, glossaryQ.IsGlossary = q.comp.ProjectID, "glossary", "glossary", "en.json", true
	glossaryQ, _, err := db.SaveComponent(ctx, glossaryQ)
	if err != nil {
		t.Fatal(err)
	}
	glQ := importStrings(t, db, glossaryQ.ID, "en", 0, 1, "String %d").TranslationID
	w := &db.trigrams.glossary
	// compare runs the step as it runs after a pause, when the watch
	// says a list may have moved, and returns how many projects it read
	// (-1: it did not run).
	compare := func() int64 {
		t.Helper()
		if !db.glossaryMoved() {
			return -1
		}
		read := w.projectsRead.Load()
		if err := db.refreshGlossaryMatches(ctx, false); err != nil {
			t.Fatal(err)
		}
		if err := db.indexTrigrams(ctx, trigramAll); err != nil {
			t.Fatal(err)
		}
		return w.projectsRead.Load() - read
	}
	keys := func(translation int64) string {
		t.Helper()
		units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: translation, Query: "has:glossary",
			Page: index.Page{Number: 1, Size: 100}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, u := range units {
			out = append(out, u.Context)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	// step runs the step after what, and checks the projects it read
	// (want; -1: no comparison) and has:glossary's answer in each
	// project (inP, inQ), then VerifyCounts.
	step := func(what string, want int64, inP, inQ string) {
		t.Helper()
		if n := compare(); n != want {
			t.Errorf("after %s the step read %d projects' lists, want %d (-1: none)", what, n, want)
		}
		if gotP, gotQ := keys(f.tr["de"]), keys(q.trs["de"]); gotP != inP || gotQ != inQ {
			t.Errorf("has:glossary after %s: %q and %q, want %q and %q", what, gotP, gotQ, inP, inQ)
		}
		checkAllCounts(t, db)
	}
	step("the imports (the first comparison)", 2, "k2", "k0")
	if _, err := db.AddUnit(ctx, glP["en"], f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{Context: "b", Source: []string{"number 4"}, Target: []string{"number 4"}, State: index.StateReadOnly}, nil
	}); err != nil {
		t.Fatal(err)
	}
	step("a term added to one project's glossary", 1, "k2 k4", "k0")
	f.setTarget(t, "de", 1, "Wort eins")
	step("an edit of no glossary", -1, "k2 k4", "k0")
	// An edit of another translation that shares the glossary's stripe,
	// as the writer reports one.
	db.clock.advance(touchSet{deps: []dep{unitsDep(glQ), unitsDep(0)}, units: []int64{f.tr["de"]}})
	step("an edit of a translation on a glossary's stripe", -1, "k2 k4", "k0")
	// The same write replayed from another process (write_log: stripes).
	db.clock.advance(decodeDeps(encodeDeps(touchSet{deps: []dep{unitsDep(glQ), unitsDep(0)}})))
	step("a replayed write on project q's glossary's stripe", 1, "k2 k4", "k0")
	if err := db.write(ctx, func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	step("a write that touched everything", 2, "k2 k4", "k0")
}

// TestGlossaryWatchSeesOtherProcess: a term another process adds
// (PostgreSQL) reaches this process's has:glossary step, which learns of
// it from write_log by stripe alone (no translation ids there): the
// watch then says its project's list may have moved, the step compares
// that project's list only and matches the term.
func TestGlossaryWatchSeesOtherProcess(t *testing.T) {
	a, b, _ := twoWriters(t)
	a.trigrams.hold()
	b.trigrams.hold()
	f := newWriteFixture(t, a)
	ctx := context.Background()
	_, gl := f.importComponent(t, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{
		"en": {{"a", "number 2", "number 2"}},
	})
	mustLangsFixture(t, a, "q", "app", false, []string{"de"}, 2)
	if err := a.refreshGlossaryMatches(ctx, false); err != nil {
		t.Fatal(err)
	}
	if a.glossaryMoved() {
		t.Fatal("moved right after a comparison")
	}
	if _, err := b.AddUnit(ctx, gl["en"], f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{Context: "b", Source: []string{"number 4"}, Target: []string{"number 4"}, State: index.StateReadOnly}, nil
	}); err != nil {
		t.Fatal(err)
	}
	a.catchUp(ctx) // as a reader of a does before it trusts a cache
	if !a.glossaryMoved() {
		t.Fatal("another process's term did not move this process's watch")
	}
	w := &a.trigrams.glossary
	read := w.projectsRead.Load()
	if err := a.refreshGlossaryMatches(ctx, false); err != nil {
		t.Fatal(err)
	}
	if n := w.projectsRead.Load() - read; n != 1 {
		t.Errorf("the comparison read %d projects' lists, want 1", n)
	}
	if err := a.indexTrigrams(ctx, trigramAll); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.searchAll(t, "component:app language:de has:glossary project:p"), " "); got != "de/k2 de/k4" {
		t.Errorf("has:glossary: %q, want de/k2 de/k4", got)
	}
	checkAllCounts(t, a)
}
