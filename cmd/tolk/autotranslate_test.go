package main

import (
	"context"
	"io"
	"net/http"
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
