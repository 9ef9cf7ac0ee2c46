package sqlite

import "sync"

// maxCachedLookups bounds each lookup cache; past it the cache starts
// over, so a flood of distinct keys costs memory once, not forever.
const maxCachedLookups = 4096

// genCache keeps answers for as long as no write commits: the lookups
// every translation-scoped request makes (translation, component,
// project, language by their path keys, statistics), whose rows change
// only with imports and configuration, and list pages (pageOf).
//
// Values are tagged with the write generation read before the query that
// produced them: an answer read while a write committed may be stale, but
// it carries the older generation and is dropped at the next lookup. Only
// found objects are cached. Each value weighs something (1 for a lookup,
// its rows for a page) and past its limit in weight the cache starts
// over. Returned values share their slices with the cache: callers must
// not modify them. It is safe for concurrent use.
type genCache[K comparable, V any] struct {
	mu     sync.Mutex // guards gen, weight and m
	gen    uint64
	weight int
	m      map[K]weighted[V]
}

type weighted[V any] struct {
	v V
	w int
}

func (c *genCache[K, V]) get(gen uint64, k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		var zero V
		return zero, false
	}
	e, ok := c.m[k]
	return e.v, ok
}

// put keeps v, of weight w, unless a write newer than gen has committed
// or w alone is over limit (0 keeps nothing).
func (c *genCache[K, V]) put(gen uint64, k K, v V, w, limit int) {
	if w > limit || limit <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, replaced := c.m[k]
	switch {
	case gen < c.gen:
		return // read before a write that the cache already reflects
	case gen > c.gen || c.m == nil || c.weight-old.w+w > limit:
		c.gen, c.weight, c.m, replaced = gen, 0, make(map[K]weighted[V]), false
	}
	if replaced {
		c.weight -= old.w
	}
	c.weight += w
	c.m[k] = weighted[V]{v, w}
}

// size is how many values the cache holds and their total weight.
func (c *genCache[K, V]) size() (n, weight int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.weight
}

// PageCacheSize reports what the list-page caches hold: pages, and their
// rows, the unit DB.PageCacheRows bounds them in. It is for metrics.
func (db *DB) PageCacheSize() (pages, rows int) {
	for _, size := range []func() (int, int){db.unitPages.size, db.changePages.size} {
		n, w := size()
		pages, rows = pages+n, rows+w
	}
	return pages, rows
}

// lookup answers from cache for the current write generation, or runs
// find and remembers what it found.
func lookup[K comparable, V any](db *DB, c *genCache[K, V], k K, find func() (V, error)) (V, error) {
	gen := db.gen.Load()
	if v, ok := c.get(gen, k); ok {
		return v, nil
	}
	v, err := find()
	if err == nil {
		c.put(gen, k, v, 1, maxCachedLookups)
	}
	return v, err
}

// page is one page of a list: its rows and the list's total.
type page[T any] struct {
	rows  []T
	total int
}

// pageOf answers a list page from c for the current write generation, or
// runs find and remembers its page, weighted by its rows against
// DB.PageCacheRows. A units page is 50 rows of 23 columns, and stepping
// them out of SQLite through the driver costs several times what serving
// the page's bytes does, while translators page through the same lists
// until something changes.
func pageOf[T any](db *DB, c *genCache[string, page[T]], key string, find func() ([]T, int, error)) ([]T, int, error) {
	gen := db.gen.Load()
	if p, ok := c.get(gen, key); ok {
		return p.rows, p.total, nil
	}
	rows, total, err := find()
	if err == nil {
		c.put(gen, key, page[T]{rows, total}, len(rows), db.PageCacheRows)
	}
	return rows, total, err
}
