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

// reopenable returns the Options of a new empty index on the engine
// under test that a test may Open, Close and Open again, and the
// database/sql driver and DSN that read the same index raw meanwhile.
func reopenable(tb testing.TB) (o Options, driver, dsn string) {
	tb.Helper()
	if testengine.Engine() == testengine.Postgres {
		o = Options{Engine: Postgres, Location: testengine.PostgresDSN(tb)}
		return o, "pgx", o.Location
	}
	o = Options{Engine: SQLite, Location: filepath.Join(tb.TempDir(), "tolk.db")}
	return o, "sqlite", o.Location
}
