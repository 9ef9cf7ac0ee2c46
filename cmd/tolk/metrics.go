package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"runtime"
	runtimemetrics "runtime/metrics"
	"strconv"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/metrics"
	tolksync "github.com/tolk-project/tolk/sync"
)

// serviceMetrics are the metrics tolk serve keeps, served in the
// Prometheus text format at /metrics on --metrics-listen. Durations are
// in seconds. It is safe for concurrent use.
type serviceMetrics struct {
	reg      metrics.Registry
	requests *metrics.Counter   // by route, method and status
	latency  *metrics.Histogram // by route and method
	imports  *metrics.Histogram // by result
	jobs     *metrics.Histogram // by job and result
	webhooks *metrics.Histogram // webhook delivery attempts, by outcome
}

// importBuckets reach from a component whose files are unchanged to
// a large first clone.
var importBuckets = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

func newServiceMetrics(db *sqlstore.DB, v buildVersion) *serviceMetrics {
	m := &serviceMetrics{}
	r := &m.reg
	m.requests = r.Counter("tolk_http_requests_total",
		"HTTP requests answered, by route pattern (unmatched: no route), method and status.",
		"route", "method", "status")
	m.latency = r.Histogram("tolk_http_request_duration_seconds",
		"Time from a request's arrival to its answer, by route pattern and method.",
		metrics.DefaultBuckets, "route", "method")
	m.imports = r.Histogram("tolk_import_duration_seconds",
		"Time a component import took, checkout included, by result (ok or error).", importBuckets, "result")
	m.jobs = r.Histogram("tolk_job_duration_seconds",
		"Time a scheduled job (commit, pull) took, by job and result (ok or error).", importBuckets, "job", "result")
	m.webhooks = r.Histogram("tolk_webhook_attempt_duration_seconds",
		"Time a webhook delivery attempt took, by outcome (delivered, retry: failed and tried again later, failed: given up).",
		metrics.DefaultBuckets, "outcome")
	r.GaugeVecFunc("tolk_webhook_deliveries", "Webhook deliveries in the outbox, by state (pending, delivered, failed).",
		[]string{"state"}, func(ctx context.Context) ([]metrics.Sample, error) {
			counts, err := db.CountDeliveries(ctx)
			var out []metrics.Sample
			for _, s := range []index.DeliveryState{index.DeliveryPending, index.DeliveryDelivered, index.DeliveryFailed} {
				out = append(out, metrics.Sample{Values: []string{s.String()}, Value: float64(counts[s])})
			}
			return out, err
		})
	r.GaugeFunc("tolk_pending_units", "Units edited or added and not yet committed to their repository.",
		func(ctx context.Context) (float64, error) {
			n, err := db.CountPendingUnits(ctx)
			return float64(n), err
		})
	r.GaugeFunc("tolk_page_cache_pages", "List pages (units, changes) held by the page cache.",
		func(context.Context) (float64, error) {
			pages, _ := db.PageCacheSize()
			return float64(pages), nil
		})
	r.GaugeFunc("tolk_page_cache_bytes", "Bytes of the list pages held by the page cache, the unit it is bounded in.",
		func(context.Context) (float64, error) {
			_, bytes := db.PageCacheSize()
			return float64(bytes), nil
		})
	r.GaugeVecFunc("tolk_build_info", "The running build: always 1.", []string{"version", "revision", "goversion"},
		func(context.Context) ([]metrics.Sample, error) {
			return []metrics.Sample{{Values: []string{v.Short(), v.Revision, v.Go}, Value: 1}}, nil
		})
	addRuntimeMetrics(r)
	return m
}

// addRuntimeMetrics registers the Go runtime's and the process's basics,
// under the names client_golang gives them.
func addRuntimeMetrics(r *metrics.Registry) {
	runtimeValue := func(name string) func(context.Context) (float64, error) {
		return func(context.Context) (float64, error) {
			s := []runtimemetrics.Sample{{Name: name}}
			runtimemetrics.Read(s)
			switch s[0].Value.Kind() {
			case runtimemetrics.KindUint64:
				return float64(s[0].Value.Uint64()), nil
			case runtimemetrics.KindFloat64:
				return s[0].Value.Float64(), nil
			}
			return 0, errNoRuntimeMetric
		}
	}
	r.GaugeFunc("go_goroutines", "Goroutines that currently exist.", runtimeValue("/sched/goroutines:goroutines"))
	r.GaugeFunc("go_memstats_heap_alloc_bytes", "Bytes of allocated heap objects.",
		runtimeValue("/memory/classes/heap/objects:bytes"))
	r.GaugeFunc("go_memstats_sys_bytes", "Bytes of memory obtained from the operating system.",
		runtimeValue("/memory/classes/total:bytes"))
	r.CounterFunc("go_gc_cycles_total", "Completed garbage collection cycles.", runtimeValue("/gc/cycles/total:gc-cycles"))
	r.GaugeFunc("go_gomaxprocs", "GOMAXPROCS: the CPUs Go code may run on at once.",
		func(context.Context) (float64, error) { return float64(runtime.GOMAXPROCS(0)), nil })
	start := float64(time.Now().UnixNano()) / 1e9
	r.GaugeFunc("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.",
		func(context.Context) (float64, error) { return start, nil })
	r.GaugeFunc("process_open_fds", "Open file descriptors (Linux only).", func(context.Context) (float64, error) {
		fds, err := os.ReadDir("/proc/self/fd")
		return float64(len(fds)), err
	})
}

var errNoRuntimeMetric = errors.New("runtime metric not supported")

// ObserveRequest counts an answered request (api.RequestObserver).
// Methods outside HTTP's own are counted as "other", so that a client
// cannot create series at will.
func (m *serviceMetrics) ObserveRequest(route, method string, status int, took time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
	default:
		method = "other"
	}
	m.requests.Inc(route, method, strconv.Itoa(status))
	m.latency.Observe(took.Seconds(), route, method)
}

// importDone records a component import (sync.Options.OnImportDone).
func (m *serviceMetrics) importDone(_ index.Component, _ tolksync.ImportSummary, took time.Duration, err error) {
	m.imports.Observe(took.Seconds(), result(err == nil))
}

// jobDone records a scheduled job's run (SchedulerOptions.OnJobDone).
func (m *serviceMetrics) jobDone(_ index.Component, j index.Job) {
	if !j.LastStart.IsZero() && !j.LastEnd.Before(j.LastStart) {
		m.jobs.Observe(j.LastEnd.Sub(j.LastStart).Seconds(), j.Name, result(j.LastResult == "ok"))
	}
}

// webhookAttempt records a webhook delivery attempt
// (webhook.Options.OnAttempt).
func (m *serviceMetrics) webhookAttempt(outcome string, took time.Duration) {
	m.webhooks.Observe(took.Seconds(), outcome)
}

func result(ok bool) string {
	if ok {
		return "ok"
	}
	return "error"
}

// serveMetrics serves /metrics on its own listener, so that who may read
// them is decided by where that address is reachable from, apart from
// the API and its proxies.
func serveMetrics(l net.Listener, m *serviceMetrics) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.reg.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute,
		IdleTimeout: time.Minute}
	go srv.Serve(l)
	return srv
}
