package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/metrics/metricstest"
)

// TestMetrics serves /metrics on --metrics-listen and checks that it
// decodes as the text format and counts what happened: the demo's
// imports, a request by its route and status, its latency, a pending
// edit, its webhook delivery, and the runtime's basics. The API's own port has no /metrics.
func TestMetrics(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo, cfg.MetricsListen = t.TempDir(), "127.0.0.1:0", true, "127.0.0.1:0"
	cfg.WebhookAllowPrivate = true
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	m := mustRunConfig(t, cfg)
	defer m.Close()
	base := "http://" + m.Addr().String()

	resp := getAs(t, base+"/metrics", "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics on the API port: %d, want 404", resp.StatusCode)
	}
	for range 2 {
		resp := getAs(t, base+"/api/projects/", "")
		resp.Body.Close()
	}
	token := strings.TrimPrefix(adminToken(t, m), "Token ")
	if code, body := send(t, http.MethodPost, base+"/api/projects/demo/addons/", token, map[string]any{
		"name": "weblate.webhook.webhook", "configuration": map[string]any{"webhook_url": receiver.URL,
			"event_filter": "custom", "events": []int{2}}}); code != http.StatusCreated {
		t.Fatalf("install a webhook: %d %v", code, body)
	}
	_, units := send(t, http.MethodGet, base+"/api/translations/demo/app/de/units/", token, nil)
	id := int64(units["results"].([]any)[0].(map[string]any)["id"].(float64))
	if code, body := send(t, http.MethodPatch, base+"/api/units/"+strconv.FormatInt(id, 10)+"/", token,
		map[string]any{"target": []string{"x"}, "state": 20}); code != http.StatusOK {
		t.Fatalf("PATCH unit: %d %v", code, body)
	}

	roundTrips := 0.0 // SQLite's statements are calls, no round trips
	if indextest.Engine() == indextest.Postgres {
		roundTrips = -1 // the imports' and the PATCH's at least
	}
	url := "http://" + m.MetricsAddr().String() + "/metrics"
	samples, body := metricstest.Scrape(t, url)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); samples, body = metricstest.Scrape(t, url) {
		// The attempt is counted just after its outcome is stored.
		n, _ := metricstest.Value(samples, "tolk_webhook_deliveries", map[string]string{"state": "delivered"})
		a, _ := metricstest.Value(samples, "tolk_webhook_attempt_duration_seconds_count", map[string]string{"outcome": "delivered"})
		if n == 1 && a == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64 // -1: any positive value
	}{
		{"tolk_http_requests_total", map[string]string{"route": "/api/projects/", "method": "GET", "status": "200"}, 2},
		{"tolk_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "status": "404"}, 1},
		{"tolk_http_requests_total", map[string]string{"route": "/api/units/:id/", "method": "PATCH", "status": "200"}, 1},
		{"tolk_http_request_duration_seconds_count", map[string]string{"route": "/api/projects/", "method": "GET"}, 2},
		{"tolk_http_request_duration_seconds_bucket", map[string]string{"route": "/api/projects/", "le": "+Inf"}, 2},
		{"tolk_import_duration_seconds_count", map[string]string{"result": "ok"}, 3}, // the demo's app, glossary and notifications
		{"tolk_pending_units", nil, 1},
		{"tolk_db_write_batches_total", nil, -1}, // the imports' and the PATCH's, at least
		{"tolk_db_writes_total", nil, -1},
		{"tolk_db_writer_round_trips_total", nil, roundTrips},
		{"tolk_db_writer_busy_seconds_total", nil, -1},
		{"tolk_webhook_deliveries", map[string]string{"state": "delivered"}, 1},
		{"tolk_webhook_deliveries", map[string]string{"state": "pending"}, 0},
		{"tolk_webhook_attempt_duration_seconds_count", map[string]string{"outcome": "delivered"}, 1},
		{"tolk_build_info", map[string]string{"version": readBuildVersion().Short()}, 1},
		{"go_goroutines", nil, -1},
		{"go_memstats_heap_alloc_bytes", nil, -1},
		{"process_start_time_seconds", nil, -1},
		{"process_resident_memory_bytes", nil, -1}, // client_golang's process collector, wired in
	} {
		got, ok := metricstest.Value(samples, tc.name, tc.labels)
		if !ok || (tc.want >= 0 && got != tc.want) || (tc.want < 0 && got <= 0) {
			t.Errorf("%s%v = %v (found %v), want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	// Writes share batches; never fewer writes than batches.
	batches, _ := metricstest.Value(samples, "tolk_db_write_batches_total", nil)
	if writes, _ := metricstest.Value(samples, "tolk_db_writes_total", nil); writes < batches {
		t.Errorf("tolk_db_writes_total %v < tolk_db_write_batches_total %v", writes, batches)
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}
