package sqlstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestMain runs every test of the package, internal and external, on
// SQLite and then on PostgreSQL (testengine.Main).
func TestMain(m *testing.M) { testengine.Main(m) }

// openFresh opens a new empty index on the engine under test; the caller
// closes it.
func openFresh(tb testing.TB) (*DB, error) {
	tb.Helper()
	if testengine.Engine() == testengine.Postgres {
		return OpenPostgres(context.Background(), testengine.PostgresDSN(tb))
	}
	return OpenSQLite(context.Background(), filepath.Join(tb.TempDir(), "tolk.db"))
}
