// Package indextest opens indexes for tests on the engine under test:
// SQLite in a temporary directory, or an empty schema of the PostgreSQL
// server named by TOLK_TEST_POSTGRES. A package whose tests open indexes
// runs them on both engines with
//
//	func TestMain(m *testing.M) { indextest.Main(m) }
package indextest

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index/internal/testengine"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// The engines Engine names.
const (
	SQLite   = testengine.SQLite
	Postgres = testengine.Postgres
)

// Main runs the package's tests on each engine (testengine.Main).
func Main(m *testing.M) { testengine.Main(m) }

// AtExit registers f to run once Main has run the tests on every
// engine, before the process exits (testengine.AtExit): for what a
// package's tests share, such as a binary built once.
func AtExit(f func()) { testengine.AtExit(f) }

// Engine is the engine of the tests running now: SQLite or Postgres.
func Engine() string { return testengine.Engine() }

// Open returns a new empty index on the engine under test, closed when
// tb ends.
func Open(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	return OpenWith(tb, sqlstore.Options{})
}

// OpenWith is Open with o's settings; its Engine and Location are the
// test's.
func OpenWith(tb testing.TB, o sqlstore.Options) *sqlstore.DB {
	tb.Helper()
	db, err := ReopenWith(tb, Location(tb), o)
	if err != nil {
		tb.Fatalf("open %s index: %v", Engine(), err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// Clock is a clock for Options.Now that a test sets as it goes: the
// real time until Set. It is safe for concurrent use.
type Clock = testengine.Clock

// Location returns where a new empty index is: a file path for SQLite,
// a connection string for PostgreSQL, whose schema is migrated already
// (reuse.go). Reopen
// opens it again, as a restarted process would.
func Location(tb testing.TB) string {
	tb.Helper()
	if Engine() == testengine.Postgres {
		return postgresLocation(tb)
	}
	return sqliteLocation(tb)
}

// Reopen opens the index at loc (Location) without closing it at the
// end of tb.
func Reopen(tb testing.TB, loc string) (*sqlstore.DB, error) {
	tb.Helper()
	return ReopenWith(tb, loc, sqlstore.Options{})
}

// ReopenWith is Reopen with o's settings; its Engine and Location are
// the test's.
func ReopenWith(tb testing.TB, loc string, o sqlstore.Options) (*sqlstore.DB, error) {
	tb.Helper()
	o.Engine, o.Location = sqlstore.Engine(Engine()), loc
	return sqlstore.Open(context.Background(), o)
}

// CheckCounts fails tb with each counter of db that differs from a
// recount of the rows it counts (sqlstore.DB.VerifyCounts): the units'
// words, characters and has_* flags, the statistics of every
// translation, component, project, language and project-language, and
// the list counts. Run it after a write to prove the write kept them.
func CheckCounts(tb testing.TB, db *sqlstore.DB) {
	tb.Helper()
	problems, err := db.VerifyCounts(context.Background())
	if err != nil {
		tb.Fatalf("recount: %v", err)
	}
	for _, p := range problems {
		tb.Error(p)
	}
}
