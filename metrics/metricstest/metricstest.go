// Package metricstest reads what a /metrics endpoint serves, for tests,
// with client_golang's own decoder (github.com/prometheus/common/expfmt),
// so that a test sees the answer as a Prometheus scraper does. It
// imports nothing of Tolk's.
package metricstest

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape GETs url as a plain client does (no Accept header) and fails tb
// unless the answer is 200 in the text format, version 0.0.4, that
// decodes. It returns the samples, histograms spelled out as in the text
// (name_bucket with le, name_sum, name_count), and the body, for failure
// messages.
func Scrape(tb testing.TB, url string) (model.Vector, string) {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, body)
	}
	// The header may add parameters (charset, escaping): the type and
	// the version are what a scraper reads by.
	ct := expfmt.Format(resp.Header.Get("Content-Type"))
	if ct.FormatType() != expfmt.TypeTextPlain || ct.Version() != expfmt.TextVersion {
		tb.Errorf("Content-Type %q, want the text format %s", ct, expfmt.TextVersion)
	}
	dec := expfmt.NewDecoder(bytes.NewReader(body), expfmt.ResponseFormat(resp.Header))
	var fams []*dto.MetricFamily
	for {
		f := &dto.MetricFamily{}
		if err := dec.Decode(f); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			tb.Fatalf("%s does not decode: %v\n%s", url, err, body)
		}
		fams = append(fams, f)
	}
	samples, err := expfmt.ExtractSamples(&expfmt.DecodeOptions{Timestamp: model.Now()}, fams...)
	if err != nil {
		tb.Fatalf("%s: %v\n%s", url, err, body)
	}
	return samples, string(body)
}

// Value returns the value of the sample named name whose labels include
// every pair given, and whether there is one; of several, the first.
func Value(samples model.Vector, name string, labels map[string]string) (float64, bool) {
next:
	for _, s := range samples {
		if string(s.Metric[model.MetricNameLabel]) != name {
			continue
		}
		for k, v := range labels {
			if string(s.Metric[model.LabelName(k)]) != v {
				continue next
			}
		}
		return float64(s.Value), true
	}
	return 0, false
}
