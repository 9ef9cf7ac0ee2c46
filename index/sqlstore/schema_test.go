package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// schema is what TestSchemasMatch compares of an engine's schema.
type schema struct {
	tables map[string]map[string]column // by table, then column
	// indexes are the indexes created by name (an expression is an empty
	// column name on both engines), and the primary keys and
	// unique constraints under "pk" or "unique" and their columns (the
	// engines name those differently), by table.
	indexes map[string]map[string]schemaIndex
}

type column struct {
	kind    string // int, text or blob: the engines' types, loosely
	notNull bool
}

type schemaIndex struct {
	columns string // comma-separated, in order
	unique  bool
	partial bool
}

// dropTrailingID drops the id that ends an index of a table keyed by
// its id, wherever it is named. On SQLite such an id is the rowid, which
// ends every index of the table whether named or not: (x) and (x, id)
// are the same index there. PostgreSQL's indexes name the id where a
// list seeks or orders by it (the keyset lists, keyset.go), and
// TestKeysetQueryPlans checks on both engines that those lists use
// their index.
func (s schema) dropTrailingID() {
	for table, idx := range s.indexes {
		if idx["pk"].columns != "id" {
			continue
		}
		for name, i := range idx {
			if name != "pk" && !strings.HasPrefix(name, "unique ") {
				i.columns = strings.TrimSuffix(i.columns, ",id")
				idx[name] = i
			}
		}
		s.indexes[table] = idx
	}
}

// schemaExceptions are the differences between the engines' schemas
// that are meant, each with why: "table", "table.column" or
// "table index".
var schemaExceptions = map[string]string{
	// The processes sharing a PostgreSQL database tell each other what
	// their writes made stale through it (replay.go); a SQLite file has
	// one process, which writes no log.
	"write_log": "PostgreSQL only: the log of writes that processes sharing the database replay",
	// Scoped writes of several processes count their changes aside and
	// fold them into list_counts at their end (migration 0046,
	// writers.go); SQLite's one writer counts in place.
	"list_counts_delta": "PostgreSQL only: the changes lists' counts a transaction keeps aside",
	"solo_lease":        "PostgreSQL only: the marker of a process alone on the database (lease.go)",
	// Heap-only unit edits on PostgreSQL (migration 0114): no index of
	// units names a column an edit changes, so the same-target lookup,
	// the rare states and the pending units are side tables kept by
	// triggers there; SQLite, which has no heap-only updates, keeps the
	// partial indexes.
	"unit_targets":              "PostgreSQL only: units_target_prefix as a side table",
	"unit_states":               "PostgreSQL only: units_state as a side table",
	"unit_pending":              "PostgreSQL only: units_pending as a side table",
	"units units_target_prefix": "SQLite only: PostgreSQL's is the side table unit_targets",
	"units units_state":         "SQLite only: PostgreSQL's is the side table unit_states",
	"units units_pending":       "SQLite only: PostgreSQL's is the side table unit_pending",
	// The trigram index of the units' text (migrations 0033 and 0044,
	// trigram.go): an FTS5 table and its shadow tables on SQLite, a table
	// of each unit's trigrams with a GIN index on PostgreSQL, which has
	// no FTS5 and whose pg_trgm needs a superuser. TestTrigramSearch
	// checks both give the same answers. Their notes of the units to
	// index (unit_trigrams_pending) are the same table on both.
	"unit_trigrams.text":              "SQLite's trigram index (FTS5): the text indexed",
	"unit_trigrams.unit_id":           "PostgreSQL's trigram table: FTS5's is the rowid",
	"unit_trigrams.trigrams":          "PostgreSQL's trigram table: the unit's trigrams",
	"unit_trigrams pk":                "PostgreSQL's trigram table: FTS5's is the rowid",
	"unit_trigrams unit_trigrams_gin": "PostgreSQL's trigram table: its GIN index",
	"unit_trigrams_config":            "FTS5's shadow table of unit_trigrams",
	"unit_trigrams_data":              "FTS5's shadow table of unit_trigrams",
	"unit_trigrams_docsize":           "FTS5's shadow table of unit_trigrams",
	"unit_trigrams_idx":               "FTS5's shadow table of unit_trigrams",
	// The keys' trigrams (migration 0062): a second FTS5 table on SQLite
	// (FTS5 has no column filters at detail=none), a column with its
	// own GIN index on PostgreSQL.
	"unit_key_trigrams":         "SQLite's trigram index of the keys (FTS5)",
	"unit_key_trigrams_config":  "FTS5's shadow table of unit_key_trigrams",
	"unit_key_trigrams_data":    "FTS5's shadow table of unit_key_trigrams",
	"unit_key_trigrams_docsize": "FTS5's shadow table of unit_key_trigrams",
	"unit_key_trigrams_idx":     "FTS5's shadow table of unit_key_trigrams",
	// The imported memory entries' source trigrams (migration 0079): an
	// FTS5 table on SQLite, a GIN index over tolk_trigram_codes on PostgreSQL.
	"memory_trigrams":                     "SQLite's trigram index of imported memory sources (FTS5)",
	"memory_trigrams_config":              "FTS5's shadow table of memory_trigrams",
	"memory_trigrams_data":                "FTS5's shadow table of memory_trigrams",
	"memory_trigrams_docsize":             "FTS5's shadow table of memory_trigrams",
	"memory_trigrams_idx":                 "FTS5's shadow table of memory_trigrams",
	"memory memory_source_trigrams":       "PostgreSQL's trigram index of imported memory sources (GIN)",
	"unit_trigrams.key_trigrams":          "PostgreSQL's trigram table: the unit's key's trigrams",
	"unit_trigrams unit_trigrams_key_gin": "PostgreSQL's trigram table: the keys' GIN index",
	// An imported memory entry's identity (migration 0087): SQLite keys
	// the texts themselves, PostgreSQL their md5s (its B-tree entries
	// have a size limit).
	"memory memory_identity": "SQLite keys the texts, PostgreSQL their hashes",
	// The links of units indexed without their source to the source unit
	// whose row holds it (migration 0089): a column of the trigram table
	// on PostgreSQL; SQLite indexes every unit's whole text again since
	// migration 0090, so it has none.
	"unit_trigrams.source_unit_id":             "PostgreSQL's trigram table: the link of a unit indexed without its source",
	"unit_trigrams unit_trigrams_source_units": "PostgreSQL's trigram table: the links' index (migration 0090: with the unit, index-only)",
	// Whether a component propagates translations, kept by a trigger from
	// its settings (migration 0104) for the scoped batches' locks
	// (lock_write_scopes); SQLite's one writer takes no such locks.
	"components.propagates": "PostgreSQL only: the settings' AllowTranslationPropagation, for lock_write_scopes",
}

// TestSchemasMatch checks that the SQLite and PostgreSQL migrations end
// in the same schema: the same tables, columns (names, loose types and
// NOT NULL) and indexes (names, columns, uniqueness, partial or not),
// but for schemaExceptions. It needs a PostgreSQL server.
func TestSchemasMatch(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.PostgresDSN(t) // or skip
	lite, err := Open(ctx, Options{Engine: SQLite, Location: filepath.Join(t.TempDir(), "tolk.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := Open(ctx, Options{Engine: Postgres, Location: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	a, err := sqliteSchema(ctx, lite.rdb)
	if err != nil {
		t.Fatal(err)
	}
	b, err := postgresSchema(ctx, pg.rdb)
	if err != nil {
		t.Fatal(err)
	}
	a.dropTrailingID()
	b.dropTrailingID()
	if len(a.tables) == 0 || len(b.tables) == 0 {
		t.Fatalf("no tables read: %d on SQLite, %d on PostgreSQL", len(a.tables), len(b.tables))
	}
	seen := map[string]bool{}
	for _, d := range schemaDiff(a, b) {
		if _, ok := schemaExceptions[d.what]; ok {
			seen[d.what] = true
			continue
		}
		t.Errorf("%s: SQLite %s, PostgreSQL %s", d.what, d.sqlite, d.postgres)
	}
	for what := range schemaExceptions {
		if !seen[what] {
			t.Errorf("%s: listed as a difference, but the schemas agree", what)
		}
	}
}

// schemaDifference is one thing the engines' schemas disagree on, as
// each has it ("none" when it lacks it).
type schemaDifference struct{ what, sqlite, postgres string }

func schemaDiff(a, b schema) []schemaDifference {
	var out []schemaDifference
	differ := func(what string, x, y any, inX, inY bool) {
		switch {
		case !inX:
			out = append(out, schemaDifference{what, "none", fmt.Sprintf("%+v", y)})
		case !inY:
			out = append(out, schemaDifference{what, fmt.Sprintf("%+v", x), "none"})
		case x != y:
			out = append(out, schemaDifference{what, fmt.Sprintf("%+v", x), fmt.Sprintf("%+v", y)})
		}
	}
	for _, table := range union(a.tables, b.tables) {
		ca, inA := a.tables[table]
		cb, inB := b.tables[table]
		if !inA || !inB {
			differ(table, "a table", "a table", inA, inB)
			continue
		}
		for _, c := range union(ca, cb) {
			x, inX := ca[c]
			y, inY := cb[c]
			differ(table+"."+c, x, y, inX, inY)
		}
		ia, ib := a.indexes[table], b.indexes[table]
		for _, name := range union(ia, ib) {
			x, inX := ia[name]
			y, inY := ib[name]
			differ(table+" "+name, x, y, inX, inY)
		}
	}
	return out
}

// union is the keys of a and b, sorted.
func union[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// kinds maps the engines' column types to what TestSchemasMatch
// compares: the schema keeps integers for booleans and text for times
// on both (see dialect.args).
var kinds = map[string]string{
	"integer": "int", "bigint": "int", "smallint": "int",
	"text": "text",
	"blob": "blob", "bytea": "blob",
}

func kind(declared string) string {
	if k, ok := kinds[strings.ToLower(declared)]; ok {
		return k
	}
	return "other " + declared
}

func sqliteSchema(ctx context.Context, db *sql.DB) (schema, error) {
	s := schema{tables: map[string]map[string]column{}, indexes: map[string]map[string]schemaIndex{}}
	tables, err := strings1(ctx, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
	if err != nil {
		return s, err
	}
	for _, table := range tables {
		cols := map[string]column{}
		var pk []string
		rows, err := db.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY pk`, table)
		if err != nil {
			return s, err
		}
		for rows.Next() {
			var name, typ string
			var notNull bool
			var inPK int
			if err := rows.Scan(&name, &typ, &notNull, &inPK); err != nil {
				rows.Close()
				return s, err
			}
			if inPK > 0 {
				pk = append(pk, name)
				notNull = true // PostgreSQL's keys are NOT NULL; SQLite's rowid is
			}
			cols[name] = column{kind(typ), notNull}
		}
		if err := rows.Close(); err != nil {
			return s, err
		}
		s.tables[table] = cols
		idx := map[string]schemaIndex{}
		if len(pk) > 0 {
			idx["pk"] = schemaIndex{columns: strings.Join(pk, ","), unique: true}
		}
		rows, err = db.QueryContext(ctx, `SELECT name, "unique", origin, partial FROM pragma_index_list(?)`, table)
		if err != nil {
			return s, err
		}
		type listed struct {
			name, origin    string
			unique, partial bool
		}
		var list []listed
		for rows.Next() {
			var l listed
			if err := rows.Scan(&l.name, &l.unique, &l.origin, &l.partial); err != nil {
				rows.Close()
				return s, err
			}
			list = append(list, l)
		}
		if err := rows.Close(); err != nil {
			return s, err
		}
		for _, l := range list {
			if l.origin == "pk" {
				continue // read from the columns above
			}
			cols, err := strings1(ctx, db, `SELECT coalesce(name, '') FROM pragma_index_info(?) ORDER BY seqno`, l.name)
			if err != nil {
				return s, err
			}
			key := l.name
			if l.origin == "u" {
				key = "unique " + strings.Join(cols, ",")
			}
			idx[key] = schemaIndex{columns: strings.Join(cols, ","), unique: l.unique, partial: l.partial}
		}
		s.indexes[table] = idx
	}
	return s, nil
}

func postgresSchema(ctx context.Context, db *sql.DB) (schema, error) {
	s := schema{tables: map[string]map[string]column{}, indexes: map[string]map[string]schemaIndex{}}
	rows, err := db.QueryContext(ctx, `SELECT table_name, column_name, data_type, is_nullable = 'NO'
		FROM information_schema.columns WHERE table_schema = current_schema()`)
	if err != nil {
		return s, err
	}
	for rows.Next() {
		var table, name, typ string
		var notNull bool
		if err := rows.Scan(&table, &name, &typ, &notNull); err != nil {
			rows.Close()
			return s, err
		}
		if s.tables[table] == nil {
			s.tables[table] = map[string]column{}
		}
		s.tables[table][name] = column{kind(typ), notNull}
	}
	if err := rows.Close(); err != nil {
		return s, err
	}
	rows, err = db.QueryContext(ctx, `SELECT t.relname, i.relname, x.indisunique, x.indisprimary,
			x.indpred IS NOT NULL, c.contype IS NOT NULL,
			(SELECT string_agg(coalesce(a.attname, ''), ',' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
				LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum != 0)
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.contype IN ('p', 'u')
		WHERE t.relnamespace = current_schema()::regnamespace`)
	// An expression's key column (attnum 0) reads '', as SQLite's
	// pragma_index_info names it (migration 0036's units_source_prefix).
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var table, name, cols string
		var unique, primary, partial, constraint bool
		if err := rows.Scan(&table, &name, &unique, &primary, &partial, &constraint, &cols); err != nil {
			return s, err
		}
		if s.indexes[table] == nil {
			s.indexes[table] = map[string]schemaIndex{}
		}
		key := name
		switch {
		case primary:
			key = "pk"
		case constraint:
			key = "unique " + cols
		}
		s.indexes[table][key] = schemaIndex{columns: cols, unique: unique, partial: partial}
	}
	return s, rows.Err()
}

// strings1 returns the first column of query's rows.
func strings1(ctx context.Context, db *sql.DB, query string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
