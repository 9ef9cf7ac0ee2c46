package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/tolk-project/tolk/index"
)

// PrivateTargetError refuses a connection to an address webhooks may not
// reach (index.PrivateAddress) without Options.AllowPrivate.
type PrivateTargetError struct{ Addr string }

func (e *PrivateTargetError) Error() string {
	return fmt.Sprintf("webhook: %s is a private, loopback or link-local address; webhooks may not reach it on this server", e.Addr)
}

// maxRedirects bounds the redirects a delivery follows.
const maxRedirects = 3

// newClient returns the HTTP client of deliveries. Unless allowPrivate,
// the address of every connection is checked as it is dialled, after
// name resolution, so that neither a name that resolves to a private
// address (DNS rebinding included) nor a redirect reaches one. No proxy
// from the environment is used: the check would judge the proxy, not
// the target.
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	refuse := func(addr netip.AddrPort) bool { return index.PrivateAddress(addr.Addr()) }
	if allowPrivate {
		refuse = nil
	}
	return newClientRefusing(refuse, timeout)
}

// newClientRefusing is newClient refusing the addresses refuse reports
// (none when nil).
func newClientRefusing(refuse func(netip.AddrPort) bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: min(timeout, 10*time.Second)}
	if refuse != nil {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			addr, err := netip.ParseAddrPort(address)
			if err != nil || refuse(addr) {
				return &PrivateTargetError{Addr: addr.Addr().String()}
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: transport, Timeout: timeout,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return errTooManyRedirects
			}
			return nil
		}}
}

var errTooManyRedirects = errors.New("webhook: too many redirects")
