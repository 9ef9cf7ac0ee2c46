package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWebhookDeliveriesSurviveKill installs a webhook on the demo
// project, edits while the receiver holds the first request without
// answering, kills tolk serve (SIGKILL) with every event still pending,
// and restarts it: each event is then delivered, in order, and the
// deliveries say so through the API.
func TestWebhookDeliveriesSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and restarts tolk serve")
	}
	var mu sync.Mutex
	holding := true
	release := make(chan struct{})
	var ids []string // accepted, first time each
	seen := map[string]bool{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		hold := holding
		mu.Unlock()
		if hold {
			<-release // the process dies meanwhile
			http.Error(w, "too late", http.StatusServiceUnavailable)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if id := r.Header.Get("webhook-id"); !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	t.Cleanup(func() { close(release) })

	bin := buildTolk(t)
	data := t.TempDir()
	p := runTolk(t, bin, data, "--demo", "--webhook-allow-private")
	token := p.token
	code, body := send(t, http.MethodPost, p.base+"/api/projects/demo/addons/", token, map[string]any{
		"name": "weblate.webhook.webhook", "configuration": map[string]any{"webhook_url": receiver.URL,
			"event_filter": "custom", "events": []int{2, 5}}})
	if code != http.StatusCreated {
		t.Fatalf("install the webhook: %d %v", code, body)
	}
	addon := strings.TrimPrefix(body["url"].(string), p.base) // the port changes on restart
	units := crashUnits(t, p, token, "de")
	for i, u := range units[:min(5, len(units))] {
		code, body := send(t, http.MethodPatch, p.base+"/api/units/"+strconv.FormatInt(u.ID, 10)+"/", token,
			map[string]any{"target": []string{fmt.Sprint("Vor dem Absturz ", i)}, "state": 20})
		if code != http.StatusOK {
			t.Fatalf("PATCH: %d %v", code, body)
		}
	}
	before := deliveries(t, p.base+addon, token)
	if len(before) != 5 {
		t.Fatalf("%d deliveries queued for 5 edits", len(before))
	}
	for _, d := range before {
		if d.State != "pending" {
			t.Fatalf("before the kill, deliveries = %+v, want every one pending", before)
		}
	}
	p.kill()
	mu.Lock()
	holding = false
	mu.Unlock()

	p = runTolk(t, bin, data, "--demo", "--webhook-allow-private")
	deadline := time.Now().Add(30 * time.Second)
	var after []delivery
	for {
		after = deliveries(t, p.base+addon, token)
		done := 0
		for _, d := range after {
			if d.State == "delivered" {
				done++
			}
		}
		if done == len(before) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart, deliveries = %+v", after)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var want []string
	for i := len(after) - 1; i >= 0; i-- { // the API lists the newest first
		want = append(want, after[i].WebhookID)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(ids, want) {
		t.Errorf("the receiver accepted %v, want %v in order", ids, want)
	}
}

// delivery is what the test reads of a delivery.
type delivery struct {
	WebhookID string `json:"webhook_id"`
	State     string `json:"state"`
	Attempts  int    `json:"attempts"`
}

// deliveries lists an add-on's deliveries through the API.
func deliveries(t *testing.T, addonURL, token string) []delivery {
	t.Helper()
	resp := getAs(t, addonURL+"deliveries/?page_size=1000", "Token "+token)
	defer resp.Body.Close()
	var page struct {
		Results []delivery `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("deliveries: %d %v", resp.StatusCode, err)
	}
	return page.Results
}

// TestWebhookSettings: --webhook-allow-private and --webhook-retry-period
// are read, the setup file's webhook_retry_period applies when the flag
// is not given, and a period that is not one is refused.
func TestWebhookSettings(t *testing.T) {
	cfg, err := serveConfig([]string{"--webhook-allow-private", "--webhook-retry-period=36h"}, io.Discard)
	if err != nil || !cfg.WebhookAllowPrivate || cfg.WebhookRetryPeriod != 36*time.Hour {
		t.Errorf("flags read as %v, %v (%v)", cfg.WebhookAllowPrivate, cfg.WebhookRetryPeriod, err)
	}
	if _, err := serveConfig([]string{"--webhook-retry-period=-1h"}, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("a negative period: %v, want a usage error", err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		file string
		flag time.Duration
		want time.Duration
		bad  bool
	}{
		{file: "projects: []\n", want: 0},
		{file: "webhook_retry_period: 2h\nprojects: []\n", want: 2 * time.Hour},
		{file: "webhook_retry_period: 2h\nprojects: []\n", flag: time.Hour, want: time.Hour},
		{file: "webhook_retry_period: soon\nprojects: []\n", bad: true},
	} {
		file := filepath.Join(dir, "tolk.yaml")
		if err := os.WriteFile(file, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		// The flag and the file are settled before Open.
		args := []string{"--config", file}
		if tc.flag != 0 {
			args = append(args, "--webhook-retry-period="+tc.flag.String())
		}
		cfg, err := loadConfig(args, noEnv, io.Discard)
		switch {
		case tc.bad && (err == nil || !strings.Contains(err.Error(), "webhook_retry_period")):
			t.Errorf("%q: %v, want an error naming webhook_retry_period", tc.file, err)
		case !tc.bad && (err != nil || cfg.WebhookRetryPeriod != tc.want):
			t.Errorf("%q with --webhook-retry-period=%v: %v (%v), want %v", tc.file, tc.flag,
				cfg.WebhookRetryPeriod, err, tc.want)
		}
	}
}
