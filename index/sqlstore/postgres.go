package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"hash/fnv"
	"io/fs"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" database/sql driver
)

//go:embed migrations/postgres/*.sql
var postgresMigrations embed.FS

// lockSpace is the first key of the advisory locks of one index, in
// PostgreSQL's two-int form: the hash of what the lock is for ("write",
// "job") and the schema the index lives in. Deployments in two schemas
// of one database (or tests, each in a schema of its own) never wait
// for each other's locks; the processes of one deployment share them.
func lockSpace(what, schema string) int32 {
	h := fnv.New32a()
	h.Write([]byte("tolk\x00" + what + "\x00" + schema))
	return int32(h.Sum32())
}

var postgresDialect = func() *dialect {
	m, err := fs.Sub(postgresMigrations, "migrations/postgres")
	if err != nil {
		panic(err)
	}
	return &dialect{
		name:           "postgres",
		migrations:     m,
		numbered:       true,
		returning:      true,
		multiStatement: true,
		// REPEATABLE READ gives the statements of a read transaction one
		// snapshot; READ COMMITTED would take one per statement.
		readTx:  sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead},
		like:    "ILIKE",
		shared:  true,
		rebound: &rebindCache{},
	}
}()

// noJIT turns PostgreSQL's JIT compilation off for cfg's sessions unless
// the URL or the environment sets jit itself. The server compiles a
// statement whose estimated cost passes jit_above_cost (100,000), and
// Tolk's are index lookups of a few milliseconds whose estimates pass it
// as the index grows or the statistics go stale: the site-wide search's
// lookup of the trigram queue's notes, estimated at 2,040 notes of 64
// links each (859 notes, none linked), compiled for 835 ms a run to
// execute in 26 (JIT inlining and optimization pass at 500,000); the
// import's lookup of the peers' strings compiled 14 ms a call at 10x
// the corpus (pg_stat_statements' jit_* columns, BENCHMARKS.md "Session
// 15: SRCH15"). It goes first in the startup options, so that a later
// "-c jit=…" there (the URL's options, PGOPTIONS) and a jit parameter
// of the URL, in any case (the server applies those after the options),
// win; it overrides ALTER ROLE/DATABASE … SET jit, as any client's
// setting does.
func noJIT(cfg *pgx.ConnConfig) {
	cfg.RuntimeParams["options"] = strings.TrimSpace("-c jit=off " + cfg.RuntimeParams["options"])
}

// openPostgres opens the PostgreSQL index at o.Location, for Open.
func openPostgres(ctx context.Context, o Options) (*DB, error) {
	db := newDB(postgresDialect, o)
	dsn := o.Location
	// The writer's connection waits for other processes' locks at most
	// o.LockTimeout (writers.go).
	wcfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	noJIT(wcfg)
	rcfg := wcfg.Copy()
	// The readers' write_log checks get a connection of their own
	// (logcheck.go), configured as the readers' are.
	ccfg := wcfg.Copy()
	wcfg.RuntimeParams["lock_timeout"] = strconv.FormatInt(max(o.LockTimeout.Milliseconds(), 0), 10)
	wcfg.Tracer = roundTripTracer{n: &db.roundTrips, f: o.roundTrip}
	db.wdb = stdlib.OpenDB(*wcfg)
	db.checker = newLogChecker(ccfg)
	// One connection a writer (writer.go: Several writers in one
	// process), and one for the background steps' writer (upkeepWriter).
	db.writers = o.Writers
	db.upkeepWrites = make(chan *writeRequest)
	db.wdb.SetMaxOpenConns(db.writers + 1)
	db.wdb.SetMaxIdleConns(db.writers + 1)
	db.wdb.SetConnMaxIdleTime(0)
	// The job locks' sessions are configured as the readers' (no
	// lock_timeout: a job waits for its component's lock).
	db.jobs = openJobLocks(rcfg.Copy())
	db.rdb = stdlib.OpenDB(*rcfg)
	db.rdb.SetMaxOpenConns(o.ReadConns)
	db.rdb.SetMaxIdleConns(o.ReadConns)
	if err := db.wdb.PingContext(ctx); err != nil {
		db.wdb.Close()
		db.rdb.Close()
		db.jobs.close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	// Every write transaction takes the write lock first: exclusively
	// (lockWrites), so that the processes sharing the index write one at
	// a time as the writer goroutine makes one process do, unless every
	// write of the batch is a unit edit, which takes it shared and locks
	// the scopes it edits (writers.go: Several writers). Each process
	// still puts many writes in one transaction (group commit), so the
	// locks are taken once per batch, not per edit.
	var schema sql.NullString
	if err := db.wdb.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil || !schema.Valid {
		db.wdb.Close()
		db.rdb.Close()
		db.jobs.close()
		return nil, fmt.Errorf("postgres: no schema to create the index in (check search_path): %v", err)
	}
	d := *postgresDialect
	d.lockWrites, d.lockShared, d.lockScopes, d.lockScopesAny, d.logTail = postgresLocks(schema.String)
	d.lockUnit = postgresLockUnit(schema.String)
	d.lockBatch, d.lockBatchAny = postgresLockBatch(schema.String)
	d.scopeSpace = lockSpace("scope", schema.String)
	db.dialect = &d
	db.jobs.space = lockSpace("job", schema.String)
	// The lease is taken before the first write, the migrations' (lease.go).
	db.lease = newLease(db, ccfg, schema.String, o)
	if err := db.lease.open(ctx); err != nil {
		db.lease.close()
		db.wdb.Close()
		db.rdb.Close()
		db.jobs.close()
		return nil, err
	}
	if err := db.start(ctx); err != nil {
		return nil, err
	}
	db.lease.start()
	return db, nil
}

// PostgresSQL returns query and args as PostgreSQL takes them for the
// index's schema ($n placeholders, booleans as 0 and 1), as the index
// binds its own queries: for tools that run plain SQL on an index (tests,
// tolk-bench).
func PostgresSQL(query string, args []any) (string, []any) {
	return postgresDialect.rebind(query), postgresDialect.args(args)
}
