// Package outbound is the one HTTP client of the calls Tolk makes to
// addresses users give it: webhook deliveries (package webhook) and
// machine translation services (package machinery). Unless private
// targets are allowed, the address of every connection is checked as
// it is dialled, after name resolution (index.RefusePrivate), so that
// neither a name that resolves to a private address (DNS rebinding
// included) nor a redirect reaches one; CheckURL judges what a URL
// itself says when it is saved (api's webhook add-on, machinery's
// settings).
package outbound

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/tolk-project/tolk/index"
)

// ErrTooManyRedirects ends a call that was redirected more than
// Options.MaxRedirects times.
var ErrTooManyRedirects = errors.New("outbound: too many redirects")

// Options shape a client.
type Options struct {
	// AllowPrivate lets connections reach private, loopback and
	// link-local addresses (a deployment's own services).
	AllowPrivate bool
	// Refuse, when not nil, replaces the check of each dialled address
	// (index.RefusePrivate): tests allow their public server's address.
	Refuse func(network, address string) error
	// Timeout bounds a whole call, body included: a backstop to the
	// caller's context. Connecting and the TLS handshake get at most 10 s.
	Timeout time.Duration
	// MaxIdleConnsPerHost is kept per target (0: Go's default, 2).
	MaxIdleConnsPerHost int
	// MaxRedirects is how many redirects a call follows (0: 3).
	MaxRedirects int
}

// NewClient returns a client as o says. It uses no proxy from the
// environment: the address check would judge the proxy, not the target.
// The client is safe for concurrent use and keeps connections alive.
func NewClient(o Options) *http.Client {
	refuse := o.Refuse
	if refuse == nil && !o.AllowPrivate {
		refuse = index.RefusePrivate
	}
	dialer := &net.Dialer{Timeout: min(o.Timeout, 10*time.Second)}
	if refuse != nil {
		dialer.Control = func(network, address string, _ syscall.RawConn) error { return refuse(network, address) }
	}
	redirects := o.MaxRedirects
	if redirects == 0 {
		redirects = 3
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   min(o.Timeout, 10*time.Second),
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   o.MaxIdleConnsPerHost,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: transport, Timeout: o.Timeout,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) >= redirects {
				return ErrTooManyRedirects
			}
			return nil
		}}
}

// CheckURL returns why u cannot be an address that what (e.g.
// "webhooks") calls, in words for the one who gave it, or "": an http or
// https URL with a host and no user information, naming no private place
// by itself (index.PrivateHost) unless allowPrivate. Names are resolved
// only when a call dials them, where NewClient's client refuses private
// addresses again, so a name that resolves to one later is caught.
func CheckURL(u string, allowPrivate bool, what string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil {
		return MsgInvalidURL
	}
	if !allowPrivate && index.PrivateHost(p.Hostname()) {
		return "This URL points to a private or local address, which " + what + " may not reach on this server."
	}
	return ""
}

// MsgInvalidURL is CheckURL's answer for what is no http or https URL.
const MsgInvalidURL = "Enter a valid http or https URL."
