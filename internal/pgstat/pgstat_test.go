package pgstat

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// testDB connects to TOLK_TEST_POSTGRES, or skips.
func testDB(t *testing.T) (*sql.DB, string) {
	t.Helper()
	dsn := os.Getenv("TOLK_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("set TOLK_TEST_POSTGRES to a server's URL (.ci/postgres)")
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}

// TestClusterCPU: the local server's CPU is known and grows with a
// query that keeps a backend busy.
func TestClusterCPU(t *testing.T) {
	db, dsn := testDB(t)
	before, ok := ClusterCPU(dsn)
	if !ok {
		t.Skip("the server is not local (its host is not a socket directory on this machine)")
	}
	if _, err := db.Exec(`SELECT count(*) FROM generate_series(1, 3000000)`); err != nil {
		t.Fatal(err)
	}
	after, ok := ClusterCPU(dsn)
	if !ok || after <= before {
		t.Errorf("the server's CPU went from %v to %v (ok %v) over a query of millions of rows", before, after, ok)
	}
	if _, ok := ClusterCPU("postgres://tolk@localhost/tolk"); ok {
		t.Error("a server reached over TCP has a CPU figure")
	}
}

// TestPostmaster: the server's postmaster is the parent of the backend
// serving a connection (tolk-bench counts only its children, not the
// backends of other servers on the machine with the same database name).
func TestPostmaster(t *testing.T) {
	db, dsn := testDB(t)
	pm, ok := Postmaster(dsn)
	if !ok {
		t.Skip("the server is not local (its host is not a socket directory on this machine)")
	}
	var backend int
	if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		t.Fatal(err)
	}
	if got := Parent(strconv.Itoa(backend)); got != pm {
		t.Errorf("the backend %d's parent is %q, the postmaster %q", backend, got, pm)
	}
	if _, ok := Postmaster("postgres://tolk@localhost/tolk"); ok {
		t.Error("a server reached over TCP has a postmaster")
	}
}

// TestStatements: a statement run in the database is counted, Reset
// forgets it, and only the current database's rows are read.
func TestStatements(t *testing.T) {
	db, dsn := testDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := Available(ctx, conn); err != nil {
		if _, serr := Statements(ctx, conn); serr == nil {
			t.Fatalf("Available: %v, yet Statements reads the view", err)
		}
		t.Skipf("no pg_stat_statements: %v", err)
	}
	if err := Reset(ctx, conn); err != nil {
		t.Fatal(err)
	}
	marker := "pgstat_marker_" + time.Now().Format("150405")
	for range 3 {
		if _, err := conn.ExecContext(ctx, `SELECT 1 AS `+marker); err != nil {
			t.Fatal(err)
		}
	}
	find := func() (Statement, bool) {
		t.Helper()
		stmts, err := Statements(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if strings.Contains(s.Query, marker) {
				return s, true
			}
		}
		return Statement{}, false
	}
	s, ok := find()
	if !ok || s.Calls != 3 || !s.TopLevel || s.QueryID == 0 {
		t.Errorf("the marked statement: %+v (found %v), want 3 top-level calls", s, ok)
	}
	if err := Reset(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if s, ok := find(); ok {
		t.Errorf("the marked statement after Reset: %+v", s)
	}
	// Another database's statement is not read: the same marker, run in
	// the server's postgres database.
	u, err := url.Parse(dsn)
	if err != nil || u.Path == "/postgres" {
		t.Skip("the test's database is postgres itself")
	}
	u.Path = "/postgres"
	other, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(ctx, `SELECT 1 AS `+marker); err != nil {
		t.Skipf("cannot run a statement in the postgres database: %v", err)
	}
	// The extension is created per database: not in postgres (unless
	// someone did), where Available must say so.
	var created bool
	if err := other.QueryRowContext(ctx, `SELECT count(*) > 0 FROM pg_extension WHERE extname = 'pg_stat_statements'`).
		Scan(&created); err != nil {
		t.Fatal(err)
	}
	if err := Available(ctx, other); (err == nil) == !created {
		t.Errorf("Available in the postgres database (extension created: %v): %v", created, err)
	}
	// Its queryid (column aliases are not part of it: every SELECT $1 AS
	// x of that database is the one row).
	var id int64
	if err := conn.QueryRowContext(ctx, `SELECT s.queryid FROM pg_stat_statements s
		JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'postgres' AND s.query LIKE 'SELECT $1 AS %'
		LIMIT 1`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	stmts, err := Statements(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if s.QueryID == id {
			t.Errorf("the postgres database's statement read as this one's: %+v", s)
		}
	}
}
