package main

import (
	"net/http"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/autotranslate"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/machinery"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/web"
)

// The HTTP server is three packages on one engine: the edge every request
// passes (hosts, authentication, rate limits, errors), the Weblate REST
// API and the pages for people. Each declares what it needs; these say
// that the index and the sync service provide it.
var (
	_ edge.Store               = (*sqlstore.DB)(nil)
	_ edge.Startup             = (*tolksync.Service)(nil)
	_ edge.UploadParser        = (*tolksync.Service)(nil)
	_ web.Store                = (*sqlstore.DB)(nil)
	_ edge.RequestObserver     = (*serviceMetrics)(nil)
	_ api.Store                = (*sqlstore.DB)(nil)
	_ api.Repositories         = (*tolksync.Service)(nil)
	_ api.RepositoryOperations = (*tolksync.Service)(nil)
	_ api.TranslationFiles     = (*tolksync.Service)(nil)
	_ api.Components           = (*tolksync.Service)(nil)
	_ api.HookUpdater          = (*tolksync.Service)(nil)
	_ api.AutoTranslator       = (*autotranslate.Runner)(nil)
	_ tolksync.AutoTranslator  = (*autotranslate.Runner)(nil)
	_ autotranslate.Store      = (*sqlstore.DB)(nil)
)

// serverOptions are the options of the HTTP server's three parts.
type serverOptions struct {
	Edge edge.Options
	API  api.Options
	Web  web.Options
	// Machinery configures the machine translation services the API
	// checks and the pages query; handler adds the index as its
	// SameSource, Memory and Glossary.
	Machinery machinery.Options
}

// Validate checks each part's options, filling their defaults.
func (o *serverOptions) Validate() error {
	if err := o.Edge.Validate(); err != nil {
		return err
	}
	if err := o.API.Validate(); err != nil {
		return err
	}
	if err := o.Machinery.Validate(); err != nil {
		return err
	}
	return o.Web.Validate()
}

// broker builds the machine translation services over db.
func (o serverOptions) broker(db *sqlstore.DB) *machinery.Broker {
	mo := o.Machinery
	mo.SameSource, mo.Memory, mo.Glossary = db, db, db
	if o.Edge.Logger != nil {
		mo.Logger = o.Edge.Logger
	}
	broker, err := machinery.New(mo)
	if err != nil {
		panic(err) // Validate has passed these options
	}
	return broker
}

// handler mounts the API and the pages on one edge over db, with the
// broker already set in the API's options or a new one.
func (o serverOptions) handler(db *sqlstore.DB) http.Handler {
	if o.API.Machinery == nil {
		o.API.Machinery = o.broker(db)
	}
	o.Web.Machinery = o.API.Machinery
	e := edge.New(db, o.Edge)
	api.New(e, db, o.API)
	web.New(e, db, o.Web)
	return e.Handler()
}
