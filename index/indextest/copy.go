package indextest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	if err := copyFile(template, path); err != nil {
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
	path := filepath.Join(tb.TempDir(), "tolk.db")
	// Closing the last connection leaves no log; a log left behind is
	// copied with the file, whose next open reads it.
	for _, suffix := range []string{"", "-wal"} {
		if _, err := os.Stat(kept + suffix); suffix != "" && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := copyFile(kept+suffix, path+suffix); err != nil {
			tb.Fatalf("copy of the sqlite index %s: %v", kept, err)
		}
	}
	return path
}

// kept are the PostgreSQL schemas KeptLocation made, by location, with
// the statements that copy their rows (copyStatements), made at the
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
	k.once.Do(func() { k.copy, k.copyOK = copyStatements(ctx, k.name) })
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

// copyStatements returns what replaces the rows of a schema of the same
// migrations (%[1]s; the rows its migrations wrote, such as the built-in
// roles, among them) with every row of schema from, the migrations'
// record aside, and sets its sequences where from's are: each table's columns
// but the generated ones, identities as they are (OVERRIDING SYSTEM
// VALUE).
func copyStatements(ctx context.Context, from string) (string, error) {
	rows, err := schemas.admin.QueryContext(ctx, `SELECT quote_ident(c.table_name),
		string_agg(quote_ident(c.column_name), ', ' ORDER BY c.ordinal_position)
		FROM information_schema.columns c JOIN pg_tables t ON t.schemaname = c.table_schema AND t.tablename = c.table_name
		WHERE c.table_schema = $1 AND c.table_name <> 'migrations' AND c.is_generated = 'NEVER'
		GROUP BY c.table_name ORDER BY c.table_name`, from)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for rows.Next() {
		var table, cols string
		if err := rows.Scan(&table, &cols); err != nil {
			rows.Close()
			return "", err
		}
		// %% survives the Sprintf that names the copy.
		fmt.Fprintf(&b, "DELETE FROM %%[1]s.%s;\nINSERT INTO %%[1]s.%s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM %s.%s;\n",
			table, table, cols, cols, from, table)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return "", err
	}
	seqs, err := schemas.admin.QueryContext(ctx, `SELECT quote_ident(sequencename), coalesce(last_value, 1), last_value IS NOT NULL
		FROM pg_sequences WHERE schemaname = $1`, from)
	if err != nil {
		return "", err
	}
	for seqs.Next() {
		var name string
		var last int64
		var called bool
		if err := seqs.Scan(&name, &last, &called); err != nil {
			seqs.Close()
			return "", err
		}
		fmt.Fprintf(&b, "SELECT setval('%%[1]s.%s', %d, %t);\n", name, last, called)
	}
	return b.String(), errors.Join(seqs.Err(), seqs.Close())
}
