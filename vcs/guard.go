package vcs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
)

// Guard judges each connection a clone, fetch, push or listing of the
// remote opens: network is "tcp", "tcp4" or "tcp6" and address the IP
// address and port connected to, after name resolution
// ("203.0.113.7:443"). A non-nil error refuses the connection, and the
// operation fails with an error that wraps it.
//
// Over http and https the guard runs before the connection is made, at
// every connection (redirects included), so a name that resolves to
// another address later is judged again; guarded requests use no proxy
// from the environment (the guard would judge the proxy, not the
// remote) and no connection is reused. Over ssh, go-git offers no hook
// before the connection: the guard judges the connected peer before the
// host key is checked and before any credential is offered, so only the
// TCP handshake and ssh's version exchange reach a refused address.
// file:// remotes and plain paths make no connection; git:// remotes
// cannot be guarded and are refused when a guard is set.
type Guard func(network, address string) error

// errGitProtocolGuarded refuses a git:// remote under a guard: go-git
// dials it with no hook at all.
var errGitProtocolGuarded = errors.New("vcs: git:// remotes cannot be guarded; use https or ssh")

// guardKey is the context key of the guard of one operation.
type guardKey struct{}

// remoteSetup returns the context and the go-git authentication of an
// operation on rawURL with credentials a under guard g (nil: none): the
// context carries g to the http dials, and an ssh authentication checks
// the peer with it.
func remoteSetup(ctx context.Context, a *Auth, g Guard, rawURL string) (context.Context, transport.AuthMethod, error) {
	auth, err := a.method(rawURL)
	if err != nil || g == nil {
		return ctx, auth, err
	}
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return ctx, nil, err
	}
	switch ep.Protocol {
	case "git":
		return ctx, nil, errGitProtocolGuarded
	case "ssh":
		if auth, err = guardSSH(auth, ep, g); err != nil {
			return ctx, nil, err
		}
	}
	return context.WithValue(ctx, guardKey{}, g), auth, nil
}

func guardFrom(ctx context.Context) Guard {
	g, _ := ctx.Value(guardKey{}).(Guard)
	return g
}

// go-git's http and https clients are process-wide; vcs installs its own
// once, which sends a guarded operation's requests through guardedHTTP
// and any other through http.DefaultTransport, as go-git's default
// client does. Both drop the body of a non-2xx answer (remoteTransport).
func init() {
	c := githttp.NewClient(&http.Client{Transport: remoteTransport{}})
	client.InstallProtocol("http", c)
	client.InstallProtocol("https", c)
}

// guardedHTTP dials under the guard of the request's context. Keep-alives
// are off so that every request is judged at its own dial: a connection
// one guard allowed is never reused under another.
var guardedHTTP = &http.Transport{
	Proxy: nil,
	DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second,
		ControlContext: guardControl}).DialContext,
	TLSHandshakeTimeout:   10 * time.Second,
	ExpectContinueTimeout: time.Second,
	DisableKeepAlives:     true,
}

// guardControl is guardedHTTP's net.Dialer.ControlContext: the context is
// the request's (net/http keeps its values for the dial).
func guardControl(ctx context.Context, network, address string, _ syscall.RawConn) error {
	g := guardFrom(ctx)
	if g == nil {
		return errors.New("vcs: guarded dial without a guard") // a bug: refuse rather than connect
	}
	return g(network, address)
}

// remoteTransport is the http.RoundTripper of go-git's http client. vcs
// never sets the options (proxy, CA bundle, client certificates,
// insecure TLS) for which go-git needs an *http.Transport of its own.
type remoteTransport struct{}

func (remoteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt := http.DefaultTransport
	if guardFrom(req.Context()) != nil {
		rt = guardedHTTP
	}
	resp, err := rt.RoundTrip(req)
	if err == nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		// go-git puts the body of a 401, 403 or 404 in its error, which
		// reaches API clients; the remote may be no git host, and the
		// status says what went wrong.
		resp.Body.Close()
		resp.Body, resp.ContentLength = http.NoBody, 0
	}
	return resp, err
}

// guardedSSH is an ssh authentication that refuses, before the host key
// is checked, a peer its guard refuses.
type guardedSSH struct {
	gitssh.AuthMethod
	guard Guard
	host  string // host:port, for the algorithms of known_hosts
}

// guardSSH wraps auth (nil: the SSH agent, as go-git's default) for
// the ssh endpoint ep.
func guardSSH(auth transport.AuthMethod, ep *transport.Endpoint, g Guard) (transport.AuthMethod, error) {
	method, ok := auth.(gitssh.AuthMethod)
	if auth == nil {
		a, err := gitssh.NewSSHAgentAuth(ep.User)
		if err != nil {
			return nil, err
		}
		method, ok = a, true
	}
	if !ok {
		return nil, fmt.Errorf("vcs: ssh authentication %T", auth)
	}
	port := ep.Port
	if port <= 0 {
		port = gitssh.DefaultPort
	}
	return &guardedSSH{AuthMethod: method, guard: g, host: net.JoinHostPort(ep.Host, strconv.Itoa(port))}, nil
}

func (a *guardedSSH) ClientConfig() (*ssh.ClientConfig, error) {
	cfg, err := a.AuthMethod.ClientConfig()
	if err != nil {
		return nil, err
	}
	check := cfg.HostKeyCallback
	if check == nil {
		// What go-git does when the authentication sets none.
		db, err := gitssh.NewKnownHostsDb()
		if err != nil {
			return nil, err
		}
		check, cfg.HostKeyAlgorithms = db.HostKeyCallback(), db.HostKeyAlgorithms(a.host)
	}
	cfg.HostKeyCallback = func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		if err := a.guard("tcp", remote.String()); err != nil {
			return err
		}
		return check(hostname, remote, key)
	}
	return cfg, nil
}
