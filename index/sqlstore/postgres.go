package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"runtime"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

//go:embed migrations/postgres/*.sql
var postgresMigrations embed.FS

// writeLockKey is the transaction-level advisory lock every write
// transaction takes first (dialect.lockWrites): the processes that share
// one PostgreSQL then write one at a time, as the writer goroutine makes
// one process do, so that the statistics each write keeps and the order
// of changes stay what they are on SQLite. Each process still puts many
// writes in one transaction (group commit), so the lock is taken once
// per batch, not per edit. The number is Tolk's own ("tolk" in ASCII).
const writeLockKey = 0x746f6c6b

var postgresDialect = func() *dialect {
	m, err := fs.Sub(postgresMigrations, "migrations/postgres")
	if err != nil {
		panic(err)
	}
	return &dialect{
		name:       "postgres",
		migrations: m,
		numbered:   true,
		returning:  true,
		// REPEATABLE READ gives the statements of a read transaction one
		// snapshot; READ COMMITTED would take one per statement.
		readTx:     sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead},
		like:       "ILIKE",
		shared:     true,
		lockWrites: fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", writeLockKey),
	}
}()

// OpenPostgres opens the PostgreSQL index at dsn (a postgres:// URL or a
// libpq connection string) and applies pending migrations. The database
// must exist; Tolk creates its tables in the connection's schema.
func OpenPostgres(ctx context.Context, dsn string) (*DB, error) {
	db := newDB(postgresDialect)
	var err error
	if db.wdb, err = sql.Open("pgx", dsn); err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	db.wdb.SetMaxOpenConns(1)
	db.wdb.SetConnMaxIdleTime(0)
	if db.rdb, err = sql.Open("pgx", dsn); err != nil {
		db.wdb.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if db.jobs, err = openJobLocks(dsn); err != nil {
		db.wdb.Close()
		db.rdb.Close()
		return nil, err
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	db.rdb.SetMaxOpenConns(n)
	db.rdb.SetMaxIdleConns(n)
	if err := db.wdb.PingContext(ctx); err != nil {
		db.wdb.Close()
		db.rdb.Close()
		db.jobs.close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	if err := db.start(ctx); err != nil {
		return nil, err
	}
	return db, nil
}

// isPostgresUnstorableText reports PostgreSQL's refusal of a text it
// cannot hold, one with a NUL character (SQLSTATE 22021), where SQLite
// takes it. No row holds such a text, so a lookup by one finds nothing,
// as on SQLite; the API refuses NUL characters in the bodies of writes,
// so a path's slug or code is where they come from.
func isPostgresUnstorableText(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "22021"
}

// isPostgresUniqueViolation reports PostgreSQL's unique_violation.
func isPostgresUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
