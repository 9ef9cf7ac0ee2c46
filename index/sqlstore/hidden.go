package sqlstore

import (
	"math/bits"
	"strconv"
	"strings"
)

// Private projects are left out of every list for readers who may not
// see them. The callers name them by id (hidden); no hidden ids means the
// list's usual query, unchanged, so that the keyset paging of the common
// case (no private project, or a reader who sees them all) stays as it
// is. Hidden ids turn a list into a filtered one, counted and paged with
// OFFSET.

// idList returns "(?, ?, …)" and the values as its arguments (ids, or
// language codes), padded to a
// power of two marks by repeating the last id (which changes nothing an
// IN or NOT IN means): every statement text is prepared and kept by the
// statement caches (stmtCache, at most 512 texts), and a list of every
// length was as many texts, crowding out the statements that matter,
// each prepared on a goroutine of its own.
func idList[T int64 | string](ids []T) (string, []any) {
	n := 1 << bits.Len(uint(len(ids)-1))
	args := make([]any, n)
	for i := range args {
		args[i] = ids[min(i, len(ids)-1)]
	}
	return "(?" + strings.Repeat(", ?", n-1) + ")", args
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
