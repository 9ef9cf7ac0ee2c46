package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"strings"
	gosync "sync"
	"sync/atomic"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// has:glossary (weblate-workspace.md §8.2): the units whose source
// string holds a term of their project's glossaries. The reference
// (weblate/utils/search.py, has_field) reads the terms of the project's
// glossary components and of those shared to it — the lower-cased
// source strings of their translated source units (get_glossary_sources)
// — and matches them at query time with one regular expression, an
// alternation of every term, over every unit's source: a query's cost
// grows with terms × units, and it answers nothing without a project
// in the query's context (/api/units/ has none).
//
// Tolk keeps the answer instead (migration 0069): glossary_matches
// holds every unit whose source unit's source holds a term — source
// units and their translation units alike (migration 0070) — and a
// search tests each unit's id against them (searchCompiler.glossary), bounded however
// many terms there are (tolk-bench -only search). A row per unit
// rather than per source unit: testing the source unit's id needed an
// index over every unit's source_unit_id, which the import dropped for
// its speed (migration 0068).
// Matching at query time through the trigram index, a lookup per term,
// was the alternative weighed: a glossary of a few hundred common words
// makes as many lookups and reads most of the index's candidates, and
// thousands of terms would need a cap that silently drops terms. The
// stored answer is kept by the trigram index's upkeep
// (trigram_pending.go), off the writes' path, as the index is:
//
//   - a unit whose text a write changed (or inserted) is noted for the
//     index; the step that indexes it matches it too, in the same batch
//     (matchNotedGlossary): a unit is matched on its source unit's
//     source (a monolingual translation's units keep the source they
//     were imported with when the template's changes), and a noted
//     source unit's translation units, found through
//     units_translation_hash, are matched with it;
//   - a change of a project's term list (a term added, edited, removed,
//     translated or not; a glossary component added, removed or made
//     one or not) is found by its checksum (glossary_sums): before
//     each run of the step, a project whose terms' checksum is not the
//     one its rows were matched against is matched again, a few
//     thousand units per write (refreshGlossaryMatches), but for the
//     units noted for the step and the translation units of noted source
//     units, which the step's batches match against the new list (after
//     an import: all of the new project's units, matched once instead
//     of twice).
//
// So the answer is exact once the step has run, as the trigram index
// is after its step (searches there read the notes too; here an edit's
// source or a new term counts about a second later, when the writer
// pauses).
//
// Matching is checks.GlossaryMatcher, the one check_glossary and the
// editor's glossary panel use: case-insensitive, and at word boundaries
// where the unit's source language is written with spaces. Better than
// the reference: its PostgreSQL pattern ([[:<:]]term[[:>:]]) never
// matches a term that starts or ends with a non-word character ("C++",
// "%s"), and its other engines' counts only whitespace as a boundary
// ("file," is not "file"); and a term's every plural form counts, as in
// the reference's newest get_glossary_source_index. As the reference,
// the terms of every glossary of the project count whatever the source
// language (a glossary in "en" serves a component in "en-us"). Tolk
// shares no component with other projects, so a project's glossaries
// are its own.

// glossaryMatchBatch bounds the units a refresh write inserts at once.
const glossaryMatchBatch = 500

// queryFunc runs a query: Tx.Query, or a read outside the writer.
type queryFunc func(query string, args ...any) (*sql.Rows, error)

// projectGlossary is a project's term list: its checksum, its terms
// (sorted, lower-cased, each once) and, once a unit is matched against
// it, its matcher. Most readers only compare checksums
// (refreshGlossaryMatches): the matcher, which files every term, is
// built on the first match only.
// Safe for concurrent use: the step's last lists serve the writer's
// batches (glossaryWatch.lists).
type projectGlossary struct {
	sum     string
	terms   []string
	once    gosync.Once
	matcher *checks.GlossaryMatcher
}

// matches says whether one of source's forms holds a term, for a unit
// whose source language is lang.
func (g *projectGlossary) matches(source []string, lang string) bool {
	g.once.Do(func() { g.matcher = checks.NewGlossaryMatcher(g.terms) })
	return g.matcher.Any(source, lang)
}

// readGlossaries returns the term lists of the projects that have
// terms, of the listed projects only when projects is given.
func readGlossaries(query queryFunc, projects []int64) (map[int64]*projectGlossary, error) {
	// CROSS JOIN keeps SQLite's order, from the few glossary components
	// down: by itself it read every translated unit through units_state
	// (1 s on the benchmark's corpus) and kept the glossaries' few.
	q := `SELECT c.project_id, u.source FROM components c CROSS JOIN translations t CROSS JOIN units u
		WHERE t.component_id = c.id AND u.translation_id = t.id
			AND c.is_glossary != 0 AND t.is_source != 0 AND u.state >= ?`
	args := []any{index.StateTranslated}
	if projects != nil {
		list, ids := idList(projects)
		q += ` AND c.project_id IN ` + list
		args = append(args, ids...)
	}
	rows, err := query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := map[int64][]string{}
	for rows.Next() {
		var project int64
		var source string
		if err := rows.Scan(&project, &source); err != nil {
			return nil, err
		}
		for _, form := range index.SplitPlural(source) {
			if form = strings.ToLower(form); form != "" {
				keys[project] = append(keys[project], form)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make(map[int64]*projectGlossary, len(keys))
	for p, k := range keys {
		slices.Sort(k)
		k = slices.Compact(k)
		sum := sha256.Sum256([]byte(strings.Join(k, "\x00")))
		out[p] = &projectGlossary{sum: hex.EncodeToString(sum[:]), terms: k}
	}
	return out, nil
}

// readGlossaryState returns the term lists (readGlossaries) and the
// checksums of the lists the projects' rows were matched against, of
// every project, or of the listed projects only when projects is given.
func readGlossaryState(query queryFunc, projects []int64) (current map[int64]*projectGlossary, stored map[int64]string, err error) {
	if current, err = readGlossaries(query, projects); err != nil {
		return nil, nil, err
	}
	q, args := `SELECT project_id, sum FROM glossary_sums`, []any(nil)
	if projects != nil {
		var list string
		list, args = idList(projects)
		q += ` WHERE project_id IN ` + list
	}
	rows, err := query(q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	stored = map[int64]string{}
	for rows.Next() {
		var p int64
		var s string
		if err := rows.Scan(&p, &s); err != nil {
			return nil, nil, err
		}
		stored[p] = s
	}
	return current, stored, rows.Err()
}

// sourceText is a unit to match: its id, project, source string and the
// source language of its component.
type sourceText struct {
	id      int64
	project int64
	source  string
	lang    string
}

// readSourceTexts reads the units cond selects (u is the unit, of
// units alone), each with its source unit's source (its own without
// one); with dependents, also the translation units of the source units
// among them (readDependents).
func readSourceTexts(tx *Tx, dependents bool, cond string, args ...any) ([]sourceText, error) {
	rows, err := tx.Query(`SELECT u.id, c.project_id, s.source, c.source_language,
			CASE WHEN u.source_unit_id = u.id THEN 1 ELSE 0 END
		FROM units u JOIN units s ON s.id = COALESCE(u.source_unit_id, u.id)
		JOIN translations t ON t.id = u.translation_id JOIN components c ON c.id = t.component_id
		WHERE `+cond, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sourceText
	sources := map[int64]sourceText{}
	var ids []int64
	for rows.Next() {
		var s sourceText
		var isSource int
		if err := rows.Scan(&s.id, &s.project, &s.source, &s.lang, &isSource); err != nil {
			return nil, err
		}
		out = append(out, s)
		if dependents && isSource != 0 {
			sources[s.id] = s
			ids = append(ids, s.id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := rows.Close(); err != nil || len(ids) == 0 {
		return out, err
	}
	deps, err := readDependents(tx, ids)
	if err != nil {
		return nil, err
	}
	for _, d := range deps {
		s := sources[d[1]]
		s.id = d[0]
		out = append(out, s)
	}
	return out, nil
}

// readDependents returns the translation units of the source units ids
// as (unit, source unit) pairs: the source unit's translations × its
// id_hash, as srcIn (search.go) finds them. A translation unit noted
// itself is left to its own batch: after an import, all of them.
//
// A statement of its own, from the ids the first read found: as one
// statement with it (a UNION ALL, the source units sought IN a subquery
// of cond), PostgreSQL's generic plan — the one pgx's cached statement
// runs after five executions — took 3–9 s an execution while the step
// indexed an import (tolk-bench -only import: the trigram index 70×
// the ceiling). Here PostgreSQL walks the ids, the source unit and each
// translation's unit of its id_hash a LATERAL subquery kept apart
// (OFFSET 0): the source_unit_id test inside, the planner probed each
// translation by units_translation_position and read it whole
// (TestGlossaryDependentsPlan). SQLite takes the ids as IN lists.
func readDependents(tx *Tx, ids []int64) ([][2]int64, error) {
	const deps = `SELECT u.id, s.id FROM units s JOIN translations st ON st.id = s.translation_id
		JOIN translations t ON t.component_id = st.component_id
		JOIN units u ON u.translation_id = t.id AND u.id_hash = s.id_hash AND u.source_unit_id = s.id
		WHERE s.source_unit_id = s.id AND u.id != s.id
			AND NOT EXISTS (SELECT 1 FROM unit_trigrams_pending p WHERE p.unit_id = u.id)`
	var out [][2]int64
	each := func(query string, args ...any) error {
		return tx.queryEach(query, func(scan func(...any) error) error {
			var d [2]int64
			if err := scan(&d[0], &d[1]); err != nil {
				return err
			}
			out = append(out, d)
			return nil
		}, args...)
	}
	if tx.db.dialect.name == "postgres" {
		if err := each(pgGlossaryDependents, ids); err != nil || len(out) == 0 {
			return out, err
		}
		return pgLeaveNoted(tx, out)
	}
	for chunk := range slices.Chunk(ids, glossaryMatchBatch) {
		list, args := idList(chunk)
		if err := each(deps+` AND s.id IN `+list, args...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pgGlossaryDependents is readDependents' statement on PostgreSQL.
const pgGlossaryDependents = `SELECT u.id, x.id FROM unnest(CAST(? AS bigint[])) AS x(id)
	CROSS JOIN LATERAL (SELECT s.id_hash, st.component_id FROM units s JOIN translations st ON st.id = s.translation_id
		WHERE s.id = x.id AND s.source_unit_id = s.id OFFSET 0) s
	JOIN translations t ON t.component_id = s.component_id
	CROSS JOIN LATERAL (SELECT u.id, u.source_unit_id FROM units u
		WHERE u.translation_id = t.id AND u.id_hash = s.id_hash OFFSET 0) u
	WHERE u.source_unit_id = x.id AND u.id != x.id`

// pgLeaveNoted drops from deps the units noted themselves, read in one
// statement by unit_trigrams_pending's key. In pgGlossaryDependents as
// NOT EXISTS, the generic plan read the whole list of notes for every
// dependent (a join filter, or a sequential scan in a subplan) whenever
// the notes' statistics were taken while the list was short — a queue's
// usual state —, and the list is longest right after an import (2,446
// notes × 1,000 units: 4.3 s an execution at load 30 while an automatic
// translation waited for the writer; TestGlossaryDependentsPlan). Any
// plan of this one reads the list at most once.
func pgLeaveNoted(tx *Tx, deps [][2]int64) ([][2]int64, error) {
	ids := make([]int64, len(deps))
	for i, d := range deps {
		ids[i] = d[0]
	}
	noted, err := queryIDs(tx, `SELECT unit_id FROM unit_trigrams_pending WHERE unit_id = ANY(CAST(? AS bigint[]))`, ids)
	if err != nil || len(noted) == 0 {
		return deps, err
	}
	skip := make(map[int64]bool, len(noted))
	for _, id := range noted {
		skip[id] = true
	}
	return slices.DeleteFunc(deps, func(d [2]int64) bool { return skip[d[0]] }), nil
}

// storeGlossaryMatches replaces the rows of units with those of them
// that hold a term of their project's list in glossaries.
func storeGlossaryMatches(tx *Tx, units []sourceText, glossaries map[int64]*projectGlossary) error {
	// A batch holds a string's units of several translations: each
	// distinct source is matched once.
	type text struct {
		project      int64
		source, lang string
	}
	seen := map[text]bool{}
	for chunk := range slices.Chunk(units, glossaryMatchBatch) {
		ids := make([]int64, len(chunk))
		var hits []any
		for i, u := range chunk {
			ids[i] = u.id
			key := text{u.project, u.source, u.lang}
			hit, ok := seen[key]
			if !ok {
				g, terms := glossaries[u.project]
				hit = terms && g.matches(index.SplitPlural(u.source), u.lang)
				seen[key] = hit
			}
			if hit {
				hits = append(hits, u.id)
			}
		}
		list, args := idList(ids)
		if _, err := tx.Exec(`DELETE FROM glossary_matches WHERE unit_id IN `+list, args...); err != nil {
			return err
		}
		if len(hits) == 0 {
			continue
		}
		values := strings.TrimSuffix(strings.Repeat("(?), ", len(hits)), ", ")
		if _, err := tx.Exec(`INSERT INTO glossary_matches (unit_id) VALUES `+values+` ON CONFLICT DO NOTHING`, hits...); err != nil {
			return err
		}
	}
	return nil
}

// matchNotedGlossary matches the noted units the trigram step is indexing (cond, on u), against their projects' term
// lists as they are now.
func matchNotedGlossary(tx *Tx, cond string, args ...any) error {
	units, err := readSourceTexts(tx, true, cond, args...)
	if err != nil || len(units) == 0 {
		return err
	}
	var projects []int64
	for _, u := range units {
		projects = append(projects, u.project)
	}
	slices.Sort(projects)
	projects = slices.Compact(projects)
	glossaries, ok := tx.db.trigrams.glossary.lists(tx.db, projects)
	if !ok {
		if glossaries, err = readGlossaries(tx.Query, projects); err != nil {
			return err
		}
	}
	return storeGlossaryMatches(tx, units, glossaries)
}

// refreshGlossaryMatches matches again every unit of the projects
// whose term list is not the one their rows were matched against, in
// parts (refreshProjectGlossary), and records the list's checksum with
// the last. It compares the lists of the projects whose lists may have
// moved since the last comparison (glossaryWatch.movedSince), or of
// every project when whole says so or the watch cannot tell. Two
// processes may both do it (PostgreSQL): they write the same rows. In
// one process the runs take turns (glossaryWatch.refresh): IndexTrigrams
// and the step's own run, started by the last writes of an import, both
// found the new project stale and matched it twice, the second run
// inside whatever came next (tolk-bench's re-import).
func (db *DB) refreshGlossaryMatches(ctx context.Context, whole bool) error {
	w := &db.trigrams.glossary
	w.refresh.Lock()
	defer w.refresh.Unlock()
	// The clock before the reads: a write it has not counted yet is
	// seen by the next glossaryMoved.
	tag := db.clock.now()
	// Read outside the writer: most runs find nothing to do. The
	// glossaries' source translations first, then which projects' lists
	// may have moved since the last comparison: every write the clock
	// counted by tag is in that answer.
	query := func(q string, args ...any) (*sql.Rows, error) { return db.r.QueryContext(ctx, q, args...) }
	rows, err := query(`SELECT t.id, c.project_id FROM translations t JOIN components c ON c.id = t.component_id
		WHERE c.is_glossary != 0 AND t.is_source != 0`)
	if err != nil {
		return err
	}
	sources := map[int64]int64{} // glossary source translation → project
	for rows.Next() {
		var t, p int64
		if err := rows.Scan(&t, &p); err != nil {
			rows.Close()
			return err
		}
		sources[t] = p
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	w.mu.Lock()
	all, moved := w.movedSince(&db.clock)
	last, lastSources := w.read, w.sources
	w.mu.Unlock()
	db.clock.watchUnits(slices.Collect(maps.Keys(sources)))
	var projects []int64 // nil: every project
	if !all && !whole {
		// A glossary source translation found or gone since is a write
		// that touched everything (a component's import, settings or
		// removal); its project is compared all the same.
		set := map[int64]bool{}
		for _, p := range moved {
			set[p] = true
		}
		for t, p := range sources {
			if lastSources[t] != p {
				set[p] = true
			}
		}
		for t, p := range lastSources {
			if _, ok := sources[t]; !ok {
				set[p] = true
			}
		}
		projects = slices.Sorted(maps.Keys(set))
		if projects == nil {
			projects = []int64{}
		}
	}
	current, stored := map[int64]*projectGlossary{}, map[int64]string{}
	if projects == nil || len(projects) > 0 {
		if current, stored, err = readGlossaryState(query, projects); err != nil {
			return err
		}
	}
	w.compared.Add(1)
	if projects == nil {
		w.projectsRead.Add(int64(len(current)))
	} else {
		w.projectsRead.Add(int64(len(projects)))
	}
	stale := map[int64]string{} // project → the checksum to record ("" for no terms)
	for p, g := range current {
		if stored[p] != g.sum {
			stale[p] = g.sum
		}
	}
	for p := range stored {
		if _, ok := current[p]; !ok {
			stale[p] = ""
		}
	}
	for _, p := range slices.Sorted(maps.Keys(stale)) {
		if err := db.refreshProjectGlossary(ctx, p, stale[p]); err != nil {
			return err
		}
	}
	// The lists as of tag: those read now, and the last comparison's of
	// the projects none of whose glossaries' units a write touched since
	// (their lists have not moved since that comparison read them).
	lists := current
	if projects != nil {
		lists = make(map[int64]*projectGlossary, len(last))
		for p, g := range last {
			if _, read := slices.BinarySearch(projects, p); !read {
				lists[p] = g
			}
		}
		maps.Copy(lists, current)
	}
	w.ran(tag, sources, lists)
	return nil
}

// glossaryWatch is when the step last compared the term lists
// (refreshGlossaryMatches), so that it compares them again only after a
// write that may have moved one, and then only the lists that may have
// moved: the comparison reads glossaries' terms (every project's: about
// 10 ms on the benchmark's corpus, 49–55 ms at 100× on PostgreSQL), and
// the step ran it after every pause of the writes — under edits, every
// few tens of milliseconds, for lists that edits of other translations
// never move. The writer knows what a write touched (cache.go: the
// write clock): a term list moves only by a write of a glossary's
// source translation's units, which a narrow write (an edit) declares
// by touching that translation's units (Tx.touchUnits, as every cache
// relies on), or by a write that touches everything (an import, a
// component's settings, a removal). The clock watches the glossaries'
// source translations by id (writeClock.watchUnits): their stripes are
// shared with every other scope's, and with 100 glossaries three edits in
// four that propagate to ten translations moved one of them
// (BenchmarkGlossaryWatch: 55 stripes an edit). Other processes'
// writes (PostgreSQL) are replayed from write_log by stripe, without
// their translations: for them the stripes answer, as before. It is
// safe for concurrent use.
//
// A comparison reads only the lists of the projects whose glossaries'
// source translations a write touched since the last one, or every
// list after a write that touched everything (or at the first), and
// keeps the others from the last comparison, which read them after its
// tag while no write has touched them since. Runs take turns (refresh),
// each starting from the one before; one that fails records nothing, so
// the next compares again whatever this one read.
//
// The lists it read serve the step's batches (matchNotedGlossary) while
// none of their projects' may have moved: a batch read every list of
// its units' projects and built their matchers (a 3,000-term glossary:
// most of the step's CPU after an edit; BenchmarkSparseEditsCPU). A
// write committed in the same transaction as the batch, before it, is
// not on the clock yet: the batch then matches against the lists before
// that write, and the comparison after the pause, which that write's
// commit called for, finds its project's checksum moved and matches the
// project again. Other processes' writes (PostgreSQL) are on the clock
// before the batch matches: the writer replays them as the batch begins
// (beginBatch).
type glossaryWatch struct {
	refresh gosync.Mutex    // held by a run of refreshGlossaryMatches
	mu      gosync.Mutex    // guards the rest
	done    bool            // a comparison has run since the start
	tag     uint64          // the write clock before its reads
	sources map[int64]int64 // the glossaries' source translations it found, with their projects
	read    map[int64]*projectGlossary
	// compared counts the comparisons run, projectsRead the projects
	// whose term lists they read (tests and benchmarks).
	compared, projectsRead atomic.Int64
}

// ran records a comparison whose lists, read, hold as of the write
// clock's tag, and which found the glossaries' source translations
// sources.
func (w *glossaryWatch) ran(tag uint64, sources map[int64]int64, read map[int64]*projectGlossary) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done && tag < w.tag {
		return // a later comparison finished first
	}
	w.done, w.tag, w.sources, w.read = true, tag, sources, read
}

// movedSince says which term lists may have moved since the last
// comparison: every one (all) when none ran yet or a write committed
// since touched everything, else those of the projects of the
// glossaries' source translations whose units a write committed since
// touched (writeClock.unitsChangedSince: exactly for this process's
// writes, by stripe for another's, where a stripe shared with other
// units only costs a comparison), in order. w.mu is held.
func (w *glossaryWatch) movedSince(clock *writeClock) (all bool, projects []int64) {
	if !w.done || clock.changedSince(w.tag, 0) {
		return true, nil
	}
	for t, p := range w.sources {
		if !slices.Contains(projects, p) && clock.unitsChangedSince(w.tag, t) {
			projects = append(projects, p)
		}
	}
	slices.Sort(projects)
	return false, projects
}

// glossaryMoved says whether a term list may have moved since the last
// comparison, for the step.
func (db *DB) glossaryMoved() bool {
	w := &db.trigrams.glossary
	w.mu.Lock()
	defer w.mu.Unlock()
	all, projects := w.movedSince(&db.clock)
	return all || len(projects) > 0
}

// lists returns the last comparison's lists of projects when none of
// theirs may have moved since (ok).
func (w *glossaryWatch) lists(db *DB, projects []int64) (out map[int64]*projectGlossary, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	all, moved := w.movedSince(&db.clock)
	if all {
		return nil, false
	}
	out = map[int64]*projectGlossary{}
	for _, p := range projects {
		if _, found := slices.BinarySearch(moved, p); found {
			return nil, false
		}
		if g := w.read[p]; g != nil {
			out[p] = g
		}
	}
	return out, true
}

// glossaryRefreshUnits bounds the units one write of a project's
// refresh matches (refreshProjectGlossary): about 15-25 ms of the writer
// on the corpus's text, as a batch of the trigram step, the longest an
// edit that arrives meanwhile waits. A write per source translation, as
// before, was the whole of jellyfin's 280,000 units at once: about 1 s
// of CPU (2 s on PostgreSQL) with every editor waiting, and inside the
// next copy's import at 10× the corpus (issue 31).
const glossaryRefreshUnits = 5000

// glossaryPartIDs bounds the source units a part names in its statement.
const glossaryPartIDs = 1024

// refreshProjectGlossary matches every unit of project again against
// its term list, whose checksum is sum ("" for none), and records sum
// with the last write — unless a write found another list (a term
// changed meanwhile): the rows are then left stale, and the next run
// refreshes them again.
//
// It writes in parts of about glossaryRefreshUnits units, each its own
// write, so that the writes queued meanwhile (an editor's) run between
// them: a part is a run of a source translation's units with every
// translation unit of theirs, so a string's units in every language
// change together; then the units of other translations that have no
// source unit, in parts of as many. Units noted for the step are left to
// its batches (leaveNotedUnits). Between two parts a reader sees
// each string matched either against the list its rows were last
// matched against or against the new one: has:glossary moves from the
// old answer to the new string by string over the refresh (a second or
// two for the corpus's largest component), as a source string's edit
// counts once the step has run. The reference matches at query time,
// and so is always current, but pays for it on every query (every term
// against every unit) and answers nothing without a project; one write
// for the whole answer would hold every editor for its length. No
// string is ever half matched, VerifyCounts holds a project's rows to
// its list once the refresh recorded the checksum (the last part), and
// a list that moves during the refresh makes the next run redo it.
func (db *DB) refreshProjectGlossary(ctx context.Context, project int64, sum string) error {
	// Read outside the writer: the source translations' units (a
	// template's strings: a few thousand), each with the number of its
	// component's translations (a source unit's units, its own
	// included). A source unit added since is noted, and the step
	// matches it with its translation units; one removed since is found
	// by no part.
	query := func(q string, args ...any) (*sql.Rows, error) { return db.r.QueryContext(ctx, q, args...) }
	rows, err := query(`SELECT t.id, count(*) FROM translations t JOIN components c ON c.id = t.component_id
		JOIN translations x ON x.component_id = t.component_id
		WHERE c.project_id = ? AND t.is_source != 0 GROUP BY t.id`, project)
	if err != nil {
		return err
	}
	per := map[int64]int{} // source translation → its component's translations
	for rows.Next() {
		var t int64
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			rows.Close()
			return err
		}
		per[t] = n
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	type sourceUnit struct {
		id    int64
		units int
	}
	var sources []sourceUnit
	for _, t := range slices.Sorted(maps.Keys(per)) {
		ids, err := readIDs(query, `SELECT id FROM units WHERE translation_id = ? ORDER BY id`, t)
		if err != nil {
			return err
		}
		for _, id := range ids {
			sources = append(sources, sourceUnit{id, per[t]})
		}
	}
	limit := glossaryRefreshUnits
	if n := db.trigrams.glossaryUnits; n > 0 {
		limit = n
	}
	r := glossaryRefresh{db: db, ctx: ctx, project: project, sum: sum}
	for len(sources) > 0 {
		// Source units up to limit units with their translation units
		// (and a statement's worth of ids: glossaryPartIDs).
		n, units := 0, 0
		for n < min(len(sources), glossaryPartIDs) && (n == 0 || units+sources[n].units <= limit) {
			units += sources[n].units
			n++
		}
		part := make([]int64, n)
		for i, s := range sources[:n] {
			part[i] = s.id
		}
		sources = sources[n:]
		err := r.part(func(tx *Tx) ([]sourceText, error) {
			if hook := db.trigrams.onGlossaryPart; hook != nil {
				hook(units)
			}
			left, err := leaveNotedUnits(tx, part)
			if err != nil || len(left) == 0 {
				return nil, err
			}
			list, args := idList(left)
			return readSourceTexts(tx, true, `u.id IN `+list, args...)
		}, false)
		if err != nil || r.moved {
			// A list that moved is the next run's to match whole: the
			// rest of this one would be redone.
			return err
		}
	}
	// The units of other translations that have no source unit (a file
	// the template lacks): few, and found by a scan of the project's
	// translations (no index holds source_unit_id), read once outside
	// the writer. A unit that loses or gains its source unit since is
	// noted (a relink), and the step matches it.
	own, err := readIDs(query, `SELECT u.id FROM units u WHERE u.source_unit_id IS NULL AND u.translation_id IN
		(SELECT t.id FROM translations t JOIN components c ON c.id = t.component_id
			WHERE t.is_source = 0 AND c.project_id = ?) ORDER BY u.id`, project)
	if err != nil {
		return err
	}
	for {
		part := own[:min(limit, glossaryPartIDs, len(own))]
		own = own[len(part):]
		last := len(own) == 0
		err := r.part(func(tx *Tx) ([]sourceText, error) {
			var out []sourceText
			left, err := leaveNotedUnits(tx, part)
			if err != nil {
				return nil, err
			}
			for chunk := range slices.Chunk(left, glossaryMatchBatch) {
				list, args := idList(chunk)
				units, err := readSourceTexts(tx, false, `u.source_unit_id IS NULL AND u.id IN `+list, args...)
				if err != nil {
					return nil, err
				}
				out = append(out, units...)
			}
			return out, nil
		}, last)
		if err != nil || r.moved || last {
			return err
		}
	}
}

// leaveNotedUnits drops from ids the units noted for the step: its
// batch matches each against the lists as they are then, a source unit
// with its translation units (matchNotedGlossary), so the refresh
// leaves them (and VerifyCounts does). A statement by
// unit_trigrams_pending's key, which any plan reads only for the ids
// (see pgLeaveNoted).
func leaveNotedUnits(tx *Tx, ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, args := idList(ids)
	noted, err := queryIDs(tx, `SELECT unit_id FROM unit_trigrams_pending WHERE unit_id IN `+list, args...)
	if err != nil || len(noted) == 0 {
		return ids, err
	}
	skip := make(map[int64]bool, len(noted))
	for _, id := range noted {
		skip[id] = true
	}
	return slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return skip[id] }), nil
}

// readIDs runs a query of one column of ids through query.
func readIDs(query queryFunc, q string, args ...any) ([]int64, error) {
	rows, err := query(q, args...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// glossaryRefresh is one run of refreshProjectGlossary.
type glossaryRefresh struct {
	db      *DB
	ctx     context.Context
	project int64
	sum     string
	// list is the term list the last part read, kept while the next
	// parts read the same (its matcher is built once).
	list *projectGlossary
	// moved says a part found a list that is not sum's.
	moved bool
}

// part matches the units read picks against the project's list as it is
// in the write, and, when last and no part found the list moved, records
// the list's checksum.
func (r *glossaryRefresh) part(read func(*Tx) ([]sourceText, error), last bool) error {
	return r.db.enqueue(&writeRequest{ctx: r.ctx, narrow: true, upkeep: true, shared: true, fn: func(tx *Tx) error {
		glossaries, err := readGlossaries(tx.Query, []int64{r.project})
		if err != nil {
			return err
		}
		g := glossaries[r.project]
		if (g == nil && r.sum != "") || (g != nil && g.sum != r.sum) {
			r.moved = true
		}
		if g != nil && r.list != nil && r.list.sum == g.sum {
			glossaries[r.project] = r.list
		} else if g != nil {
			r.list = g
		}
		units, err := read(tx)
		if err != nil {
			return err
		}
		if err := storeGlossaryMatches(tx, units, glossaries); err != nil {
			return err
		}
		switch {
		case !last || r.moved:
			return nil
		case r.sum == "":
			_, err = tx.Exec(`DELETE FROM glossary_sums WHERE project_id = ?`, r.project)
		default:
			_, err = tx.Exec(`INSERT INTO glossary_sums (project_id, sum) VALUES (?, ?)
				ON CONFLICT (project_id) DO UPDATE SET sum = excluded.sum`, r.project, r.sum)
		}
		return err
	}})
}

// verifyGlossaryMatches reads every unit with its source unit's id and
// source. The units noted for the upkeep and the rows are read apart
// (glossaryMatches): as EXISTS subqueries of this statement, PostgreSQL
// planned them, with statistics taken while the tables were empty (a
// fresh index, or the upkeep's rows before an import), as a scan of
// glossary_matches per unit and a nested loop over every noted unit per
// unit, quadratic once both are full (TestVerifyGlossaryPlan). Alone it
// is joins on primary keys, each table read once.
const verifyGlossaryMatches = `SELECT u.id, s.id, c.project_id, s.source, c.source_language
	FROM units u JOIN units s ON s.id = COALESCE(u.source_unit_id, u.id)
		JOIN translations t ON t.id = u.translation_id JOIN components c ON c.id = t.component_id`

// glossaryMatches checks has:glossary's rows (VerifyCounts): each unit
// that is not noted for the upkeep, of a project whose rows were
// matched against its current term list, has a row exactly when its
// source unit's source holds a term. Units of a project whose
// list changed since are the next run's (refreshGlossaryMatches).
func (v *countVerifier) glossaryMatches(ctx context.Context, q queryer) error {
	query := func(s string, args ...any) (*sql.Rows, error) { return q.QueryContext(ctx, s, args...) }
	current, stored, err := readGlossaryState(query, nil)
	if err != nil {
		return err
	}
	idSet := func(q string) (map[int64]bool, error) {
		rows, err := query(q)
		if err != nil {
			return nil, err
		}
		ids, err := scanIDs(rows)
		set := make(map[int64]bool, len(ids))
		for _, id := range ids {
			set[id] = true
		}
		return set, err
	}
	noted, err := idSet(`SELECT unit_id FROM unit_trigrams_pending`)
	if err != nil {
		return err
	}
	has, err := idSet(`SELECT unit_id FROM glossary_matches`)
	if err != nil {
		return err
	}
	rows, err := query(verifyGlossaryMatches)
	if err != nil {
		return err
	}
	var wrong []int64
	for rows.Next() {
		var s sourceText
		var sourceUnit int64
		if err := rows.Scan(&s.id, &sourceUnit, &s.project, &s.source, &s.lang); err != nil {
			rows.Close()
			return err
		}
		if noted[s.id] || noted[sourceUnit] {
			continue
		}
		g, ok := current[s.project]
		sum := ""
		if ok {
			sum = g.sum
		}
		if stored[s.project] != sum {
			continue
		}
		if want := ok && g.matches(index.SplitPlural(s.source), s.lang); want != has[s.id] {
			wrong = append(wrong, s.id)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if len(wrong) > 0 {
		v.report("glossary_matches: %d units matched wrong (first: unit %d)", len(wrong), wrong[0])
	}
	return nil
}
