// Package indextest opens indexes for tests on the engine under test:
// SQLite in a temporary directory, or an empty schema of the PostgreSQL
// server named by TOLK_TEST_POSTGRES. A package whose tests open indexes
// runs them on both engines with
//
//	func TestMain(m *testing.M) { indextest.Main(m) }
package indextest

import (
	"context"
	"path/filepath"
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

// Engine is the engine of the tests running now: SQLite or Postgres.
func Engine() string { return testengine.Engine() }

// Open returns a new empty index on the engine under test, closed when
// tb ends.
func Open(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	db, err := open(tb, Location(tb))
	if err != nil {
		tb.Fatalf("open %s index: %v", Engine(), err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// Location returns where a new empty index is: a file path for SQLite,
// a connection string for PostgreSQL, whose schema is migrated already
// (reuse.go). Reopen
// opens it again, as a restarted process would.
func Location(tb testing.TB) string {
	tb.Helper()
	if Engine() == testengine.Postgres {
		return postgresLocation(tb)
	}
	return filepath.Join(tb.TempDir(), "tolk.db")
}

// Reopen opens the index at loc (Location) without closing it at the
// end of tb.
func Reopen(tb testing.TB, loc string) (*sqlstore.DB, error) {
	tb.Helper()
	return open(tb, loc)
}

func open(tb testing.TB, loc string) (*sqlstore.DB, error) {
	if Engine() == testengine.Postgres {
		return sqlstore.OpenPostgres(context.Background(), loc)
	}
	return sqlstore.OpenSQLite(context.Background(), loc)
}
