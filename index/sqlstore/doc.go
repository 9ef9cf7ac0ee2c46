// Package sqlite is Tolk's embedded index engine: the schema, queries and
// statistics of package index, stored in one SQLite file through the pure
// Go driver modernc.org/sqlite.
//
// SQL text, *sql.Rows and driver errors never leave this package; callers
// see index types and index error kinds. Each exported method owns its
// transaction. Writes go through a single connection (SQLite has one
// writer at a time; queuing in Go is cheaper than SQLITE_BUSY retries),
// reads through a pool that WAL lets run beside the writer.
//
// Start reading at sqlite.go (Open, migrations, pragmas), then import.go.
// changes.go records every change; with it, in the same transaction,
// go the outbox rows of the webhooks that want it (addons.go keeps the
// webhooks in memory for that question, deliveries.go holds the outbox).
// This package must not import sync, formats or vcs.
package sqlstore
