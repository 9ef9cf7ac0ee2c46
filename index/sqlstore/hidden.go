package sqlstore

import (
	"strconv"
	"strings"
)

// Private projects are left out of every list for readers who may not
// see them. The callers name them by id (hidden); no hidden ids means the
// list's usual query, unchanged, so that the keyset paging of the common
// case (no private project, or a reader who sees them all) stays as it
// is. Hidden ids turn a list into a filtered one, counted and paged with
// OFFSET.

// idList returns "(?, ?, …)" with one mark per id, and the ids as
// arguments.
func idList(ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return "(?" + strings.Repeat(", ?", len(ids)-1) + ")", args
}

// notIn returns the condition "column NOT IN (ids)" and its arguments.
func notIn(column string, ids []int64) (string, []any) {
	list, args := idList(ids)
	return column + " NOT IN " + list, args
}

// hiddenKey identifies a set of hidden ids in a cache key.
func hiddenKey(ids []int64) string {
	b := make([]byte, 0, 8*len(ids))
	for _, id := range ids {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ',')
	}
	return string(b)
}
