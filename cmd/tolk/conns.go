package main

import (
	clist "container/list"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/edge"
)

// connGuard is the HTTP server's listener: it bounds the connections
// the server holds, so that one client's idle keep-alive connections
// cannot lock the others out for a whole idle timeout.
//
//   - At most max connections are open. At the cap, the connection idle
//     longest (between two requests) is closed for the next one; with
//     none idle, Accept waits, and new connections wait in the kernel's
//     listen backlog, until one closes or goes idle.
//   - One client address (IPv6: its /64, edge.ClientKey) holds at most
//     perClient; past that its idle connection waiting longest is closed
//     for the new one, or with none idle the new one is closed at once.
//     Addresses in exempt (the trusted proxies, whose connections carry
//     every client's requests) are not capped; a proxy in front must cap
//     its own clients.
//   - While 3/4 of max or more are open, a connection that goes idle
//     waits busyIdle for its next request rather than the server's
//     IdleTimeout.
//
// Closing an idle connection is what the server's own idle timeout does:
// a client that sent its next request just then sees the connection
// close before any answer, and HTTP/1.1 clients retry idempotent
// requests on a new connection (RFC 9112, section 9.3.1).
//
// The http.Server must call ConnState on every change of state (its
// ConnState field), and Serve Accept from one goroutine. It is safe for
// concurrent use.
type connGuard struct {
	net.Listener
	max, perClient int
	busyIdle       time.Duration
	exempt         []netip.Prefix
	log            *slog.Logger

	mu sync.Mutex // guards open, clients, idle, refused, lastWarn and each conn's idleAt and gone
	// open counts the connections accepted and not closed.
	open    int
	clients map[string]int // connections per capped client key
	idle    clist.List     // of *guardedConn, in the order they went idle
	// refused counts connections refused since lastWarn, which logs
	// them at most once per refusedLogEvery.
	refused  int
	lastWarn time.Time

	wake chan struct{} // a slot freed or a connection went idle; holds at most one
	done chan struct{} // closed by Close
	stop sync.Once
}

// refusedLogEvery spaces the warnings about refused connections, which
// a flood would otherwise repeat for every one.
const refusedLogEvery = 10 * time.Second

// newConnGuard guards ln with the limits of lim, exempting the trusted
// proxies from the cap per client.
func newConnGuard(ln net.Listener, lim HTTPLimits, exempt []netip.Prefix, log *slog.Logger) *connGuard {
	return &connGuard{Listener: ln, max: lim.MaxConnections, perClient: lim.MaxConnectionsPerClient,
		busyIdle: lim.BusyIdleTimeout, exempt: exempt, log: log, clients: map[string]int{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// guardedConn is a connection the guard counts.
type guardedConn struct {
	net.Conn
	g *connGuard
	// key is the client's edge.ClientKey; "" when it is exempt from the
	// cap per client.
	key string
	// idleAt is its element in g.idle while it waits between requests;
	// gone is set once its slot is given back. Both guarded by g.mu.
	idleAt *clist.Element
	gone   bool
	// shortIdle makes the next read deadline, the server's idle timeout,
	// no later than busyIdle from then.
	shortIdle atomic.Bool
}

// Accept returns the next connection its client may open, once there
// is room for one: a free slot, or an idle connection to close for it.
func (g *connGuard) Accept() (net.Conn, error) {
	for {
		if err := g.waitRoom(); err != nil {
			return nil, err
		}
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		gc, err := g.admit(c)
		if err != nil {
			return nil, err
		}
		if gc != nil {
			return gc, nil
		}
	}
}

// waitRoom returns once a connection could be admitted: fewer than max
// are open, or one of them is idle. Until then new connections wait in
// the listen backlog. An idle connection is closed only once a new one
// has come, never ahead of it.
func (g *connGuard) waitRoom() error {
	for {
		g.mu.Lock()
		room := g.open < g.max || g.idle.Len() > 0
		g.mu.Unlock()
		if room {
			return nil
		}
		select {
		case <-g.wake:
		case <-g.done:
			return net.ErrClosed
		}
	}
}

// admit counts c against its client and the cap. A client at its cap
// has its idle connection waiting longest closed for c, or with none
// idle c is closed and admit returns nil. At the cap in all, the
// connection idle longest is closed for c; should every connection have
// become busy since waitRoom, admit waits, holding c, for one to close
// or go idle.
func (g *connGuard) admit(c net.Conn) (*guardedConn, error) {
	gc := &guardedConn{Conn: c, g: g}
	if addr := remoteAddr(c); g.perClient > 0 && !g.exempted(addr) {
		gc.key = edge.ClientKey(addr.String())
	}
	var victims []*guardedConn
	// Closed outside the lock: their Close takes it.
	closeVictims := func() {
		for _, v := range victims {
			v.Conn.Close()
		}
		victims = victims[:0]
	}
	g.mu.Lock()
	if gc.key != "" && g.clients[gc.key] >= g.perClient {
		v := g.oldestIdle(gc.key)
		if v == nil {
			g.refused++
			g.warnRefused(gc.key)
			g.mu.Unlock()
			c.Close()
			return nil, nil
		}
		g.forget(v)
		victims = append(victims, v)
	}
	for g.open >= g.max {
		if v := g.oldestIdle(""); v != nil {
			g.forget(v)
			victims = append(victims, v)
			continue
		}
		g.mu.Unlock()
		closeVictims()
		select {
		case <-g.wake:
		case <-g.done:
			c.Close()
			return nil, net.ErrClosed
		}
		g.mu.Lock()
	}
	g.open++
	if gc.key != "" {
		g.clients[gc.key]++
	}
	g.mu.Unlock()
	closeVictims()
	return gc, nil
}

// warnRefused logs refused connections at most once per
// refusedLogEvery; g.mu must be held.
func (g *connGuard) warnRefused(key string) {
	now := time.Now()
	if now.Sub(g.lastWarn) < refusedLogEvery {
		return
	}
	g.log.Warn("connections refused: client at its connection cap", "client", key,
		"max_connections_per_client", g.perClient, "refused", g.refused)
	g.lastWarn, g.refused = now, 0
}

// remoteAddr is c's peer address; the zero Addr when it has none.
func remoteAddr(c net.Conn) netip.Addr {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

func (g *connGuard) exempted(addr netip.Addr) bool {
	for _, p := range g.exempt {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// oldestIdle is the connection idle longest, of the client key or, for
// "", of anyone; nil when none is idle. g.mu must be held.
func (g *connGuard) oldestIdle(key string) *guardedConn {
	for e := g.idle.Front(); e != nil; e = e.Next() {
		if c := e.Value.(*guardedConn); key == "" || c.key == key {
			return c
		}
	}
	return nil
}

// forget gives back c's slot and its place in its client's count, once;
// g.mu must be held.
func (g *connGuard) forget(c *guardedConn) {
	if c.gone {
		return
	}
	c.gone = true
	g.open--
	if c.key != "" {
		if g.clients[c.key]--; g.clients[c.key] <= 0 {
			delete(g.clients, c.key)
		}
	}
	if c.idleAt != nil {
		g.idle.Remove(c.idleAt)
		c.idleAt = nil
	}
}

// signal wakes a waiting Accept, if any.
func (g *connGuard) signal() {
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// ConnState hears the server's changes of a connection's state: an idle
// connection may be closed for a new one, and under pressure waits
// busyIdle at most.
func (g *connGuard) ConnState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*guardedConn)
	if !ok {
		return
	}
	g.mu.Lock()
	if c.gone {
		g.mu.Unlock()
		return
	}
	if c.idleAt != nil {
		g.idle.Remove(c.idleAt)
		c.idleAt = nil
	}
	idle := st == http.StateIdle
	if idle {
		c.idleAt = g.idle.PushBack(c)
		// 3/4 of the cap open is pressure.
		c.shortIdle.Store(g.busyIdle > 0 && 4*g.open >= 3*g.max)
	}
	g.mu.Unlock()
	if idle {
		g.signal()
	}
}

// Close stops Accept and closes the listener.
func (g *connGuard) Close() error {
	g.stop.Do(func() { close(g.done) })
	return g.Listener.Close()
}

// Close gives the connection's slot back and closes it.
func (c *guardedConn) Close() error {
	c.g.mu.Lock()
	c.g.forget(c)
	c.g.mu.Unlock()
	c.g.signal()
	return c.Conn.Close()
}

// SetReadDeadline shortens the first deadline set after the connection
// went idle under pressure: net/http sets its idle timeout right after
// it reports StateIdle, and the deadlines of the next request's headers
// and body only after that.
func (c *guardedConn) SetReadDeadline(t time.Time) error {
	if c.shortIdle.Swap(false) {
		if short := time.Now().Add(c.g.busyIdle); t.IsZero() || t.After(short) {
			t = short
		}
	}
	return c.Conn.SetReadDeadline(t)
}
