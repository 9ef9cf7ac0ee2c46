package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
)

// mustRunMain starts the whole program with the demo on a free port and
// its data in a temporary directory.
func mustRunMain(tb testing.TB, dataDir string) *Main {
	tb.Helper()
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = dataDir, "127.0.0.1:0", true
	m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
	if err := m.Open(context.Background()); err != nil {
		m.Close()
		tb.Fatal(err)
	}
	return m
}

func getJSON(tb testing.TB, url string) map[string]any {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	return out
}

func TestDemoServesAndRestartReuses(t *testing.T) {
	dir := t.TempDir()
	m := mustRunMain(t, dir)
	base := "http://" + m.Addr().String()

	// The demo's states: de partly translated, fr complete, pt_BR with an
	// empty string; the template has 10 strings, two under a nested object.
	cases := []struct {
		lang       string
		translated float64
	}{{"de", 4}, {"fr", 10}, {"pt_BR", 2}}
	for _, tc := range cases {
		tr := getJSON(t, base+"/api/translations/demo/app/"+tc.lang+"/")
		if tr["total"] != float64(10) || tr["translated"] != tc.translated {
			t.Errorf("%s: total %v translated %v, want 10 and %v", tc.lang, tr["total"], tr["translated"], tc.translated)
		}
	}
	g := getJSON(t, base+"/api/translations/demo/glossary/de/")
	if g["total"] != float64(3) || g["translated"] != float64(2) {
		t.Errorf("glossary de: total %v translated %v, want 3 and 2", g["total"], g["translated"])
	}
	ch := getJSON(t, base+"/api/translations/demo/app/de/changes/")
	count := ch["count"]
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// A second start reuses the repositories and the index: nothing new
	// is recorded.
	m = mustRunMain(t, dir)
	defer m.Close()
	base = "http://" + m.Addr().String()
	if again := getJSON(t, base+"/api/translations/demo/app/de/changes/")["count"]; again != count {
		t.Errorf("restart recorded changes: %v -> %v", count, again)
	}
}
