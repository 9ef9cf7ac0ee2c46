package webhook

import (
	"net/http"
	"time"

	"github.com/tolk-project/tolk/outbound"
)

// maxRedirects bounds the redirects a delivery follows.
const maxRedirects = 3

// newClient returns the HTTP client of deliveries: outbound's guarded
// client, whose every connection is checked as it is dialled unless
// allowPrivate (an *index.PrivateAddressError then).
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	return outbound.NewClient(outbound.Options{AllowPrivate: allowPrivate, Timeout: timeout,
		MaxIdleConnsPerHost: 2, MaxRedirects: maxRedirects})
}

// newClientRefusing is newClient refusing the connections refuse returns
// an error for.
func newClientRefusing(refuse func(network, address string) error, timeout time.Duration) *http.Client {
	return outbound.NewClient(outbound.Options{Refuse: refuse, Timeout: timeout,
		MaxIdleConnsPerHost: 2, MaxRedirects: maxRedirects})
}
