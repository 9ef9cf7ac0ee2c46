package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestAutoTranslateWired runs the whole program: automatic translation
// from the site-wide memory answers the reference's sentence, and a job
// a previous process left open (as a kill leaves it) is finished by the
// next start.
func TestAutoTranslateWired(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = t.TempDir(), "127.0.0.1:0", true
	m := mustRunConfig(t, cfg)
	base := "http://" + m.Addr().String()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/translations/demo/app/de/autotranslate/",
		strings.NewReader(`{"mode": "suggest", "auto_source": "mt", "engines": ["weblate-translation-memory"]}`))
	req.Header.Set("Authorization", adminToken(t, m))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), `{"details":"Automatic translation completed, `) {
		t.Errorf("autotranslate = %d %s", resp.StatusCode, body)
	}

	ctx := context.Background()
	tr, err := m.db.FindTranslation(ctx, "demo", "app", "de")
	if err != nil {
		t.Fatal(err)
	}
	// The job a killed process left: stored, never run.
	j, err := m.db.CreateAutoTranslateJob(ctx, index.AutoTranslateJob{ID: "left-open", ProjectID: tr.Component.ProjectID,
		ComponentID: tr.ComponentID, TranslationID: tr.ID, Params: index.AutoTranslateParams{Mode: index.AutoSuggest,
			Query: index.AutoDefaultQuery, Source: index.AutoSourceOthers, Threshold: 80}})
	if err != nil || j.Completed {
		t.Fatal(j, err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = mustRunConfig(t, cfg)
	defer m.Close()
	for deadline := time.Now().Add(30 * time.Second); !j.Completed; time.Sleep(20 * time.Millisecond) {
		if j, err = m.db.FindAutoTranslateJob(ctx, "left-open"); err != nil || time.Now().After(deadline) {
			t.Fatalf("the open job after the restart: %+v, %v", j, err)
		}
	}
	if j.Err != "" || j.Done != j.Total {
		t.Errorf("resumed job = %+v", j)
	}
}

// TestAutoTranslateAddonAfterPull runs the whole program on real git:
// with weblate.autotranslate.autotranslate installed on the demo's
// notifications, a pull that brings a new string upstream added is
// followed, in the background, by its translation from the app
// component ("others"), which has the same source text translated.
func TestAutoTranslateAddonAfterPull(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = t.TempDir(), "127.0.0.1:0", true
	m := mustRunConfig(t, cfg)
	defer m.Close()
	base := "http://" + m.Addr().String()
	token := strings.TrimPrefix(adminToken(t, m), "Token ")

	code, body := send(t, http.MethodPost, base+"/api/components/demo/notifications/addons/", token, map[string]any{
		"name": "weblate.autotranslate.autotranslate", "configuration": map[string]any{"mode": "translate",
			"q": "state:<translated", "auto_source": "others", "component": "app", "engines": []string{}, "threshold": 80}})
	if code != http.StatusCreated {
		t.Fatalf("install the add-on: %d %v", code, body)
	}
	germanGreeting := func() (string, float64, bool) {
		t.Helper()
		resp := getAs(t, base+"/api/translations/demo/notifications/de/units/?q=key:greeting", "Token "+token)
		defer resp.Body.Close()
		var page struct {
			Results []struct {
				Context string   `json:"context"`
				Target  []string `json:"target"`
				State   float64  `json:"state"`
			} `json:"results"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("units: %d %v", resp.StatusCode, err)
		}
		for _, u := range page.Results {
			if u.Context == "greeting" {
				return strings.Join(u.Target, "|"), u.State, true
			}
		}
		return "", 0, false
	}
	if _, _, ok := germanGreeting(); ok {
		t.Fatal("the notifications have a greeting before the pull")
	}

	// Upstream adds the app's greeting to the notifications' template.
	up := filepath.Join(t.TempDir(), "up")
	gitRun(t, ".", "clone", "-q", filepath.Join(cfg.DataDir, "demo", "notifications.git"), up)
	en := filepath.Join(up, "locales", "en.json")
	data, err := os.ReadFile(en)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "{\n", "{\n  \"greeting\": \"Hello, {name}!\",\n", 1))
	if err := os.WriteFile(en, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, up, "commit", "-q", "-a", "-m", "Greet")
	gitRun(t, up, "push", "-q", "origin", "HEAD")

	if code, body := send(t, http.MethodPost, base+"/api/components/demo/notifications/repository/", token,
		map[string]any{"operation": "pull"}); code != http.StatusOK {
		t.Fatalf("pull: %d %v", code, body)
	}
	var target string
	var state float64
	for deadline := time.Now().Add(30 * time.Second); target == ""; time.Sleep(20 * time.Millisecond) {
		var ok bool
		if target, state, ok = germanGreeting(); !ok {
			t.Fatal("the pull did not bring the greeting")
		}
		if time.Now().After(deadline) {
			t.Fatal("the add-on did not translate the new string within 30s")
		}
	}
	if target != "Hallo, {name}!" || state != 20 {
		t.Errorf("de greeting = %q state %v, want the app's Hallo, {name}! translated (20)", target, state)
	}
	// The run is in the change log, as the API's runs are.
	changes := getJSON(t, base+"/api/translations/demo/notifications/de/changes/")
	if !strings.Contains(fmt.Sprint(changes["results"]), "Hallo, {name}!") {
		t.Errorf("the changes lack the automatic translation: %v", changes["results"])
	}
}
