package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tolk-project/tolk/index/sqlstore"
)

// dbUsage says what --db takes, for every command that has it.
const dbUsage = "the index: a postgres:// URL or libpq connection string (host=... dbname=...) opens PostgreSQL, " +
	"anything else is a SQLite file (default: tolk.db in the data directory); " +
	"give a PostgreSQL password in PGPASSWORD or ~/.pgpass rather than here, where the process list shows it"

// libpqKeys finds a libpq key=value connection string by the keys that
// name a server or a database.
var libpqKeys = regexp.MustCompile(`(?:^|\s)(?:host|dbname)\s*=`)

// isPostgres reports whether db (Config.DB) names a PostgreSQL database
// rather than a SQLite file.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") || libpqKeys.MatchString(db)
}

// sqlitePath is the SQLite file db names: tolk.db in dataDir when db is
// empty.
func sqlitePath(dataDir, db string) string {
	if db == "" {
		return filepath.Join(dataDir, "tolk.db")
	}
	return db
}

// openDB opens the index db names (Config.DB): "" is the SQLite file
// tolk.db in dataDir, which it creates; a PostgreSQL URL or connection
// string connects to that database (which must exist); anything else is
// the path of a SQLite file. o holds the other settings. Its errors name
// the index by describeDB and never quote a connection string.
func openDB(ctx context.Context, dataDir, db string, o sqlstore.Options) (*sqlstore.DB, error) {
	d, err := openIndex(ctx, dataDir, db, o)
	if err != nil {
		return nil, fmt.Errorf("open the index (%s): %w", describeDB(dataDir, db), err)
	}
	return d, nil
}

func openIndex(ctx context.Context, dataDir, db string, o sqlstore.Options) (*sqlstore.DB, error) {
	if !isPostgres(db) {
		if db == "" {
			if err := os.MkdirAll(dataDir, 0o755); err != nil {
				return nil, fmt.Errorf("data directory: %w", err)
			}
		}
		o.Engine, o.Location = sqlstore.SQLite, sqlitePath(dataDir, db)
		return sqlstore.Open(ctx, o)
	}
	// The driver's parse errors quote the string, redacting what they
	// recognise as a password, which a malformed string can defeat.
	if _, err := pgconn.ParseConfig(db); err != nil {
		return nil, errors.New("--db: the PostgreSQL connection string does not parse " +
			"(want postgres://user@host/database or host=... dbname=...)")
	}
	o.Engine, o.Location = sqlstore.Postgres, db
	if o.Logger == nil {
		// A command (tolk user, token, ... --db) logs the index's
		// warnings: one that waits beside a stopped solo server says
		// what holds it (sqlstore's lease.go), where it was silent.
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return sqlstore.Open(ctx, o)
}

// describeDB names the index db opens for the log and error messages:
// the SQLite file, or the PostgreSQL host and database, never the rest
// of a connection string, which may hold a password.
func describeDB(dataDir, db string) string {
	if !isPostgres(db) {
		return "sqlite " + sqlitePath(dataDir, db)
	}
	cfg, err := pgconn.ParseConfig(db)
	if err != nil {
		return "postgres (a connection string that does not parse)"
	}
	return fmt.Sprintf("postgres host=%s database=%s", cfg.Host, cfg.Database)
}
