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

// openKept is openFreshWith for an index kept until the process ends,
// which later tests copy (openCopy) once it is built and closed.
// It returns the index's location too.
func openKept(tb testing.TB, o Options) (*DB, string, error) {
	tb.Helper()
	if testengine.Engine() == testengine.Postgres {
		o.Engine, o.Location = Postgres, testengine.KeptPostgresDSN(tb)
	} else {
		o.Engine, o.Location = SQLite, testengine.KeptSQLitePath(tb)
	}
	db, err := Open(context.Background(), o)
	return db, o.Location, err
}

// openCopy opens, with o's settings, a copy of the closed index at
// kept (openKept), gone when tb ends: the file copied on SQLite, the
// rows into a schema migrated for it on PostgreSQL.
func openCopy(tb testing.TB, kept string, o Options) (*DB, error) {
	tb.Helper()
	if testengine.Engine() != testengine.Postgres {
		o.Engine, o.Location = SQLite, testengine.CopySQLite(tb, kept)
		return Open(context.Background(), o)
	}
	o.Engine, o.Location = Postgres, testengine.PostgresDSN(tb)
	db, err := Open(context.Background(), Options{Engine: Postgres, Location: o.Location}) // migrates it
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	testengine.CopyPostgres(tb, kept, o.Location)
	return Open(context.Background(), o)
}
