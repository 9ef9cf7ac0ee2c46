package indextest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// Copies of a kept index. A test environment that many tests build the
// same way (the API's permission matrix: a few hundred writes of users,
// teams, add-ons and strings, some 0.5 s on the loaded machine) is
// built once per process and engine in a kept index, and each test
// gets a copy of it: a file copy on SQLite, rows copied into a migrated
// empty schema on PostgreSQL (some milliseconds). A copy is the index
// the same writes would have made, ids and counts included: the same
// rows, read by a fresh process.

// KeptLocation returns where a new empty index is, as Location, but
// kept until the process ends rather than removed when tb does: an
// index that later tests copy (CopyOf) once it is filled and closed.
func KeptLocation(tb testing.TB) string {
	tb.Helper()
	if Engine() == testengine.Postgres {
		return keptPostgres(tb)
	}
	template, err := sqliteTemplate()
	if err != nil {
		tb.Fatalf("sqlite template index: %v", err)
	}
	dir, err := os.MkdirTemp("", "tolk-indextest-kept-")
	if err != nil {
		tb.Fatal(err)
	}
	testengine.AtExit(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "tolk.db")
	if err := testengine.CopyFile(template, path); err != nil {
		tb.Fatalf("kept sqlite index: %v", err)
	}
	return path
}

// CopyOf returns where a new index is, as Location, that holds what
// the index at kept (KeptLocation) holds. Nothing may write kept
// meanwhile: close every index open on it first.
func CopyOf(tb testing.TB, kept string) string {
	tb.Helper()
	if Engine() == testengine.Postgres {
		return copyPostgres(tb, kept)
	}
	return testengine.CopySQLite(tb, kept)
}

// kept are the PostgreSQL schemas KeptLocation made, by location, with
// the statements that copy their rows (testengine.CopyStatements), made at the
// first copy.
var kept struct {
	mu      sync.Mutex // guards the fields below
	schemas map[string]*keptSchema
}

type keptSchema struct {
	*schema
	once   sync.Once
	copy   string // the statements, with %[1]s for the copy's schema
	copyOK error
}

func keptPostgres(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(testengine.PostgresEnv)
	if base == "" {
		tb.Skipf("no PostgreSQL server: set %s", testengine.PostgresEnv)
	}
	s, err := takeSchema(base, false)
	if err != nil {
		tb.Fatalf("test schema: %v", err)
	}
	testengine.AtExit(func() {
		if err := dropSchema(s); err != nil {
			fmt.Fprintf(os.Stderr, "indextest: drop kept schema %s: %v\n", s.name, err)
		}
	})
	kept.mu.Lock()
	defer kept.mu.Unlock()
	if kept.schemas == nil {
		kept.schemas = map[string]*keptSchema{}
	}
	kept.schemas[s.dsn] = &keptSchema{schema: s}
	return s.dsn
}

// copyPostgres takes a migrated empty schema, as Location, and copies
// the kept schema's rows into it.
func copyPostgres(tb testing.TB, from string) string {
	tb.Helper()
	kept.mu.Lock()
	k := kept.schemas[from]
	kept.mu.Unlock()
	if k == nil {
		tb.Fatalf("indextest: %s is no kept index", from)
	}
	to := postgresSchema(tb, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	k.once.Do(func() { k.copy, k.copyOK = testengine.CopyStatements(ctx, schemas.admin, k.name) })
	if k.copyOK != nil {
		tb.Fatalf("copy of the kept schema %s: %v", k.name, k.copyOK)
	}
	tx, err := schemas.admin.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	// Triggers and foreign keys off, as empty does: the rows are a
	// consistent whole already, counters included, which the triggers
	// would count again.
	if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		tb.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(k.copy, to.name)); err != nil {
		tb.Fatalf("copy of the kept schema %s into %s: %v", k.name, to.name, err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return to.dsn
}
