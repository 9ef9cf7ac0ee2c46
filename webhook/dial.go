package webhook

import (
	"errors"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/tolk-project/tolk/index"
)

// maxRedirects bounds the redirects a delivery follows.
const maxRedirects = 3

// newClient returns the HTTP client of deliveries. Unless allowPrivate,
// the address of every connection is checked as it is dialled, after
// name resolution, so that neither a name that resolves to a private
// address (DNS rebinding included) nor a redirect reaches one: the
// dial fails with an *index.PrivateAddressError. No proxy from the
// environment is used: the check would judge the proxy, not the target.
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	refuse := index.RefusePrivate
	if allowPrivate {
		refuse = nil
	}
	return newClientRefusing(refuse, timeout)
}

// newClientRefusing is newClient refusing the connections refuse returns
// an error for (none when nil).
func newClientRefusing(refuse func(network, address string) error, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: min(timeout, 10*time.Second)}
	if refuse != nil {
		dialer.Control = func(network, address string, _ syscall.RawConn) error { return refuse(network, address) }
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
