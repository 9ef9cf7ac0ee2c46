package servertest

import (
	"path/filepath"
	gosync "sync"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
)

// Env is a real Tolk HTTP server (the edge, the API and the pages) over
// a fresh index on the engine under test, with what New's options asked
// for. Everything it opened is closed when the test ends, or before by
// Close.
type Env struct {
	*Running
	DB *sqlstore.DB
	// Location is where the index is (indextest.Location), for a test
	// that reopens it or writes what no store method writes.
	Location string
	// Sync is the real sync service (WithSync); nil otherwise.
	Sync *tolksync.Service
	// Data is the sync service's data directory (WithSync).
	Data string
	// Auth holds the Authorization header of each user WithUser made.
	Auth map[string]string

	closers []func()
}

// Close shuts the server, the service and the index before the test
// ends (their cleanups then do nothing), for a test that builds many
// environments in turn: on PostgreSQL each holds a pool of connections
// until closed.
func (e *Env) Close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
}

// Release is Close, then gives the index back for the next Env to
// reuse (indextest.Release), for a test that builds many environments
// in turn and never opens this one's index again.
func (e *Env) Release(tb testing.TB) {
	tb.Helper()
	e.Close()
	indextest.Release(tb, e.Location)
}

// Option shapes an Env.
type Option func(*envConfig)

type envConfig struct {
	allLanguages, demo, sync, components, realClock bool
	users                                           []envUser
	options                                         []func(*Options)
	store                                           func(*sqlstore.DB) Store
	kept                                            bool   // WithKeptIndex
	copyOf                                          string // WithCopyOf
}

type envUser struct {
	name      string
	superuser bool
	grants    [][2]string
}

// WithDemo imports the demo project (SeedDemo).
func WithDemo() Option { return func(c *envConfig) { c.demo = true } }

// WithAllLanguages seeds the whole language table; without it the index
// knows en and de.
func WithAllLanguages() Option { return func(c *envConfig) { c.allLanguages = true } }

// WithSync runs a real sync service over the index (Env.Sync) and wires
// it as the API's repositories and files.
func WithSync() Option { return func(c *envConfig) { c.sync = true } }

// WithComponents is WithSync, with the service also taking the
// component writes and file:// repositories allowed.
func WithComponents() Option { return func(c *envConfig) { c.sync, c.components = true, true } }

// WithRealClock keeps the index's own clock; without it every reading
// of the clock is one second after the last, from ClockStart.
func WithRealClock() Option { return func(c *envConfig) { c.realClock = true } }

// WithUser creates a user with an admin-scoped token and the grants
// (role, project slug; "" for site-wide), whose Authorization header is
// then Env.Auth[name].
func WithUser(name string, superuser bool, grants ...[2]string) Option {
	return func(c *envConfig) { c.users = append(c.users, envUser{name, superuser, grants}) }
}

// WithKeptIndex puts the index where it outlives the test
// (indextest.KeptLocation), for an environment built once and copied
// (WithCopyOf Env.Location) once it is closed.
func WithKeptIndex() Option { return func(c *envConfig) { c.kept = true } }

// WithCopyOf starts from a copy of the index at kept (an Env's Location
// made WithKeptIndex, closed): the languages, the demo and the users
// are what it holds, and those options seed nothing more. The server,
// the sync service (over an empty data directory) and the rest are new.
func WithCopyOf(kept string) Option { return func(c *envConfig) { c.copyOf = kept } }

// WithStore serves wrap(db), a test wrapper that embeds the index (such
// as EditHints), instead of the index itself.
func WithStore(wrap func(*sqlstore.DB) Store) Option { return func(c *envConfig) { c.store = wrap } }

// WithOptions changes the server's options once the others are set.
func WithOptions(f func(*Options)) Option {
	return func(c *envConfig) { c.options = append(c.options, f) }
}

// New builds and starts an Env; the one fixture builder the server tests
// share.
func New(tb testing.TB, opts ...Option) *Env {
	tb.Helper()
	var cfg envConfig
	for _, o := range opts {
		o(&cfg)
	}
	e := &Env{Auth: map[string]string{}}
	switch {
	case cfg.copyOf != "":
		e.Location = indextest.CopyOf(tb, cfg.copyOf)
	case cfg.kept:
		e.Location = indextest.KeptLocation(tb)
	default:
		e.Location = indextest.Location(tb)
	}
	o := sqlstore.Options{FormatFlags: formats.FlagsOf, FormatPlural: tolksync.FormatPlural}
	if !cfg.realClock {
		o.Now = FakeClock()
	}
	db, err := indextest.ReopenWith(tb, e.Location, o)
	if err != nil {
		tb.Fatal(err)
	}
	e.DB = db
	e.closers = append(e.closers, gosync.OnceFunc(func() { db.Close() }))
	// Cleanups run last first: the service writes into its data
	// directory until closed, so the directory is made (and its removal
	// registered) before the closing.
	var dataRoot string
	if cfg.sync {
		dataRoot = tb.TempDir()
	}
	tb.Cleanup(e.Close)
	if cfg.copyOf == "" {
		seedLanguages(tb, db, cfg.allLanguages)
		if cfg.demo {
			SeedDemo(tb, db)
		}
		for _, u := range cfg.users {
			e.Auth[u.name] = MustUser(tb, db, u.name, u.superuser, u.grants...)
		}
	}
	var server Options
	if cfg.sync {
		e.Data = filepath.Join(dataRoot, "data")
		svc, err := tolksync.New(db, langdata.Default(), tolksync.Options{DataDir: e.Data})
		if err != nil {
			tb.Fatal(err)
		}
		e.Sync = svc
		e.closers = append(e.closers, gosync.OnceFunc(func() { svc.Close() }))
		server.Repositories, server.Files = svc, svc
		if cfg.components {
			server.Components, server.AllowLocalRepos = svc, true
			server.Addons = svc
		}
	}
	for _, f := range cfg.options {
		f(&server)
	}
	var store Store = db
	if cfg.store != nil {
		store = cfg.store(db)
	}
	e.Running = Serve(tb, store, server)
	e.closers = append(e.closers, e.Running.Close)
	return e
}
