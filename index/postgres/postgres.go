// Package postgres is Tolk's index on PostgreSQL, for a deployment that
// outgrows one machine: several Tolk processes may share one database.
// The engine itself (queries, caches, the writer) is package sqlstore,
// shared with package sqlite; the driver is github.com/jackc/pgx/v5.
package postgres

import (
	"context"

	"github.com/tolk-project/tolk/index/sqlstore"
)

// DB is the index; it is safe for concurrent use. Close it when done.
type DB = sqlstore.DB

// Open connects to the database at dsn (a postgres:// URL or a libpq
// connection string) and applies pending migrations to the schema the
// connection uses. The database must exist.
func Open(ctx context.Context, dsn string) (*DB, error) {
	return sqlstore.OpenPostgres(ctx, dsn)
}
