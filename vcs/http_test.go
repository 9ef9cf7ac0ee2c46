package vcs

import (
	"context"
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// TestHTTPStatusErrors checks how failures of an http(s) remote are
// reported, and that credentials never appear in the messages.
func TestHTTPStatusErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status  int
		wantErr error
		gitErr  error
	}{
		{status: http.StatusUnauthorized, wantErr: ErrAuthRequired, gitErr: transport.ErrAuthenticationRequired},
		{status: http.StatusForbidden, wantErr: ErrAuthRequired, gitErr: transport.ErrAuthorizationFailed},
		{status: http.StatusNotFound, wantErr: ErrRemoteNotFound, gitErr: transport.ErrRepositoryNotFound},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, http.StatusText(tc.status), tc.status)
			}))
			defer srv.Close()
			url := strings.Replace(srv.URL, "http://", "http://tok3n:s3cret@", 1) + "/org/repo.git"
			_, err := Clone(context.Background(), CloneOptions{
				URL:  url,
				Dir:  filepath.Join(t.TempDir(), "c"),
				Auth: &Auth{Username: "bob", Password: "hunter2"},
			})
			if !errors.Is(err, tc.wantErr) || !errors.Is(err, tc.gitErr) {
				t.Fatalf("Clone = %v, want %v and %v", err, tc.wantErr, tc.gitErr)
			}
			for _, secret := range []string{"tok3n", "s3cret", "hunter2"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error shows %q: %v", secret, err)
				}
			}
			t.Logf("error: %v", err)
		})
	}
}

// TestHTTPRemote clones, pulls and pushes through git's smart HTTP server
// (git http-backend) behind basic authentication.
func TestHTTPRemote(t *testing.T) {
	t.Parallel()
	url := mustBareRepo(t, sampleFiles)
	bare := bareDir(url)
	cgiHandler := mustHTTPBackend(t, bare)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "t0ken" {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		cgiHandler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	remote := srv.URL + "/git/" + filepath.Base(bare)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "c")

	if _, err := Clone(ctx, CloneOptions{URL: remote, Dir: dir}); !errors.Is(err, ErrAuthRequired) {
		t.Fatalf("Clone without credentials = %v, want ErrAuthRequired", err)
	}
	auth := &Auth{Username: "alice", Password: "t0ken"}
	r, err := Clone(ctx, CloneOptions{URL: remote, Dir: dir, Auth: auth})
	if err != nil {
		t.Fatalf("Clone: %v", err)
	}
	if got := mustReadFile(t, r, "locales/de.json"); got != sampleFiles["locales/de.json"] {
		t.Errorf("ReadFile = %q", got)
	}
	up := upstreamCommit(t, url, "main", map[string]string{"locales/de.json": "{}"})
	if changed, err := r.Pull(ctx); !changed || err != nil {
		t.Fatalf("Pull = %v, %v; want true, nil", changed, err)
	}
	if got := mustHead(t, r); got != up {
		t.Errorf("HEAD after pull = %s, want %s", got, up)
	}
	h := mustCommit(t, r, map[string]string{"locales/fr.json": "{}"})
	if err := r.Push(ctx, ""); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if got := mustGit(t, bare, "rev-parse", "main"); got != h {
		t.Errorf("upstream main = %s, want %s", got, h)
	}

	// A reopened checkout has no credentials until SetAuth.
	o, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Pull(ctx); !errors.Is(err, ErrAuthRequired) {
		t.Errorf("Pull without credentials = %v, want ErrAuthRequired", err)
	}
	o.SetAuth(auth)
	if changed, err := o.Pull(ctx); changed || err != nil {
		t.Errorf("Pull with credentials = %v, %v; want false, nil", changed, err)
	}
}

func TestAuthRedacts(t *testing.T) {
	t.Parallel()
	a := Auth{Username: "alice", Password: "t0ken", SSHKey: []byte("-----BEGIN KEY-----"), SSHKeyPassphrase: "pp"}
	for _, s := range []string{a.String(), a.LogValue().String()} {
		if strings.Contains(s, "t0ken") || strings.Contains(s, "BEGIN") || strings.Contains(s, "pp") {
			t.Errorf("Auth shows a secret: %s", s)
		}
		if !strings.Contains(s, "alice") {
			t.Errorf("Auth hides the user name: %s", s)
		}
	}
	if got := redactURL("https://tok3n@example.com/r.git"); got != "https://xxxxx@example.com/r.git" {
		t.Errorf("redactURL(https token) = %s", got)
	}
	if got := redactURL("ssh://git:pw@example.com/r.git"); got != "ssh://git:xxxxx@example.com/r.git" {
		t.Errorf("redactURL(ssh password) = %s", got)
	}
	if got := redactURL("git@example.com:org/r.git"); got != "git@example.com:org/r.git" {
		t.Errorf("redactURL(scp-like) = %s", got)
	}
}

// mustHTTPBackend serves the bare repository at bare, and its siblings,
// through git's smart HTTP server (git http-backend) under /git/<name>,
// pushes allowed.
func mustHTTPBackend(tb testing.TB, bare string) http.Handler {
	tb.Helper()
	mustGit(tb, bare, "config", "http.receivepack", "true")
	backend := filepath.Join(mustGit(tb, "/", "--exec-path"), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		tb.Skipf("git http-backend not available: %v", err)
	}
	return &cgi.Handler{
		Path: backend,
		Root: "/git",
		Env: append([]string{
			"GIT_PROJECT_ROOT=" + filepath.Dir(bare), "GIT_HTTP_EXPORT_ALL=1",
		}, gitEnv...),
	}
}
