package sqlstore

import (
	"strconv"
	"strings"
	"time"
)

// How Go values are stored: the schema keeps the same column types on
// both engines, so that the queries stay one (see dialect.args).

// timeLayout stores timestamps as sortable UTC text with microseconds, the
// precision the API shows.
const timeLayout = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
