package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestAutoTranslateOpenAI: the reference's "openai" service is
// installed through machinery_settings (its settings checked, a 400
// naming the field), and an automatic translation from it asks the
// OpenAI-compatible server in its wire format and stores its answers as
// suggestions; the key never appears in the answers.
func TestAutoTranslateOpenAI(t *testing.T) {
	const key = "sk-api-test-secret"
	var mu sync.Mutex
	var asked []string
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key || r.URL.Path != "/v1/chat/completions" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 || req.Model != "my-model" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		texts := strings.Split(req.Messages[1].Content, "\n==WEBLATE_PART==\n")
		mu.Lock()
		asked = append(asked, texts...)
		mu.Unlock()
		for i := range texts {
			texts[i] = "KI: " + texts[i]
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": strings.Join(texts, "\n==WEBLATE_PART==\n")}}}})
	}))
	defer llm.Close()
	e := autoEnv(t, 0, servertest.WithOptions(func(o *servertest.Options) { o.Machinery.AllowPrivate = true }))
	settings := e.URL + "/api/projects/demo/machinery_settings/"
	cfg := map[string]any{"key": key, "base_url": llm.URL + "/v1", "model": "custom"}
	r := servertest.DoJSON(t, "POST", settings, e.Auth["admin"], map[string]any{"service": "openai", "configuration": cfg})
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "configuration.custom_model") {
		t.Errorf("custom model without its name: %d %s", r.Status, r.Body)
	}
	cfg["custom_model"] = "my-model"
	r = servertest.DoJSON(t, "POST", settings, e.Auth["admin"], map[string]any{"service": "openai", "configuration": cfg})
	if r.Status != http.StatusCreated || !strings.Contains(string(r.Body), "Service installed: OpenAI") {
		t.Fatalf("install OpenAI: %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "GET", settings, e.Auth["translator"], nil)
	if r.Status != http.StatusForbidden || strings.Contains(string(r.Body), key) {
		t.Errorf("a translator reads the settings: %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", e.URL+autoPath, e.Auth["auto"],
		map[string]any{"mode": "suggest", "auto_source": "mt", "engines": []string{"openai"}, "threshold": 80})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "strings were updated") || strings.Contains(string(r.Body), key) {
		t.Fatalf("automatic translation from OpenAI: %d %s", r.Status, r.Body)
	}
	mu.Lock()
	n := len(asked)
	mu.Unlock()
	u := appUnit(t, e, "About this app")
	r = servertest.DoJSON(t, "GET", e.URL+"/api/units/"+servertest.Num(u["id"])+"/suggestions/", e.Auth["admin"], nil)
	if n == 0 || !strings.Contains(string(r.Body), `"target":["KI: About this app"]`) {
		t.Errorf("%d strings asked; the unit's suggestions: %s", n, r.Body)
	}
}
