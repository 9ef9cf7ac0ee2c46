// Package metrics keeps the Prometheus metrics of tolk serve: requests
// by route, method and status and their latency, import, job and webhook
// delivery durations, gauges read from the index at each scrape, the
// build, and client_golang's standard Go runtime (go_*) and process
// (process_*) collectors. Registry serves them at /metrics through
// client_golang's promhttp, which writes the exposition format and
// negotiates it with the scraper.
//
// Metric names, types and labels are a contract with dashboards: change
// them only on purpose. Start reading at New.
//
// api, sync and webhook do not import this package: each declares its
// own small observer hook (edge.RequestObserver, sync's OnImportDone and
// OnJobDone, webhook's OnAttempt), and cmd/tolk wires Registry's methods
// to them. The package imports index, for the vocabulary of those hooks
// and of Source, and nothing else of Tolk's.
package metrics
