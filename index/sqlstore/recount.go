package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// Every counter Tolk keeps is moved by the write that changes what it
// counts, in the same transaction (writer_stats.go, checks.go): nothing
// recounts on a read. VerifyCounts is the recount those writes must
// equal; the tests run it after every kind of write on both engines, and
// an operator may run it on a live index (it only reads).

// Where the unit flags come from: a failing check is a check row not
// dismissed; a suggestion any suggestion row; a comment an unresolved
// comment on the unit itself (migration 0022). A slice that changes what
// a flag means changes it here, and the tests of every write follow.
const (
	failingFromRows    = `EXISTS (SELECT 1 FROM checks k WHERE k.unit_id = u.id AND k.dismissed = 0)`
	suggestionFromRows = `EXISTS (SELECT 1 FROM suggestions s WHERE s.unit_id = u.id)`
	commentFromRows    = `EXISTS (SELECT 1 FROM comments m WHERE m.unit_id = u.id AND m.resolved = 0)`
)

// maxCountProblems is how many differences VerifyCounts lists before it
// stops: a broken counter usually breaks many rows alike.
const maxCountProblems = 50

// VerifyCounts recounts, in one read snapshot, every counter the index
// stores and returns one line per counter that differs from its recount
// (none when all are exact), at most maxCountProblems:
//
//   - each unit's num_words and num_chars from its source, and its
//     has_failing_check, has_suggestion and has_comment from the checks,
//     suggestions and comments rows;
//   - each translation's statistics (total, words, characters, translated,
//     fuzzy, approved, read-only, failing, suggestions, comments) from
//     its units;
//   - the component, project, language and project-language rows as the
//     sums of their translations', and no counts left on a row whose
//     translations are gone;
//   - the list counts that page the units, changes, suggestions and
//     memory lists.
//   - the user activity that user statistics read (people.go).
//   - a row of the trigram index for every unit but those noted for
//     the index's upkeep, and none for a unit that is gone
//     (trigram.go, trigram_pending.go).
//
// It reads every unit: a test's or an operator's tool, not a request's.
func (db *DB) VerifyCounts(ctx context.Context) ([]string, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, formatError(err)
	}
	defer tx.Rollback()
	v := &countVerifier{}
	v.postgres = db.dialect.name == "postgres"
	steps := []func(context.Context, queryer) error{v.units, v.stats, v.lists, v.userActivity, v.trigrams,
		v.glossaryMatches}
	if v.postgres {
		steps = append(steps, v.unitSideTables)
	}
	for _, step := range steps {
		if err := step(ctx, tx); err != nil {
			return v.problems, formatError(err)
		}
	}
	return v.problems, nil
}

// countVerifier collects what VerifyCounts finds.
type countVerifier struct {
	problems []string
	postgres bool // the trigram index's rows are named unit_id there
	// byTranslation are the statistics recounted from each translation's
	// units, filled by units.
	byTranslation map[int64]*index.Stats
}

func (v *countVerifier) report(format string, args ...any) {
	if len(v.problems) < maxCountProblems {
		v.problems = append(v.problems, fmt.Sprintf(format, args...))
	}
}

// units checks each unit's own counters and sums the statistics of each
// translation from them.
func (v *countVerifier) units(ctx context.Context, q queryer) error {
	v.byTranslation = map[int64]*index.Stats{}
	// Translations without units count zero.
	trs, err := q.QueryContext(ctx, `SELECT id FROM translations`)
	if err != nil {
		return err
	}
	for trs.Next() {
		var id int64
		if err := trs.Scan(&id); err != nil {
			trs.Close()
			return err
		}
		v.byTranslation[id] = &index.Stats{}
	}
	trs.Close()
	if err := trs.Err(); err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, `SELECT u.id, u.translation_id, u.source, u.state, u.num_words, u.num_chars,
		u.has_failing_check, u.has_suggestion, u.has_comment,
		CASE WHEN `+failingFromRows+` THEN 1 ELSE 0 END,
		CASE WHEN `+suggestionFromRows+` THEN 1 ELSE 0 END,
		CASE WHEN `+commentFromRows+` THEN 1 ELSE 0 END
		FROM units u ORDER BY u.id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var u index.Unit
		var source string
		var chars int
		var failing, suggestion, comment bool
		if err := rows.Scan(&u.ID, &u.TranslationID, &source, &u.State, &u.NumWords, &chars,
			&u.HasFailingCheck, &u.HasSuggestion, &u.HasComment, &failing, &suggestion, &comment); err != nil {
			return err
		}
		u.Source = index.SplitPlural(source)
		if w := index.CountWords(u.Source); w != u.NumWords {
			v.report("unit %d: num_words %d, recount %d", u.ID, u.NumWords, w)
		}
		if c := u.NumChars(); c != chars {
			v.report("unit %d: num_chars %d, recount %d", u.ID, chars, c)
		}
		for _, f := range []struct {
			name         string
			stored, rows bool
		}{{"has_failing_check", u.HasFailingCheck, failing}, {"has_suggestion", u.HasSuggestion, suggestion},
			{"has_comment", u.HasComment, comment}} {
			if f.stored != f.rows {
				v.report("unit %d: %s %v, recount %v", u.ID, f.name, f.stored, f.rows)
			}
		}
		s := v.byTranslation[u.TranslationID]
		if s == nil {
			s = &index.Stats{}
			v.byTranslation[u.TranslationID] = s
		}
		// The statistics count the stored columns (chars as stored):
		// each is checked above, so each link of the chain is.
		s.CountUnit(u.State, u.NumWords, chars)
		if u.HasFailingCheck {
			s.CountFailing(u.NumWords, chars, 1)
		}
		if u.HasSuggestion {
			s.Suggestions++
		}
		if u.HasComment {
			s.Comments++
		}
	}
	return rows.Err()
}

// unitSideRows are PostgreSQL's side tables of units (migration 0114),
// each with the rows units says it holds, in the same columns.
var unitSideRows = []struct{ table, columns, fromUnits string }{
	{"unit_targets", "translation_id, prefix, unit_id",
		"SELECT translation_id, substr(target, 1, 64), id FROM units WHERE target != ''"},
	{"unit_states", "state, unit_id", "SELECT state, id FROM units WHERE state NOT IN (0, 20)"},
	{"unit_pending", "translation_id, unit_id", "SELECT translation_id, id FROM units WHERE pending != 0"},
}

// unitSideTables compares each side table of units with the rows units
// says it holds: the triggers that keep them write in the statement's own
// transaction, so a row missing or left over is a bug, not a crash. One
// FULL JOIN a table on every column, so units is read once a table (an
// EXCEPT each way read it twice); a row whose columns differ is both
// missing and left over, as with EXCEPT. The columns are NOT NULL, so
// their equality is EXCEPT's.
func (v *countVerifier) unitSideTables(ctx context.Context, q queryer) error {
	for _, t := range unitSideRows {
		var same []string
		for _, c := range strings.Split(t.columns, ", ") {
			same = append(same, "u."+c+" = s."+c)
		}
		rows, err := q.QueryContext(ctx, `SELECT coalesce(u.unit_id, s.unit_id), s.unit_id IS NULL,
				CASE WHEN s.unit_id IS NULL THEN u::text ELSE s::text END
			FROM (`+t.fromUnits+`) u(`+t.columns+`)
			FULL JOIN (SELECT `+t.columns+` FROM `+t.table+`) s(`+t.columns+`) ON `+strings.Join(same, " AND ")+`
			WHERE u.unit_id IS NULL OR s.unit_id IS NULL ORDER BY 1, 2 DESC`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var missing bool
			var row string
			if err := rows.Scan(&id, &missing, &row); err != nil {
				rows.Close()
				return err
			}
			what := "left over"
			if missing {
				what = "missing"
			}
			v.report("%s: unit %d's row %s %s", t.table, id, row, what)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// stats compares every statistics row with the sum of the recounts of
// the translations it covers.
func (v *countVerifier) stats(ctx context.Context, q queryer) error {
	rows, err := q.QueryContext(ctx, `SELECT t.id, t.component_id, c.project_id, t.language_code
		FROM translations t JOIN components c ON c.id = t.component_id`)
	if err != nil {
		return err
	}
	want := map[scopeKey]*index.Stats{}
	for rows.Next() {
		var s scopeIDs
		if err := rows.Scan(&s.translationID, &s.componentID, &s.projectID, &s.languageCode); err != nil {
			rows.Close()
			return err
		}
		st := v.byTranslation[s.translationID]
		for _, k := range append(aggregateScopes(s), scopeKey{"t", itoa(s.translationID)}) {
			if want[k] == nil {
				want[k] = &index.Stats{}
			}
			want[k].Add(*st, 1)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	stored := map[scopeKey]index.Stats{}
	rows, err = q.QueryContext(ctx, `SELECT scope, scope_key, `+statsColumns+` FROM stats`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k scopeKey
		var s index.Stats
		if err := rows.Scan(append([]any{&k.scope, &k.key}, statsFields(&s)...)...); err != nil {
			return err
		}
		stored[k] = s
	}
	if err := rows.Err(); err != nil {
		return err
	}
	keys := slices.Collect(maps.Keys(want))
	for k := range stored {
		if want[k] == nil {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b scopeKey) int {
		return cmp.Or(strings.Compare(a.scope, b.scope), strings.Compare(a.key, b.key))
	})
	for _, k := range keys {
		var w index.Stats
		if want[k] != nil {
			w = *want[k]
		}
		// A scope without translations has no row, or a row of zeros.
		if got := stored[k]; got != w {
			v.report("stats %s/%s: stored %s, recount %s", k.scope, k.key, statsText(got), statsText(w))
		}
	}
	return nil
}

// statsText shows the counters of s that are not zero, for a report.
func statsText(s index.Stats) string {
	names := strings.Fields(strings.ReplaceAll(statsColumns, ",", " "))
	var parts []string
	for i, p := range statsValues(s) {
		if n := p.(int); n != 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", names[i], n))
		}
	}
	if parts == nil {
		return "{}"
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// listRecount recounts list_counts from the rows: the units and changes
// lists (migrations 0002, 0019), the suggestions lists (0057) and the
// memory list's units (0063) and imported entries (0071; an entry whose
// memory list is missing counts under scope -1, which no row holds).
const listRecount = `
		SELECT 'ut', translation_id, id >> 10, count(*) FROM units GROUP BY 2, 3
		UNION ALL SELECT 'c', 0, id >> 10, count(*) FROM changes GROUP BY 3
		UNION ALL SELECT 'ct', translation_id, id >> 10, count(*) FROM changes WHERE translation_id IS NOT NULL GROUP BY 2, 3
		UNION ALL SELECT 'cc', component_id, id >> 10, count(*) FROM changes WHERE component_id IS NOT NULL GROUP BY 2, 3
		UNION ALL SELECT 'cp', project_id, id >> 10, count(*) FROM changes WHERE project_id IS NOT NULL GROUP BY 2, 3
		UNION ALL SELECT 'cu', unit_id, id >> 10, count(*) FROM changes WHERE unit_id IS NOT NULL GROUP BY 2, 3
		UNION ALL SELECT 's', 0, id >> 10, count(*) FROM suggestions GROUP BY 3
		UNION ALL SELECT 'su', unit_id, id >> 10, count(*) FROM suggestions GROUP BY 2, 3
		UNION ALL SELECT 'mu', translation_id, id >> 10, count(*) FROM units WHERE state >= 10 AND target != '' GROUP BY 2, 3
		UNION ALL SELECT 'mi', coalesce(l.id, -1), m.id >> 10, count(*) FROM memory m LEFT JOIN memory_lists l
			ON l.project = coalesce(m.project_id, 0) AND l.source_language = m.source_language
			AND l.target_language = m.target_language GROUP BY 2, 3`

// lists compares list_counts with listRecount.
func (v *countVerifier) lists(ctx context.Context, q queryer) error {
	read := func(query string) (map[string]int64, error) {
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			var list string
			var scope, bucket, n int64
			if err := rows.Scan(&list, &scope, &bucket, &n); err != nil {
				return nil, err
			}
			out[fmt.Sprintf("%s/%d/%d", list, scope, bucket)] = n
		}
		return out, rows.Err()
	}
	return v.compareCounts("list count", read, `SELECT list, scope, bucket, n FROM list_counts`, listRecount)
}

// compareCounts reads counts by key with read, as stored (the query
// stored) and recounted (recount), and reports each key whose two
// differ, a key absent from one counting zero there.
func (v *countVerifier) compareCounts(what string, read func(query string) (map[string]int64, error), stored, recount string) error {
	got, err := read(stored)
	if err != nil {
		return err
	}
	want, err := read(recount)
	if err != nil {
		return err
	}
	keys := slices.Sorted(maps.Keys(want))
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if got[k] != want[k] {
			v.report("%s %s: stored %d, recount %d", what, k, got[k], want[k])
		}
	}
	return nil
}
