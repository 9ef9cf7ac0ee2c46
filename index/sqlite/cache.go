package sqlite

import (
	"reflect"
	"sync"

	"github.com/tolk-project/tolk/index"
)

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

// PageCacheSize reports what the list-page caches (of units, of changes)
// hold: pages, and their bytes (each page's rows and the bytes of their
// strings, measured as they are cached), the unit DB.PageCacheBytes
// bounds each cache in. It is for metrics and tests.
func (db *DB) PageCacheSize() (pages, bytes int) {
	for _, size := range []func() (int, int){db.unitPages.size, db.changePages.size} {
		n, w := size()
		pages, bytes = pages+n, bytes+w
	}
	return pages, bytes
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
// runs find and remembers its page, weighted by its bytes (strs measures
// a row's strings) against DB.PageCacheBytes. A units page is 50 rows of
// 23 columns, and stepping them out of SQLite through the driver costs
// several times what serving the page's bytes does, while translators
// page through the same lists until something changes. The bound is in
// bytes, not rows: rows of long strings varied by page_size would
// otherwise fill gigabytes.
func pageOf[T any](db *DB, c *genCache[string, page[T]], key string, strs func(*T) int,
	find func() ([]T, int, error)) ([]T, int, error) {
	gen := db.gen.Load()
	if p, ok := c.get(gen, key); ok {
		return p.rows, p.total, nil
	}
	rows, total, err := find()
	if err == nil {
		c.put(gen, key, page[T]{rows, total}, pageBytes(rows, strs), db.PageCacheBytes)
	}
	return rows, total, err
}

// pageBytes measures a page: its row array and what each row's strings
// hold (strings shared between rows are counted for each).
func pageBytes[T any](rows []T, strs func(*T) int) int {
	n := cap(rows) * int(reflect.TypeFor[T]().Size())
	for i := range rows {
		n += strs(&rows[i])
	}
	return n
}

// unitStrings is the bytes of a unit's strings and string slices.
func unitStrings(u *index.Unit) int {
	n := len(u.Context) + len(u.PreviousSource) + len(u.Location) + len(u.Note) + len(u.Flags) +
		len(u.Explanation) + len(u.ExtraFlags)
	for _, l := range [][]string{u.Source, u.Target, u.Labels} {
		n += cap(l) * int(reflect.TypeFor[string]().Size())
		for _, s := range l {
			n += len(s)
		}
	}
	return n
}

// changeStrings is the bytes of a change's strings.
func changeStrings(c *index.Change) int {
	return len(c.Target) + len(c.Details) + len(c.ProjectSlug) + len(c.ComponentSlug) + len(c.LanguageCode) +
		len(c.UserName) + len(c.AuthorName)
}
