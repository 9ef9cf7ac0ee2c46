package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// mustRunMain starts the whole program with the demo on a free port and
// its data in a temporary directory, with the default settings.
func mustRunMain(tb testing.TB, dataDir string) *Main {
	tb.Helper()
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = dataDir, "127.0.0.1:0", true
	return mustRunConfig(tb, cfg)
}

// openMain opens m, on the index testDB gives its data directory, and waits for its start-up import to end; m is
// closed if Open fails.
func openMain(tb testing.TB, m *Main) {
	tb.Helper()
	if m.Config.DB == "" {
		m.Config.DB = testDB(tb, m.Config.DataDir)
	}
	if err := m.Open(context.Background()); err != nil {
		m.Close()
		tb.Fatal(err)
	}
	<-m.Imported()
}

// mustRunConfig starts the whole program with cfg.
func mustRunConfig(tb testing.TB, cfg Config) *Main {
	tb.Helper()
	m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
	openMain(tb, m)
	return m
}

// adminToken returns an Authorization header with a fresh token of the
// demo's administrator (whose first token was printed once and is gone).
func adminToken(tb testing.TB, m *Main) string {
	tb.Helper()
	ctx := context.Background()
	u, err := m.db.FindUser(ctx, demoAdminName)
	if err != nil {
		tb.Fatal(err)
	}
	secret := index.NewToken(index.UserTokenPrefix)
	if _, err := m.db.CreateToken(ctx, index.Token{UserID: u.ID, Name: "test", Hash: index.HashToken(secret),
		Prefix: index.UserTokenPrefix, Scope: index.ScopeAdmin}); err != nil {
		tb.Fatal(err)
	}
	return "Token " + secret
}

// getAs GETs url with the given Authorization header ("" for none).
func getAs(tb testing.TB, url, auth string) *http.Response {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	return resp
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
	// The i18next component's plural strings have one target per plural
	// form of the language: Czech's three, the form cs.json lacks empty.
	units := getJSON(t, base+"/api/translations/demo/notifications/cs/units/")
	found := 0
	for _, r := range units["results"].([]any) {
		u := r.(map[string]any)
		want, ok := map[string]string{
			"inbox.unread": `["Máte {{count}} nepřečtené oznámení","Máte {{count}} nepřečtená oznámení","Máte {{count}} nepřečtených oznámení"]`,
			"comments":     `["{{count}} nový komentář k {{title}}","","{{count}} nových komentářů k {{title}}"]`,
			"reminder":     `["","",""]`,
		}[u["context"].(string)]
		if !ok {
			continue
		}
		found++
		if got, _ := json.Marshal(u["target"]); string(got) != want || len(u["source"].([]any)) != 2 {
			t.Errorf("notifications cs %s: source %v target %s, want %s", u["context"], u["source"], got, want)
		}
		// A plural with its few form empty is not translated (issue 26).
		if u["context"] == "comments" && (u["state"] != float64(10) || u["translated"] != false || u["fuzzy"] != true) {
			t.Errorf("notifications cs comments, few form empty: state %v translated %v fuzzy %v, want 10, false, true",
				u["state"], u["translated"], u["fuzzy"])
		}
	}
	if found != 3 {
		t.Errorf("notifications cs: %d of 3 plural units found", found)
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

// TestRepositoriesWired checks that the API reaches the checkouts through
// sync: repository status, the committed file and the Git export.
func TestRepositoriesWired(t *testing.T) {
	m := mustRunMain(t, t.TempDir())
	defer m.Close()
	base := "http://" + m.Addr().String()

	// The repository status is for those with a repository permission.
	if resp := getAs(t, base+"/api/components/demo/app/repository/", ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("anonymous repository status: %d, want 403", resp.StatusCode)
	}
	resp := getAs(t, base+"/api/components/demo/app/repository/", adminToken(t, m))
	var repo map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&repo); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("repository status: %d, %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	if repo["needs_commit"] != false || repo["needs_merge"] != false || repo["needs_push"] != false {
		t.Errorf("repository = %v, want nothing needed after the import", repo)
	}
	want, err := fs.ReadFile(tolk.DemoFiles, "testdata/demo/app/locales/de.json")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", base+"/api/translations/demo/app/de/file/", nil)
	req.Header.Set("Accept", "application/json") // as wlc sends it
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) {
		t.Errorf("de file = %d %q, want 200 %q", resp.StatusCode, got, want)
	}

	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tr := getJSON(t, base+"/api/translations/demo/app/de/")
	export, _ := tr["component"].(map[string]any)["git_export"].(string)
	dst := filepath.Join(t.TempDir(), "clone")
	cmd := exec.Command("git", "clone", "--quiet", export, dst)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone %s: %v\n%s", export, err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "locales", "de.json")); err != nil || !bytes.Equal(b, want) {
		t.Errorf("cloned de.json = %q, %v", b, err)
	}
}

// TestCommitLinksToBoundAddress checks that, with no --base-url, the
// Translate-URL of a commit message is the address the server listens on,
// the port picked for --listen 127.0.0.1:0 included.
func TestCommitLinksToBoundAddress(t *testing.T) {
	m := mustRunMain(t, t.TempDir())
	defer m.Close()
	base := "http://" + m.Addr().String()
	token := strings.TrimPrefix(adminToken(t, m), "Token ")
	var units struct {
		Results []struct {
			ID      int64  `json:"id"`
			Context string `json:"context"`
		} `json:"results"`
	}
	resp := getAs(t, base+"/api/translations/demo/app/de/units/", "Token "+token)
	if err := json.NewDecoder(resp.Body).Decode(&units); err != nil || len(units.Results) == 0 {
		t.Fatalf("units: %d %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	id := units.Results[0].ID
	if code, body := send(t, http.MethodPatch, base+"/api/units/"+strconv.FormatInt(id, 10)+"/", token,
		map[string]any{"target": []string{"x"}, "state": 20}); code != http.StatusOK {
		t.Fatalf("PATCH unit %d: %d %v", id, code, body)
	}
	if code, body := send(t, http.MethodPost, base+"/api/components/demo/app/repository/", token,
		map[string]string{"operation": "commit"}); code != http.StatusOK || body["result"] != true {
		t.Fatalf("commit: %d %v", code, body)
	}
	_, repo := send(t, http.MethodGet, base+"/api/components/demo/app/repository/", token, nil)
	msg, _ := repo["weblate_commit"].(map[string]any)["message"].(string)
	if want := "Translate-URL: " + base + "/projects/demo/app/de/"; !strings.Contains(msg, want) {
		t.Errorf("commit message:\n%s\nwant %q", msg, want)
	}
}

func TestListenURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:4321": "http://127.0.0.1:4321",
		"0.0.0.0:8080":   "http://localhost:8080",
		"[::]:8080":      "http://localhost:8080",
		"[::1]:8080":     "http://[::1]:8080",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := listenURL(a); got != want {
			t.Errorf("listenURL(%s) = %s, want %s", addr, got, want)
		}
	}
}

// TestProxyFlags checks that tolk serve's --trusted-proxy and --base-url
// reach the API: forwarded headers from a trusted peer shape every URL,
// and an invalid base URL stops the start with a message.
func TestProxyFlags(t *testing.T) {
	var stderr strings.Builder
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := run(ctx, []string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--base-url", "ftp://nope"}, io.Discard, &stderr); err == nil || !strings.Contains(err.Error(), "base URL") {
		t.Errorf("run with a bad base URL = %v", err)
	}

	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = t.TempDir(), "127.0.0.1:0", true
	cfg.TrustedProxies = []string{"127.0.0.1"}
	cfg.AllowedHosts = []string{"tolk.example.com"}
	m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
	openMain(t, m)
	defer m.Close()
	req, _ := http.NewRequest("GET", "http://"+m.Addr().String()+"/api/languages/de/", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("X-Forwarded-Host", "tolk.example.com")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lang map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&lang); err != nil {
		t.Fatal(err)
	}
	if lang["url"] != "https://tolk.example.com/api/languages/de/" {
		t.Errorf("url behind a trusted proxy = %v", lang["url"])
	}
}

// TestRateLimitFlags checks the reference's limits by default, the
// flags that change them, and that they reach the API.
func TestRateLimitFlags(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		anon, user string
	}{
		{nil, "100/day", "5000/hour"},
		{[]string{"--rate-limit-anon", "2/minute", "--rate-limit-user", "off"}, "2/minute", "off"},
		{[]string{"--rate-limit-anon=0", "--rate-limit-user=10/s"}, "off", "10/second"},
	} {
		cfg, err := serveConfig(tc.args, io.Discard)
		if err != nil || cfg.RateLimitAnon.String() != tc.anon || cfg.RateLimitUser.String() != tc.user {
			t.Errorf("serveConfig(%q) = %v and %v, %v; want %s and %s", tc.args, cfg.RateLimitAnon,
				cfg.RateLimitUser, err, tc.anon, tc.user)
		}
	}
	var stderr strings.Builder
	if _, err := serveConfig([]string{"--rate-limit-anon", "lots"}, &stderr); err == nil ||
		!strings.Contains(stderr.String(), `rate limit "lots"`) {
		t.Errorf("a bad limit: %v, %q", err, stderr.String())
	}

	m := mustRunMain(t, t.TempDir())
	defer m.Close()
	base := "http://" + m.Addr().String() + "/api/"
	for auth, want := range map[string]string{"": "100", adminToken(t, m): "5000"} {
		resp := getAs(t, base, auth)
		resp.Body.Close()
		if got := resp.Header.Get("X-RateLimit-Limit"); got != want || resp.Header.Get("X-RateLimit-Remaining") == "" {
			t.Errorf("X-RateLimit-Limit = %q (%v), want %s", got, resp.Header, want)
		}
	}
	if edge.DefaultAnonymousRateLimit.String() != "100/day" {
		t.Errorf("default anonymous limit = %v", edge.DefaultAnonymousRateLimit)
	}
}

// TestPullIntervalFlag checks --pull-interval (off by default, negative
// refused) and that serve starts the scheduler with it: the repository
// status lists the commit job and, with an interval, the pull.
func TestPullIntervalFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 0},
		{[]string{"--pull-interval", "30m"}, 30 * time.Minute},
	} {
		if cfg, err := serveConfig(tc.args, io.Discard); err != nil || cfg.PullInterval != tc.want {
			t.Errorf("serveConfig(%q) = %v, %v; want %v", tc.args, cfg.PullInterval, err, tc.want)
		}
	}
	var stderr strings.Builder
	if _, err := serveConfig([]string{"--pull-interval", "-1m"}, &stderr); err == nil ||
		!strings.Contains(stderr.String(), "--pull-interval must not be negative") {
		t.Errorf("a negative interval: %v, %q", err, stderr.String())
	}

	for _, interval := range []time.Duration{0, 30 * time.Minute} {
		cfg := DefaultConfig()
		cfg.DataDir, cfg.Listen, cfg.Demo, cfg.PullInterval = t.TempDir(), "127.0.0.1:0", true, interval
		m := mustRunConfig(t, cfg)
		resp := getAs(t, "http://"+m.Addr().String()+"/api/components/demo/app/repository/", adminToken(t, m))
		var repo struct {
			Jobs []struct {
				Name    string  `json:"name"`
				NextRun *string `json:"next_run"`
			} `json:"jobs"`
		}
		err := json.NewDecoder(resp.Body).Decode(&repo)
		resp.Body.Close()
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, j := range repo.Jobs {
			if j.NextRun == nil {
				t.Errorf("job %s has no next run", j.Name)
			}
			names = append(names, j.Name)
		}
		want := "commit"
		if interval > 0 {
			want = "commit,pull"
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("--pull-interval %s: jobs %q, want %q", interval, got, want)
		}
	}
}
