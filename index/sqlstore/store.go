package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/index"
)

// DB is the index, on SQLite or PostgreSQL. It is safe for concurrent use;
// Close it when done.
type DB struct {
	rdb *sql.DB // readers
	// walRestartFrames overrides the constant of that name when not 0
	// (tests: a small log).
	walRestartFrames atomic.Int64
	r                *stmtCache // reads through rdb with prepared statements

	// clock orders committed writes for the lookup and page caches.
	clock            writeClock
	translations     genCache[[3]string, index.Translation]
	translationsByID genCache[int64, index.Translation]
	translationStats genCache[string, index.Stats] // stored rows of translations, without recent changes
	components       genCache[[2]string, index.Component]
	projects         genCache[string, index.Project]
	languages        genCache[string, knownLanguage]
	private          genCache[struct{}, []index.Project]
	grants           genCache[int64, []index.Grant]         // by user (userGrants)
	tokenUsers       genCache[string, tokenUser]            // by token hash, on PostgreSQL (Authenticate)
	peers            genCache[peerKey, projectTranslations] // a project's translations in a language (cachedPeerIDs)
	glossaryUsers    genCache[glossaryKey, []int64]         // translation ids (cachedGlossaryUsers)
	contributors     genCache[[2]int64, struct{}]           // (translation, user) rows of contributors (knownContributor)
	categoryPaths    genCache[string, []string]             // by project slug (CategoryPaths)
	stats            genCache[[2]string, timedStats]
	unitPages        genCache[string, page[index.Unit]]
	// importedUnits counts the units imports added since the last
	// ANALYZE of units (analyzeImported), which analyzing serializes.
	importedUnits atomic.Int64
	analyzing     sync.Mutex
	// recent keeps each scope's last full count of recent changes
	// (recentChanges).
	recentMu    sync.Mutex
	recent      map[string]recentCount
	changePages genCache[string, page[index.Change]]
	wdb         *sql.DB // the writers' connections: one on SQLite, writers on PostgreSQL
	// wc is, on SQLite, the writer's own connection, held for its life
	// (writeconn.go); only the writer goroutine uses it.
	wc *writeConn
	// jobs holds the component locks of other processes' git jobs
	// (joblock.go); nil on SQLite, whose file one process owns.
	jobs *jobLocks
	// checker runs the readers' write_log checks on PostgreSQL
	// (logcheck.go); nil on SQLite.
	checker *logChecker
	// lease makes the process solo when it is alone on a PostgreSQL
	// database, and lets others in (lease.go); nil on SQLite.
	lease *lease
	// dialect is what differs between the engines (dialect.go).
	dialect *dialect
	// stopBackground stops the engine's background work (the SQLite
	// checkpointer) and waits for it.
	stopBackground func()
	// writes queue for the writer goroutines (writer.go); closing closes
	// at Close, and stopWriter stops the writers and waits for them.
	// writers is how many run (Options.Writers; 1 on SQLite), gather is
	// held by the one forming its next batch (writer.go: Several
	// writers in one process).
	writes     chan *writeRequest
	writers    int
	gather     sync.Mutex
	expected   expectedWrites // writes requests announced (expect.go)
	closing    chan struct{}
	stopWriter func()
	// upkeepWrites queues the background steps' writes (the trigram
	// index's step and has:glossary's re-match, writeRequest.upkeep) on
	// PostgreSQL, for a writer of their own (upkeepWriter); nil on
	// SQLite, whose one writer takes them from writes.
	upkeepWrites chan *writeRequest
	// writeBatchLimit is the most writes one transaction takes:
	// maxWriteBatch, or 1 to measure what group commit is worth.
	writeBatchLimit int
	commits         atomic.Uint64 // write batches run (WriterStats)
	batchWrites     atomic.Uint64 // writes in them
	roundTrips      atomic.Uint64 // the writers' connections' round trips, on PostgreSQL (roundtrips.go)
	runsApart       atomic.Uint64 // batches run again with their writes apart (errRunApart)
	prefetchTaken   atomic.Uint64 // unit edits that took their batch's prefetched read (prefetch.go)
	busy            writerBusy    // time some writer spent in its batches (WriterBusy)
	w               *stmtCache    // statements prepared on the writer's connection
	// paths is Options.paths: nil in production, set by the tests'
	// write fixture, which count which path a call took; production
	// pays a nil check, not an atomic add on a cache line both writers
	// and every search would share.
	paths *pathCounts
	// formatFlags is Options.FormatFlags.
	formatFlags func(fileFormat string) string
	// formatPlural is Options.FormatPlural.
	formatPlural func(fileFormat string, p index.Plural) index.Plural
	// noChecks is Options.NoChecks.
	noChecks bool
	// lookUpAgain is Options.lookUpAgain.
	lookUpAgain bool
	// sourcePlurals caches the plural rules of languages by code for the
	// checks (Tx.sourcePlural).
	sourcePlurals sync.Map
	// rechecks are the background rechecks of components
	// (checks_recheck.go).
	rechecks rechecker

	// now is the clock (Options.Now); log reports what happens outside
	// any call (Options.Logger).
	now func() time.Time
	log *slog.Logger

	// hooks is every installed webhook, for insertChange (hooks.go);
	// queued signals the sender that a write queued deliveries.
	hooks  atomic.Pointer[hookSet]
	queued chan struct{}
	// shared is this process's place among the writers of a database that
	// several processes share (replay.go); hooksNeed is the last
	// write_log entry of another process that may have changed add-ons:
	// hooks is stale while its seq is below it (hooksCurrent).
	shared      sharedClock
	hooksNeed   atomic.Int64
	hooksReload sync.Mutex // one reloadSharedHooks at a time
	// onHooksLoad, when set, is called by a writer about to re-read the
	// webhooks another process changed (tests: TestHooksStaleDuringReload).
	onHooksLoad func()
	// pruneLog is a write_log seq whose prune (logWrite) the next batch
	// sends, 0 for none.
	pruneLog atomic.Int64

	// pageCacheBytes bounds each page cache (of units, of changes) by
	// the bytes its pages hold (Options.PageCacheBytes); 0 turns page
	// caching off.
	pageCacheBytes int
	// pageGens numbers the pages read from the database (pageOf).
	pageGens atomic.Uint64

	// tokenUses are the token uses waiting to be written (tokens.go).
	tokenUses tokenUses

	// memory is the translation memory's index of source texts
	// (memory_index.go).
	memory memIndex

	// trigrams is the trigram index's upkeep (trigram_pending.go).
	trigrams trigramIndexer
}

// Open opens the index o describes, creating a SQLite file if missing,
// and applies pending migrations. o is validated first (Options.Validate).
// Close the index when done.
func Open(ctx context.Context, o Options) (*DB, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Engine == Postgres {
		return openPostgres(ctx, o)
	}
	return openSQLite(ctx, o)
}

// newDB returns a DB on d with o's settings (validated) and its caches
// and queues ready, before any connection is opened.
func newDB(d *dialect, o Options) *DB {
	return &DB{dialect: d, now: o.Now, log: o.Logger, formatFlags: o.FormatFlags, formatPlural: o.FormatPlural, noChecks: o.NoChecks, lookUpAgain: o.lookUpAgain, paths: o.paths, pageCacheBytes: max(o.PageCacheBytes, 0),
		writes: make(chan *writeRequest), closing: make(chan struct{}), writeBatchLimit: maxWriteBatch, writers: 1,
		queued: make(chan struct{}, 1), expected: expectedWrites{wake: make(chan struct{}, 1)}}
}

// start migrates the schema and starts the writer and the engine's
// background work, once both pools are open; on failure it closes db.
func (db *DB) start(ctx context.Context) error {
	db.w = newStmtCache(db.wdb, db.dialect)
	db.r = newStmtCache(db.rdb, db.dialect)
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return err
	}
	h, err := loadHooks(ctx, db.r)
	if err != nil {
		db.Close()
		return fmt.Errorf("load add-ons: %w", err)
	}
	db.hooks.Store(h)
	if err := db.startShared(ctx); err != nil {
		db.Close()
		return fmt.Errorf("read the write log: %w", err)
	}
	stopWriting := make(chan struct{})
	var writers sync.WaitGroup
	db.stopWriter = func() { close(stopWriting); writers.Wait() }
	for range db.writers {
		writers.Go(func() { db.writer(stopWriting) })
	}
	if db.upkeepWrites != nil {
		writers.Go(func() { db.upkeepWriter(stopWriting) })
	}
	db.startTrigramIndexer()
	// A recheck that cannot resume is not worth refusing to open for:
	// its units still settle on their next write, as before resuming
	// existed (and a test opening a schema migrated only part way has
	// no component_rechecks to read).
	if err := db.resumeRechecks(ctx); err != nil && db.log != nil {
		db.log.Error("resume the background rechecks", "err", err)
	}
	if db.dialect.background != nil {
		cctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		db.stopBackground = func() { stop(); <-done }
		go db.dialect.background(db, cctx, done)
	}
	return nil
}

// Close closes both connection pools.
func (db *DB) Close() error {
	var errs []error
	// Token uses noted before Close are written, through the writer,
	// before it stops.
	db.tokenUses.writers.Wait()
	close(db.closing)
	// A background recheck's next write answers errClosed; the one the
	// writer runs ends first.
	db.rechecks.wg.Wait()
	db.trigrams.wg.Wait() // its notes stay for the next start
	if db.stopWriter != nil {
		db.stopWriter()
	}
	if db.stopBackground != nil {
		db.stopBackground()
	}
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.w != nil {
		errs = append(errs, db.w.Close())
	}
	if db.rdb != nil {
		errs = append(errs, db.rdb.Close())
	}
	if db.wdb != nil {
		errs = append(errs, db.wdb.Close())
	}
	errs = append(errs, db.jobs.close(), db.checker.close())
	// Last: the lease tells other processes this one writes no more.
	db.lease.close()
	return errors.Join(errs...)
}
