package metrics

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/metrics/metricstest"
)

// source is a Source with fixed answers; err fails both queries.
type source struct {
	pending     int
	deliveries  map[index.DeliveryState]int
	pages, size int
	solo        bool
	changes     uint64
	writer      index.WriterStats
	err         error
}

func (s source) CountPendingUnits(context.Context) (int, error) { return s.pending, s.err }
func (s source) CountDeliveries(context.Context) (map[index.DeliveryState]int, error) {
	return s.deliveries, s.err
}
func (s source) PageCacheSize() (int, int) { return s.pages, s.size }
func (s source) Solo() bool                { return s.solo }
func (s source) SoloChanges() uint64       { return s.changes }
func (s source) WriterStats() index.WriterStats {
	return s.writer
}

// serve serves r's Handler on loopback until the test ends and returns
// its URL.
func serve(t *testing.T, r *Registry) string {
	t.Helper()
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

// want is what one sample should be.
type want struct {
	name   string
	labels map[string]string // some of the sample's
	value  float64
}

// checkSamples fails t for each of wants that samples do not hold, and
// then shows the body they were decoded from.
func checkSamples(t *testing.T, samples model.Vector, body string, wants []want) {
	t.Helper()
	failed := false
	for _, w := range wants {
		if got, ok := metricstest.Value(samples, w.name, w.labels); !ok || got != w.value {
			t.Errorf("%s%v = %v (found %v), want %v", w.name, w.labels, got, ok, w.value)
			failed = true
		}
	}
	if failed {
		t.Logf("/metrics:\n%s", body)
	}
}

// TestHandler records requests, with a route that needs escaping, and
// reads /metrics back with client_golang's decoder: the counts, the
// histogram's cumulative buckets, sum and count, the gauges read from
// the source, the build, and the HELP text as written.
func TestHandler(t *testing.T) {
	r := New(source{pending: 42, deliveries: map[index.DeliveryState]int{index.DeliveryDelivered: 5},
		pages: 3, size: 4096, solo: true, changes: 3, writer: index.WriterStats{Batches: 7, Writes: 19, Apart: 1,
			RoundTrips: 40, Busy: 1500 * time.Millisecond}}, Build{Version: "v1", Revision: "abc", GoVersion: "go1.26.8"})
	for _, x := range []struct {
		status int
		took   time.Duration
	}{{200, 50 * time.Millisecond}, {200, 100 * time.Millisecond}, {404, 500 * time.Millisecond}, {404, 7 * time.Second}} {
		r.ObserveRequest("/api/", http.MethodGet, x.status, x.took)
	}
	odd := `a"b\c` + "\n"
	for range 3 {
		r.ObserveRequest(odd, http.MethodGet, 500, time.Millisecond)
	}

	samples, body := metricstest.Scrape(t, serve(t, r))
	checkSamples(t, samples, body, []want{
		{"tolk_http_requests_total", map[string]string{"route": "/api/", "method": "GET", "status": "200"}, 2},
		{"tolk_http_requests_total", map[string]string{"route": odd, "status": "500"}, 3},
		{"tolk_http_request_duration_seconds_bucket", map[string]string{"route": "/api/", "le": "0.1"}, 2},
		{"tolk_http_request_duration_seconds_bucket", map[string]string{"route": "/api/", "le": "1"}, 3},
		{"tolk_http_request_duration_seconds_bucket", map[string]string{"route": "/api/", "le": "+Inf"}, 4},
		{"tolk_http_request_duration_seconds_count", map[string]string{"route": "/api/"}, 4},
		{"tolk_http_request_duration_seconds_sum", map[string]string{"route": "/api/"}, 7.65},
		{"tolk_pending_units", nil, 42},
		{"tolk_webhook_deliveries", map[string]string{"state": "delivered"}, 5},
		{"tolk_webhook_deliveries", map[string]string{"state": "pending"}, 0},
		{"tolk_webhook_deliveries", map[string]string{"state": "failed"}, 0},
		{"tolk_page_cache_pages", nil, 3},
		{"tolk_page_cache_bytes", nil, 4096},
		{"tolk_db_solo", nil, 1},
		{"tolk_db_solo_changes_total", nil, 3},
		{"tolk_db_write_batches_total", nil, 7},
		{"tolk_db_writes_total", nil, 19},
		{"tolk_db_write_batches_apart_total", nil, 1},
		{"tolk_db_writer_round_trips_total", nil, 40},
		{"tolk_db_writer_busy_seconds_total", nil, 1.5},
		{"tolk_build_info", map[string]string{"version": "v1", "revision": "abc", "goversion": "go1.26.8"}, 1},
	})
	const help = "# HELP tolk_http_requests_total HTTP requests answered, by route pattern (unmatched: no route), " +
		"method and status.\n"
	if !strings.Contains(body, help) {
		t.Errorf("no %q in:\n%s", help, body)
	}
}

// TestFailedRead: a gauge whose query fails has no sample in that
// scrape, rather than a false zero, and the rest is still served.
func TestFailedRead(t *testing.T) {
	r := New(source{pending: 42, pages: 3, err: errors.New("database is closed")}, Build{Version: "v1"})
	samples, body := metricstest.Scrape(t, serve(t, r))
	for _, name := range []string{"tolk_pending_units", "tolk_webhook_deliveries"} {
		if v, ok := metricstest.Value(samples, name, nil); ok {
			t.Errorf("%s = %v after a failed query\n%s", name, v, body)
		}
	}
	if v, ok := metricstest.Value(samples, "tolk_page_cache_pages", nil); !ok || v != 3 {
		t.Errorf("tolk_page_cache_pages = %v (found %v), want 3\n%s", v, ok, body)
	}
}

// The bucket bounds Tolk's histograms had before client_golang, written
// out rather than read from the package so that a change shows here.
var (
	requestBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	longBuckets    = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
)

// TestFamilies pins what dashboards read: each family Tolk served
// before it used client_golang keeps its name, type, label names and buckets,
// and client_golang's Go and process collectors are there besides.
func TestFamilies(t *testing.T) {
	r := New(source{}, Build{Version: "v1"})
	// A family with labels appears once it has a series.
	r.ObserveRequest("/api/", http.MethodGet, 200, time.Millisecond)
	r.ImportDone(time.Second, nil)
	r.JobDone(index.Component{}, index.Job{Name: "commit", LastStart: time.Unix(10, 0), LastEnd: time.Unix(12, 0),
		LastResult: "ok"})
	r.WebhookAttempt("delivered", time.Millisecond)
	fams, err := r.reg.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		got[f.GetName()] = f
	}
	for _, tc := range []struct {
		name    string
		typ     dto.MetricType
		labels  []string  // sorted
		buckets []float64 // upper bounds, +Inf implied
	}{
		{"tolk_http_requests_total", dto.MetricType_COUNTER, []string{"method", "route", "status"}, nil},
		{"tolk_http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"method", "route"}, requestBuckets},
		{"tolk_import_duration_seconds", dto.MetricType_HISTOGRAM, []string{"result"}, longBuckets},
		{"tolk_job_duration_seconds", dto.MetricType_HISTOGRAM, []string{"job", "result"}, longBuckets},
		{"tolk_webhook_attempt_duration_seconds", dto.MetricType_HISTOGRAM, []string{"outcome"}, requestBuckets},
		{"tolk_webhook_deliveries", dto.MetricType_GAUGE, []string{"state"}, nil},
		{"tolk_pending_units", dto.MetricType_GAUGE, nil, nil},
		{"tolk_page_cache_pages", dto.MetricType_GAUGE, nil, nil},
		{"tolk_page_cache_bytes", dto.MetricType_GAUGE, nil, nil},
		{"tolk_db_solo", dto.MetricType_GAUGE, nil, nil},
		{"tolk_db_solo_changes_total", dto.MetricType_COUNTER, nil, nil},
		{"tolk_db_write_batches_total", dto.MetricType_COUNTER, nil, nil},
		{"tolk_db_writes_total", dto.MetricType_COUNTER, nil, nil},
		{"tolk_db_write_batches_apart_total", dto.MetricType_COUNTER, nil, nil},
		{"tolk_db_writer_round_trips_total", dto.MetricType_COUNTER, nil, nil},
		{"tolk_db_writer_busy_seconds_total", dto.MetricType_COUNTER, nil, nil},
		{"tolk_build_info", dto.MetricType_GAUGE, []string{"goversion", "revision", "version"}, nil},
		{"go_goroutines", dto.MetricType_GAUGE, nil, nil},
		{"go_memstats_heap_alloc_bytes", dto.MetricType_GAUGE, nil, nil},
		{"go_memstats_sys_bytes", dto.MetricType_GAUGE, nil, nil},
		{"go_gc_cycles_total", dto.MetricType_COUNTER, nil, nil},
		{"go_gomaxprocs", dto.MetricType_GAUGE, nil, nil},
		{"process_start_time_seconds", dto.MetricType_GAUGE, nil, nil},
		{"process_open_fds", dto.MetricType_GAUGE, nil, nil},
		// client_golang's own, new with it.
		{"go_gc_duration_seconds", dto.MetricType_SUMMARY, nil, nil},
		{"go_threads", dto.MetricType_GAUGE, nil, nil},
		{"process_cpu_seconds_total", dto.MetricType_COUNTER, nil, nil},
		{"process_resident_memory_bytes", dto.MetricType_GAUGE, nil, nil},
	} {
		f, ok := got[tc.name]
		if !ok {
			t.Errorf("no family %s", tc.name)
			continue
		}
		if f.GetType() != tc.typ {
			t.Errorf("%s is a %v, want %v", tc.name, f.GetType(), tc.typ)
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName())
			}
			slices.Sort(labels)
			if !slices.Equal(labels, tc.labels) {
				t.Errorf("%s has labels %v, want %v", tc.name, labels, tc.labels)
			}
			var bounds []float64
			for _, b := range m.GetHistogram().GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
			}
			if !slices.Equal(bounds, tc.buckets) {
				t.Errorf("%s has buckets %v, want %v", tc.name, bounds, tc.buckets)
			}
		}
	}
}

// TestRuntime: /metrics serves the standard go_* and process_*
// collectors (the process collector reads Linux's /proc) and the two
// runtime series Tolk adds, each with a plausible value.
func TestRuntime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process collector reads /proc")
	}
	runtime.GC() // so that go_gc_cycles_total counts one at least
	samples, body := metricstest.Scrape(t, serve(t, New(source{}, Build{})))
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "go_memstats_sys_bytes",
		"go_gc_cycles_total", "go_gomaxprocs", "go_threads", "process_start_time_seconds", "process_open_fds",
		"process_max_fds", "process_resident_memory_bytes", "process_virtual_memory_bytes"} {
		if v, ok := metricstest.Value(samples, name, nil); !ok || v <= 0 {
			t.Errorf("%s = %v (found %v), want a positive value", name, v, ok)
		}
	}
	if _, ok := metricstest.Value(samples, "process_cpu_seconds_total", nil); !ok {
		t.Errorf("no process_cpu_seconds_total")
	}
	// Seconds since the epoch, this test's own process: /proc gives the
	// boot time in whole seconds, hence the slack.
	start, _ := metricstest.Value(samples, "process_start_time_seconds", nil)
	if age := time.Since(time.Unix(int64(start), 0)); age < -2*time.Second || age > time.Hour {
		t.Errorf("process_start_time_seconds %v: the process started %v ago", start, age)
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}

// TestObserve: what the hooks record, and what they fold so that
// clients cannot create series at will.
func TestObserve(t *testing.T) {
	r := New(source{}, Build{})
	r.ObserveRequest("", "BREW", 418, time.Millisecond)
	r.ObserveRequest("", http.MethodGet, 404, time.Millisecond)
	r.ImportDone(2*time.Second, errors.New("clone"))
	r.ImportDone(time.Second, nil)
	start := time.Unix(100, 0)
	r.JobDone(index.Component{}, index.Job{Name: "pull", LastStart: start, LastEnd: start.Add(3 * time.Second),
		LastResult: "ok"})
	r.JobDone(index.Component{}, index.Job{Name: "commit", LastStart: start, LastEnd: start.Add(time.Second),
		LastResult: "push: rejected"})
	r.JobDone(index.Component{}, index.Job{Name: "commit", LastStart: start, Running: true}) // not ended
	r.JobDone(index.Component{}, index.Job{Name: "commit"})                                  // never run
	r.WebhookAttempt("retry", 20*time.Millisecond)

	samples, body := metricstest.Scrape(t, serve(t, r))
	checkSamples(t, samples, body, []want{
		{"tolk_http_requests_total", map[string]string{"route": "unmatched", "method": "other", "status": "418"}, 1},
		{"tolk_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "status": "404"}, 1},
		{"tolk_import_duration_seconds_sum", map[string]string{"result": "error"}, 2},
		{"tolk_import_duration_seconds_count", map[string]string{"result": "ok"}, 1},
		{"tolk_job_duration_seconds_sum", map[string]string{"job": "pull", "result": "ok"}, 3},
		{"tolk_job_duration_seconds_count", map[string]string{"job": "commit", "result": "error"}, 1},
		{"tolk_webhook_attempt_duration_seconds_bucket", map[string]string{"outcome": "retry", "le": "0.025"}, 1},
	})
	if v, ok := metricstest.Value(samples, "tolk_job_duration_seconds_count",
		map[string]string{"job": "commit", "result": "ok"}); ok {
		t.Errorf("a commit that did not end was counted as ok: %v", v)
	}
}

// TestMethod: /metrics answers GET and HEAD only.
func TestMethod(t *testing.T) {
	url := serve(t, New(source{}, Build{}))
	for _, tc := range []struct {
		method string
		want   int
	}{{http.MethodGet, 200}, {http.MethodHead, 200}, {http.MethodPost, 405}} {
		req, _ := http.NewRequest(tc.method, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.method, resp.StatusCode, tc.want)
		}
	}
}
