package index

import (
	"fmt"
	"strings"
)

// UnitSort is one key of a unit list's order: the reference's sort_by
// (weblate/utils/views.py SORT_CHOICES, weblate-workspace.md §8), a
// comma-separated list of keys, each reversed by a leading "-".
type UnitSort struct {
	Key  string // one of UnitSortKeys
	Desc bool
}

// UnitSortKeys are the keys sort_by takes, as the reference names them:
// timestamp is when the string was added, last_updated its last change,
// labels the first of its source string's label names, num_comments its
// unresolved comments, num_failing_checks its checks not dismissed,
// component its component's name.
var UnitSortKeys = []string{"position", "priority", "labels", "source", "target", "timestamp", "last_updated",
	"num_words", "num_comments", "num_failing_checks", "context", "location", "component"}

// MaxUnitSortKeys bounds the keys of one sort_by: each is a term of the
// ORDER BY, some a subquery per unit.
const MaxUnitSortKeys = 5

// ParseUnitSort parses sort_by. The reference skips a key it does not
// know and sorts by its default when none is left; Tolk answers 400 on
// sort_by naming the key instead, so a client's typo is not a silently
// different order. "" is no sort: the list's own order (ascending id,
// what the API's lists always had).
func ParseUnitSort(s string) ([]UnitSort, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > MaxUnitSortKeys {
		return nil, sortError("At most %d sort keys are allowed; %d given.", MaxUnitSortKeys, len(parts))
	}
	out := make([]UnitSort, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		k := UnitSort{Key: strings.TrimPrefix(p, "-"), Desc: strings.HasPrefix(p, "-")}
		known := false
		for _, name := range UnitSortKeys {
			known = known || name == k.Key
		}
		if !known {
			if r := []rune(p); len(r) > 50 {
				p = string(r[:50]) + "…"
			}
			return nil, sortError("Unknown sort key %q; use one of %s, each reversed by a leading -.",
				p, strings.Join(UnitSortKeys, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}

func sortError(format string, args ...any) error {
	return &FieldError{Fields: map[string]FieldProblem{"sort_by": {Code: "invalid",
		Detail: fmt.Sprintf(format, args...)}}}
}

// UnitSortString is sorts written back as sort_by: a cache's key.
func UnitSortString(sorts []UnitSort) string {
	parts := make([]string, len(sorts))
	for i, s := range sorts {
		parts[i] = s.Key
		if s.Desc {
			parts[i] = "-" + s.Key
		}
	}
	return strings.Join(parts, ",")
}
