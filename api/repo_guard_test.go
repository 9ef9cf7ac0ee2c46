package api_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/internal/servertest"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// TestComponentRepoPrivateAddress: a project administrator (no
// superuser) names a repository on an internal HTTP service. Tolk
// refuses it without a request reaching the service, unless the server
// allows private repositories; either way the service's answer is not
// repeated to the client.
func TestComponentRepoPrivateAddress(t *testing.T) {
	bare := strings.TrimPrefix(appRepo(t), "file://")
	var hits atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if strings.HasPrefix(r.URL.Path, "/app.git/") {
			(&vcs.Export{Dir: bare}).ServeHTTP(w, r)
			return
		}
		http.Error(w, "SECRET internal", http.StatusNotFound)
	}))
	t.Cleanup(internal.Close)

	for _, tc := range []struct {
		name         string
		allowPrivate bool
		path         string
		status       int
	}{
		{"refused", false, "/app.git", 400},
		{"refused, no repository", false, "/admin", 400},
		{"allowed", true, "/app.git", 201},
		{"allowed, no repository", true, "/admin", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, admin := guardEnv(t, tolksync.Options{AllowPrivateRepos: tc.allowPrivate})
			before := hits.Load()
			r := servertest.DoJSON(t, "POST", srv.URL+"/api/projects/demo/components/", admin, map[string]any{
				"name": "Web", "slug": "web", "repo": internal.URL + tc.path, "filemask": "locales/*.json",
				"template": "locales/en.json", "file_format": "json"})
			reached := hits.Load() - before
			if r.Status != tc.status || strings.Contains(string(r.Body), "SECRET") {
				t.Errorf("create = %d %s, want %d without the service's answer", r.Status, r.Body, tc.status)
			}
			if tc.status == 400 && !strings.Contains(string(r.Body), `"attr":"repo"`) {
				t.Errorf("create = %s, want an error on repo", r.Body)
			}
			if !tc.allowPrivate && (reached != 0 || !strings.Contains(string(r.Body), "private")) {
				t.Errorf("refused create: %d requests reached the service; answer %s", reached, r.Body)
			}
			if tc.allowPrivate && reached == 0 {
				t.Errorf("allowed create made no request")
			}
		})
	}
}

// guardEnv serves the demo project over a sync service with opts and
// returns the server and a token of the project's administrator.
func guardEnv(tb testing.TB, opts tolksync.Options) (*servertest.Running, string) {
	tb.Helper()
	db := servertest.MustOpenDB(tb)
	servertest.SeedDemo(tb, db)
	opts.DataDir = filepath.Join(tb.TempDir(), "data")
	svc, err := tolksync.New(db, langdata.Default(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { svc.Close() })
	srv := servertest.Serve(tb, db, servertest.Options{Components: svc})
	return srv, servertest.MustUser(tb, db, "ada", false, [2]string{"Administration", "demo"})
}
