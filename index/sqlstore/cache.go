package sqlstore

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/index"
)

// maxCachedLookups bounds each lookup cache; past it the cache starts
// over, so a flood of distinct keys costs memory once, not forever.
const maxCachedLookups = 4096

// Cached answers and what makes them stale. The caches below keep the
// lookups every translation-scoped request makes (translation,
// component, project, language by their path keys, statistics) and list
// pages (pageOf). An answer holds until a write commits that may have
// changed it. A write that says what it touched (Tx.narrow, Tx.touch: a
// unit edit touches its translation's units, its changes and the
// statistics of its scopes) makes stale only the answers that depend on
// those; any other write (configuration, imports, deletes) makes every
// answer stale. So translators editing one translation do not empty the
// caches of the others.

// dep names what a cached answer depends on: one stripe of the write
// clock, chosen by hashing a scope (the units of a translation, the
// changes of a component, a statistics row). Scopes that share a stripe
// make each other's answers stale too: wasteful, never wrong. Stripe 0 is
// no scope: only writes that touch everything reach it.
type dep uint32

const depStripes = 4096

// depOf is the stripe of the scope kind/key.
func depOf(kind byte, key string) dep {
	h := uint32(2166136261) ^ uint32(kind) // FNV-1a
	h *= 16777619
	for i := 0; i < len(key); i++ {
		h ^= uint32(key[i])
		h *= 16777619
	}
	return dep(1 + h%(depStripes-1))
}

// The kinds of scope.
const (
	depUnits   = 'u' // units of a translation by id; "0": lists over every translation
	depChanges = 'h' // changes of "t<id>", "c<id>", "p<id>", or "*" for every list not narrowed to one of those
	depStats   = 's' // a statistics row, by scope and key as the stats table files it
)

func unitsDep(translationID int64) dep { return depOf(depUnits, itoa(translationID)) }

func statsDep(scope, key string) dep { return depOf(depStats, scope+":"+key) }

// touchSet is what a write may have changed.
type touchSet struct {
	everything bool
	deps       []dep
	// units are the translations whose units the write touched (their
	// stripes are among deps: Tx.touchUnits), for the clock's watched
	// translations (writeClock.watchUnits); inexact says they are not
	// known: a replay of another process's write, which write_log
	// records by stripe alone.
	units   []int64
	inexact bool
}

func (t *touchSet) merge(o touchSet) {
	t.everything = t.everything || o.everything
	if t.everything {
		t.deps, t.units, t.inexact = nil, nil, false
		return
	}
	t.deps = append(t.deps, o.deps...)
	t.units = append(t.units, o.units...)
	t.inexact = t.inexact || o.inexact
}

// writeClock orders committed writes for the caches: seq counts them,
// global is the seq of the last one that touched everything, and each
// stripe the seq of the last one that touched a scope hashed to it. An
// answer is tagged with seq read before the query that produced it, and
// is stale once global or its stripe passed that tag. The writer
// goroutine advances it, and so do replays of other processes' writes on
// a shared engine (replay.go); readers only load.
//
// Beside the stripes the clock keeps, for a few translations a reader
// names (watchUnits: has:glossary's glossary source translations), the
// seq of the last write that touched their units exactly. Every kind of
// scope shares the one set of stripes, and an edit moves many: in the
// 100× index's layout (ten copies of each string in a project,
// propagation; BenchmarkGlossaryWatch) one edit moved 55 of the 4,095
// (ten translations' units, their changes lists and statistics rows,
// unitsDep(0)), so that a reader watching 100 translations' stripes saw
// three edits in four touch one of them.
type writeClock struct {
	mu          sync.Mutex // orders advances: the writer's, and replays of other processes' writes
	seq, global atomic.Uint64
	stripes     [depStripes]atomic.Uint64
	// inexact is the seq of the last write whose translations are not
	// known (touchSet.inexact): since it, a watched translation's
	// stripe answers for it.
	inexact atomic.Uint64
	// watched holds, for each watched translation, the seq of the last
	// write that touched its units (or when it was first watched).
	// Guarded by mu.
	watched map[int64]uint64
}

// now is the tag for an answer about to be read.
func (c *writeClock) now() uint64 { return c.seq.Load() }

// changedSince reports whether a write committed after tag may have
// changed what d names.
func (c *writeClock) changedSince(tag uint64, d dep) bool {
	return c.global.Load() > tag || (d != 0 && c.stripes[d].Load() > tag)
}

// advance records a committed write that touched t. The stripes move
// before seq, so that an answer read after this write committed but
// tagged before seq moved is only ever judged stale, never fresh.
func (c *writeClock) advance(t touchSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.seq.Load() + 1
	if t.everything {
		c.global.Store(w)
	} else {
		for _, d := range t.deps {
			c.stripes[d].Store(w)
		}
		for _, u := range t.units {
			if _, ok := c.watched[u]; ok {
				c.watched[u] = w
			}
		}
		if t.inexact {
			c.inexact.Store(w)
		}
	}
	c.seq.Store(w)
}

// watchUnits has the clock keep, for each translation of ids and no
// other, the seq of the last write that touched its units
// (unitsChangedSince). A translation not watched before counts as
// touched now: a write that touched it before this call may be past a
// reader's tag.
func (c *writeClock) watchUnits(ids []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.seq.Load()
	watched := make(map[int64]uint64, len(ids))
	for _, id := range ids {
		seq, ok := c.watched[id]
		if !ok {
			seq = now
		}
		watched[id] = seq
	}
	c.watched = watched
}

// unitsChangedSince reports whether a write committed after tag may
// have changed the units of translation id: one that touched
// everything, or them (exactly, for a watched translation; by its stripe
// for one not watched, or since a write whose translations are not
// known).
func (c *writeClock) unitsChangedSince(tag uint64, id int64) bool {
	if c.global.Load() > tag {
		return true
	}
	d := unitsDep(id)
	c.mu.Lock()
	seq, ok := c.watched[id]
	c.mu.Unlock()
	if !ok || c.inexact.Load() > tag {
		return c.stripes[d].Load() > tag
	}
	return seq > tag
}

// genCache keeps answers, each tagged with the write clock's reading
// before the query that produced it (see writeClock); whoever asks says
// what the answer depends on. Only found objects are cached. Each value
// weighs something (1 for a lookup, its bytes for a page) and past its
// limit in weight the cache starts over, as it does after a write that
// touched everything (when every answer it holds is stale). Returned
// values share their slices with the cache: callers must not modify
// them. It is safe for concurrent use.
type genCache[K comparable, V any] struct {
	mu     sync.Mutex // guards base, weight, m and flights
	base   uint64     // the clock's global when m was started
	weight int
	m      map[K]weighted[V]
	// flights are the reads of missing answers under way (share).
	flights map[K]*flight[V]
}

// flight is one read of a missing answer, which concurrent askers of the
// same key share.
type flight[V any] struct {
	tag     uint64 // the clock when it began
	done    chan struct{}
	waiters int // guarded by the cache's mu
	v       V
	err     error
}

// errFlightPanicked answers those who waited for a read that panicked.
var errFlightPanicked = errors.New("sqlstore: a shared read panicked")

// share runs find for k, or waits for the same read begun by another
// goroutine at the same clock reading tag, and returns its answer. Every
// write makes the answers it touched stale, and the readers that ask next
// all miss together: 8 readers of a changes list at 500 edits a second
// ran its query 8 times per edit, which alone held that list to 43% of
// its idle throughput. A read begun at another tag is not shared: it may
// predate a write this asker has seen. A shared read that failed (its
// request ended, say) is done again by each of its waiters.
func (c *genCache[K, V]) share(k K, tag uint64, find func() (V, error)) (V, error) {
	c.mu.Lock()
	if f, ok := c.flights[k]; ok && f.tag == tag {
		f.waiters++
		c.mu.Unlock()
		<-f.done
		if f.err == nil {
			return f.v, nil
		}
		return find()
	}
	f := &flight[V]{tag: tag, done: make(chan struct{}), err: errFlightPanicked}
	if c.flights == nil {
		c.flights = map[K]*flight[V]{}
	}
	c.flights[k] = f
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.flights[k] == f {
			delete(c.flights, k)
		}
		c.mu.Unlock()
		close(f.done)
	}()
	f.v, f.err = find()
	return f.v, f.err
}

type weighted[V any] struct {
	v   V
	w   int
	tag uint64
}

// get returns the answer kept under k and its tag.
func (c *genCache[K, V]) get(k K) (v V, tag uint64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	return e.v, e.tag, ok
}

// put keeps v, of weight w, read at tag, unless w alone is over limit (0
// keeps nothing) or the cache holds a newer answer for k. global is the
// clock's global now: a cache started before it holds only stale answers
// and starts over.
func (c *genCache[K, V]) put(global, tag uint64, k K, v V, w, limit int) {
	if w > limit || limit <= 0 || tag < global {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, replaced := c.m[k]
	if replaced && old.tag > tag {
		return
	}
	if global > c.base || c.m == nil || c.weight-old.w+w > limit {
		c.base, c.weight, c.m, replaced = global, 0, make(map[K]weighted[V]), false
	}
	if replaced {
		c.weight -= old.w
	}
	c.weight += w
	c.m[k] = weighted[V]{v, w, tag}
}

// size is how many values the cache holds and their total weight.
func (c *genCache[K, V]) size() (n, weight int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.weight
}

// PageCacheSize reports what the list-page caches (of units, of changes)
// hold: pages, and their bytes (each page's rows and the bytes of their
// strings, measured as they are cached), the unit Options.PageCacheBytes
// bounds each cache in. It is for metrics and tests.
func (db *DB) PageCacheSize() (pages, bytes int) {
	for _, size := range []func() (int, int){db.unitPages.size, db.changePages.size} {
		n, w := size()
		pages, bytes = pages+n, bytes+w
	}
	return pages, bytes
}

// cached answers k from c while no write changed what dependsOn names
// for the answer, or runs find and keeps what it found (of weight w,
// within limit).
func cached[K comparable, V any](ctx context.Context, db *DB, c *genCache[K, V], k K, dependsOn func(V) dep, limit int,
	weigh func(V) int, find func() (V, error)) (V, error) {
	db.catchUp(ctx)
	return cachedAt(db, c, k, dependsOn, limit, weigh, func(tag uint64) (V, error) { return c.share(k, tag, find) })
}

// cachedAt is cached once the clock has caught up: the answer kept
// under k while it holds, else what load (given the clock's reading
// before it) returns, kept.
func cachedAt[K comparable, V any](db *DB, c *genCache[K, V], k K, dependsOn func(V) dep, limit int,
	weigh func(V) int, load func(tag uint64) (V, error)) (V, error) {
	tag := db.clock.now()
	if v, at, ok := c.get(k); ok && !db.clock.changedSince(at, dependsOn(v)) {
		return v, nil
	}
	v, err := load(tag)
	if err == nil {
		c.put(db.clock.global.Load(), tag, k, v, weigh(v), limit)
	}
	return v, err
}

// lookup answers from c while no write changed what dependsOn names for
// the answer (nil: only writes that touch everything), or runs find and
// remembers what it found.
func lookup[K comparable, V any](ctx context.Context, db *DB, c *genCache[K, V], k K, dependsOn func(V) dep, find func() (V, error)) (V, error) {
	if dependsOn == nil {
		dependsOn = noDep[V]
	}
	return cached(ctx, db, c, k, dependsOn, maxCachedLookups, one[V], find)
}

func noDep[V any](V) dep { return 0 }

func one[V any](V) int { return 1 }

// page is one page of a list: its rows and the list's total. gen names
// the rows as they were read from the database (index.PageReceipt): a
// page kept again with the same rows and a new total keeps it.
type page[T any] struct {
	rows  []T
	total int
	gen   uint64
}

// pageOf answers a list page from c while no write changed d, or runs
// find and remembers its page, weighted by its bytes (strs measures a
// row's strings) against Options.PageCacheBytes. A units page is 50 rows
// of 23 columns, and stepping them out of SQLite through the driver costs
// several times what serving the page's bytes does, while translators
// page through the same lists until something changes. The bound is in
// bytes, not rows: rows of long strings varied by page_size would
// otherwise fill gigabytes.
//
// A page find reads from the database gets the next generation (gen 0
// from find), unless the page cache is off; find may instead return a
// kept page's rows with its generation. Either way the answer's
// generation is noted for ctx's request (index.NotePage), which the API
// keys its rendered bodies on.
func pageOf[T any](ctx context.Context, db *DB, c *genCache[string, page[T]], key string, d dep, strs func(*T) int,
	find func() (page[T], error)) ([]T, int, error) {
	p, err := cached(ctx, db, c, key, func(page[T]) dep { return d }, db.pageCacheBytes,
		func(p page[T]) int { return pageBytes(p.rows, strs) },
		func() (page[T], error) {
			p, err := find()
			if err == nil && p.gen == 0 && db.pageCacheBytes > 0 {
				p.gen = db.pageGens.Add(1)
			}
			return p, err
		})
	index.NotePage(ctx, index.PageReceipt{Generation: p.gen, Rows: len(p.rows), Total: p.total})
	return p.rows, p.total, err
}

// readPage is a page read from the database, for pageOf.
func readPage[T any](rows []T, total int, err error) (page[T], error) {
	return page[T]{rows: rows, total: total}, err
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
	for _, l := range u.Labels {
		n += int(reflect.TypeFor[index.Label]().Size()) + len(l.Name) + len(l.Description) + len(l.Color)
	}
	for _, l := range [][]string{u.Source, u.Target} {
		n += cap(l) * int(reflect.TypeFor[string]().Size())
		for _, s := range l {
			n += len(s)
		}
	}
	return n
}

// changeStrings is the bytes of a change's strings.
func changeStrings(c *index.Change) int {
	return len(c.Target) + len(c.Details) + len(c.ProjectSlug) + len(c.ComponentSlug) + len(c.CategoryPath) + len(c.LanguageCode) +
		len(c.UserName) + len(c.AuthorName)
}

// cachedStats answers a statistics request under key from the cache
// while no write changed d, or reads it at the current time and keeps
// it.
func (db *DB) cachedStats(ctx context.Context, key [2]string, d dep, read func(now time.Time) (index.Stats, error)) (index.Stats, error) {
	db.catchUp(ctx)
	tag, now := db.clock.now(), db.now()
	if st, at, ok := db.stats.get(key); ok && !db.clock.changedSince(at, d) &&
		!now.Before(st.at) && now.Sub(st.at) < recentStaleness {
		return st.stats, nil
	}
	// Shared like a list page's read (genCache.share): every edit makes
	// its project's statistics stale, and the readers that ask next all
	// miss together.
	st, err := db.stats.share(key, tag, func() (timedStats, error) {
		s, err := read(now)
		return timedStats{stats: s, at: now}, err
	})
	if err != nil {
		return st.stats, err
	}
	db.stats.put(db.clock.global.Load(), tag, key, st, 1, maxCachedLookups)
	return st.stats, nil
}

// recentStaleness is how long a cached statistics answer may be reused
// while no write commits. Everything in it but recent_changes changes only
// with writes; recent_changes also changes as changes age out of its
// 24-hour window, which a second's delay does not misstate.
const recentStaleness = time.Second

// timedStats is a statistics answer and the clock reading it was made at.
type timedStats struct {
	stats index.Stats
	at    time.Time
}
