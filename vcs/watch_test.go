package vcs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// silentRemote accepts connections and never answers; it returns an
// http:// repository URL on it.
func silentRemote(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range held {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/x.git"
}

// TestCloneTimeouts: a remote that never answers fails a clone after the
// stall timeout, or after the total one, with an error saying which;
// nothing is left in the checkout's directory.
func TestCloneTimeouts(t *testing.T) {
	t.Parallel()
	url := silentRemote(t)
	for _, tc := range []struct {
		name     string
		timeouts Timeouts
		want     error
	}{
		{"stall", Timeouts{Stall: 300 * time.Millisecond}, ErrStalled},
		{"total", Timeouts{Stall: -1, Total: 300 * time.Millisecond}, ErrTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "c")
			start := time.Now()
			_, err := Clone(context.Background(), CloneOptions{URL: url, Dir: dir, Timeouts: tc.timeouts})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), url) {
				t.Errorf("Clone = %v, want %v naming %s", err, tc.want, url)
			}
			if errors.Is(err, context.Canceled) {
				t.Errorf("Clone = %v: reads as the caller's cancellation", err)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("Clone took %v", took)
			}
			if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// TestSlowCloneNotStalled serves a repository over HTTP in small pieces
// with pauses: the clone takes several stall timeouts in all but keeps
// receiving, so it succeeds. A fetch from the same server once it hangs
// fails with ErrStalled.
func TestSlowCloneNotStalled(t *testing.T) {
	t.Parallel()
	big := make([]byte, 300<<10) // random: the pack cannot compress it
	rand.Read(big)
	url := mustBareRepo(t, map[string]string{"locales/en.json": `{"a": "` + hex.EncodeToString(big) + `"}`})
	bare := bareDir(url)
	backend := filepath.Join(mustGit(t, "/", "--exec-path"), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("git http-backend not available: %v", err)
	}
	cgiHandler := &cgi.Handler{Path: backend, Root: "/git",
		Env: append([]string{"GIT_PROJECT_ROOT=" + filepath.Dir(bare), "GIT_HTTP_EXPORT_ALL=1"}, gitEnv...)}
	var hang atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			<-r.Context().Done()
			return
		}
		cgiHandler.ServeHTTP(&trickle{w: w}, r)
	}))
	defer srv.Close()
	// go-git sees the pack a packet (up to 64 KiB) at a time: 0.4 s
	// each at this pace, over 2 s in all.
	stall := time.Second
	start := time.Now()
	r, err := Clone(context.Background(), CloneOptions{URL: srv.URL + "/git/" + filepath.Base(bare),
		Dir: filepath.Join(t.TempDir(), "c"), Timeouts: Timeouts{Stall: stall}})
	if err != nil {
		t.Fatalf("slow clone: %v", err)
	}
	if took := time.Since(start); took < 3*stall/2 {
		t.Fatalf("clone took %v: too fast to test the stall timeout of %v", took, stall)
	}
	hang.Store(true)
	r.SetTimeouts(Timeouts{Stall: 300 * time.Millisecond})
	if _, err := r.Fetch(context.Background()); !errors.Is(err, ErrStalled) {
		t.Errorf("Fetch from a hanging remote = %v, want ErrStalled", err)
	}
}

// trickle writes a response 8 KiB at a time, 50 ms apart.
type trickle struct{ w http.ResponseWriter }

func (t *trickle) Header() http.Header  { return t.w.Header() }
func (t *trickle) WriteHeader(code int) { t.w.WriteHeader(code) }
func (t *trickle) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), 8<<10)
		m, err := t.w.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		t.w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond)
		p = p[k:]
	}
	return n, nil
}
