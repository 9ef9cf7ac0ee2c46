package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/vcs"
)

// send makes a JSON request with a token and decodes the answer.
func send(t *testing.T, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	return sendContext(context.Background(), t, method, url, token, body)
}

// sendContext is send, given up when ctx ends.
func sendContext(ctx context.Context, t *testing.T, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Token "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// TestAPIObjectsSurviveConfigRestart creates and changes projects and
// components through the API of a server started from a setup file,
// then restarts it with an edited file: the file's keys apply, the
// settings it does not name keep what the API set, and what the API
// created stays.
func TestAPIObjectsSurviveConfigRestart(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "remote", "app.git")
	if err := vcs.CreateBare(context.Background(), repo, "main", map[string][]byte{
		"po/en.json": []byte(`{"yes": "Yes", "no": "No"}`),
		"po/de.json": []byte(`{"yes": "Ja"}`),
	}, "initial"); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	config := filepath.Join(dir, "tolk.yaml")
	write := func(name string) {
		t.Helper()
		body := "projects:\n  - name: Shop\n    slug: shop\n    components:\n" +
			"      - name: " + name + "\n        slug: app\n        repo: file://" + repo + "\n" +
			"        filemask: po/*.json\n        template: po/en.json\n"
		if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := func() (*Main, string) {
		t.Helper()
		cfg := DefaultConfig()
		cfg.DataDir, cfg.Listen, cfg.AllowLocalRepos = data, "127.0.0.1:0", true
		cfg = withSetupFile(t, cfg, config)
		m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
		openMain(t, m)
		return m, "http://" + m.Addr().String() + "/api/"
	}
	write("App")
	m, base := start()
	mustCLI(t, "user", "add", "root", "--admin", "--data", data)
	token := strings.TrimSpace(mustCLI(t, "token", "create", "root", "--data", data))

	for _, req := range []struct {
		method, path string
		body         map[string]any
		status       int
	}{
		{"PATCH", "projects/shop/", map[string]any{"instructions": "Be brief.", "access_control": 1}, 200},
		{"PATCH", "components/shop/app/", map[string]any{"priority": 50, "agreement": "Sign here."}, 200},
		{"POST", "projects/", map[string]any{"name": "Blog", "slug": "blog", "web": "https://blog.example/"}, 201},
		{"POST", "projects/shop/components/", map[string]any{"name": "Web", "slug": "web", "repo": "file://" + repo,
			"filemask": "po/*.json", "template": "po/en.json", "file_format": "json", "source_language": "en"}, 201},
	} {
		status, body := send(t, req.method, base+req.path, token, req.body)
		if status != req.status {
			t.Fatalf("%s %s = %d %v", req.method, req.path, status, body)
		}
		if taskURL, ok := body["task_url"].(string); ok {
			waitCompleted(t, taskURL)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	write("Storefront")
	m, base = start()
	defer m.Close()
	shop := getJSON(t, base+"projects/shop/")
	if shop["instructions"] != "Be brief." {
		t.Errorf("project after restart = %v: the API's instructions lost", shop)
	}
	app := getJSON(t, base+"components/shop/app/")
	if app["name"] != "Storefront" || app["priority"] != float64(50) || app["agreement"] != "Sign here." {
		t.Errorf("component after restart: name %v, priority %v, agreement %v", app["name"], app["priority"], app["agreement"])
	}
	getJSON(t, base+"projects/blog/")
	if web := getJSON(t, base+"translations/shop/web/de/"); web["translated"] != float64(1) {
		t.Errorf("API-created component after restart: de = %v", web)
	}
	// The access level set through the API holds too: a protected
	// project is still readable, and a PATCH answers with it kept.
	if status, body := send(t, "PATCH", base+"projects/shop/", token, map[string]any{}); status != 200 ||
		body["instructions"] != "Be brief." {
		t.Errorf("PATCH after restart = %d %v", status, body)
	}
}

// waitCompleted polls a task URL until it completes without error.
func waitCompleted(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		task := getJSON(t, url)
		if task["completed"] == true {
			if _, failed := task["result"].(string); failed {
				t.Fatalf("task %s failed: %v", url, task)
			}
			return
		}
	}
	t.Fatalf("task %s did not complete", url)
}
