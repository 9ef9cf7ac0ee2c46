package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// Loopback is a whole /8 on Linux: a client dialing from 127.0.0.2 and
// one from 127.0.0.3 are two client addresses to the server on
// 127.0.0.1, with no traffic leaving the machine.
const (
	hogAddr   = "127.0.0.2"
	otherAddr = "127.0.0.3"
)

// dialFrom opens a keep-alive connection to m from the local address ip.
func dialFrom(tb testing.TB, m *Main, ip string) *keepAlive {
	tb.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	conn, err := d.Dial("tcp", m.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return &keepAlive{Conn: conn, r: bufio.NewReader(conn)}
}

// dialMany opens n connections from ip, in order, and has use send on
// each as it opens.
func dialMany(tb testing.TB, m *Main, ip string, n int, use func(*keepAlive)) []*keepAlive {
	tb.Helper()
	var conns []*keepAlive
	for range n {
		k := dialFrom(tb, m, ip)
		use(k)
		conns = append(conns, k)
	}
	return conns
}

// closedWithin reports whether the server closes k within d: a read
// ends in EOF or a reset, not a deadline.
func (k *keepAlive) closedWithin(d time.Duration) bool {
	k.SetReadDeadline(time.Now().Add(d))
	_, err := k.r.ReadByte()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// answeredWithin sends a GET on k and reports how long its 200 took, or
// fails the test when none came within d.
func (k *keepAlive) answeredWithin(tb testing.TB, d time.Duration) time.Duration {
	tb.Helper()
	start := time.Now()
	k.send(tb)
	status, err := k.receive(d)
	took := time.Since(start)
	if err != nil || status != http.StatusOK {
		tb.Fatalf("GET /api/ from %s: %d, %v after %s; want a 200 within %s", k.LocalAddr(), status, err, took, d)
	}
	return took
}

// sendPartial starts a request on k and leaves its headers unfinished:
// the connection is busy, not idle, until --read-header-timeout.
func (k *keepAlive) sendPartial(tb testing.TB) {
	tb.Helper()
	if _, err := fmt.Fprintf(k, "GET /api/ HTTP/1.1\r\nHost: %s\r\n", k.RemoteAddr()); err != nil {
		tb.Fatal(err)
	}
}

// Finding 3: one client that opened idle keep-alive connections up to
// the global cap locked every other client out for the whole idle
// timeout. Past --max-connections-per-client a client's idle connection
// is closed for its new one, or with none idle the new one is closed,
// and another client is answered at once.
func TestConnectionsPerClientCap(t *testing.T) {
	m := limitedMain(t, func(l *HTTPLimits) {
		l.MaxConnections, l.MaxConnectionsPerClient, l.IdleTimeout = 16, 4, 2*time.Minute
	})
	// One client opens idle connections up to the global cap; each is
	// answered, or closed for being past the client's cap.
	hog := dialMany(t, m, hogAddr, 16, func(k *keepAlive) {
		k.send(t)
		k.receive(2 * time.Second)
	})
	took := dialFrom(t, m, otherAddr).answeredWithin(t, time.Second)
	t.Logf("another client answered in %s", took)
	open := 0
	for _, k := range hog {
		if !k.closedWithin(50 * time.Millisecond) {
			open++
		}
	}
	if open > 4 {
		t.Errorf("one client holds %d connections open; want at most its cap of 4", open)
	}

	// With all four of its connections busy, a client's fifth is closed
	// at once.
	const busyAddr = "127.0.0.4"
	dialMany(t, m, busyAddr, 4, func(k *keepAlive) { k.sendPartial(t) })
	fifth := dialFrom(t, m, busyAddr)
	fifth.send(t)
	if status, err := fifth.receive(2 * time.Second); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a fifth connection of a client with four busy: %d, %v; want it closed", status, err)
	}
}

// At --max-connections, the connection idle longest is closed for a new
// one, instead of the new one waiting out --idle-timeout.
func TestMaxConnectionsClosesIdleFirst(t *testing.T) {
	m := limitedMain(t, func(l *HTTPLimits) {
		l.MaxConnections, l.MaxConnectionsPerClient, l.IdleTimeout = 4, 0, 2*time.Minute
	})
	// The server marks a connection idle after the client has read its
	// answer, so back-to-back requests could go idle out of order: each
	// waits a little before the next, so that the first is the one idle
	// longest in the server's eyes too.
	idle := dialMany(t, m, hogAddr, 4, func(k *keepAlive) { k.get(t); time.Sleep(50 * time.Millisecond) })
	took := dialFrom(t, m, otherAddr).answeredWithin(t, time.Second)
	t.Logf("a fifth connection answered in %s", took)
	if !idle[0].closedWithin(time.Second) {
		t.Errorf("the connection idle longest is still open")
	}
	for i, k := range idle[1:] {
		if k.closedWithin(100 * time.Millisecond) {
			t.Errorf("idle connection %d was closed too; want only the one idle longest", i+2)
		}
	}
}

// While more than 3/4 of --max-connections are open, a connection that
// goes idle waits --busy-idle-timeout for its next request, not
// --idle-timeout; below that it waits the whole --idle-timeout.
func TestBusyIdleTimeout(t *testing.T) {
	m := limitedMain(t, func(l *HTTPLimits) {
		l.MaxConnections, l.IdleTimeout, l.BusyIdleTimeout = 4, 2*time.Minute, 200*time.Millisecond
	})
	first := dialFrom(t, m, hogAddr)
	first.get(t)
	if first.closedWithin(600 * time.Millisecond) {
		t.Fatal("an idle connection with 1 of 4 open was closed before --idle-timeout")
	}
	for range 2 {
		dialFrom(t, m, otherAddr).get(t)
	}
	first.get(t) // idle again, now with 3 of 4 open
	start := time.Now()
	if !first.closedWithin(3 * time.Second) {
		t.Fatal("an idle connection with 3 of 4 open is still open after 3s; want closed after --busy-idle-timeout (200ms)")
	}
	t.Logf("closed after %s idle", time.Since(start))
}

// Behind a proxy every connection comes from the proxy's address: a
// --trusted-proxy is not capped per client (the proxy caps its own
// clients), or it would lock every client out past the cap.
func TestConnectionsPerClientCapExemptsTrustedProxies(t *testing.T) {
	const proxyAddr = "127.0.0.5"
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.TrustedProxies = t.TempDir(), "127.0.0.1:0", []string{proxyAddr}
	cfg.HTTP.MaxConnections, cfg.HTTP.MaxConnectionsPerClient = 16, 2
	m := mustRunConfig(t, cfg)
	t.Cleanup(func() { m.Close() })
	conns := dialMany(t, m, proxyAddr, 6, func(k *keepAlive) { k.get(t) })
	for i, k := range conns {
		if k.closedWithin(50 * time.Millisecond) {
			t.Errorf("the trusted proxy's connection %d of 6 was closed; want none past a cap of 2", i+1)
		}
	}
}
