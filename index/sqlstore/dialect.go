package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"strconv"
	"strings"
	"sync"
)

// dialect is what differs between the engines. Everything else (the
// queries, the caches, the writer) is shared: the queries are written in
// the SQL both engines accept, with ? placeholders that rebind turns into
// PostgreSQL's $n.
type dialect struct {
	name string
	// migrations holds the engine's own schema files, applied in name
	// order.
	migrations fs.FS
	// numbered placeholders: rebind rewrites ? as $1, $2, ...
	numbered bool
	// readTx begins the read transactions that must see one snapshot
	// across several queries: SQLite's are snapshots already, PostgreSQL's
	// need REPEATABLE READ.
	readTx sql.TxOptions
	// like is the operator of case-insensitive search (SQLite's LIKE
	// ignores ASCII case, PostgreSQL's does not).
	like string
	// lockWrites runs first in every write transaction: it serialises
	// writers that share the database from other processes (nil when the
	// writer goroutine is the only one, as with SQLite's one file).
	lockWrites string
	// lockShared takes the same lock shared, for a batch of scoped
	// writes, which then lock their scopes with lockScopes (writers.go);
	// logTail is the key of write_log's tail lock (logWrite).
	lockShared, lockScopes, lockScopesAny, logTail string
	// lockUnit takes lockShared's lock and settings and a batch's one
	// unit's scope locks in one call (migration 0123), for a batch of
	// one unit edit; "" before it.
	lockUnit string
	// lockBatch, lockBatchAny are lockScopes, lockScopesAny taking
	// lockShared's lock and settings in the same call (migration 0129),
	// for a batch of several scoped writes; "" before it.
	lockBatch, lockBatchAny string
	// lockScopesOld: the schema predates lock_write_scopes (migration
	// 0095), and lockScopes, lockScopesAny call lock_scopes (0076).
	lockScopesOld bool
	scopeSpace    int32 // the scopes' advisory lock space (lockSpace)
	// shared: other processes may write the same database, so the caches
	// learn of their writes through write_log (replay.go).
	shared bool
	// returning: an INSERT answers its new id with RETURNING, in its
	// own round trip. SQLite's RETURNING builds an ephemeral table per
	// statement, so there the id is read with LastInsertId instead;
	// PostgreSQL has no LastInsertId, and lastval() would cost a round
	// trip of its own.
	returning bool
	// multiStatement: one Exec without arguments may hold several
	// statements (PostgreSQL's simple protocol), so the writer releases a
	// write's savepoint and starts the next write's in one round trip.
	multiStatement bool
	// background is the engine's own background work, run until ctx ends
	// (the SQLite checkpointer); it closes done when it returns.
	background func(db *DB, ctx context.Context, done chan<- struct{})
	// rebound holds rebind's answers (numbered placeholders only), nil
	// for none; the copies of a dialect (openPostgres) share it.
	rebound *rebindCache
}

// rebindCache remembers rebind's answer by query: a query's text is
// rewritten once per process, not at every run. Rewriting was ≈ 4% of
// Tolk's CPU at concurrency 8 on PostgreSQL (issue 31; the batch's
// statistics upsert alone is ≈ 5 KB of text), where a lookup hashes and
// compares the text once. The queries are the package's constants and
// the texts built with a number of placeholders (idList, the statistics'
// rows) whose lengths are bounded by their chunks, so the distinct keys
// are few; the readers' searches add texts of their own, so past
// maxRebound the cache starts over (as genCache does) rather than
// freezing on whatever filled it first.
type rebindCache struct {
	mu    sync.RWMutex
	m     map[string]string
	bytes int
}

// maxRebound is the most text (queries and their answers) a dialect's
// rebindCache holds.
const maxRebound = 4 << 20

// rebind returns query with the dialect's placeholders: ? becomes the
// next $n, and ?NNN (a numbered parameter) $NNN.
func (d *dialect) rebind(query string) string {
	if !d.numbered {
		return query
	}
	c := d.rebound
	if strings.IndexByte(query, '?') < 0 {
		return query // nothing to rewrite: no lookup either
	}
	if c == nil {
		return numberPlaceholders(query)
	}
	c.mu.RLock()
	out, ok := c.m[query]
	c.mu.RUnlock()
	if ok {
		return out
	}
	out = numberPlaceholders(query)
	c.mu.Lock()
	if c.bytes+len(query)+len(out) > maxRebound {
		c.m, c.bytes = nil, 0
	}
	if c.m == nil {
		c.m = map[string]string{}
	}
	if _, ok := c.m[query]; !ok {
		c.m[query] = out
		c.bytes += len(query) + len(out)
	}
	c.mu.Unlock()
	return out
}

// numberPlaceholders is rebind's rewriting, uncached.
func numberPlaceholders(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	quote := byte(0) // the quote we are inside of, or 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			b.WriteByte('$')
			if i+1 < len(query) && isDigit(query[i+1]) {
				continue // SQLite's ?NNN is PostgreSQL's $NNN
			}
			n++
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// args returns args as the dialect's driver takes them. SQLite stores
// booleans as the integers 0 and 1, and the schema keeps them integers on
// both engines so that the queries stay one; pgx will not put a Go bool
// in an integer column, so the PostgreSQL dialect turns them into 0 or 1
// first.
func (d *dialect) args(args []any) []any {
	if !d.numbered {
		return args
	}
	var out []any // a copy, made at the first bool
	for i, a := range args {
		b, ok := a.(bool)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = boolInt(b)
	}
	if out == nil {
		return args
	}
	return out
}
