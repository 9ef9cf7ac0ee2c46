package main

import (
	"slices"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/index/indextest"
)

// The command's tests run once on SQLite and once on PostgreSQL: every
// start of the program, in process or as its binary, is given the
// index testDB names.
func TestMain(m *testing.M) { indextest.Main(m) }

// testDBs holds the index of each data directory a test started the
// program on, so that a restart on the same directory finds it again.
var testDBs sync.Map // data directory → Config.DB

// testDB returns the Config.DB (--db) of the program started on data
// directory data: "" on SQLite, the default (tolk.db in data); on
// PostgreSQL a schema of its own, the same for every start on data
// within tb, dropped when tb ends.
func testDB(tb testing.TB, data string) string {
	tb.Helper()
	if indextest.Engine() != indextest.Postgres {
		return ""
	}
	if loc, ok := testDBs.Load(data); ok {
		return loc.(string)
	}
	loc := indextest.Location(tb)
	testDBs.Store(data, loc)
	tb.Cleanup(func() { testDBs.Delete(data) })
	return loc
}

// indexAt is where the index of data directory data is, for
// indextest.OpenRaw: testDB, or the default SQLite file.
func indexAt(tb testing.TB, data string) string {
	tb.Helper()
	return sqlitePath(data, testDB(tb, data))
}

// withDB returns a command line that names a data directory (--data)
// and no index with the index testDB gives it (--db) added.
func withDB(tb testing.TB, args ...string) []string {
	tb.Helper()
	if slices.Contains(args, "--db") {
		return args
	}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--data" {
			if db := testDB(tb, args[i+1]); db != "" {
				return append(slices.Clip(args), "--db", db)
			}
		}
	}
	return args
}
