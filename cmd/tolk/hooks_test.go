package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookSettings checks that tolk serve's --no-hooks, --hook-secret,
// TOLK_HOOK_SECRET and the setup file's hook_secret reach the webhooks.
func TestHookSettings(t *testing.T) {
	for _, tc := range []struct {
		args, env, want string
		off             bool
	}{
		{"", "", "", false},
		{"--no-hooks", "", "", true},
		{"--hook-secret=flag", "env", "flag", false},
		{"", "env", "env", false},
	} {
		t.Setenv("TOLK_HOOK_SECRET", tc.env)
		cfg, err := serveConfig(strings.Fields(tc.args), io.Discard)
		if err != nil || cfg.HookSecret != tc.want || cfg.NoHooks != tc.off {
			t.Errorf("serveConfig(%q) with TOLK_HOOK_SECRET=%q = %q, %v, %v; want %q, %v",
				tc.args, tc.env, cfg.HookSecret, cfg.NoHooks, err, tc.want, tc.off)
		}
	}
	t.Setenv("TOLK_HOOK_SECRET", "")

	specs, err := parseConfig("tolk.yaml", []byte("hook_secret: site\nprojects:\n  - name: P\n    slug: p\n    hook_secret: own\n"),
		resolveTest, existingIndex{})
	if err != nil || specs[0].Project.HookSecret != "own" {
		t.Errorf("a project's hook_secret = %+v, %v", specs, err)
	}

	data := t.TempDir()
	file := filepath.Join(t.TempDir(), "tolk.yaml")
	if err := os.WriteFile(file, []byte("hook_secret: from-file\nprojects: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = data, "127.0.0.1:0", true
	cfg = withSetupFile(t, cfg, file)
	m := mustRunConfig(t, cfg)
	base := "http://" + m.Addr().String()
	body := `{"ref":"refs/heads/main","repository":{"full_name":"demo/app","clone_url":"file://` +
		filepath.Join(data, "demo", "app.git") + `"}}`
	post := func(sig string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+"/hooks/gitea/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sig != "" {
			req.Header.Set("X-Gitea-Signature", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	mac := hmac.New(sha256.New, []byte("from-file"))
	mac.Write([]byte(body))
	if got := post(""); got != http.StatusForbidden {
		t.Errorf("unsigned hook with the file's secret = %d, want 403", got)
	}
	if got := post(hex.EncodeToString(mac.Sum(nil))); got != http.StatusOK {
		t.Errorf("signed hook = %d, want 200", got)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	cfg.NoHooks, cfg.HookSecret, cfg.Setup = true, "", nil
	m = mustRunConfig(t, cfg)
	defer m.Close()
	base = "http://" + m.Addr().String()
	if got := post(""); got != http.StatusMethodNotAllowed {
		t.Errorf("hook with --no-hooks = %d, want 405", got)
	}
}
