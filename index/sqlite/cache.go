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
