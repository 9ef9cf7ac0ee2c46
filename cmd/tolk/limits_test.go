package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/sqlstore"
)

// keepAlive is a client connection that sends requests one after another
// on the same connection.
type keepAlive struct {
	net.Conn
	r *bufio.Reader
}

func dialKeepAlive(tb testing.TB, m *Main) *keepAlive {
	tb.Helper()
	conn, err := net.Dial("tcp", m.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return &keepAlive{Conn: conn, r: bufio.NewReader(conn)}
}

// send writes a GET of /api/ without waiting for the answer.
func (k *keepAlive) send(tb testing.TB) {
	tb.Helper()
	if _, err := fmt.Fprintf(k, "GET /api/ HTTP/1.1\r\nHost: %s\r\n\r\n", k.RemoteAddr()); err != nil {
		tb.Fatal(err)
	}
}

// receive reads one response within d.
func (k *keepAlive) receive(d time.Duration) (int, error) {
	k.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(k.r, nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

func (k *keepAlive) get(tb testing.TB) {
	tb.Helper()
	k.send(tb)
	if status, err := k.receive(5 * time.Second); err != nil || status != http.StatusOK {
		tb.Fatalf("GET /api/ = %d, %v", status, err)
	}
}

func limitedMain(tb testing.TB, lim func(*HTTPLimits)) *Main {
	tb.Helper()
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen = tb.TempDir(), "127.0.0.1:0"
	lim(&cfg.HTTP)
	m := mustRunConfig(tb, cfg)
	tb.Cleanup(func() { m.Close() })
	return m
}

// An idle keep-alive connection is closed after --idle-timeout, so idle
// clients cannot pile up until the descriptors run out.
func TestIdleTimeoutClosesKeepAlive(t *testing.T) {
	m := limitedMain(t, func(l *HTTPLimits) { l.IdleTimeout = 200 * time.Millisecond })
	k := dialKeepAlive(t, m)
	k.get(t)
	k.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	n, err := k.r.ReadByte()
	if !errors.Is(err, io.EOF) {
		t.Fatalf("an idle keep-alive connection after 5s: read %q, %v; want EOF once the idle timeout passed", n, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("idle connection closed after %s, want about 200ms", d)
	}
}

// Past --max-connections, with none of the open connections idle, a new
// connection waits (in the listen backlog) until one of them closes.
func TestMaxConnectionsQueues(t *testing.T) {
	m := limitedMain(t, func(l *HTTPLimits) { l.MaxConnections = 2 })
	first, second := dialKeepAlive(t, m), dialKeepAlive(t, m)
	// Busy: a request's headers begun, not finished.
	first.sendPartial(t)
	second.sendPartial(t)
	third := dialKeepAlive(t, m)
	third.send(t)
	if status, err := third.receive(500 * time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a third connection with two open and a cap of 2 got %d, %v; want no answer yet", status, err)
	}
	first.Close()
	if status, err := third.receive(5 * time.Second); err != nil || status != http.StatusOK {
		t.Fatalf("the third connection once the first closed: %d, %v; want 200", status, err)
	}
}

// TestHTTPLimitFlags checks the defaults, the flags and what is refused.
func TestHTTPLimitFlags(t *testing.T) {
	cfg, err := serveConfig(nil, io.Discard)
	if err != nil || cfg.HTTP != DefaultHTTPLimits || cfg.PageCacheBytes != sqlstore.DefaultPageCacheBytes {
		t.Errorf("defaults = %+v, %v; want %+v", cfg.HTTP, err, DefaultHTTPLimits)
	}
	cfg, err = serveConfig([]string{"--read-header-timeout", "1s", "--read-timeout", "2s",
		"--write-timeout", "3s", "--idle-timeout", "4s", "--max-connections", "5",
		"--max-connections-per-client", "6", "--busy-idle-timeout", "7s"}, io.Discard)
	if cfg, err := serveConfig([]string{"--page-cache-size", "8MiB"}, io.Discard); err != nil || cfg.PageCacheBytes != 8<<20 {
		t.Errorf("--page-cache-size 8MiB = %d, %v", cfg.PageCacheBytes, err)
	}
	want := HTTPLimits{ReadHeaderTimeout: time.Second, ReadTimeout: 2 * time.Second,
		WriteTimeout: 3 * time.Second, IdleTimeout: 4 * time.Second, MaxConnections: 5,
		MaxConnectionsPerClient: 6, BusyIdleTimeout: 7 * time.Second}
	if err != nil || cfg.HTTP != want {
		t.Errorf("flags = %+v, %v; want %+v", cfg.HTTP, err, want)
	}
	for _, args := range [][]string{{"--idle-timeout", "-1s"}, {"--max-connections", "0"},
		{"--max-connections-per-client", "-1"}, {"--busy-idle-timeout", "-1s"},
		{"--db-pool-size", "-1"}, {"--db-writers", "-2"}} {
		var stderr strings.Builder
		if _, err := serveConfig(args, &stderr); err == nil || !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("serveConfig(%q) = %v, %q; want refused naming the flag", args, err, stderr.String())
		}
	}
}

// TestAllowedHostFlag: without --base-url, serve answers a forged Host
// with a 400 and the hosts of --allowed-host with URLs under them.
func TestAllowedHostFlag(t *testing.T) {
	cfg, err := serveConfig([]string{"--allowed-host", "tolk.example.com, .example.net", "--allowed-host", "*"}, io.Discard)
	if want := []string{"tolk.example.com", ".example.net", "*"}; err != nil || !slices.Equal(cfg.AllowedHosts, want) {
		t.Errorf("--allowed-host = %q, %v; want %q", cfg.AllowedHosts, err, want)
	}
	m := limitedMain(t, func(*HTTPLimits) {})
	m2cfg := m.Config
	m2cfg.DataDir, m2cfg.AllowedHosts = t.TempDir(), []string{"tolk.example.com"}
	m2 := mustRunConfig(t, m2cfg)
	defer m2.Close()
	for _, tc := range []struct {
		m      *Main
		host   string
		status int
	}{{m, "evil.example", 400}, {m, "localhost", 200}, {m2, "evil.example", 400}, {m2, "tolk.example.com", 200}} {
		req, _ := http.NewRequest("GET", "http://"+tc.m.Addr().String()+"/api/languages/de/", nil)
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || tc.status == 200 && !strings.Contains(string(body), `"url":"http://`+tc.host+`/api/languages/de/"`) {
			t.Errorf("Host %s with allowed hosts %q: %d %s, want %d", tc.host, tc.m.Config.AllowedHosts, resp.StatusCode, body, tc.status)
		}
	}
	bad := m.Config
	bad.DataDir, bad.AllowedHosts = t.TempDir(), []string{"https://tolk.example.com/"}
	if err := (&Main{Config: bad}).Open(t.Context()); err == nil || !strings.Contains(err.Error(), "allowed host") {
		t.Errorf("Open with a URL as allowed host = %v, want refused", err)
	}
}
