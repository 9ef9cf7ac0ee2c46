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
// schema, once migrated, is given back when its test ends and emptied for the
// next one: about 50 ms a test, opening and closing the index included
// (TestTmpTiming's measure, kept in the commit message).

// schema is a test schema on the PostgreSQL server.
type schema struct {
	name, dsn string
	// empty holds the statements that make it hold what it held once
	// migrated (restoreStatements): every row of its tables replaced by
	// the pristine schema's, its sequences set where those are; "" when
	// the schema cannot be reused.
	empty string
	// dirty: given back with its test's rows, not emptied yet.
	dirty bool
}

// schemas are the PostgreSQL test schemas of this process.
var schemas struct {
	mu    sync.Mutex // guards the fields below
	admin *sql.DB    // opened on the first use
	free  []*schema  // migrated and empty, for the next test
	n     int
}

// postgresLocation returns the connection string of a migrated empty
// schema on the test server, given back (or dropped) when tb ends.
func postgresLocation(tb testing.TB) string {
	tb.Helper()
	return postgresSchema(tb, false).dsn
}

// postgresSchema is postgresLocation's schema; replaced says that the
// caller replaces every row of it (copyPostgres), so a schema given
// back need not be emptied first.
func postgresSchema(tb testing.TB, replaced bool) *schema {
	tb.Helper()
	base := os.Getenv(testengine.PostgresEnv)
	if base == "" {
		tb.Skipf("no PostgreSQL server: set %s", testengine.PostgresEnv)
	}
	s, err := takeSchema(base, replaced)
	if err != nil {
		tb.Fatalf("test schema: %v", err)
	}
	l := &lease{s: s}
	leases.mu.Lock()
	if leases.by == nil {
		leases.by = map[string]*lease{}
	}
	leases.by[s.dsn] = l
	leases.mu.Unlock()
	tb.Cleanup(func() {
		if err := l.end(); err != nil {
			tb.Errorf("test schema %s: %v", s.name, err)
		}
	})
	return s
}

// A lease is a test's hold on a schema, ended when the test ends or
// before, by Release.
type lease struct {
	s    *schema
	once sync.Once
	err  error
}

// leases are the leases not ended, by location.
var leases struct {
	mu sync.Mutex // guards by
	by map[string]*lease
}

// end gives the schema back (giveBack), once.
func (l *lease) end() error {
	l.once.Do(func() {
		leases.mu.Lock()
		if leases.by[l.s.dsn] == l {
			delete(leases.by, l.s.dsn)
		}
		leases.mu.Unlock()
		l.err = giveBack(l.s)
	})
	return l.err
}

// Release gives the index at loc (Location, CopyOf) back before its
// test ends, for a test that builds many indexes in turn: on
// PostgreSQL the next then reuses its schema instead of migrating a new
// one. Every index open on it must be closed, and none opened again.
// On SQLite it does nothing: the file goes with the test's directory.
func Release(tb testing.TB, loc string) {
	tb.Helper()
	leases.mu.Lock()
	l := leases.by[loc]
	leases.mu.Unlock()
	if l == nil {
		return
	}
	if err := l.end(); err != nil {
		tb.Errorf("test schema %s: %v", l.s.name, err)
	}
}

// takeSchema returns a free schema, emptied unless the caller replaces
// every row of it, or a new one migrated.
func takeSchema(base string, replaced bool) (*schema, error) {
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
	for n := len(schemas.free); n > 0; n = len(schemas.free) {
		s := schemas.free[n-1]
		schemas.free = schemas.free[:n-1]
		schemas.mu.Unlock()
		if !s.dirty || replaced {
			return s, nil
		}
		if err := empty(s); err != nil {
			if err := dropSchema(s); err != nil {
				return nil, err
			}
			schemas.mu.Lock()
			continue
		}
		s.dirty = false
		return s, nil
	}
	schemas.n++
	name := fmt.Sprintf("tolk_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, schemas.n)
	schemas.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	restore, err := restoreStatements(ctx, base)
	if err != nil {
		return nil, err
	}
	s, err := newSchema(ctx, base, name)
	if err != nil {
		return nil, err
	}
	s.empty = fmt.Sprintf(restore, s.name)
	return s, nil
}

// newSchema creates the schema name on the server at base and migrates
// it.
func newSchema(ctx context.Context, base, name string) (*schema, error) {
	s := &schema{name: name}
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
	return s, nil
}

// pristine is a migrated schema that no test is given: what every
// schema holds once migrated (the built-in roles of migration 0040
// among it), which emptying a schema restores. Schemas used to be
// emptied by deleting every row, and not reused at all when their
// migrations left rows, which since 0040 was every schema: each test
// migrated a new one (400 ms and more on the loaded machine).
var pristine struct {
	once    sync.Once
	restore string // testengine.CopyStatements of the pristine schema
	err     error
}

// restoreStatements returns what makes a schema (%[1]s) hold what the
// pristine schema holds, made with the process's first schema.
func restoreStatements(ctx context.Context, base string) (string, error) {
	pristine.once.Do(func() {
		schemas.mu.Lock()
		name := fmt.Sprintf("tolk_test_%d_%d_pristine", os.Getpid(), time.Now().UnixNano()%1e6)
		schemas.mu.Unlock()
		s, err := newSchema(ctx, base, name)
		if err != nil {
			pristine.err = err
			return
		}
		testengine.AtExit(func() {
			if err := dropSchema(s); err != nil {
				fmt.Fprintf(os.Stderr, "indextest: drop test schema %s: %v\n", s.name, err)
			}
		})
		pristine.restore, pristine.err = testengine.CopyStatements(ctx, schemas.admin, s.name)
	})
	return pristine.restore, pristine.err
}

// giveBack keeps s for the next test (takeSchema empties it), or drops
// it when it cannot be reused or is still in use.
func giveBack(s *schema) error {
	connected, err := stillConnected(s)
	if err != nil {
		return err
	}
	if !connected && s.empty != "" {
		// Emptied when taken (takeSchema), unless its taker replaces
		// every row anyway (CopyOf).
		s.dirty = true
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

// empty makes s hold what it held once migrated (schema.empty).
// Triggers and foreign keys are off meanwhile (session_replication_role,
// which takes a superuser, as the test server's user is): every table
// is replaced whole anyway, and the triggers would only count what goes
// and comes. A connection the test left open that holds a lock makes it
// fail rather than wait long.
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
