package indextest

import (
	"database/sql"
	"testing"

	"github.com/tolk-project/tolk/index/sqlstore"
)

// Raw is a plain database/sql connection to an index, for the tests that
// write or read rows no store method does (a change of a user the write
// paths do not yet record, a lock set behind the store's back, what a
// killed process left). It takes the shared queries' ? placeholders and
// Go bools on either engine, as the store does. The store's caches do not
// see what it writes.
type Raw struct {
	db *sql.DB
	pg bool
}

// OpenRaw connects to the index at loc (Location), closed when tb ends.
// The index must have been opened once, so that its tables exist.
func OpenRaw(tb testing.TB, loc string) *Raw {
	tb.Helper()
	r := &Raw{pg: Engine() == Postgres}
	var err error
	if r.pg {
		r.db, err = sql.Open("pgx", loc)
	} else {
		// The store's writer may hold the file's write lock a moment.
		r.db, err = sql.Open("sqlite", "file:"+loc+"?_pragma=busy_timeout(10000)")
	}
	if err != nil {
		tb.Fatalf("open %s index %s: %v", Engine(), loc, err)
	}
	tb.Cleanup(func() { r.db.Close() })
	return r
}

// Exec runs query, failing tb on an error.
func (r *Raw) Exec(tb testing.TB, query string, args ...any) sql.Result {
	tb.Helper()
	q, a := r.bind(query, args)
	res, err := r.db.Exec(q, a...)
	if err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return res
}

// Query runs query, failing tb on an error; the caller closes the rows.
func (r *Raw) Query(tb testing.TB, query string, args ...any) *sql.Rows {
	tb.Helper()
	q, a := r.bind(query, args)
	rows, err := r.db.Query(q, a...)
	if err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return rows
}

// QueryRow runs a query that returns one row.
func (r *Raw) QueryRow(query string, args ...any) *sql.Row {
	q, a := r.bind(query, args)
	return r.db.QueryRow(q, a...)
}

// Exec runs one statement on the index at loc (OpenRaw).
func Exec(tb testing.TB, loc, query string, args ...any) {
	tb.Helper()
	OpenRaw(tb, loc).Exec(tb, query, args...)
}

// bind returns query and args as the index's engine takes them.
func (r *Raw) bind(query string, args []any) (string, []any) {
	if !r.pg {
		return query, args
	}
	return sqlstore.PostgresSQL(query, args)
}
