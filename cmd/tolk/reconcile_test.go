package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/vcs"
)

// TestConfigReconcilesOnStart runs the program on a setup file twice:
// the first start creates and imports, the second applies the edited
// file, keeping what the file no longer lists.
func TestConfigReconcilesOnStart(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "remote", "app.git")
	if err := vcs.CreateBare(context.Background(), repo, "main", map[string][]byte{
		"po/en.json":    []byte("{\n    \"yes\": \"Yes\",\n    \"no\": \"No\"\n}\n"),
		"po/de.json":    []byte("{\n    \"yes\": \"Ja\"\n}\n"),
		"po/cs_CZ.json": []byte("{\n    \"yes\": \"Ano\",\n    \"no\": \"Ne\"\n}\n"),
	}, "initial"); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "tolk.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := func() *Main {
		t.Helper()
		cfg := DefaultConfig()
		cfg.DataDir, cfg.Listen = filepath.Join(dir, "data"), "127.0.0.1:0"
		cfg = withSetupFile(t, cfg, config)
		m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
		openMain(t, m)
		return m
	}
	component := `
      - name: %s
        slug: app
        repo: file://` + repo + `
        filemask: po/*.json
        template: po/en.json
        source_language: en
`
	write("projects:\n  - name: Shop\n    slug: shop\n    components:" + strings.Replace(component, "%s", "App", 1))
	m := start()
	base := "http://" + m.Addr().String()
	de := getJSON(t, base+"/api/translations/shop/app/de/")
	if de["total"] != float64(2) || de["translated"] != float64(1) {
		t.Errorf("de: %v of %v translated, want 1 of 2", de["translated"], de["total"])
	}
	// cs_CZ is Czech's default country, so the file is the "cs" translation.
	cs := getJSON(t, base+"/api/translations/shop/app/cs/")
	if cs["translated"] != float64(2) || cs["filename"] != "po/cs_CZ.json" {
		t.Errorf("cs: %v translated from %v, want 2 from po/cs_CZ.json", cs["translated"], cs["filename"])
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// Rename the component: the name changes, the data stays.
	write("projects:\n  - name: Shop\n    slug: shop\n    components:" + strings.Replace(component, "%s", "Storefront", 1))
	m = start()
	defer m.Close()
	base = "http://" + m.Addr().String()
	de = getJSON(t, base+"/api/translations/shop/app/de/")
	comp := de["component"].(map[string]any)
	if comp["name"] != "Storefront" || de["translated"] != float64(1) {
		t.Errorf("after edit: component %v, translated %v", comp["name"], de["translated"])
	}

	// A file with a mistake stops the start, before anything is opened,
	// with a message naming it.
	write("projects:\n  - name: Shop\n    slug: shop\n    colour: blue\n")
	_, err := loadConfig([]string{"--data", filepath.Join(dir, "data2"), "--config", config}, noEnv, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "tolk.yaml:4: projects[0].colour: unknown key") {
		t.Errorf("bad config err = %v", err)
	}
}
