package webhook

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/outbound"
)

// TestRedirectToPrivateRefused: the address check runs at every dial, so
// a redirect from an allowed target to a private one is refused. The
// test allows its first server's address alone, as a public receiver
// would be, and redirects to a second on loopback.
func TestRedirectToPrivateRefused(t *testing.T) {
	var reached bool
	private := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	t.Cleanup(private.Close)
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/internal", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(public.Close)
	allowed := strings.TrimPrefix(public.URL, "http://")
	o := clientOptions(false, 5*time.Second)
	o.Refuse = func(network, address string) error {
		if address == allowed {
			return nil
		}
		return index.RefusePrivate(network, address)
	}
	client := outbound.NewClient(o)
	resp, err := client.Post(public.URL, "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
	}
	var refused *index.PrivateAddressError
	if !errors.As(err, &refused) || reached {
		t.Errorf("redirect to %s: err %v, reached %v; want refused", private.URL, err, reached)
	}
}
