package sqlite

import "sync"

// maxCachedLookups bounds each lookup cache; past it the cache starts
// over, so a flood of distinct keys costs memory once, not forever.
const maxCachedLookups = 4096

// lookupCache memoizes the lookups every translation-scoped request makes
// (translation, component, project, language by their path keys) for as
// long as no write commits. Those rows change only with imports and
// configuration, while reads ask for them on every request.
//
// Values are tagged with the write generation read before the query that
// produced them: an answer read while a write committed may be stale, but
// it carries the older generation and is dropped at the next lookup. Only
// found objects are cached. Returned values share their slices with the
// cache: callers must not modify them. It is safe for concurrent use.
type lookupCache[K comparable, V any] struct {
	mu  sync.Mutex // guards gen and m
	gen uint64
	m   map[K]V
}

func (c *lookupCache[K, V]) get(gen uint64, k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	if c.gen != gen {
		return zero, false
	}
	v, ok := c.m[k]
	return v, ok
}

func (c *lookupCache[K, V]) put(gen uint64, k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.gen:
		return // read before a write that the cache already reflects
	case gen > c.gen || c.m == nil || len(c.m) >= maxCachedLookups:
		c.gen, c.m = gen, make(map[K]V)
	}
	c.m[k] = v
}

// lookup answers from cache for the current write generation, or runs
// find and remembers what it found.
func lookup[K comparable, V any](db *DB, c *lookupCache[K, V], k K, find func() (V, error)) (V, error) {
	gen := db.gen.Load()
	if v, ok := c.get(gen, k); ok {
		return v, nil
	}
	v, err := find()
	if err == nil {
		c.put(gen, k, v)
	}
	return v, err
}

// pageCache memoizes list pages, the rows of one page with the list's
// total, for as long as no write commits, under lookupCache's rule: a
// page is tagged with the write generation read before its query. A
// units page is 50 rows of 23 columns, and stepping them out of SQLite
// through the driver costs several times what serving the page's bytes
// does, while translators page through the same lists until something
// changes. Past its bound in rows (DB.PageCacheRows) it starts over, as
// the lookup caches do. Pages are shared: callers must not modify their
// rows. It is safe for concurrent use.
type pageCache[T any] struct {
	mu   sync.Mutex // guards gen, rows and m
	gen  uint64
	rows int
	m    map[string]cachedPage[T]
}

type cachedPage[T any] struct {
	rows  []T
	total int
}

func (c *pageCache[T]) get(gen uint64, key string) (cachedPage[T], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return cachedPage[T]{}, false
	}
	p, ok := c.m[key]
	return p, ok
}

func (c *pageCache[T]) put(gen uint64, key string, p cachedPage[T], limit int) {
	if len(p.rows) > limit || limit <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.gen:
		return
	case gen > c.gen || c.m == nil || c.rows+len(p.rows) > limit:
		c.gen, c.rows, c.m = gen, 0, make(map[string]cachedPage[T])
	}
	if _, ok := c.m[key]; !ok {
		c.rows += len(p.rows)
		c.m[key] = p
	}
}

// cachedPageOf answers from c for the current write generation, or runs
// find and remembers its page.
func cachedPageOf[T any](db *DB, c *pageCache[T], key string, find func() ([]T, int, error)) ([]T, int, error) {
	gen := db.gen.Load()
	if p, ok := c.get(gen, key); ok {
		return p.rows, p.total, nil
	}
	rows, total, err := find()
	if err == nil {
		c.put(gen, key, cachedPage[T]{rows, total}, db.PageCacheRows)
	}
	return rows, total, err
}
