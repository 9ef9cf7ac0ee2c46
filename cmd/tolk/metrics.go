package main

import (
	"net"
	"net/http"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/metrics"
	tolksync "github.com/tolk-project/tolk/sync"
)

// serviceMetrics are the metrics tolk serve keeps (package metrics),
// served at /metrics on --metrics-listen. It adds the one hook whose
// signature names sync's types, which metrics does not import.
type serviceMetrics struct{ *metrics.Registry }

func newServiceMetrics(db metrics.Source, v buildVersion) *serviceMetrics {
	return &serviceMetrics{metrics.New(db, metrics.Build{Version: v.Short(), Revision: v.Revision, GoVersion: v.Go})}
}

// importDone records a component import (sync.Options.OnImportDone).
func (m *serviceMetrics) importDone(_ index.Component, _ tolksync.ImportSummary, took time.Duration, err error) {
	m.ImportDone(took, err)
}

// serveMetrics serves /metrics on its own listener, so that who may read
// them is decided by where that address is reachable from, apart from
// the API and its proxies.
func serveMetrics(l net.Listener, m *serviceMetrics) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute,
		IdleTimeout: time.Minute}
	go srv.Serve(l)
	return srv
}
