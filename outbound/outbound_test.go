package outbound_test

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

// TestCheckURL: what a saved URL may be, private places refused unless
// allowed, in the words naming who calls it.
func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		want         string
	}{
		{"https://hooks.example.com/x?y=1", false, ""},
		{"ftp://example.com/", false, outbound.MsgInvalidURL},
		{"https://user:pw@example.com/", false, outbound.MsgInvalidURL},
		{"https:///nohost", false, outbound.MsgInvalidURL},
		{"http://localhost:8080/", false, "which webhooks may not reach"},
		{"http://LOCALHOST./", false, "which webhooks may not reach"},
		{"http://169.254.169.254/latest", false, "which webhooks may not reach"},
		{"http://[::ffff:10.0.0.1]/", false, "which webhooks may not reach"},
		{"http://10.0.0.1/", true, ""},
	} {
		got := outbound.CheckURL(tc.url, tc.allowPrivate, "webhooks")
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("CheckURL(%q, %v) = %q, want %q", tc.url, tc.allowPrivate, got, tc.want)
		}
	}
}

// TestClientRefusesPrivate: the client refuses a loopback server at the
// dial, reaches it when private targets are allowed, refuses a redirect
// from an allowed address to a private one, and stops after MaxRedirects.
func TestClientRefusesPrivate(t *testing.T) {
	var reached int
	private := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached++ }))
	t.Cleanup(private.Close)
	get := func(c *http.Client, u string) error {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	var refused *index.PrivateAddressError
	if err := get(outbound.NewClient(outbound.Options{Timeout: 5 * time.Second}), private.URL); !errors.As(err, &refused) || reached != 0 {
		t.Errorf("loopback: %v, reached %d; want a PrivateAddressError", err, reached)
	}
	if err := get(outbound.NewClient(outbound.Options{AllowPrivate: true, Timeout: 5 * time.Second}), private.URL); err != nil || reached != 1 {
		t.Errorf("loopback allowed: %v, reached %d", err, reached)
	}

	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/loop" {
			http.Redirect(w, r, "/loop", http.StatusFound)
			return
		}
		http.Redirect(w, r, private.URL+"/internal", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(public.Close)
	allowed := strings.TrimPrefix(public.URL, "http://")
	c := outbound.NewClient(outbound.Options{Timeout: 5 * time.Second, Refuse: func(network, address string) error {
		if address == allowed {
			return nil
		}
		return index.RefusePrivate(network, address)
	}})
	if err := get(c, public.URL); !errors.As(err, &refused) || reached != 1 {
		t.Errorf("redirect to loopback: %v, reached %d; want refused", err, reached)
	}
	if err := get(c, public.URL+"/loop"); !errors.Is(err, outbound.ErrTooManyRedirects) {
		t.Errorf("redirect loop: %v, want ErrTooManyRedirects", err)
	}
}
