package machinery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/outbound"
)

// httpClient is what the HTTP engines call services with: one
// *http.Client whose dialer refuses private addresses (unless allowed),
// and the cap on a response body.
type httpClient struct {
	client   *http.Client
	maxBytes int64
}

// newHTTPClient returns the client of engines: outbound's guarded
// client (index.RefusePrivate at every dial unless allowPrivate, the
// webhooks' guard), so neither a name that resolves to a private address
// nor a redirect reaches one. Each call is bounded by its context's
// deadline; timeout is a backstop.
func newHTTPClient(allowPrivate bool, timeout time.Duration, maxBytes int64) *httpClient {
	return &httpClient{maxBytes: maxBytes, client: outbound.NewClient(outbound.Options{
		AllowPrivate: allowPrivate, Timeout: timeout, MaxIdleConnsPerHost: 8})}
}

// checkURL returns why u cannot be a service's address, or "": what
// outbound.CheckURL refuses, and a query or fragment (the engines add
// their own paths and parameters).
func checkURL(u string, allowPrivate bool) string {
	if p, err := url.Parse(u); err == nil && (p.RawQuery != "" || p.Fragment != "") {
		return outbound.MsgInvalidURL
	}
	return outbound.CheckURL(u, allowPrivate, "machine translation services")
}

// call sends a request built by the caller and decodes the JSON answer
// into out. Its errors say what went wrong in words a translator can
// read, never with the request's URL, body or headers (which may hold a
// key): the service did not answer in time, could not be reached,
// answered an HTTP error (with the service's own message when it gives
// one), or answered something too big or not the JSON expected. secrets
// are scrubbed from anything the service echoes.
func (h *httpClient) call(ctx context.Context, req *http.Request, out any, secrets ...string) error {
	req = req.WithContext(ctx)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Tolk machinery")
	resp, err := h.client.Do(req)
	if err != nil {
		return transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, h.maxBytes+1))
	if err != nil {
		return transportError(ctx, err)
	}
	if int64(len(body)) > h.maxBytes {
		return fmt.Errorf("the service answered more than %d bytes", h.maxBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &statusError{code: resp.StatusCode, msg: serviceMessage(body, secrets)}
	}
	if out == nil {
		return nil // an answer with nothing to read (DeepL's 204 to a DELETE)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(out); err != nil {
		return errors.New("the service answered something that is not the JSON expected")
	}
	return nil
}

// statusError is an HTTP error answer: its status and the service's own
// message, if it gave one (secrets scrubbed).
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("the service answered HTTP %d", e.code)
	}
	return fmt.Sprintf("the service answered HTTP %d: %s", e.code, e.msg)
}

// isStatus reports whether err is an HTTP error answer with status code.
func isStatus(err error, code int) bool {
	var se *statusError
	return errors.As(err, &se) && se.code == code
}

// transportError says why a request got no answer, without the URL the
// *url.Error carries.
func transportError(ctx context.Context, err error) error {
	var private *index.PrivateAddressError
	var netErr net.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return fmt.Errorf("no answer in time: %w", context.DeadlineExceeded)
	case errors.Is(ctx.Err(), context.Canceled):
		return context.Canceled
	case errors.As(err, &private):
		return fmt.Errorf("not reached: %w", private)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Errorf("not reached: the name %s does not resolve", dnsErr.Name)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return errors.New("not reached: the connection was refused or failed")
	}
	return errors.New("not reached: the connection failed")
}

// serviceMessage is the message an error answer carries in the fields
// services use ("error", "message", "responseDetails", or OpenAI's
// {"error": {"message"}}), shortened and with the secrets scrubbed; ""
// when there is none.
func serviceMessage(body []byte, secrets []string) string {
	var fields map[string]any
	if json.Unmarshal(body, &fields) != nil {
		return ""
	}
	if nested, ok := fields["error"].(map[string]any); ok {
		fields = nested
	}
	for _, k := range []string{"error", "message", "responseDetails", "detail"} {
		msg, ok := fields[k].(string)
		if !ok || msg == "" {
			continue
		}
		for _, s := range secrets {
			if s != "" {
				msg = strings.ReplaceAll(msg, s, "[redacted]")
			}
		}
		if r := []rune(msg); len(r) > 200 {
			msg = string(r[:200]) + "…"
		}
		return msg
	}
	return ""
}

// joinURL is base with the path elements appended, one slash between.
func joinURL(base string, elems ...string) string {
	return strings.TrimRight(base, "/") + "/" + strings.Join(elems, "/")
}

// pairCache keeps an engine's language pairs for a while: they change
// when the service is upgraded, not between two strings.
type pairCache struct {
	mu      chan struct{} // a one-slot semaphore: one download at a time, waiters honour their context
	pairs   map[Pair]bool
	fetched time.Time
}

const pairsTTL = time.Hour

func newPairCache() *pairCache { return &pairCache{mu: make(chan struct{}, 1)} }

// get returns the pairs, downloading them with fetch when there are none
// or they are older than pairsTTL.
func (c *pairCache) get(ctx context.Context, fetch func(context.Context) ([]Pair, error)) (map[Pair]bool, error) {
	select {
	case c.mu <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("no answer in time: %w", context.DeadlineExceeded)
	}
	defer func() { <-c.mu }()
	if c.pairs != nil && time.Since(c.fetched) < pairsTTL {
		return c.pairs, nil
	}
	list, err := fetch(ctx)
	if err != nil {
		return nil, err
	}
	pairs := make(map[Pair]bool, len(list))
	for _, p := range list {
		pairs[p] = true
	}
	c.pairs, c.fetched = pairs, time.Now()
	return pairs, nil
}
