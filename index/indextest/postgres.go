package indextest

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index/internal/testengine"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// PostgresLocation returns the connection string of a new empty schema
// on the test PostgreSQL server, whichever engine is under test, for
// tests of what only PostgreSQL does (several processes on one
// database); open it with OpenPostgres, once per process. It skips tb
// when no server is named (TOLK_TEST_POSTGRES).
func PostgresLocation(tb testing.TB) string {
	tb.Helper()
	return testengine.PostgresDSN(tb)
}

// OpenPostgres opens the index at loc (PostgresLocation) without closing
// it at the end of tb.
func OpenPostgres(tb testing.TB, loc string) (*sqlstore.DB, error) {
	tb.Helper()
	return sqlstore.Open(context.Background(), sqlstore.Options{Engine: sqlstore.Postgres, Location: loc})
}
