// Package sqlite is Tolk's embedded index: one SQLite file in the data
// directory, through the pure Go driver modernc.org/sqlite. It is the
// default, with nothing to install. The engine itself (queries, caches,
// the writer) is package sqlstore, shared with package postgres.
package sqlite

import (
	"context"

	"github.com/tolk-project/tolk/index/sqlstore"
)

// DB is the index; it is safe for concurrent use. Close it when done.
type DB = sqlstore.DB

// DefaultPageCacheBytes is each page cache's bound (sqlstore).
const DefaultPageCacheBytes = sqlstore.DefaultPageCacheBytes

// Open opens (creating if needed) the index at path and applies pending
// migrations.
func Open(ctx context.Context, path string) (*DB, error) {
	return sqlstore.OpenSQLite(ctx, path)
}
