package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
)

// Page numbers are answered by keyset lookups (migration 0002): the table
// list_counts counts each list's rows per bucket of 1<<bucketBits
// consecutive ids, and triggers keep those counts exact on every write.
// A page costs one read of the list's bucket rows, summed in Go (one row
// per 1,024 ids the list spans: about 200 for a 200,000-row list; for all
// units, one per bucket, summed over translations by SQLite), a skip
// of fewer than 1,024 index entries inside one bucket, and an index range
// read of the page itself, however deep the page is. The same bucket rows
// give the total, so no count(*) runs either.
//
// Lists are ordered by id. For changes that equals the API's (timestamp,
// id) order because timestamps never decrease in id order (insertChange).
// A list read newest first (all suggestions, migration 0057) is the same
// list with desc set: its offset k is the ascending offset total-1-k, and
// a page runs down from there.

// bucketBits must match the `id >> 10` of migration 0002.
const bucketBits = 10

// noBound is the upper id bound of a list that has none.
const noBound = math.MaxInt64

// keyList is one counted list: the rows of a table that where selects,
// in ascending id order, restricted to ids in [lo, hi). An index must lead
// with where's equality columns and end with the id (every SQLite index
// ends with the rowid), so that an id range within the list is one seek.
type keyList struct {
	list  string // list_counts.list
	scope int64  // list_counts.scope
	// allScopes sums the list's rows of every scope instead: all units
	// are the units of every translation. scopeIn, when set, narrows
	// that sum to the scopes its subquery (with scopeArgs) selects: the
	// memory's units of some translations (memory.go).
	allScopes bool
	scopeIn   string
	scopeArgs []any
	from      string // the table as in a FROM clause: "units", "changes ch"
	id        string // its id column: "id", "ch.id"
	where     string // " WHERE …" selecting the list's rows, or ""
	args      []any  // where's arguments
	lo        int64
	hi        int64 // noBound: no upper bound
	// desc reads the list in descending id order: locate counts offsets
	// from the highest id and page reads down from the id it found.
	desc bool
}

// and returns where ready for one more condition.
func (l keyList) and() string {
	if l.where == "" {
		return " WHERE "
	}
	return l.where + " AND "
}

// after returns the WHERE clause, with its arguments, of the list's rows
// from id first on.
func (l keyList) after(first int64) (string, []any) {
	if l.hi == noBound {
		return l.and() + l.id + " >= ?", withArgs(l.args, first)
	}
	return l.and() + l.id + " >= ? AND " + l.id + " < ?", withArgs(l.args, first, l.hi)
}

// page returns the WHERE clause, with its arguments, and the ORDER BY of
// a page of the list that starts at id first (as locate found it).
func (l keyList) page(first int64) (string, []any, string) {
	if !l.desc {
		cond, args := l.after(first)
		return cond, args, " ORDER BY " + l.id
	}
	if l.lo == 0 {
		return l.and() + l.id + " <= ?", withArgs(l.args, first), " ORDER BY " + l.id + " DESC"
	}
	return l.and() + l.id + " <= ? AND " + l.id + " >= ?", withArgs(l.args, first, l.lo), " ORDER BY " + l.id + " DESC"
}

// locate returns the number of rows in l and the id of the row at offset
// (0-based, in l's order); ok is false when offset is past the end. q
// must be the transaction the page is then read in, so that counts and
// rows agree.
func (l keyList) locate(ctx context.Context, q queryer, offset int) (total int, first int64, ok bool, err error) {
	if l.lo >= l.hi || offset < 0 {
		return 0, 0, false, nil
	}
	loBucket, hiBucket := l.lo>>bucketBits, (l.hi-1)>>bucketBits
	// The buckets that lo and hi cut hold rows outside the list's range:
	// count the part inside, fewer than 1,024 index entries each.
	loCut, hiCut := l.lo&(1<<bucketBits-1) != 0, l.hi != noBound && l.hi&(1<<bucketBits-1) != 0
	var loN, hiN int
	switch {
	case loBucket == hiBucket && (loCut || hiCut):
		loCut, hiCut = true, false
		loN, err = l.count(ctx, q, l.lo, l.hi)
	default:
		if loCut {
			loN, err = l.count(ctx, q, l.lo, (loBucket+1)<<bucketBits)
		}
		if hiCut && err == nil {
			hiN, err = l.count(ctx, q, hiBucket<<bucketBits, l.hi)
		}
	}
	if err != nil {
		return 0, 0, false, err
	}
	// The running sum over the list's bucket rows finds the bucket that
	// reaches past offset. It is summed here rather than by a window
	// function in SQL: SQLite builds an ephemeral table for the window,
	// which cost a fifth of a page read from the index, while a list has
	// one bucket row per 1,024 ids it spans.
	counts := `SELECT bucket, n FROM list_counts WHERE list = ? AND scope = ? AND bucket BETWEEN ? AND ?
		ORDER BY bucket`
	args := []any{l.list, l.scope, loBucket, hiBucket}
	if l.allScopes {
		counts = `SELECT bucket, sum(n) FROM list_counts WHERE list = ? AND bucket BETWEEN ? AND ?` + l.scopes() + `
			GROUP BY bucket ORDER BY bucket`
		args = withArgs([]any{l.list, loBucket, hiBucket}, l.scopeArgs...)
	}
	rows, err := q.QueryContext(ctx, counts, args...)
	if err != nil {
		return 0, 0, false, err
	}
	defer rows.Close()
	// A descending list needs its total before it knows which ascending
	// offset to find, so the bucket rows are kept (one per 1,024 ids).
	type bucketCount struct {
		bucket int64
		n      int
	}
	var buckets []bucketCount
	for rows.Next() {
		var c bucketCount
		if err := rows.Scan(&c.bucket, &c.n); err != nil {
			return 0, 0, false, err
		}
		switch {
		case c.bucket == loBucket && loCut:
			c.n = loN
		case c.bucket == hiBucket && hiCut:
			c.n = hiN
		}
		buckets = append(buckets, c)
		total += c.n
	}
	if err := rows.Err(); err != nil {
		return total, 0, false, err
	}
	if l.desc {
		offset = total - 1 - offset
	}
	var bucket int64
	before, found := 0, false
	if offset >= 0 {
		for _, c := range buckets {
			if before+c.n > offset {
				bucket, found = c.bucket, true
				break
			}
			before += c.n
		}
	}
	if !found {
		return total, 0, false, nil
	}
	first, err = l.nth(ctx, q, max(l.lo, bucket<<bucketBits), offset-before)
	return total, first, err == nil, err
}

// total returns how many rows the list has, lo and hi aside.
func (l keyList) total(ctx context.Context, q queryer) (n int, err error) {
	query, args := `SELECT coalesce(sum(n), 0) FROM list_counts WHERE list = ? AND scope = ?`, []any{l.list, l.scope}
	if l.allScopes {
		query, args = `SELECT coalesce(sum(n), 0) FROM list_counts WHERE list = ?`+l.scopes(), withArgs([]any{l.list}, l.scopeArgs...)
	}
	err = q.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// scopes is the condition scopeIn puts on list_counts rows, or "".
func (l keyList) scopes() string {
	if l.scopeIn == "" {
		return ""
	}
	return " AND scope IN (" + l.scopeIn + ")"
}

// count returns how many rows of the list have ids in [lo, hi).
func (l keyList) count(ctx context.Context, q queryer, lo, hi int64) (n int, err error) {
	err = q.QueryRowContext(ctx, `SELECT count(*) FROM `+l.from+l.and()+l.id+` >= ? AND `+l.id+` < ?`,
		withArgs(l.args, lo, hi)...).Scan(&n)
	return n, err
}

// nth returns the id of the row that k rows of the list precede among
// those with id >= from.
func (l keyList) nth(ctx context.Context, q queryer, from int64, k int) (id int64, err error) {
	err = q.QueryRowContext(ctx, `SELECT `+l.id+` FROM `+l.from+l.and()+l.id+` >= ? ORDER BY `+l.id+`
		LIMIT 1 OFFSET ?`, withArgs(l.args, from, k)...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		// The triggers of migration 0002 rule this out.
		err = fmt.Errorf("list_counts %s/%d out of step with its rows", l.list, l.scope)
	}
	return id, err
}

// withArgs returns args followed by more, never writing into args'
// backing array.
func withArgs(args []any, more ...any) []any {
	return append(args[:len(args):len(args)], more...)
}
