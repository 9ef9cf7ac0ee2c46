package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tolk-project/tolk/index"
)

// Registry holds the metrics of one tolk serve on a Prometheus registry
// of its own (never client_golang's global one, so that tests can build
// several) and serves them. Durations are in seconds. It is safe for
// concurrent use.
type Registry struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec   // by route, method and status
	latency  *prometheus.HistogramVec // by route and method
	imports  *prometheus.HistogramVec // by result
	jobs     *prometheus.HistogramVec // by job and result
	webhooks *prometheus.HistogramVec // webhook delivery attempts, by outcome
}

// Build names the running binary, for tolk_build_info.
type Build struct {
	Version   string // e.g. v1.2.0 or devel
	Revision  string // commit hash; "" when not built from Git
	GoVersion string // toolchain, e.g. go1.26.8
}

// importBuckets reach from a component whose files are unchanged to
// a large first clone.
var importBuckets = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

// New registers Tolk's metrics, the gauges read from src at each scrape,
// and client_golang's Go runtime and process collectors (go_*,
// process_*; the process collector reads /proc, so on other systems
// most process_* series are absent).
func New(src Source, b Build) *Registry {
	r := &Registry{reg: prometheus.NewRegistry()}
	r.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tolk_http_requests_total",
		Help: "HTTP requests answered, by route pattern (unmatched: no route), method and status."},
		[]string{"route", "method", "status"})
	r.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tolk_http_request_duration_seconds",
		Help:    "Time from a request's arrival to its answer, by route pattern and method.",
		Buckets: prometheus.DefBuckets}, []string{"route", "method"})
	r.imports = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tolk_import_duration_seconds",
		Help:    "Time a component import took, checkout included, by result (ok or error).",
		Buckets: importBuckets}, []string{"result"})
	r.jobs = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tolk_job_duration_seconds",
		Help:    "Time a scheduled job (commit, pull) took, by job and result (ok or error).",
		Buckets: importBuckets}, []string{"job", "result"})
	r.webhooks = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tolk_webhook_attempt_duration_seconds",
		Help: "Time a webhook delivery attempt took, by outcome (delivered, retry: failed and tried again later, " +
			"failed: given up).",
		Buckets: prometheus.DefBuckets}, []string{"outcome"})
	build := prometheus.NewGauge(prometheus.GaugeOpts{Name: "tolk_build_info",
		Help:        "The running build: always 1.",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "goversion": b.GoVersion}})
	build.Set(1)
	r.reg.MustRegister(r.requests, r.latency, r.imports, r.jobs, r.webhooks, build, sourceCollector{src})
	r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.reg.MustRegister(runtimeExtras()...)
	return r
}

// Handler serves the metrics for GET and HEAD, in the text format
// (0.0.4) unless the scraper asks for another that client_golang writes.
// A family that cannot be read (a gauge whose query failed) is left
// out; the others are served.
func (r *Registry) Handler() http.Handler {
	h := promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, req)
	})
}

// ObserveRequest counts an answered request (edge.RequestObserver).
// Methods outside HTTP's own are counted as "other", so that a client
// cannot create series at will.
func (r *Registry) ObserveRequest(route, method string, status int, took time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
	default:
		method = "other"
	}
	r.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	r.latency.WithLabelValues(route, method).Observe(took.Seconds())
}

// ImportDone records a component import that took took and ended with
// err (nil: ok). cmd/tolk calls it from sync.Options.OnImportDone, whose
// signature names sync's types, which this package does not import.
func (r *Registry) ImportDone(took time.Duration, err error) {
	r.imports.WithLabelValues(result(err == nil)).Observe(took.Seconds())
}

// JobDone records a scheduled job's run (sync.SchedulerOptions.OnJobDone);
// a job whose run has not ended is not counted.
func (r *Registry) JobDone(_ index.Component, j index.Job) {
	if !j.LastStart.IsZero() && !j.LastEnd.Before(j.LastStart) {
		r.jobs.WithLabelValues(j.Name, result(j.LastResult == "ok")).Observe(j.LastEnd.Sub(j.LastStart).Seconds())
	}
}

// WebhookAttempt records a webhook delivery attempt
// (webhook.Options.OnAttempt).
func (r *Registry) WebhookAttempt(outcome string, took time.Duration) {
	r.webhooks.WithLabelValues(outcome).Observe(took.Seconds())
}

func result(ok bool) string {
	if ok {
		return "ok"
	}
	return "error"
}
