package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWriteParses writes every kind of family, with label values that
// need escaping, and reads it back with the strict parser.
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
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != ContentType {
		t.Errorf("Content-Type %q", ct)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body := string(raw)
	samples, err := Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
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
		if got, ok := Value(samples, tc.name, tc.labels); !ok || got != tc.want {
			t.Errorf("%s%v = %v (%v), want %v\n%s", tc.name, tc.labels, got, ok, tc.want, body)
		}
	}
	if _, ok := Value(samples, "tolk_broken", nil); ok {
		t.Errorf("a failed gauge has a sample")
	}
	if !strings.Contains(body, "# HELP tolk_requests_total Requests.\\nBy route.\n") {
		t.Errorf("HELP not escaped:\n%s", body)
	}
}

// TestParseRejects: the parser the endpoint is tested with does fail on
// what Prometheus refuses.
func TestParseRejects(t *testing.T) {
	for _, text := range []string{
		"x 1\n", // no TYPE
		"# TYPE x counter\ny 1\n",
		"# TYPE x counter\n# TYPE x counter\n",
		"# TYPE x counter\nx{a=\"1} 1\n",
		"# TYPE x counter\nx{a=\"\\t\"} 1\n",
		"# TYPE x counter\nx one\n",
		"# TYPE x histogram\nx_bucket{le=\"1\"} 2\nx_bucket{le=\"+Inf\"} 1\nx_count 1\n",
		"# TYPE x histogram\nx_bucket{le=\"1\"} 2\nx_count 2\n",
		"# TYPE x counter\n9x 1\n",
	} {
		if _, err := Parse(strings.NewReader(text)); err == nil {
			t.Errorf("Parse accepted %q", text)
		}
	}
}
