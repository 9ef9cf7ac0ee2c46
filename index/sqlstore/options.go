package sqlstore

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/index"
)

// Engine is a database an index can live in.
type Engine string

// The engines.
const (
	// SQLite keeps the index in one file, which one process owns: the
	// default, with nothing to install.
	SQLite Engine = "sqlite"
	// Postgres keeps it in a PostgreSQL database, which several Tolk
	// processes may share.
	Postgres Engine = "postgres"
)

// DefaultPageCacheBytes is each page cache's bound: a unit of short
// texts weighs about 365 bytes as pageBytes measures it, so this holds
// tens of thousands of them; pages of long strings take more.
const DefaultPageCacheBytes = 32 << 20

// DefaultReadConns is Options.ReadConns's default: twice the CPUs Go
// runs on, at least 4.
func DefaultReadConns() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// DefaultLockTimeout is Options.LockTimeout's default. A lock is held by
// a write transaction of another process, whose batches take
// milliseconds; PostgreSQL frees the locks of a process that dies as
// soon as its connection closes. Half a minute of waiting means a stuck
// process, which a failed write reports better than a hung one.
const DefaultLockTimeout = 30 * time.Second

// DefaultWriters is Options.Writers's default on PostgreSQL: two. A
// second writer overlaps its batch with the first's waits on the server
// (one writer's batches are serial: at 8 editors the server's work for
// a batch was ~2.4 ms of its ~3.6, with the machine's CPUs 60% busy),
// though the same edits then split into smaller batches, each paying a
// batch's fixed statements. Session 9 measured two writers on 2 cores
// loaded by other work (BENCHMARKS "Session 9: PGPAR": 25-35% more CPU
// per edit, slower whenever the CPUs were busy) and kept one; session
// 13, on the same 2 cores quiet, measured two faster at 8 editors in
// every round (BENCHMARKS "Session 13: the merged tree on a quiet
// machine"). Where the CPUs are busy with other work, 1 is the setting
// to try; where the database has a machine of its own, more.
const DefaultWriters = 2

// NoPageCache, as Options.PageCacheBytes, turns the page caches off.
const NoPageCache = -1

// ErrNoLocation is Validate's answer to Options without a Location.
var ErrNoLocation = errors.New("sqlstore: no location: give the SQLite file or the PostgreSQL connection string")

// Options are an index's settings, given to Open; none changes once it
// is open. The zero value of each field but Location is its default.
type Options struct {
	// Engine is the database: SQLite (the default) or Postgres.
	Engine Engine
	// Location is where the index is: for SQLite the file's path,
	// created if missing; for PostgreSQL a postgres:// URL or libpq
	// connection string of a database that exists, whose tables are
	// made in the connection's schema. Required. It may hold a
	// password: do not log it.
	Location string
	// PageCacheBytes bounds each cache of list pages (units, changes)
	// by the bytes its pages hold (DB.PageCacheSize): 0 means
	// DefaultPageCacheBytes, NoPageCache (any negative value) reads
	// every list from the database.
	PageCacheBytes int
	// ReadConns bounds the connections the reads of this process keep
	// open to PostgreSQL (the writers' Options.Writers and the git jobs' leases come
	// on top): 0 means DefaultReadConns. SQLite ignores it.
	ReadConns int
	// LockTimeout bounds how long a write transaction waits for a lock
	// another process holds (PostgreSQL's lock_timeout on the writer's
	// connection); the writes of a batch that waited longer fail and
	// none of them is kept. 0 means DefaultLockTimeout, a negative value
	// waits for ever. SQLite ignores it: one process writes its file.
	LockTimeout time.Duration
	// Writers is how many writer goroutines this process runs on
	// PostgreSQL, each with its own connection and batches (writer.go:
	// Several writers in one process): 0 means DefaultWriters, 1 the one
	// writer of earlier versions. SQLite ignores it and keeps one: its
	// file takes one write transaction at a time.
	Writers int
	// NoSolo keeps a process alone on its PostgreSQL database checking
	// write_log before answering from its caches, as every process did
	// before the lease (lease.go); it still takes the lease, so that a
	// process that may be solo learns of it. SQLite ignores it.
	NoSolo bool
	// Logger receives what the index reports on its own, outside any
	// call: today, that it could not read other processes' writes on
	// PostgreSQL and dropped its cached answers. nil discards it.
	Logger *slog.Logger
	// Now is the clock. Each write transaction reads it once, and the
	// statistics count recent changes up to it. nil means time.Now.
	Now func() time.Time
	// FormatFlags returns the check flags every unit of a file format
	// has (formats.Format.Flags: "i18next-interpolation" for i18nextv4),
	// which the quality checks merge under the component's. nil means
	// none. The index cannot ask the formats registry itself: it knows
	// nothing of files.
	FormatFlags func(fileFormat string) string
	// FormatPlural returns the plural rule the files of a format give a
	// language whose own rule is p: p itself, or p with a zero form in
	// front for .stringsdict (index.Plural.WithZero). A translation's
	// Language carries the rule of its component's format, so that plural
	// counts, the editor and the checks agree with its files. nil keeps
	// every language's own rule.
	FormatPlural func(fileFormat string, p index.Plural) index.Plural
	// NoChecks leaves the quality checks out of every write: nothing is
	// checked, no check stored, nothing counted as failing. For
	// measuring what the checks cost (tolk-bench -no-checks, issue 26's
	// "import with checks ≤ 1.25× the import without them"); tolk serve
	// never sets it, and an index written with it keeps no checks.
	NoChecks bool

	// roundTrip, when not nil, is told of each round trip the writer's
	// PostgreSQL connection makes (a statement, a prepare, a pipelined
	// batch), with its SQL: for the tests that count them
	// (roundtrips_test.go).
	roundTrip func(sql string)
	// lookUpAgain makes the inconsistent check look up what propagation
	// read (reusablePropagation) as it did before session 12: the tests
	// compare what both leave (TestInconsistentReuseMatchesLookup).
	lookUpAgain bool
	// paths, when not nil, counts the paths that answer alike either
	// way, for the tests that must see which one a call took
	// (pathCounts).
	paths *pathCounts
	// soloTerm, when not 0, shortens the lease's soloTerm (and its
	// heartbeat and retry with it), for the tests that wait for a store
	// to become solo many times (lease_test.go).
	soloTerm time.Duration
	// leaseReconnect is how long the lease waits before it connects
	// again after its connection failed (tests: a process whose lease
	// session ended and stays ended); 0 otherwise.
	leaseReconnect time.Duration
}

// Validate fills in the defaults of o, and reports a missing Location or
// an unknown Engine.
func (o *Options) Validate() error {
	switch o.Engine {
	case "":
		o.Engine = SQLite
	case SQLite, Postgres:
	default:
		return fmt.Errorf("sqlstore: unknown engine %q (want %q or %q)", o.Engine, SQLite, Postgres)
	}
	if o.Location == "" {
		return ErrNoLocation
	}
	if o.PageCacheBytes == 0 {
		o.PageCacheBytes = DefaultPageCacheBytes
	}
	if o.ReadConns <= 0 {
		o.ReadConns = DefaultReadConns()
	}
	if o.Writers <= 0 {
		o.Writers = DefaultWriters
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// pathCounts counts calls that took a path whose answers are the same
// as the other path's, so that only a count tells them apart in a test
// (Options.paths).
type pathCounts struct {
	lookupsReused  atomic.Uint64 // inconsistent checks answered by propagation's lookup (propagatedLookup): TestInconsistentReuseMatchesLookup
	sharedSearches atomic.Uint64 // unit searches answered from the source units (findUnitsShared): TestFindUnitsShared
	guessTaken     atomic.Uint64 // same-target lookups answered by a prefetched targetGuess (pipeline.go): TestEditTargetGuess, TestBatchApartRoundTrips
}
