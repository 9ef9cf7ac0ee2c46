package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// The site-wide search of a source or key text on PostgreSQL, counted
// and paged from the source units (issue 31: `source:"the file"` over
// 100x the corpus took 1.2 s, past the 10 s limit on a cold cache).
//
// A unit linked to a source unit (migration 0089, trigram.go) holds the
// same source and key as that unit; so a query whose terms read only
// the source and the key matches it exactly when it matches its source
// unit. The general path (trigramFilter) lists every linked unit of a
// candidate row and tests each against the query, a heap probe of units
// per candidate: 1.04 M blocks a count at 100x. Here only the rows that
// hold their own text are tested, and each matching source unit's linked
// units are counted from unit_trigrams_source_units, an index-only scan.
//
// Every unit is in exactly one of four parts, so the parts add up:
//
//  1. noted (unit_trigrams_pending): its row may be stale or gone, so
//     it is tested exactly;
//  2. not noted and holding its own text (source_unit_id NULL): its row
//     is current, a candidate when it holds the needles' trigrams, and
//     tested exactly;
//  3. not noted, linked to a source unit that is not noted: that unit's
//     row is its own (not linked in turn) and holds the same source and
//     key (countVerifier.trigramLinks), so the unit matches when that
//     unit is in part 2's matches; its id is read from the index;
//  4. not noted, linked to a noted source unit, whose row may hold the
//     text of before: tested exactly, as in part 1.
//
// The id terms ANDed with the text (tolk-bench's id:>=-N) apply to each
// unit's own id, which the index holds beside the link. Any other term,
// a sort, a translation's scope or hidden projects (tested on each unit's
// translation, which the index does not hold) take the general path.

// sharedSearch is a query sharedTextSearch answers: text terms on the
// source and key, and id terms, ANDed.
type sharedSearch struct {
	text []*index.QueryTerm
	ids  []*index.QueryTerm
}

// sharedQuery splits q into a sharedSearch; ok is false for a query
// that has any other term, or none of whose text terms has a trigram (a
// short needle, a regex with no literal), which would read every row.
func sharedQuery(q *index.Query) (s sharedSearch, ok bool) {
	kids := []*index.Query{q}
	if q.Kind == index.QueryAnd {
		kids = q.Kids
	}
	need := false
	for _, k := range kids {
		if k.Kind != index.QueryTermNode {
			return s, false
		}
		t := k.Term
		switch t.Field {
		case "source", "context":
			switch t.Op {
			case index.OpContains, index.OpExact, index.OpRegex:
			default:
				return s, false
			}
			c := searchCompiler{postgres: true}
			if c.textNeed(t) != nil {
				need = true
			}
			s.text = append(s.text, t)
		case "id":
			s.ids = append(s.ids, t)
		default:
			return s, false
		}
	}
	return s, need
}

// sharedTextSearch counts the matches of s over every unit and reads the
// ids of the page [offset, offset+size) in id order, in one statement
// (one snapshot): the page is the first ids of the same matches.
func sharedTextSearch(ctx context.Context, tx queryer, s sharedSearch, offset, size int) (total int, ids []int64, err error) {
	q, args, err := sharedTextSQL(s, offset, size)
	if err != nil {
		return 0, nil, err
	}
	var page sql.NullString
	if err := tx.QueryRowContext(ctx, q, args...).Scan(&total, &page); err != nil {
		return 0, nil, err
	}
	if page.String == "" {
		return total, nil, nil
	}
	for _, p := range strings.Split(page.String, ",") {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return 0, nil, fmt.Errorf("shared search: page id %q: %w", p, err)
		}
		ids = append(ids, id)
	}
	return total, ids, nil
}

// sharedTextSQL is sharedTextSearch's statement: the count of the
// matches and their ids of the page, joined by commas.
func sharedTextSQL(s sharedSearch, offset, size int) (string, []any, error) {
	exact := searchCompiler{postgres: true, scan: true}
	var text []sqlFrag
	var rows []sqlFrag
	for _, t := range s.text {
		f, err := exact.term(t)
		if err != nil {
			return "", nil, err
		}
		text = append(text, f)
		need := exact.textNeed(t)
		if need == nil {
			continue
		}
		col := "g.trigrams"
		if t.Field == "context" {
			col = "g.key_trigrams"
		}
		// A long unit's row holds only the mark (maxIndexedText).
		rows = append(rows, joinFrags("OR", []sqlFrag{exact.pgTrigramFilter(need, col),
			frag(col+" @> ARRAY[?]::integer[]", trigramCode(longUnitMark))}))
	}
	idCond := func(col string) sqlFrag {
		conds := []sqlFrag{fragTrue}
		for _, t := range s.ids {
			conds = append(conds, num(col, t))
		}
		return joinFrags("AND", conds)
	}
	match := joinFrags("AND", text)
	const noted = "SELECT 1 FROM unit_trigrams_pending p WHERE p.unit_id = "
	// Every join below is a lookup by key, each in a LATERAL subquery
	// that OFFSET 0 keeps the planner from flattening into a join it
	// would size from the statistics: part 2's candidate rows' units
	// and part 4's linked units by primary key, part 3's links of a
	// matching source unit by unit_trigrams_source_units, and parts 1
	// and 4 a note at a time: each note's unit and the units linked to
	// it. Those joins cost what their candidates, matches and notes
	// cost, whatever the statistics (parts 2 and 3's tests of whether a
	// unit is noted are still planned from the queue's: ≈ 29k buffers
	// at 10x with 859 notes, as on main); the queue's statistics are a snapshot of
	// whichever moment autovacuum met in a table that swings from a
	// whole import's units to none in the trigram step's seconds. As `IN (SELECT unit_id FROM unit_trigrams_pending)` the planner
	// took statistics of a queue analyzed mid-step (131,429 notes; 15
	// there) or empty (ten pages assumed; 859 there) to hash the notes
	// against every row of unit_trigrams: 100-650 ms for the corpus's
	// "the file" where the notes' lookups take 3-6 ms, the 1x search's
	// two modes (BENCHMARKS.md "Session 15: SRCH15";
	// TestSharedSearchQueuePlan).
	//
	// own: part 2's candidate rows, each unit probed by primary key in a
	// LATERAL fenced as part 4's is: with the planner free to join,
	// statistics of units taken mid-import (89,516 rows of 277,429, the
	// ids past their histogram) made it merge-join the 40 candidates with
	// every unit in id order, 212,000 rows read for 18 matches (940 ms).
	cand := joinFrags("AND", append([]sqlFrag{fragTrue}, rows...))
	ownID, linkedID, restID := idCond("own.id"), idCond("l.unit_id"), idCond("units.id")
	q := `WITH own AS MATERIALIZED (
		SELECT u.id FROM unit_trigrams g CROSS JOIN LATERAL (
			SELECT units.id FROM units WHERE units.id = g.unit_id AND (` + match.sql + `) OFFSET 0) u
		WHERE g.source_unit_id IS NULL AND NOT EXISTS (` + noted + `g.unit_id) AND (` + cand.sql + `)
	), m AS MATERIALIZED (
		SELECT own.id FROM own WHERE ` + ownID.sql + `
		UNION ALL
		SELECT k.unit_id FROM own CROSS JOIN LATERAL (
			SELECT l.unit_id FROM unit_trigrams l WHERE l.source_unit_id = own.id AND l.source_unit_id IS NOT NULL
				AND NOT EXISTS (` + noted + `l.unit_id) AND ` + linkedID.sql + ` OFFSET 0) k
		UNION ALL
		SELECT n.id FROM unit_trigrams_pending q CROSS JOIN LATERAL (
			SELECT units.id FROM units WHERE units.id = q.unit_id AND (` + match.sql + `) AND ` + restID.sql + `
			UNION ALL
			SELECT v.id FROM unit_trigrams l CROSS JOIN LATERAL (
				SELECT units.id FROM units WHERE units.id = l.unit_id AND (` + match.sql + `) AND ` + restID.sql + ` OFFSET 0) v
			WHERE l.source_unit_id = q.unit_id AND l.source_unit_id IS NOT NULL AND NOT EXISTS (` + noted + `l.unit_id)
			OFFSET 0) n
	)
	SELECT (SELECT count(*) FROM m),
		(SELECT string_agg(id::text, ',' ORDER BY id) FROM (SELECT id FROM m ORDER BY id LIMIT ? OFFSET ?) p)`
	var args []any
	for _, f := range []sqlFrag{match, cand, ownID, linkedID, match, restID, match, restID} {
		args = append(args, f.args...)
	}
	return q, append(args, size, offset), nil
}

// findUnitsShared is findUnitsFiltered for a sharedSearch: the count and
// the page's ids from sharedTextSearch, the page's units by id.
func findUnitsShared(ctx context.Context, tx queryer, f index.UnitFilter, s sharedSearch) ([]index.Unit, int, error) {
	size := max(f.Page.Size, 0)
	offset := max(f.Page.Offset(), 0)
	total, ids, err := sharedTextSearch(ctx, tx, s, offset, size)
	if err != nil || len(ids) == 0 || f.Page.Offset() < 0 || f.Page.Size <= 0 {
		return nil, total, err
	}
	list, args := idList(ids)
	rows, err := tx.QueryContext(ctx, `SELECT `+unitColumns+` FROM units WHERE id IN `+list+` ORDER BY id`, args...)
	if err != nil {
		return nil, 0, err
	}
	units, err := scanUnits(rows, len(ids))
	if err == nil {
		err = withLabels(ctx, tx, units)
	}
	return units, total, err
}
