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
	return openFreshWith(tb, Options{})
}

// openFreshWith is openFresh with o's settings; its Engine and Location
// are the test's.
func openFreshWith(tb testing.TB, o Options) (*DB, error) {
	tb.Helper()
	if testengine.Engine() == testengine.Postgres {
		o.Engine, o.Location = Postgres, testengine.PostgresDSN(tb)
	} else {
		o.Engine, o.Location = SQLite, filepath.Join(tb.TempDir(), "tolk.db")
	}
	return Open(context.Background(), o)
}
