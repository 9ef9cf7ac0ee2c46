// Package servertest builds Tolk's HTTP server for tests the way tolk
// serve does: the edge, the API and the pages on one engine. Tests of
// api, web and cmd/tolk build their servers through it, so a server under
// test is never wired differently from the real one.
package servertest

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/machinery"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/web"
)

// Store is everything the three parts read and write; *sqlstore.DB, and
// test wrappers that embed it, satisfy it.
type Store interface {
	edge.Store
	api.Store
	web.Store
	machinery.SameSourceFinder
	machinery.Memory
}

// Options are the options of the edge, the API and the pages in one
// flat struct, as tests set them; each field means what the part's own
// option of that name means.
type Options struct {
	Logger *slog.Logger

	// The edge's (edge.Options).
	BaseURL          string
	TrustedProxies   []string
	AllowedHosts     []string
	RateLimits       edge.RateLimits
	WriteTimeout     time.Duration
	MaxResponseBytes int
	Version          string
	Requests         edge.RequestObserver
	Startup          edge.Startup

	// The API's (api.Options); Files and MaxUploadBytes serve the pages'
	// upload form too.
	Repositories        api.Repositories
	Files               api.TranslationFiles
	MaxUploadBytes      int64
	Components          api.Components
	Operations          api.RepositoryOperations
	AllowLocalRepos     bool
	Hooks               api.HookUpdater
	HookSecret          string
	FileFormats         []api.FileFormat
	WebhookAllowPrivate bool
	// AnonymousSuggestions is api.Options' and web.Options'.
	AnonymousSuggestions edge.RateLimit

	// The machine translation services' (machinery.Options; SameSource
	// is the store) and the pages' limit on engine calls.
	Machinery          machinery.Options
	MachineryRateLimit edge.RateLimit

	// AutoTranslate builds the API's runner of automatic translations
	// over the server's store and machinery (an *autotranslate.Runner); nil leaves
	// them unavailable. AutoTranslateWait is api.Options'.
	AutoTranslate     func(Store, *machinery.Broker) api.AutoTranslator
	AutoTranslateWait time.Duration
	// Addons is api.Options'.
	Addons api.AddonRunner
}

// Parts splits o into the options of each part.
func (o Options) Parts() (edge.Options, api.Options, web.Options) {
	e := edge.Options{Logger: o.Logger, BaseURL: o.BaseURL, TrustedProxies: o.TrustedProxies,
		AllowedHosts: o.AllowedHosts, RateLimits: o.RateLimits, WriteTimeout: o.WriteTimeout,
		MaxResponseBytes: o.MaxResponseBytes, Version: o.Version, Requests: o.Requests, Startup: o.Startup}
	a := api.Options{Repositories: o.Repositories, Files: o.Files, MaxUploadBytes: o.MaxUploadBytes,
		Components: o.Components, Operations: o.Operations, AllowLocalRepos: o.AllowLocalRepos,
		Hooks: o.Hooks, HookSecret: o.HookSecret, FileFormats: o.FileFormats,
		WebhookAllowPrivate: o.WebhookAllowPrivate, AnonymousSuggestions: o.AnonymousSuggestions,
		MemoryFiles: tolksync.MemoryFiles{}, AutoTranslateWait: o.AutoTranslateWait}
	a.Addons = o.Addons
	// A nil Files is a nil UploadParser: the pages then offer no upload.
	w := web.Options{Files: o.Files, MaxUploadBytes: o.MaxUploadBytes, MachineryRateLimit: o.MachineryRateLimit,
		AnonymousSuggestions: o.AnonymousSuggestions}
	return e, a, w
}

// Validate checks each part's options and fills o's defaults as the
// parts fill theirs.
func (o *Options) Validate() error {
	e, a, w := o.Parts()
	if err := e.Validate(); err != nil {
		return err
	}
	if err := a.Validate(); err != nil {
		return err
	}
	if err := w.Validate(); err != nil {
		return err
	}
	m := o.Machinery
	if err := m.Validate(); err != nil {
		return err
	}
	o.Logger, o.MaxResponseBytes = e.Logger, e.MaxResponseBytes
	o.MaxUploadBytes, o.FileFormats = a.MaxUploadBytes, a.FileFormats
	return nil
}

// Server is a built server: its handler and its API, for the tests that
// look inside the API (api's export_test.go).
type Server struct {
	API     *api.Server
	Handler http.Handler
}

// Build builds the server over store, without starting it. It panics
// when o does not validate, as the parts' constructors do.
func Build(store Store, o Options) Server {
	eo, ao, wo := o.Parts()
	mo := o.Machinery
	mo.SameSource, mo.Memory = store, store
	if g, ok := store.(machinery.Glossary); ok {
		mo.Glossary = g
	}
	broker, err := machinery.New(mo)
	if err != nil {
		panic(err)
	}
	ao.Machinery, wo.Machinery = broker, broker
	if o.AutoTranslate != nil {
		ao.AutoTranslate = o.AutoTranslate(store, broker)
	}
	e := edge.New(store, eo)
	a := api.New(e, store, ao)
	web.New(e, store, wo)
	return Server{API: a, Handler: e.Handler()}
}

// Handler is Build(store, o).Handler.
func Handler(store Store, o Options) http.Handler { return Build(store, o).Handler }
