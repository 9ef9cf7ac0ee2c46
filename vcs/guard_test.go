package vcs

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"
)

// errRefused is what the guards of these tests refuse with.
var errRefused = errors.New("refused by the test's guard")

// refuseAll refuses every connection.
func refuseAll(_, _ string) error { return errRefused }

// countingServer serves h on 127.0.0.1 and counts the requests that
// reach it.
func countingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestGuardHTTP: a guard judges every connection of a clone, a pull and
// a push over http, with the address dialled; what it refuses is never
// reached, and the operation's error carries the guard's.
func TestGuardHTTP(t *testing.T) {
	t.Parallel()
	bare := bareDir(mustBareRepo(t, sampleFiles))
	srv, hits := countingServer(t, mustHTTPBackend(t, bare))
	remote := srv.URL + "/git/" + filepath.Base(bare)
	ctx := context.Background()

	_, err := Clone(ctx, CloneOptions{URL: remote, Dir: filepath.Join(t.TempDir(), "c"), Guard: refuseAll})
	if !errors.Is(err, errRefused) || hits.Load() != 0 {
		t.Fatalf("guarded Clone = %v after %d requests; want refused before any", err, hits.Load())
	}

	var mu sync.Mutex
	var seen []string
	allow := func(network, address string) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, network+" "+address)
		return nil
	}
	r, err := Clone(ctx, CloneOptions{URL: remote, Dir: filepath.Join(t.TempDir(), "c"), Guard: allow})
	if err != nil {
		t.Fatalf("Clone with a guard that allows: %v", err)
	}
	want := strings.TrimPrefix(srv.URL, "http://")
	if len(seen) == 0 || !strings.HasSuffix(seen[0], " "+want) || !strings.HasPrefix(seen[0], "tcp") {
		t.Errorf("the guard saw %q, want tcp connections to %s", seen, want)
	}

	r.SetGuard(refuseAll)
	before := hits.Load()
	if _, err := r.Pull(ctx); !errors.Is(err, errRefused) {
		t.Errorf("guarded Pull = %v, want refused", err)
	}
	mustCommit(t, r, map[string]string{"locales/fr.json": "{}"})
	if err := r.Push(ctx, ""); !errors.Is(err, errRefused) {
		t.Errorf("guarded Push = %v, want refused", err)
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("the refused pull and push made %d requests", n)
	}
	r.SetGuard(nil)
	if err := r.Push(ctx, ""); err != nil {
		t.Errorf("Push without a guard: %v", err)
	}
}

// TestGuardRedirect: a redirect is a new connection, judged again, so an
// allowed remote cannot send a clone on to one the guard refuses.
func TestGuardRedirect(t *testing.T) {
	t.Parallel()
	bare := bareDir(mustBareRepo(t, sampleFiles))
	private, hits := countingServer(t, mustHTTPBackend(t, bare))
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	t.Cleanup(public.Close)
	allowed := strings.TrimPrefix(public.URL, "http://")
	guard := func(_, address string) error {
		if address != allowed {
			return errRefused
		}
		return nil
	}
	_, err := Clone(context.Background(), CloneOptions{URL: public.URL + "/git/" + filepath.Base(bare),
		Dir: filepath.Join(t.TempDir(), "c"), Guard: guard})
	if !errors.Is(err, errRefused) || hits.Load() != 0 {
		t.Errorf("Clone redirected to %s = %v after %d requests there; want refused before any", private.URL, err, hits.Load())
	}
}

// TestRemoteBodyNotEchoed: what a remote answers besides git is not
// repeated in errors, which reach API clients: a URL may name a service
// that is no git host, and its answer is none of the client's business.
// The status says what went wrong.
func TestRemoteBodyNotEchoed(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden,
		http.StatusNotFound, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			srv, _ := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(status)
				fmt.Fprint(w, "SECRET internal")
			}))
			_, err := Clone(context.Background(), CloneOptions{URL: srv.URL + "/x.git", Dir: filepath.Join(t.TempDir(), "c")})
			if err == nil || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("Clone = %v, want a failure without the remote's body", err)
			}
		})
	}
}

// TestGuardSSH: over ssh the guard judges the address connected to
// before any credential is offered.
func TestGuardSSH(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	var attempts atomic.Int64
	cfg := &ssh.ServerConfig{PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) {
		attempts.Add(1)
		return nil, errors.New("no")
	}}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				ssh.NewServerConn(conn, cfg) //nolint:errcheck // the client is refused either way
			}()
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	knownHosts := filepath.Join(t.TempDir(), "known_hosts")
	line := fmt.Sprintf("[%s]:%s %s", host, port, ssh.MarshalAuthorizedKey(signer.PublicKey()))
	if err := os.WriteFile(knownHosts, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_KNOWN_HOSTS", knownHosts)
	url := "ssh://git@" + ln.Addr().String() + "/x.git"
	clone := func(g Guard) error {
		_, err := Clone(context.Background(), CloneOptions{URL: url, Dir: filepath.Join(t.TempDir(), "c"),
			Auth: &Auth{Password: "pw"}, Guard: g})
		return err
	}
	if err := clone(refuseAll); !errors.Is(err, errRefused) || attempts.Load() != 0 {
		t.Errorf("guarded ssh Clone = %v after %d authentications; want refused before any", err, attempts.Load())
	}
	// Without the guard the same clone gets as far as authenticating: the
	// server above is reachable, so the refusal was the guard's.
	if err := clone(nil); err == nil || attempts.Load() == 0 {
		t.Errorf("unguarded ssh Clone = %v after %d authentications; want a refused password", err, attempts.Load())
	}
}
