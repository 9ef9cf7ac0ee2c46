package metrics

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/metrics/metricstest"
)

// TestWriteParses writes every kind of family, with label values that
// need escaping, and reads it back with client_golang's decoder.
func TestWriteParses(t *testing.T) {
	var r Registry
	req := r.Counter("tolk_requests_total", "Requests.\nBy route.", "route", "status")
	req.Inc("/api/", "200")
	req.Inc("/api/", "200")
	req.Add(3, `a"b\c`+"\n", "500")
	lat := r.Histogram("tolk_latency_seconds", "Latency.", []float64{0.1, 1}, "route")
	for _, x := range []float64{0.05, 0.1, 0.5, 7} {
		lat.Observe(x, "/api/")
	}
	r.GaugeFunc("tolk_pending", "Pending.", func(context.Context) (float64, error) { return 42, nil })
	r.GaugeFunc("tolk_broken", "Fails.", func(context.Context) (float64, error) { return 0, errors.New("down") })
	r.GaugeVecFunc("tolk_info", "Build.", []string{"version"}, func(context.Context) ([]Sample, error) {
		return []Sample{{Values: []string{"v1"}, Value: 1}}, nil
	})

	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	samples, body := metricstest.Scrape(t, srv.URL)
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"tolk_requests_total", map[string]string{"route": "/api/", "status": "200"}, 2},
		{"tolk_requests_total", map[string]string{"route": `a"b\c` + "\n"}, 3},
		{"tolk_latency_seconds_bucket", map[string]string{"le": "0.1"}, 2},
		{"tolk_latency_seconds_bucket", map[string]string{"le": "1"}, 3},
		{"tolk_latency_seconds_bucket", map[string]string{"le": "+Inf"}, 4},
		{"tolk_latency_seconds_count", nil, 4},
		{"tolk_latency_seconds_sum", nil, 7.65},
		{"tolk_pending", nil, 42},
		{"tolk_info", map[string]string{"version": "v1"}, 1},
	} {
		if got, ok := metricstest.Value(samples, tc.name, tc.labels); !ok || got != tc.want {
			t.Errorf("%s%v = %v (%v), want %v\n%s", tc.name, tc.labels, got, ok, tc.want, body)
		}
	}
	if _, ok := metricstest.Value(samples, "tolk_broken", nil); ok {
		t.Errorf("a failed gauge has a sample")
	}
	if !strings.Contains(body, "# HELP tolk_requests_total Requests.\\nBy route.\n") {
		t.Errorf("HELP not escaped:\n%s", body)
	}
}
