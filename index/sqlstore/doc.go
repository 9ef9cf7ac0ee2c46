// Package sqlstore is Tolk's index engine: the schema, queries,
// statistics and caches of package index, on SQLite (one file, through
// the pure Go driver modernc.org/sqlite: the default, with nothing to
// install) or on PostgreSQL (through github.com/jackc/pgx/v5, for
// several Tolk processes sharing one database). One code serves both;
// what differs is a dialect (dialect.go) and each engine's migrations.
//
// SQL text, *sql.Rows and driver errors never leave this package; callers
// see index types and index error kinds (errors.go). Each exported method
// owns its transaction. Writes go through a single connection on SQLite
// (one writer at a time; queuing in Go is cheaper than SQLITE_BUSY
// retries) and through Options.Writers writers on PostgreSQL, each its
// own connection (writers.go), reads through a pool that runs beside
// them (WAL on SQLite). This package must not import sync, formats or vcs.
//
// # Where things are
//
// The machinery, apart from the queries:
//
//   - store.go: DB, Open and Close, with the settings of options.go;
//     sqlite.go and postgres.go open each engine (connections, pragmas),
//     migrate.go applies the schema.
//   - writer.go: the writer goroutine and its batches (group commit);
//     tx.go: Tx, the write transaction every write function is given;
//     writer_stats.go: the statistics a batch's writes owe, stored once;
//     pipeline.go: on PostgreSQL, the statements whose answers can wait
//     sent together, one round trip for several.
//     writeconn.go: on SQLite, the writer's own connection, on which it
//     runs BEGIN, COMMIT and its prepared statements itself.
//   - cache.go: the cached answers (lookups, list pages, statistics) and
//     the write clock that makes them stale; replay.go: on PostgreSQL,
//     other processes' writes replayed into that clock (write_log).
//   - hooks.go: the webhooks in memory that every change is matched
//     against; stmt.go: prepared statements, for reads and the writer.
//
// The queries are in one file per noun: projects.go, components.go,
// translations.go, units.go, changes.go and so on, their writes in the
// _write.go beside them; keyset.go pages lists without OFFSET, stats.go
// keeps statistics, import.go imports a file's units, edit.go and
// unitwrite.go edit units; memory.go and memory_index.go are the
// translation memory, read from units (docs/memory.md). Start reading at options.go and store.go, then
// import.go.
//
// # How a write flows
//
// An exported write method (UpdateUnit, say) hands a write function to
// db.write or db.writeNarrow with its request's context, and waits:
//
//  1. Request: the write is queued for the writer goroutines (writer.go;
//     one on SQLite, Options.Writers on PostgreSQL). A context that ends
//     while it waits withdraws it.
//  2. Batch: a writer takes the writes waiting when it is free, up to
//     maxWriteBatch; on PostgreSQL it also waits briefly for writes
//     that requests announced and have not queued yet (expect.go).
//  3. Transaction: one transaction runs them all, each in a savepoint, so
//     that a failing write rolls back alone (runBatch). It takes the write
//     lock first on PostgreSQL (shared, with the locks of the scopes it
//     edits, when it holds only scoped writes: unit edits, suggestions,
//     comments, uploads; writers.go), reads the clock once, and gives
//     each
//     write function the Tx, whose statements run to their end whatever
//     any request's context does. The write records its changes, queues
//     webhook deliveries in the same transaction (the outbox,
//     deliveries.go), and declares what it touched (Tx.touch) or touches
//     everything. Statistics owed by narrow writes are stored once per
//     batch (writer_stats.go); on PostgreSQL the batch appends what it
//     touched to write_log.
//  4. Caches made stale: after the commit (or the rollback) the writer
//     advances the write clock (cache.go) with what the batch touched;
//     every cached answer that depends on it is read again on its next
//     use. Only then is each write answered, with its own error.
//
// On PostgreSQL another process's writes reach this one's caches
// through write_log (replay.go): readers replay it before trusting a
// cached answer, and the writer inside its transaction.
package sqlstore
