package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tolk-project/tolk/index"
)

// Store is what the sender reads and writes. *sqlstore.DB satisfies it;
// it must be safe for concurrent use.
type Store interface {
	// DueDeliveries returns the oldest pending delivery of each add-on,
	// when due at now.
	DueDeliveries(ctx context.Context, now time.Time) ([]index.Delivery, error)
	// NextDeliveryTry returns when the earliest such delivery is due,
	// false when none is pending.
	NextDeliveryTry(ctx context.Context) (time.Time, bool, error)
	// FindAddonByID returns an add-on, or an error wrapping
	// index.ErrNotFound.
	FindAddonByID(ctx context.Context, id int64) (index.Addon, error)
	// RecordDelivery stores the outcome of an attempt.
	RecordDelivery(ctx context.Context, id int64, r index.DeliveryResult) error
	// PruneDeliveries removes the deliveries delivered or failed before
	// t.
	PruneDeliveries(ctx context.Context, t time.Time) (int64, error)
}

// The outcomes of an attempt, as OnAttempt hears them.
const (
	OutcomeDelivered = "delivered" // a 2xx answer
	OutcomeRetry     = "retry"     // failed, tried again later
	OutcomeFailed    = "failed"    // failed, given up
)

// Options configure a Sender.
type Options struct {
	// BaseURL is the service's external address, for the payload's url.
	BaseURL string
	// AllowPrivate lets deliveries reach loopback, link-local and private
	// addresses (tests, and hooks on a private network).
	AllowPrivate bool
	// Timeout bounds one attempt, the answer's body included; 0 means
	// 15 seconds, the reference's.
	Timeout time.Duration
	// RetryPeriod is how long after its change a delivery is retried
	// before it is marked failed; 0 means DefaultRetryPeriod.
	RetryPeriod time.Duration
	// RetryBase is the wait after the first failure, doubled after each
	// next one up to RetryMax, each wait drawn between half and all of
	// it (jitter, so that the hooks of one dead receiver do not retry in
	// step). 0 means 10 seconds and 1 hour.
	RetryBase, RetryMax time.Duration
	// Wake, when set, receives when new deliveries are queued
	// (sqlstore.DB.EventsQueued); Poll is how often the outbox is read
	// anyway (0: 30 seconds).
	Wake <-chan struct{}
	Poll time.Duration
	// Keep is how long delivered and failed deliveries stay readable
	// through the API before they are removed; 0 means DefaultKeep.
	Keep time.Duration
	// Logger receives one line per failed attempt; nil discards.
	Logger *slog.Logger
	// OnAttempt, when set, hears every attempt's outcome and duration,
	// for metrics. It must be safe for concurrent use.
	OnAttempt func(outcome string, took time.Duration)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// DefaultRetryPeriod is how long deliveries are retried by default, and
// DefaultKeep how long finished ones are kept.
const (
	DefaultRetryPeriod = 24 * time.Hour
	DefaultKeep        = 7 * 24 * time.Hour
)

// pruneEvery is how often finished deliveries past Keep are removed.
const pruneEvery = time.Hour

// maxAnswerBytes bounds what is read of a receiver's answer, and
// keptAnswerBytes what of it a failed delivery keeps.
const (
	maxAnswerBytes  = 64 << 10
	keptAnswerBytes = 512
)

// Validate fills defaults and rejects what cannot work.
func (o *Options) Validate() error {
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("webhook: base URL %q: want an absolute http or https URL", o.BaseURL)
		}
		o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&o.Timeout, 15 * time.Second}, {&o.RetryPeriod, DefaultRetryPeriod}, {&o.RetryBase, 10 * time.Second},
		{&o.RetryMax, time.Hour}, {&o.Poll, 30 * time.Second}, {&o.Keep, DefaultKeep}} {
		switch {
		case *d.v == 0:
			*d.v = d.def
		case *d.v < 0:
			return fmt.Errorf("webhook: negative duration %s", *d.v)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Sender delivers the outbox's events: each add-on's in order, one at a
// time, different add-ons at once. It is safe for concurrent use; Run
// it once.
type Sender struct {
	store  Store
	opts   Options
	client *http.Client

	// mu guards busy, the add-ons with an attempt in flight, and last,
	// the last attempt each add-on finished.
	mu   sync.Mutex
	busy map[int64]bool
	last map[int64]attempt
	// done receives when an attempt ends, so that Run looks again.
	done chan struct{}
}

// New returns a Sender over store; opts must pass Validate.
func New(store Store, opts Options) (*Sender, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Sender{store: store, opts: opts, client: newClient(opts.AllowPrivate, opts.Timeout),
		busy: map[int64]bool{}, last: map[int64]attempt{}, done: make(chan struct{}, 1)}, nil
}

// attempt names one attempt: a delivery and how many preceded it.
type attempt struct {
	delivery int64
	attempts int
}

// Run delivers until ctx ends, then waits for the attempts in flight,
// which ctx cancels: an attempt cut short stays pending and is made
// again after a restart, as is any whose outcome was not stored.
func (s *Sender) Run(ctx context.Context) {
	log := s.opts.Logger
	var wg sync.WaitGroup
	defer wg.Wait()
	var pruned time.Time
	for {
		if now := s.opts.Now(); now.Sub(pruned) >= pruneEvery {
			pruned = now
			s.prune(ctx, now)
		}
		due, err := s.store.DueDeliveries(ctx, s.opts.Now())
		if err != nil && ctx.Err() == nil {
			log.Error("webhook: read the outbox", "err", err)
		}
		for _, d := range due {
			if !s.claim(&d) {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.deliver(ctx, d)
				s.release(&d)
			}()
		}
		wait := s.opts.Poll
		if next, ok, err := s.store.NextDeliveryTry(ctx); err == nil && ok {
			if until := next.Sub(s.opts.Now()); until > 0 {
				wait = min(wait, until)
			}
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.opts.Wake:
		case <-s.done:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// prune removes the deliveries finished more than Keep before now. (The
// deliveries of add-ons removed with their project or component go in
// the transaction that removes them.)
func (s *Sender) prune(ctx context.Context, now time.Time) {
	log := s.opts.Logger
	if n, err := s.store.PruneDeliveries(ctx, now.Add(-s.opts.Keep)); err != nil && ctx.Err() == nil {
		log.Error("webhook: prune finished deliveries", "err", err)
	} else if n > 0 {
		log.Info("webhook: pruned finished deliveries", "deliveries", n, "older_than", s.opts.Keep)
	}
}

// claim reserves d's add-on for an attempt at d. It refuses while
// another attempt of the add-on is in flight, and when d was read before
// the add-on's last attempt ended (an older delivery, or d with fewer
// attempts): the outbox read that found it is stale.
func (s *Sender) claim(d *index.Delivery) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	last, ok := s.last[d.AddonID]
	if s.busy[d.AddonID] || (ok && (d.ID < last.delivery || (d.ID == last.delivery && d.Attempts <= last.attempts))) {
		return false
	}
	s.busy[d.AddonID] = true
	return true
}

// release ends the attempt at d and wakes Run.
func (s *Sender) release(d *index.Delivery) {
	s.mu.Lock()
	delete(s.busy, d.AddonID)
	s.last[d.AddonID] = attempt{delivery: d.ID, attempts: d.Attempts}
	s.mu.Unlock()
	select {
	case s.done <- struct{}{}:
	default:
	}
}

// deliver makes one attempt at d and stores its outcome.
func (s *Sender) deliver(ctx context.Context, d index.Delivery) {
	log := s.opts.Logger.With("delivery", d.ID, "addon", d.AddonID, "change", d.Event.Change.ID)
	a, err := s.store.FindAddonByID(ctx, d.AddonID)
	if errors.Is(err, index.ErrNotFound) {
		// Removed since the outbox was read; its deliveries went with it.
		return
	}
	if err != nil {
		if ctx.Err() == nil {
			log.Error("webhook: read add-on", "err", err)
		}
		return
	}
	start := s.opts.Now()
	code, answer, err := s.send(ctx, &a, &d, start)
	if ctx.Err() != nil {
		return // shutting down: the attempt does not count
	}
	took := s.opts.Now().Sub(start)
	r := index.DeliveryResult{At: start, Code: code, State: index.DeliveryDelivered}
	outcome := OutcomeDelivered
	if err == nil && (code < 200 || code > 299) {
		err = fmt.Errorf("the receiver answered %d %s", code, answer)
	}
	if err != nil {
		r.Error = err.Error()
		r.State, outcome = index.DeliveryPending, OutcomeRetry
		r.NextTry = start.Add(s.backoff(d.Attempts + 1))
		var private *index.PrivateAddressError
		if errors.As(err, &private) || r.NextTry.After(d.Created.Add(s.opts.RetryPeriod)) {
			// A private target stays private; past the period, give up.
			r.State, r.NextTry, outcome = index.DeliveryFailed, time.Time{}, OutcomeFailed
		}
		log.Warn("webhook: delivery failed", "outcome", outcome, "attempts", d.Attempts+1, "err", err)
	}
	// The outcome is stored even if shutdown began meanwhile: a delivery
	// made and not recorded would be sent again.
	if err := s.store.RecordDelivery(context.WithoutCancel(ctx), d.ID, r); err != nil {
		log.Error("webhook: record delivery", "err", err)
	}
	if s.opts.OnAttempt != nil {
		s.opts.OnAttempt(outcome, took)
	}
}

// backoff is the wait before attempt n+1 after n failures: RetryBase
// doubled n-1 times, at most RetryMax, drawn between half and all of it.
func (s *Sender) backoff(n int) time.Duration {
	d := s.opts.RetryBase
	for i := 1; i < n && d < s.opts.RetryMax; i++ {
		d *= 2
	}
	d = min(d, s.opts.RetryMax)
	return d/2 + rand.N(d/2+1)
}

// send POSTs d's event to a's target and returns the answer's status
// and the start of its body, read up to maxAnswerBytes.
func (s *Sender) send(ctx context.Context, a *index.Addon, d *index.Delivery, now time.Time) (int, string, error) {
	payload := NewPayload(&d.Event, s.opts.BaseURL)
	body, err := payload.Encode()
	if err != nil {
		return 0, "", err
	}
	var key []byte
	if a.Webhook.Secret != "" {
		if key, err = SecretKey(a.Webhook.Secret); err != nil {
			return 0, "", fmt.Errorf("webhook: secret: %w", err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.Webhook.URL, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	SetHeaders(req.Header, index.WebhookID(&d.Event.Change), now, key, body)
	req.Header.Set("User-Agent", "Tolk-Webhooks")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return resp.StatusCode, "", err
	}
	// What is kept of an answer is for people reading deliveries.
	kept := string(answer[:min(len(answer), keptAnswerBytes)])
	return resp.StatusCode, strings.ToValidUTF8(kept, "\uFFFD"), nil
}
