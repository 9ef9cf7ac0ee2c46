package testengine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Kept indexes. A fixture that several tests read and write the same
// way, and that costs seconds to build (index/sqlstore's paging
// fixture: 30-120 s on PostgreSQL under load), is built once per
// process and engine in a kept index, closed, and copied for each test:
// the file on SQLite (CopySQLite), the rows into a migrated schema on
// PostgreSQL (CopyPostgres). Package indextest keeps its indexes the
// same way for the tests of other packages.

// schemaNames are the schemas PostgresDSN and KeptPostgresDSN made, by
// connection string.
var schemaNames sync.Map

// newSchema creates a schema of a name unique on the server at base
// and returns the connection that made it (which drops it), its name
// and its connection string.
func newSchema(tb testing.TB, base string) (a *sql.DB, name, dsn string) {
	tb.Helper()
	a = adminDB(tb)
	name = fmt.Sprintf("tolk_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, schemas.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		tb.Fatalf("create test schema: %v", err)
	}
	dsn = WithSearchPath(base, name)
	schemaNames.Store(dsn, name)
	return a, name, dsn
}

// KeptPostgresDSN is PostgresDSN for a schema kept until Main has run
// every engine's tests (AtExit), rather than dropped when tb ends: an
// index that later tests copy (CopyPostgres) once it is built and
// closed.
func KeptPostgresDSN(tb testing.TB) string {
	tb.Helper()
	e := recordEnv()
	if e.postgres == "" {
		tb.Fatalf("no PostgreSQL server: set %s", PostgresEnv)
	}
	a, name, dsn := newSchema(tb, e.postgres)
	AtExit(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := DropSchema(ctx, a, name); err != nil {
			fmt.Fprintf(os.Stderr, "testengine: drop kept schema %s: %v\n", name, err)
		}
	})
	return dsn
}

// adminDB is the connection to the test server that creates and drops
// schemas.
func adminDB(tb testing.TB) *sql.DB {
	tb.Helper()
	adminOnce.Do(func() {
		admin, adminErr = sql.Open("pgx", recordEnv().postgres)
	})
	if adminErr != nil {
		tb.Fatalf("open %s: %v", PostgresEnv, adminErr)
	}
	return admin
}

// CopyPostgres replaces the rows of the schema at to (PostgresDSN),
// migrated by an index opened and closed on it, with those of the kept
// schema at from (KeptPostgresDSN) and sets its sequences where from's
// are, so that an index opened on to holds what from's held, ids
// included. Nothing may be connected to either meanwhile.
func CopyPostgres(tb testing.TB, from, to string) {
	tb.Helper()
	fromName, ok1 := schemaNames.Load(from)
	toName, ok2 := schemaNames.Load(to)
	if !ok1 || !ok2 {
		tb.Fatalf("testengine: copy from %q to %q: not schemas of this process", from, to)
	}
	a := adminDB(tb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	copy, err := CopyStatements(ctx, a, fromName.(string))
	if err != nil {
		tb.Fatalf("copy of the kept schema %s: %v", fromName, err)
	}
	tx, err := a.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	// Triggers and foreign keys off: the rows are a consistent whole
	// already, counters included, which the triggers would count again.
	if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		tb.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(copy, toName)); err != nil {
		tb.Fatalf("copy of the kept schema %s into %s: %v", fromName, toName, err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// CopyStatements returns what replaces the rows of a schema of the same
// migrations (%[1]s; the rows its migrations wrote, such as the built-in
// roles, among them) with every row of schema from, the migrations'
// record aside, and sets its sequences where from's are: each table's
// columns but the generated ones, identities as they are (OVERRIDING
// SYSTEM VALUE). admin is a connection to the server.
func CopyStatements(ctx context.Context, admin *sql.DB, from string) (string, error) {
	rows, err := admin.QueryContext(ctx, `SELECT quote_ident(c.table_name),
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
	seqs, err := admin.QueryContext(ctx, `SELECT quote_ident(sequencename), coalesce(last_value, 1), last_value IS NOT NULL
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

// KeptSQLitePath returns the path of a new SQLite index file (none
// there yet) in a directory kept until Main has run every engine's
// tests: an index that later tests copy (CopySQLite) once it is built
// and closed.
func KeptSQLitePath(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "tolk-kept-")
	if err != nil {
		tb.Fatal(err)
	}
	AtExit(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "tolk.db")
}

// CopySQLite copies the SQLite index at kept into tb's temporary
// directory and returns the copy's path. Nothing may write kept
// meanwhile: close every index open on it first.
func CopySQLite(tb testing.TB, kept string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "tolk.db")
	// Closing the last connection leaves no log; a log left behind is
	// copied with the file, whose next open reads it.
	for _, suffix := range []string{"", "-wal"} {
		if _, err := os.Stat(kept + suffix); suffix != "" && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := CopyFile(kept+suffix, path+suffix); err != nil {
			tb.Fatalf("copy of the sqlite index %s: %v", kept, err)
		}
	}
	return path
}

// CopyFile copies the file from to the new file to.
func CopyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
