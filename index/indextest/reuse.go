package indextest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/internal/testengine"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// A new PostgreSQL schema, migrated (some sixty objects) and dropped at
// the end, costs a test about 400 ms on a loaded two-core machine, where
// a SQLite file costs 10 ms; the API's tests take several hundred. So a
// schema, once migrated, is emptied when its test ends and given to the
// next one: about 50 ms a test, opening and closing the index included
// (TestTmpTiming's measure, kept in the commit message).

// schema is a test schema on the PostgreSQL server.
type schema struct {
	name, dsn string
	// empty holds the statements that delete every row of its tables and
	// restart their identities; "" when the schema cannot be reused (its
	// migrations leave rows behind, which emptying would lose).
	empty string
}

// schemas are the PostgreSQL test schemas of this process.
var schemas struct {
	mu    sync.Mutex // guards the fields below
	admin *sql.DB    // opened on the first use
	free  []*schema  // migrated and empty, for the next test
	n     int
}

// postgresLocation returns the connection string of a migrated empty
// schema on the test server, emptied or dropped when tb ends.
func postgresLocation(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(testengine.PostgresEnv)
	if base == "" {
		tb.Skipf("no PostgreSQL server: set %s", testengine.PostgresEnv)
	}
	s, err := takeSchema(base)
	if err != nil {
		tb.Fatalf("test schema: %v", err)
	}
	tb.Cleanup(func() {
		if err := giveBack(s); err != nil {
			tb.Errorf("test schema %s: %v", s.name, err)
		}
	})
	return s.dsn
}

// takeSchema returns a free schema, or a new one migrated.
func takeSchema(base string) (*schema, error) {
	schemas.mu.Lock()
	if schemas.admin == nil {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			schemas.mu.Unlock()
			return nil, err
		}
		schemas.admin = admin
		testengine.AtExit(dropFreeSchemas)
	}
	if n := len(schemas.free); n > 0 {
		s := schemas.free[n-1]
		schemas.free = schemas.free[:n-1]
		schemas.mu.Unlock()
		return s, nil
	}
	schemas.n++
	s := &schema{name: fmt.Sprintf("tolk_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, schemas.n)}
	schemas.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := schemas.admin.ExecContext(ctx, "CREATE SCHEMA "+s.name); err != nil {
		return nil, err
	}
	s.dsn = withApplicationName(testengine.WithSearchPath(base, s.name), s.name)
	db, err := sqlstore.Open(ctx, sqlstore.Options{Engine: sqlstore.Postgres, Location: s.dsn})
	if err != nil {
		return nil, errors.Join(err, dropSchema(s))
	}
	if err := db.Close(); err != nil {
		return nil, errors.Join(err, dropSchema(s))
	}
	if s.empty, err = emptyingStatements(ctx, s.name); err != nil {
		return nil, errors.Join(err, dropSchema(s))
	}
	return s, nil
}

// emptyingStatements returns what deletes the rows of every table of
// the freshly migrated schema but the migrations' record, and restarts
// its identities; "" if a table already has rows.
func emptyingStatements(ctx context.Context, name string) (string, error) {
	var b strings.Builder
	rows, err := schemas.admin.QueryContext(ctx, `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename)
		FROM pg_tables WHERE schemaname = $1 AND tablename <> 'migrations'`, name)
	if err != nil {
		return "", err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return "", err
		}
		tables = append(tables, t)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return "", err
	}
	for _, t := range tables {
		var some bool
		if err := schemas.admin.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+t+")").Scan(&some); err != nil {
			return "", err
		}
		if some {
			return "", nil
		}
		b.WriteString("DELETE FROM " + t + ";\n")
	}
	var seqs string
	if err := schemas.admin.QueryRowContext(ctx, `SELECT coalesce(string_agg(format('SELECT setval(%L, 1, false);',
		quote_ident(schemaname) || '.' || quote_ident(sequencename)), E'\n'), '')
		FROM pg_sequences WHERE schemaname = $1`, name).Scan(&seqs); err != nil {
		return "", err
	}
	b.WriteString(seqs)
	return b.String(), nil
}

// giveBack empties s for the next test, or drops it when it cannot be
// reused or emptied, or is still in use.
func giveBack(s *schema) error {
	connected, err := stillConnected(s)
	if err != nil {
		return err
	}
	if !connected && s.empty != "" && empty(s) == nil {
		schemas.mu.Lock()
		schemas.free = append(schemas.free, s)
		schemas.mu.Unlock()
		return nil
	}
	return dropSchema(s)
}

// stillConnected reports whether anything is connected to s a second
// after its test ended. What the test left connected (an index it did
// not close, a process it did not wait for) could write into the next
// test's index; a closed connection's server process takes a moment to
// go, the more so on a loaded machine.
func stillConnected(s *schema) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for deadline := time.Now().Add(time.Second); ; time.Sleep(5 * time.Millisecond) {
		var connected bool
		if err := schemas.admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE application_name = $1)`, s.name).Scan(&connected); err != nil {
			return false, err
		}
		if !connected || time.Now().After(deadline) {
			return connected, nil
		}
	}
}

// empty deletes every row of s. Triggers and foreign keys are off
// meanwhile (session_replication_role, which takes a superuser, as the
// test server's user is): every table is emptied anyway, and the
// triggers would only count what goes. A connection the test left open
// that holds a lock makes it fail rather than wait long.
func empty(s *schema) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := schemas.admin.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica; SET LOCAL lock_timeout = '10s'"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, s.empty); err != nil {
		return err
	}
	return tx.Commit()
}

// withApplicationName returns dsn with its application_name set to
// name, by which giveBack finds the schema's connections.
func withApplicationName(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			q := u.Query()
			q.Set("application_name", name)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " application_name=" + name
}

func dropSchema(s *schema) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return testengine.DropSchema(ctx, schemas.admin, s.name)
}

// dropFreeSchemas drops the schemas kept for reuse, as the process ends.
func dropFreeSchemas() {
	schemas.mu.Lock()
	defer schemas.mu.Unlock()
	for _, s := range schemas.free {
		if err := dropSchema(s); err != nil {
			fmt.Fprintf(os.Stderr, "indextest: drop test schema %s: %v\n", s.name, err)
		}
	}
	schemas.free = nil
}
