// Package testengine chooses the index engine tests run against and
// gives each test an empty PostgreSQL schema of its own. It is for tests
// only (see package indextest for the opener other packages use).
package testengine

import (
	"errors"

	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// Engines.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// PostgresEnv names the PostgreSQL server tests use: a postgres:// URL
// or libpq connection string of a database the user may create schemas
// in. Each test gets a schema of its own, dropped when it ends.
const PostgresEnv = "TOLK_TEST_POSTGRES"

// EngineEnv, when set to sqlite or postgres, runs a package's tests on
// that engine only.
const EngineEnv = "TOLK_TEST_ENGINE"

var current atomic.Value // the engine of the run in progress

// The environment is read where go test's cache sees it. The cache
// replays a package's last passing result while the environment
// variables the test binary read are unchanged, and it records only
// what the binary reads during m.Run: Main's own reads, before and
// between the runs, go unrecorded. So each value a test depends on is
// read again during the run, at its first use (recordEnv): a run
// without TOLK_TEST_POSTGRES is not replayed once it is set.

// env is the environment the tests run in.
type env struct {
	engine   string // EngineEnv: the one engine to run, or "" for both
	postgres string // PostgresEnv: the test server, or "" for none
	ci       bool   // CI is set: the PostgreSQL half must run
}

func readEnv() env {
	return env{engine: os.Getenv(EngineEnv), postgres: os.Getenv(PostgresEnv), ci: os.Getenv("CI") != ""}
}

var (
	envOnce sync.Once
	envRead env
)

// recordEnv returns the environment, read at its first call, which
// comes from a test: Main never calls it, so that go test records what
// it reads (see env).
func recordEnv() env {
	envOnce.Do(func() { envRead = readEnv() })
	return envRead
}

// Engine is the engine of the tests running now.
func Engine() string {
	e := recordEnv()
	if c, ok := current.Load().(string); ok {
		return c
	}
	if e.engine == Postgres {
		return Postgres
	}
	return SQLite
}

// Main runs a package's tests once per engine: on SQLite, then on
// PostgreSQL when PostgresEnv names a server. Without one, a developer's
// run says that the PostgreSQL half was skipped; a CI run (CI set) fails
// instead, since CI must test both. The tests read the environment again
// as they use an engine (see env), which is what go test's cache sees.
func Main(m *testing.M) {
	e := readEnv()
	engines := []string{SQLite, Postgres}
	if e.engine != "" {
		engines = []string{e.engine}
	}
	code := 0
	for _, name := range engines {
		if name == Postgres && e.postgres == "" {
			if e.ci {
				fmt.Fprintf(os.Stderr, "testengine: %s is not set; CI must run the tests on PostgreSQL too (.ci/run starts a server)\n", PostgresEnv)
				code = 1
				continue
			}
			fmt.Fprintf(os.Stderr, "testengine: PostgreSQL run skipped: set %s to a server's URL to run it\n", PostgresEnv)
			continue
		}
		current.Store(name)
		if len(engines) > 1 {
			fmt.Fprintf(os.Stderr, "testengine: running the tests on %s\n", name)
		}
		if c := m.Run(); c != 0 {
			fmt.Fprintf(os.Stderr, "testengine: tests failed on %s\n", name)
			code = c
		}
	}
	exitMu.Lock()
	for _, f := range atExit {
		f()
	}
	exitMu.Unlock()
	os.Exit(code)
}

var (
	exitMu sync.Mutex // guards atExit
	atExit []func()
)

// AtExit registers f to run once Main has run the tests on every
// engine, before the process exits: for what outlives single tests,
// such as indexes kept for reuse.
func AtExit(f func()) {
	exitMu.Lock()
	defer exitMu.Unlock()
	atExit = append(atExit, f)
}

var (
	adminOnce sync.Once
	admin     *sql.DB
	adminErr  error
	schemas   atomic.Int64
)

// PostgresDSN returns the connection string of a new empty schema on the
// test server, dropped when tb ends. It skips tb when no server is named.
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	e := recordEnv()
	base := e.postgres
	if base == "" {
		if e.ci {
			tb.Fatalf("no PostgreSQL server in CI: %s is not set", PostgresEnv)
		}
		tb.Skipf("no PostgreSQL server: set %s", PostgresEnv)
	}
	admin, name, dsn := newSchema(tb, base)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := DropSchema(ctx, admin, name); err != nil {
			tb.Errorf("drop test schema: %v", err)
		}
	})
	return dsn
}

// DropSchema drops schema and everything in it. Tests drop their schemas
// while others create theirs, and PostgreSQL may pick one DDL statement
// of such a pair as a deadlock's victim: it is tried again.
func DropSchema(ctx context.Context, admin *sql.DB, schema string) error {
	for try := 0; ; try++ {
		_, err := admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE")
		var pe *pgconn.PgError
		if err == nil || try == 4 || !errors.As(err, &pe) || pe.Code != "40P01" {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(10<<try) * time.Millisecond):
		}
	}
}

// WithSearchPath returns dsn with its search_path set to schema.
func WithSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("search_path", schema)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " search_path=" + schema
}

// Clock is a clock for an index's Options.Now that a test sets as it
// goes: the real time until Set. It is safe for concurrent use.
type Clock struct {
	now atomic.Pointer[func() time.Time]
}

// Now reads the clock.
func (c *Clock) Now() time.Time {
	if f := c.now.Load(); f != nil {
		return (*f)()
	}
	return time.Now()
}

// Set makes now the clock's reading from here on.
func (c *Clock) Set(now func() time.Time) { c.now.Store(&now) }
