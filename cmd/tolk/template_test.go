package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/vcs"
)

// TestTemplateFailureReported: a setup file whose template is missing,
// or does not parse, imports none of the component's translations. That
// is the component's failure, not only its source translation's: the
// component's import_error says it, /readyz lists it under failed, and
// the component page shows it.
func TestTemplateFailureReported(t *testing.T) {
	for _, tc := range []struct{ name, template, content string }{
		{"missing", "po/en-US.json", `{"yes": "Yes"}`},
		{"unparsable", "po/en.json", `{"yes": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			repo := filepath.Join(dir, "app.git")
			if err := vcs.CreateBare(context.Background(), repo, "main", map[string][]byte{
				"po/en.json": []byte(tc.content),
				"po/de.json": []byte(`{"yes": "Ja"}`),
				"po/fr.json": []byte(`{"yes": "Oui"}`),
			}, "initial"); err != nil {
				t.Fatal(err)
			}
			config := filepath.Join(dir, "tolk.yaml")
			body := "projects:\n  - name: Shop\n    slug: shop\n    components:\n      - name: App\n        slug: app\n" +
				"        repo: file://" + repo + "\n        branch: main\n        filemask: po/*.json\n" +
				"        template: " + tc.template + "\n        source_language: en\n"
			if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig()
			cfg.DataDir, cfg.Listen = t.TempDir(), "127.0.0.1:0"
			cfg = withSetupFile(t, cfg, config)
			m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
			openMain(t, m)
			defer m.Close()
			base := "http://" + m.Addr().String()

			_, ready := readyz(t, base)
			if len(ready.Failed) != 1 || ready.Failed[0].Component != "app" ||
				!strings.Contains(ready.Failed[0].Error, tc.template) {
				t.Errorf("/readyz: %+v, want shop/app failed, naming %s", ready, tc.template)
			}
			comp := getJSON(t, base+"/api/components/shop/app/")
			if msg, _ := comp["import_error"].(string); !strings.Contains(msg, tc.template) {
				t.Errorf("import_error = %v, want it to name %s", comp["import_error"], tc.template)
			}
			res, err := http.Get(base + "/projects/shop/app/")
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if !strings.Contains(string(page), "The last import failed") || !strings.Contains(string(page), tc.template) {
				t.Errorf("component page (%d) does not show the failure:\n%s", res.StatusCode, page)
			}
		})
	}
}
