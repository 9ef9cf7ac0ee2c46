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
	return outbound.NewClient(clientOptions(allowPrivate, timeout))
}

// clientOptions are the settings of newClient's client; a test sets
// their Refuse to allow its own server's address.
func clientOptions(allowPrivate bool, timeout time.Duration) outbound.Options {
	return outbound.Options{AllowPrivate: allowPrivate, Timeout: timeout,
		MaxIdleConnsPerHost: 2, MaxRedirects: maxRedirects}
}
