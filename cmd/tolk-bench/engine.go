package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, as index/sqlstore uses it
	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
)

// engine is where a run keeps its indexes: an SQLite file per index in
// the run's temporary directory (the default), or with -db a fresh schema
// per index in a PostgreSQL database, so that a run never touches the
// database's other data. Close it when the run ends.
type engine struct {
	url   string  // -db; "" for SQLite
	admin *sql.DB // PostgreSQL: on url itself; creates and drops the schemas
	// Name and Version are for the report.
	Name, Version string
	// noChecks opens every index without the quality checks (-no-checks).
	noChecks bool
	// writers is sqlstore.Options.Writers (-db-writers; 0: the default).
	writers int
	noSolo  bool // sqlstore.Options.NoSolo
}

// schemas numbers the schemas of this process.
var schemas atomic.Int64

// openEngine connects to the database at dbURL (a postgres:// URL), or
// with "" chooses SQLite, and reads the engine's version.
func openEngine(ctx context.Context, dbURL string) (*engine, error) {
	if dbURL == "" {
		e := &engine{Name: "SQLite"}
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			return nil, err
		}
		defer db.Close()
		if err := db.QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&e.Version); err != nil {
			return nil, fmt.Errorf("sqlite version: %w", err)
		}
		return e, nil
	}
	if !strings.HasPrefix(dbURL, "postgres://") && !strings.HasPrefix(dbURL, "postgresql://") {
		return nil, fmt.Errorf("-db: %q is not a postgres:// URL", redactURL(dbURL))
	}
	admin, err := sql.Open("pgx", dbURL)
	if err != nil {
		return nil, fmt.Errorf("-db: %w", err)
	}
	admin.SetMaxOpenConns(2)
	e := &engine{url: dbURL, admin: admin, Name: "PostgreSQL"}
	if err := admin.QueryRowContext(ctx, `SHOW server_version`).Scan(&e.Version); err != nil {
		admin.Close()
		return nil, fmt.Errorf("connect to %s: %w", redactURL(dbURL), err)
	}
	return e, nil
}

func (e *engine) postgres() bool { return e.url != "" }

// Close closes the connection the schemas were made on.
func (e *engine) Close() error {
	if e.admin == nil {
		return nil
	}
	return e.admin.Close()
}

// Describe is the report's line on the engine; it never shows a password.
func (e *engine) Describe() string {
	if !e.postgres() {
		return fmt.Sprintf("SQLite %s (modernc.org/sqlite), one file per index in a temporary directory", e.Version)
	}
	return fmt.Sprintf("PostgreSQL %s at `%s` (pgx), a fresh schema per index, dropped at the end", e.Version,
		redactURL(e.url))
}

// redactURL is u without its password, in the user part or the
// password parameter (and u unchanged when it has neither).
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	changed := false
	if p.User != nil {
		if _, set := p.User.Password(); set {
			p.User, changed = url.User(p.User.Username()), true
		}
	}
	if q := p.Query(); q.Has("password") {
		q.Del("password")
		p.RawQuery, changed = q.Encode(), true
	}
	if !changed {
		return u
	}
	return p.String()
}

// store is where one index lives: an SQLite file or a PostgreSQL schema.
type store struct {
	e      *engine
	path   string // SQLite: the file
	schema string // PostgreSQL: the schema, and dsn connects to it
	dsn    string
	// kept stores are left in place by drop: the scale index of -keep
	// and -resume (scale.go).
	kept bool
}

// newStore makes an empty place for an index: the file dir/tolk.db, or a
// new schema tolk_bench_<pid>_<n>. Drop it when done.
func (e *engine) newStore(ctx context.Context, dir string) (*store, error) {
	if !e.postgres() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		return &store{e: e, path: filepath.Join(dir, "tolk.db")}, nil
	}
	name := fmt.Sprintf("tolk_bench_%d_%d", os.Getpid(), schemas.Add(1))
	if _, err := e.admin.ExecContext(ctx, `CREATE SCHEMA `+name); err != nil {
		return nil, fmt.Errorf("create schema %s: %w", name, err)
	}
	return e.schemaStore(name)
}

// schemaStore is the store of the existing schema name.
func (e *engine) schemaStore(name string) (*store, error) {
	u, err := url.Parse(e.url)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("search_path", name) // pgx sends it as a run-time parameter
	u.RawQuery = q.Encode()
	return &store{e: e, schema: name, dsn: u.String()}, nil
}

// open opens the index in s as tolk serve opens it.
func (s *store) open(ctx context.Context) (*sqlstore.DB, error) { return s.openWith(ctx, 0) }

// openWith opens the index in s with the page caches' bound pageCache
// (0: the default; sqlstore.NoPageCache: none).
func (s *store) openWith(ctx context.Context, pageCache int) (*sqlstore.DB, error) {
	o := sqlstore.Options{Engine: sqlstore.SQLite, Location: s.path, FormatFlags: formats.FlagsOf,
		FormatPlural: tolksync.FormatPlural, PageCacheBytes: pageCache, NoChecks: s.e.noChecks,
		Writers: s.e.writers, NoSolo: s.e.noSolo}
	if s.schema != "" {
		o.Engine, o.Location = sqlstore.Postgres, s.dsn
	}
	return sqlstore.Open(ctx, o)
}

// where names s for a person: the SQLite file, or the schema.
func (s *store) where() string {
	if s.schema != "" {
		return "schema " + s.schema + " (search_path=" + s.schema + ")"
	}
	return s.path
}

// drop removes the schema and everything in it (the file goes with the
// run's temporary directory). It runs on its own timeout: an interrupted
// run must still leave the database as it found it.
func (s *store) drop() error {
	if s == nil || s.schema == "" || s.kept {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.e.admin.ExecContext(ctx, `DROP SCHEMA `+s.schema+` CASCADE`); err != nil {
		return fmt.Errorf("drop schema %s: %w", s.schema, err)
	}
	s.schema = ""
	return nil
}

// raw opens database/sql straight on s, beside the index: on SQLite one
// connection with the index's pragmas (read-only when asked), on
// PostgreSQL a pool on the schema. Close it when done.
func (s *store) raw(readOnly bool) (*rawDB, error) {
	if s.schema == "" {
		db, err := openRaw(s.path, readOnly)
		if err != nil {
			return nil, err
		}
		return &rawDB{DB: db}, nil
	}
	db, err := sql.Open("pgx", s.dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &rawDB{DB: db, numbered: true}, nil
}

// size is how much the index takes: the file and its WAL, or every
// table of the schema with its indexes and TOAST.
func (s *store) size(ctx context.Context) (int64, error) {
	if s.schema == "" {
		var n int64
		for _, suffix := range []string{"", "-wal"} {
			if fi, err := os.Stat(s.path + suffix); err == nil {
				n += fi.Size()
			}
		}
		return n, nil
	}
	var n int64
	err := s.e.admin.QueryRowContext(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind = 'r'`, s.schema).Scan(&n)
	return n, err
}

// roundTrip is the median time of n runs of a trivial prepared statement
// (SELECT 1) on one connection to s: the least any statement of the
// index costs on the engine, a call within the process on SQLite and a
// round trip to the server on PostgreSQL. An edit runs about twenty.
func (s *store) roundTrip(ctx context.Context, n int) (time.Duration, error) {
	raw, err := s.raw(true)
	if err != nil {
		return 0, err
	}
	defer raw.Close()
	stmt, err := raw.PrepareContext(ctx, `SELECT 1`)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	lats := make([]time.Duration, 0, n)
	for range n {
		var one int
		start := time.Now()
		if err := stmt.QueryRowContext(ctx).Scan(&one); err != nil {
			return 0, err
		}
		lats = append(lats, time.Since(start))
	}
	slices.Sort(lats)
	return quantile(lats, 0.5), nil
}

// rawDB is database/sql on an index's store, taking the queries of this
// command in one SQL for both engines: ? placeholders, rebound to $n for
// PostgreSQL.
type rawDB struct {
	*sql.DB
	numbered bool
}

func (r *rawDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return r.DB.QueryContext(ctx, rebind(query, r.numbered), args...)
}

func (r *rawDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return r.DB.QueryRowContext(ctx, rebind(query, r.numbered), args...)
}

func (r *rawDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return r.DB.ExecContext(ctx, rebind(query, r.numbered), args...)
}

// rebind turns the ? placeholders of query into $1, $2... when numbered
// (PostgreSQL's), as the index binds its own queries.
func rebind(query string, numbered bool) string {
	if !numbered {
		return query
	}
	q, _ := sqlstore.PostgresSQL(query, nil)
	return q
}

// copySchema copies the index in src's schema to dst's, a new one: the
// migrations make dst's tables, indexes and triggers (sqlstore.Open, as
// for any new index), then every row of src is copied in one transaction
// with dst's own triggers off (list_counts is copied, not recounted),
// tables in the order their foreign keys need, and each identity
// sequence set past the ids copied.
func copySchema(ctx context.Context, src, dst *store) error {
	db, err := dst.open(ctx)
	if err != nil {
		return fmt.Errorf("copy: migrate %s: %w", dst.schema, err)
	}
	if err := db.Close(); err != nil {
		return err
	}
	// dst's tables are the index's alone (src also holds the import's
	// insert ceiling).
	tables, err := tablesByForeignKeys(ctx, src.e.admin, dst.schema)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	tx, err := src.e.admin.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	qualify := func(schema, table string) string { return pgx.Identifier{schema, table}.Sanitize() }
	var all []string
	for _, t := range tables {
		all = append(all, qualify(dst.schema, t))
	}
	stmts := []string{`TRUNCATE ` + strings.Join(all, ", ")}
	for _, t := range all {
		stmts = append(stmts, `ALTER TABLE `+t+` DISABLE TRIGGER USER`)
	}
	for _, t := range tables {
		stmts = append(stmts, `INSERT INTO `+qualify(dst.schema, t)+` SELECT * FROM `+qualify(src.schema, t))
	}
	for _, t := range all {
		stmts = append(stmts, `ALTER TABLE `+t+` ENABLE TRIGGER USER`)
	}
	rows, err := tx.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = $1 AND is_identity = 'YES'`, dst.schema)
	if err != nil {
		return fmt.Errorf("copy: identity columns: %w", err)
	}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return err
		}
		stmts = append(stmts, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', '%s'), coalesce(max(%s), 0) + 1, false) FROM %s`,
			qualify(dst.schema, t), c, pgx.Identifier{c}.Sanitize(), qualify(dst.schema, t)))
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("copy: identity columns: %w", err)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("copy: %.60s: %w", q, err)
		}
	}
	return tx.Commit()
}

// tablesByForeignKeys lists the index's tables in schema (its migrations
// bookkeeping aside), each after the tables its foreign keys name.
func tablesByForeignKeys(ctx context.Context, db *sql.DB, schema string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT c.relname, coalesce(r.relname, '')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'f'
		LEFT JOIN pg_class r ON r.oid = k.confrelid AND r.oid != c.oid
		WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname != 'migrations'
		ORDER BY c.relname`, schema)
	if err != nil {
		return nil, fmt.Errorf("tables of %s: %w", schema, err)
	}
	defer rows.Close()
	needs := map[string][]string{}
	var names []string
	for rows.Next() {
		var t, ref string
		if err := rows.Scan(&t, &ref); err != nil {
			return nil, err
		}
		if _, ok := needs[t]; !ok {
			names = append(names, t)
		}
		needs[t] = append(needs[t], ref)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var order []string
	done := map[string]bool{"": true}
	for len(order) < len(names) {
		before := len(order)
		for _, t := range names {
			if !done[t] && !slices.ContainsFunc(needs[t], func(r string) bool { return !done[r] }) {
				order, done[t] = append(order, t), true
			}
		}
		if len(order) == before {
			return nil, fmt.Errorf("tables of %s: foreign keys in a cycle", schema)
		}
	}
	return order, nil
}
