package sqlstore

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// countUnits is the number of units a filtered list holds: where and
// args are f's WHERE clause, q its parsed query.
//
// A list that leaves out the labelled strings (NOT has:label, NOT
// label:x, ANDed with anything else) is counted as what its other terms
// match less what they match with the label: count(R AND NOT L) =
// count(R) - count(R AND L). Labelled strings are few, and a label term
// is an id IN (labelled units), so both counts are read from what R
// needs and a few rows, where counting the negation tests every unit
// against the labelled ones (NOT has:label over 277,429 units: 31 ms of
// SQLite CPU for the count alone, 107 ms p99 on a shared machine). The
// identity holds because a label term is never NULL (an IN over ids that
// are never NULL), so NOT L is true exactly where L is not.
func countUnits(ctx context.Context, tx queryer, f index.UnitFilter, q *index.Query, where string, args []any, pg bool) (int, error) {
	rest, with, ok := labelComplement(q)
	if !ok {
		if n, ok, err := countGlossary(ctx, tx, f, q); err != nil || ok {
			return n, err
		}
		if n, ok, err := countByState(ctx, tx, f, q); err != nil || ok {
			return n, err
		}
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM units`+where, args...).Scan(&n)
		return n, err
	}
	var counts [2]int
	for i, part := range []*index.Query{rest, with} {
		// R from the bucket counts, R AND L (has:glossary alone) from
		// glossary_matches, where they can be.
		count := countGlossary
		if i == 0 {
			count = func(ctx context.Context, tx queryer, f index.UnitFilter, q *index.Query) (int, bool, error) {
				return countByKey(ctx, tx, f, q, pg)
			}
		}
		n, ok, err := count(ctx, tx, f, part)
		if err != nil {
			return 0, err
		}
		if ok {
			counts[i] = n
			continue
		}
		w, a, err := unitWhereQuery(f, part, pg)
		if err != nil {
			return 0, err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM units`+w, a...).Scan(&counts[i]); err != nil {
			return 0, err
		}
	}
	return counts[0] - counts[1], nil
}

// countByKey counts q's units from the units lists' bucket counts
// (keyset.go) when q selects no more than f's scope does within an id
// range (id terms ANDed, or nothing): ok is false for any other query.
// R of NOT has:label is every unit, or every unit of a translation, and
// counting it row by row was most of that search's work (206,276 units:
// a pass over an index, 3-5 ms of SQLite's CPU; on a loaded machine its
// p99 crossed 50 ms). The bucket rows number one per translation and
// 1,024 ids.
func countByKey(ctx context.Context, tx queryer, f index.UnitFilter, q *index.Query, pg bool) (n int, ok bool, err error) {
	if len(f.HiddenProjects) > 0 {
		return 0, false, nil
	}
	lo, hi, ok := idRange(q)
	if !ok {
		return 0, false, nil
	}
	if lo >= hi || hi <= 0 {
		return 0, true, nil
	}
	where, args, err := unitWhereQuery(index.UnitFilter{TranslationID: f.TranslationID}, &index.Query{Kind: index.QueryAll}, pg)
	if err != nil {
		return 0, false, err
	}
	l := keyList{list: "ut", scope: f.TranslationID, allScopes: f.TranslationID == 0, from: "units", id: "id",
		where: where, args: args, lo: lo, hi: hi}
	n, _, _, err = l.locate(ctx, tx, 0)
	return n, true, err
}

// idRange is the id range [lo, hi) of q when q is id terms ANDed, or
// nothing (countByKey); ok is false for any other query.
func idRange(q *index.Query) (lo, hi int64, ok bool) {
	lo, hi = int64(0), int64(noBound)
	// succ is n+1, saturated: id:<=MaxInt64 bounds nothing.
	succ := func(n int64) int64 {
		if n == math.MaxInt64 {
			return n
		}
		return n + 1
	}
	bound := func(t *index.QueryTerm) bool {
		if t.Field != "id" {
			return false
		}
		switch t.Op {
		case index.OpEq:
			lo, hi = max(lo, t.Num), min(hi, succ(t.Num))
		case index.OpGE:
			lo = max(lo, t.Num)
		case index.OpGT:
			lo = max(lo, succ(t.Num))
		case index.OpLE:
			hi = min(hi, succ(t.Num))
		case index.OpLT:
			hi = min(hi, t.Num)
		case index.OpRange:
			lo, hi = max(lo, t.Num), min(hi, succ(t.NumHi))
		default:
			return false
		}
		return true
	}
	switch q.Kind {
	case index.QueryAll:
	case index.QueryTermNode:
		if !bound(q.Term) {
			return 0, 0, false
		}
	case index.QueryAnd:
		for _, k := range q.Kids {
			if k.Kind != index.QueryTermNode || !bound(k.Term) {
				return 0, 0, false
			}
		}
	default:
		return 0, 0, false
	}
	return lo, hi, true
}

// countGlossary counts has:glossary over every unit (no scope, or an id
// range: id terms ANDed with it) from glossary_matches alone, whose
// rows are units (its key references them, deleted with them): testing
// each unit's id against the rows probed the units by id, 26 ms of
// SQLite's CPU a request for the benchmark's 51,309 matches. ok is
// false for any other query or a scoped filter.
func countGlossary(ctx context.Context, tx queryer, f index.UnitFilter, q *index.Query) (n int, ok bool, err error) {
	if len(f.HiddenProjects) > 0 || f.TranslationID != 0 {
		return 0, false, nil
	}
	isGlossary := func(k *index.Query) bool {
		return k.Kind == index.QueryTermNode && k.Term.Field == "has" && k.Term.Text == "glossary"
	}
	rest := &index.Query{Kind: index.QueryAll}
	switch {
	case isGlossary(q):
	case q.Kind == index.QueryAnd:
		i := slices.IndexFunc(q.Kids, isGlossary)
		if i < 0 {
			return 0, false, nil
		}
		rest = &index.Query{Kind: index.QueryAnd, Kids: slices.Delete(slices.Clone(q.Kids), i, i+1)}
	default:
		return 0, false, nil
	}
	lo, hi, ok := idRange(rest)
	if !ok {
		return 0, false, nil
	}
	if lo >= hi || hi <= 0 {
		return 0, true, nil
	}
	err = tx.QueryRowContext(ctx, `SELECT count(*) FROM glossary_matches WHERE unit_id >= ? AND unit_id < ?`, lo, hi).Scan(&n)
	return n, true, err
}

// labelComplement splits q = R AND NOT L, L a label term, into R and
// R AND L; ok is false for any other query. R is every unit when q is
// NOT L alone.
func labelComplement(q *index.Query) (rest, with *index.Query, ok bool) {
	if isNotLabel(q) {
		return &index.Query{Kind: index.QueryAll}, q.Kids[0], true
	}
	if q.Kind != index.QueryAnd {
		return nil, nil, false
	}
	for i, k := range q.Kids {
		if !isNotLabel(k) {
			continue
		}
		others := make([]*index.Query, 0, len(q.Kids))
		others = append(append(others, q.Kids[:i]...), q.Kids[i+1:]...)
		rest = others[0]
		if len(others) > 1 {
			rest = &index.Query{Kind: index.QueryAnd, Kids: others}
		}
		with = &index.Query{Kind: index.QueryAnd, Kids: append(others[:len(others):len(others)], k.Kids[0])}
		return rest, with, true
	}
	return nil, nil, false
}

// isNotLabel reports whether q is NOT of a label term (label:x or
// has:label) or of has:glossary, which is never NULL either and is
// read from its own rows (searchCompiler.glossary): NOT has:glossary
// over the benchmark's units tested 226,120 of them one by one.
func isNotLabel(q *index.Query) bool {
	if q.Kind != index.QueryNot || q.Kids[0].Kind != index.QueryTermNode {
		return false
	}
	t := q.Kids[0].Term
	return t.Field == "label" || (t.Field == "has" && (t.Text == "label" || t.Text == "glossary"))
}

// countByState counts a search of one state term (state:, is:translated
// and the other states is: names, has:translation) from the statistics
// rows, which count every translation's units by state exactly after
// every write: the translation's row in its scope, the projects' rows
// (less the hidden ones) without. ok is false for any other query.
// units_state no longer holds the empty and translated units (migration
// 0093), and counting them otherwise reads every unit of the scope.
//
// Id terms ANDed with it that bound no id (id:>=0, or tolk-bench's
// id:>=-N, which keeps each of its requests out of the page cache) leave
// it counted so; any other bound does not.
func countByState(ctx context.Context, tx queryer, f index.UnitFilter, q *index.Query) (n int, ok bool, err error) {
	term, rest := q, &index.Query{Kind: index.QueryAll}
	if q.Kind == index.QueryAnd {
		i := slices.IndexFunc(q.Kids, func(k *index.Query) bool { return k.Kind == index.QueryTermNode && k.Term.Field != "id" })
		if i < 0 {
			return 0, false, nil
		}
		term, rest = q.Kids[i], &index.Query{Kind: index.QueryAnd, Kids: slices.Delete(slices.Clone(q.Kids), i, i+1)}
	}
	if term.Kind != index.QueryTermNode {
		return 0, false, nil
	}
	// Ids are positive on both engines: from 1 up, nothing is left out.
	if lo, hi, ok := idRange(rest); !ok || lo > 1 || hi != noBound {
		return 0, false, nil
	}
	count, ok := stateCount(term.Term)
	if !ok {
		return 0, false, nil
	}
	where, args := ` WHERE scope = 'p'`, []any(nil)
	if f.TranslationID != 0 {
		// The hidden projects do not matter: the unit scope tests the
		// translation's project too, and the translation is in one.
		if len(f.HiddenProjects) > 0 {
			return 0, false, nil
		}
		where, args = ` WHERE scope = 't' AND scope_key = ?`, []any{itoa(f.TranslationID)}
	} else if len(f.HiddenProjects) > 0 {
		keys := make([]any, len(f.HiddenProjects))
		for i, id := range f.HiddenProjects {
			keys[i] = itoa(id)
		}
		where += ` AND scope_key NOT IN (?` + strings.Repeat(`, ?`, len(keys)-1) + `)`
		args = keys
	}
	var s index.Stats
	err = tx.QueryRowContext(ctx, `SELECT coalesce(sum(total), 0), coalesce(sum(translated), 0),
		coalesce(sum(fuzzy), 0), coalesce(sum(approved), 0), coalesce(sum(readonly), 0) FROM stats`+where, args...).
		Scan(&s.Total, &s.Translated, &s.Fuzzy, &s.Approved, &s.Readonly)
	return count(s), true, err
}

// stateCount is how a state term's count follows from a statistics
// row (index.Stats.CountUnit: Translated is state >= 20, Fuzzy 10-19,
// Approved 30, Readonly 100; the rest is 0, the one state below 10);
// ok is false for a term the row's counts do not answer.
func stateCount(t *index.QueryTerm) (count func(index.Stats) int, ok bool) {
	untranslated := func(s index.Stats) int { return s.Total - s.Translated }
	translated := func(s index.Stats) int { return s.Translated }
	empty := func(s index.Stats) int { return s.Total - s.Translated - s.Fuzzy }
	switch {
	case t.Field == "has" && t.Text == "translation":
		return translated, true
	case t.Field == "is":
		switch t.Text {
		case "read-only":
			return func(s index.Stats) int { return s.Readonly }, true
		case "approved":
			return func(s index.Stats) int { return s.Approved }, true
		case "needs-editing":
			return func(s index.Stats) int { return s.Fuzzy }, true
		case "translated":
			return translated, true
		case "untranslated":
			return untranslated, true
		case "empty":
			return empty, true
		}
		return nil, false
	case t.Field != "state":
		return nil, false
	}
	switch {
	case t.Op == index.OpLT && t.Num == int64(index.StateTranslated):
		return untranslated, true
	case t.Op == index.OpGE && t.Num == int64(index.StateTranslated):
		return translated, true
	case t.Op == index.OpEq && t.Num == int64(index.StateEmpty):
		return empty, true
	case t.Op == index.OpEq && t.Num == int64(index.StateApproved):
		return func(s index.Stats) int { return s.Approved }, true
	case t.Op == index.OpEq && t.Num == int64(index.StateReadOnly):
		return func(s index.Stats) int { return s.Readonly }, true
	}
	return nil, false
}
