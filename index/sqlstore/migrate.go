package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migrations are the engine's numbered SQL files, embedded
// (migrations/sqlite, migrations/postgres), applied in name order at Open,
// each in its own transaction and recorded in the migrations table. The
// two histories differ in their steps (PostgreSQL's began as one file of
// SQLite's first seventeen) and must end in the same schema, which
// TestSchemasMatch checks. Every schema change ships a migration for each
// engine.

// migrate applies the migrations the index lacks, then refuses an index
// that a newer Tolk migrated.
func (db *DB) migrate(ctx context.Context) error {
	names, err := db.migrationNames()
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := db.applyMigration(ctx, name); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return db.refuseNewerSchema(ctx, names[len(names)-1])
}

// migrationNames are this binary's migrations of the index's engine, in
// the order they apply (the last is the schema this binary writes).
func (db *DB) migrationNames() ([]string, error) {
	names, err := fs.Glob(db.dialect.migrations, "*.sql")
	if err == nil && len(names) == 0 {
		err = errors.New("no migrations")
	}
	sort.Strings(names)
	return names, err
}

// refuseNewerSchema fails when the index holds a migration numbered
// above last, this binary's last: a newer Tolk migrated it, and this one
// would write it as the older schema expects (on PostgreSQL, beside the
// newer processes sharing it), such as inserting units that migration
// 0019 made the writer count, uncounted.
func (db *DB) refuseNewerSchema(ctx context.Context, last string) error {
	known := migrationNumber(last)
	rows, err := db.wdb.QueryContext(ctx, `SELECT name FROM migrations`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		if n := migrationNumber(strings.TrimPrefix(name, "migrations/")); n > known {
			return fmt.Errorf("the index was migrated by a newer Tolk (it has %s, this binary ends at migrations/%s): run that version or a later one", name, last)
		}
	}
	return rows.Err()
}

// migrationNumber is the number a migration's file name begins with
// ("0019_unit_counts.sql": 19), or -1.
func migrationNumber(file string) int {
	digits, _, _ := strings.Cut(file, "_")
	n, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return n
}

// applyMigration runs one migration file in its own transaction, so a
// crash leaves it either fully applied and recorded or not at all. It is
// recorded under its path in the source tree ("migrations/0001_init.sql"),
// as SQLite files made before the engines shared this code recorded it.
// Processes that start together on one PostgreSQL take turns.
func (db *DB) applyMigration(ctx context.Context, file string) error {
	tx, err := db.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if db.dialect.lockWrites != "" {
		if _, err := tx.Exec(db.dialect.lockWrites); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	name := "migrations/" + file
	var n int
	if err := tx.QueryRow(db.dialect.rebind(`SELECT count(*) FROM migrations WHERE name = ?`), name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(db.dialect.migrations, file)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(string(body)); err != nil {
		return err
	}
	if _, err := tx.Exec(db.dialect.rebind(`INSERT INTO migrations (name, applied) VALUES (?, ?)`),
		name, formatTime(time.Now())); err != nil {
		return err
	}
	return tx.Commit()
}
