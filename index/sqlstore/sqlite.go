package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"
)

//go:embed migrations/sqlite/*.sql
var sqliteMigrations embed.FS

var sqliteDialect = func() *dialect {
	m, err := fs.Sub(sqliteMigrations, "migrations/sqlite")
	if err != nil {
		panic(err)
	}
	return &dialect{
		name:       "sqlite",
		migrations: m,
		readTx:     sql.TxOptions{ReadOnly: true},
		like:       "LIKE",
		background: func(db *DB, ctx context.Context, done chan<- struct{}) { db.checkpointer(ctx, done) },
	}
}()

// openSQLite opens (creating if needed) the SQLite index at o.Location,
// for Open.
func openSQLite(ctx context.Context, o Options) (*DB, error) {
	db := newDB(sqliteDialect, o)
	path := o.Location
	// WAL lets readers run while an import writes; busy_timeout makes a
	// reader wait out a checkpoint instead of failing; foreign keys keep
	// cascades honest; synchronous=NORMAL is durable at every checkpoint
	// under WAL and saves an fsync per transaction.
	pragmas := []string{
		"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)",
		"synchronous(NORMAL)", "cache_size(-65536)", "temp_store(MEMORY)",
	}
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	wq := url.Values{}
	for k, v := range q {
		wq[k] = v
	}
	// IMMEDIATE takes the write lock at BEGIN, so a transaction never has
	// to upgrade a read lock and fail half-way with SQLITE_BUSY.
	wq.Set("_txlock", "immediate")
	// The writer never checkpoints inside a commit; checkpointer does it
	// in the background.
	wq.Add("_pragma", "wal_autocheckpoint(0)")

	var err error
	if db.wdb, err = sql.Open("sqlite", "file:"+path+"?"+wq.Encode()); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// The writer holds one connection for its life (writeconn.go); a
	// second one serves tests that write past it (and waits, under
	// busy_timeout, for the writer's lock like any other connection).
	// Nothing else of the package uses this pool after migrate.
	db.wdb.SetMaxOpenConns(2)
	db.wdb.SetConnMaxIdleTime(0)
	if db.rdb, err = sql.Open("sqlite", "file:"+path+"?"+q.Encode()); err != nil {
		db.wdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	db.rdb.SetMaxOpenConns(n)
	db.rdb.SetMaxIdleConns(n)
	if err := db.start(ctx); err != nil {
		return nil, err
	}
	return db, nil
}
