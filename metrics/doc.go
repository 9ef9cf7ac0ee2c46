// Package metrics keeps counters, histograms and gauges and writes them
// in the Prometheus text exposition format (version 0.0.4), which is
// what Prometheus and compatible scrapers read from /metrics.
//
// It imports only the standard library: the format is a few lines of
// text per series, and Tolk needs neither the protobuf format nor the
// collectors of github.com/prometheus/client_golang. Start reading at
// Registry. Which metrics Tolk keeps is cmd/tolk's business (metrics.go
// there); api and sync only report what happened through their own small
// observer hooks.
package metrics
