package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/webhook"
)

// secret is the Standard Webhooks specification's example secret.
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// verify checks a request as a strict receiver following the Standard
// Webhooks specification would, written apart from the package: an
// integer timestamp within five minutes, and a v1 signature among the
// space-separated ones matching HMAC-SHA256 of "id.timestamp.body".
func verify(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return fmt.Errorf("missing headers: id %q timestamp %q signature %q", id, ts, sigs)
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp %q is not an integer", ts)
	}
	if d := now.Unix() - t; d > 300 || d < -300 {
		return fmt.Errorf("timestamp %d too far from now", t)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.%s", id, t, body)
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		version, sig, _ := strings.Cut(s, ",")
		got, err := base64.StdEncoding.DecodeString(sig)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no signature matches")
}

// TestSignKnownAnswer checks Sign against the specification's example.
func TestSignKnownAnswer(t *testing.T) {
	key, err := webhook.SecretKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	got := webhook.Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

// receiver is a real HTTP receiver that verifies every request, answers
// 500 to the first failures ones and de-duplicates by webhook-id.
type receiver struct {
	*httptest.Server
	secret string

	mu       sync.Mutex
	failures int
	requests int
	errs     []error
	ids      []string          // accepted, in order, each once
	bodies   map[string][]byte // by id
	headers  map[string]http.Header
}

func newReceiver(t *testing.T, secret string, failures int) *receiver {
	r := &receiver{secret: secret, failures: failures, bodies: map[string][]byte{}, headers: map[string]http.Header{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if r.secret != "" {
		if err := verify(r.secret, req.Header, body, time.Now()); err != nil {
			r.errs = append(r.errs, err)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
	}
	if r.failures > 0 {
		r.failures--
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	id := req.Header.Get("webhook-id")
	if _, seen := r.bodies[id]; !seen {
		r.ids = append(r.ids, id)
		r.bodies[id] = body
		r.headers[id] = req.Header.Clone()
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) accepted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}

// env is an index with project p, component c and its German
// translation, and a sender delivering its outbox.
// The tests run once on each engine.
func TestMain(m *testing.M) { indextest.Main(m) }

type env struct {
	db   *sqlstore.DB
	comp index.Component
	unit int64
	user index.Actor
}

func mustEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	db := indextest.Open(t)
	p, _, err := db.SaveProject(ctx, index.Project{Name: "P", Slug: "p"})
	if err != nil {
		t.Fatal(err)
	}
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Repo, c.Filemask = p.ID, "App", "app", "file:///x.git", "*.json"
	if c, _, err = db.SaveComponent(ctx, c); err != nil {
		t.Fatal(err)
	}
	res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
		Filename: "de.json", Revision: "r", Monolingual: true, Units: []index.ImportUnit{
			{Context: "greeting", Source: []string{"Hello <b>world</b>"}, Target: []string{""}}}})
	if err != nil {
		t.Fatal(err)
	}
	units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: 1}})
	if err != nil || len(units) != 1 {
		t.Fatal(units, err)
	}
	u, err := db.SaveUser(ctx, index.User{Username: "anna", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	return &env{db: db, comp: c, unit: units[0].ID, user: index.UserActor(&u)}
}

// hook installs a webhook to url on the component.
func (e *env) hook(t *testing.T, url, secret, filter string) index.Addon {
	t.Helper()
	a, err := e.db.CreateAddon(context.Background(), index.Addon{Name: index.AddonWebhook, ProjectID: e.comp.ProjectID,
		ComponentID: e.comp.ID, Webhook: index.Webhook{URL: url, Secret: secret, Filter: filter}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// edit translates the unit as target.
func (e *env) edit(t *testing.T, target string) {
	t.Helper()
	if _, err := e.db.UpdateUnit(context.Background(), e.unit, e.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// notify records a repository notification (53) on the component.
func (e *env) notify(t *testing.T) {
	t.Helper()
	if err := e.db.RecordComponentChange(context.Background(), index.Change{Action: index.ActionHook,
		ProjectID: e.comp.ProjectID, ComponentID: e.comp.ID}); err != nil {
		t.Fatal(err)
	}
}

// run starts a sender with short waits; it stops with the test.
func (e *env) run(t *testing.T, opts webhook.Options) {
	t.Helper()
	if opts.RetryBase == 0 {
		opts.RetryBase, opts.RetryMax = 10*time.Millisecond, 40*time.Millisecond
	}
	opts.Poll, opts.Wake, opts.BaseURL = 50*time.Millisecond, e.db.EventsQueued(), "https://tolk.example/prefix"
	s, err := webhook.New(e.db, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// settled waits until no delivery of the add-on is pending and returns
// them all, oldest first.
func (e *env) settled(t *testing.T, addonID int64) []index.Delivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		all, _, err := e.db.FindDeliveries(context.Background(), addonID, index.Page{Number: 1, Size: 100})
		if err != nil {
			t.Fatal(err)
		}
		pending := false
		for _, d := range all {
			pending = pending || d.State == index.DeliveryPending
		}
		if !pending {
			for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
				all[i], all[j] = all[j], all[i]
			}
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries still pending: %+v", all)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDeliverySignedWithPayload(t *testing.T) {
	e := mustEnv(t)
	r := newReceiver(t, secret, 0)
	a := e.hook(t, r.URL+"/hook", secret, index.EventsContent)
	e.run(t, webhook.Options{AllowPrivate: true})
	e.edit(t, "Hallo <b>Welt</b>")
	got := e.settled(t, a.ID)
	if len(got) != 1 || got[0].State != index.DeliveryDelivered || got[0].LastCode != 204 || got[0].Attempts != 1 {
		t.Fatalf("deliveries = %+v", got)
	}
	ids := r.accepted()
	if len(r.errs) > 0 || len(ids) != 1 {
		t.Fatalf("receiver: errors %v, accepted %v", r.errs, ids)
	}
	id := ids[0]
	if want := index.WebhookID(&got[0].Event.Change); id != want {
		t.Errorf("webhook-id = %q, want %q", id, want)
	}
	var p map[string]any
	if err := json.Unmarshal(r.bodies[id], &p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"change_id": float64(got[0].Event.Change.ID), "action": "New translation",
		"target": []any{"Hallo <b>Welt</b>"}, "source": []any{"Hello <b>world</b>"}, "context": "greeting",
		"url": "https://tolk.example/prefix/translate/p/app/de/", "author": "anna", "user": "anna",
		"project": "p", "component": "app", "translation": "de",
		"timestamp": got[0].Event.Change.Timestamp.UTC().Format("2006-01-02T15:04:05.000000Z")}
	if !jsonEqual(p, want) {
		t.Errorf("payload = %s\nwant %v", r.bodies[id], want)
	}
	if !strings.Contains(string(r.bodies[id]), "<b>Welt</b>") {
		t.Errorf("payload escapes markup: %s", r.bodies[id])
	}
	if ct := r.headers[id].Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestDeliveryWithoutSecret: no secret, no signature header at all.
func TestDeliveryWithoutSecret(t *testing.T) {
	e := mustEnv(t)
	r := newReceiver(t, "", 0)
	a := e.hook(t, r.URL, "", index.EventsAll)
	e.run(t, webhook.Options{AllowPrivate: true})
	e.notify(t)
	e.settled(t, a.ID)
	ids := r.accepted()
	if len(ids) != 1 {
		t.Fatalf("accepted %v", ids)
	}
	h := r.headers[ids[0]]
	if _, ok := h["Webhook-Signature"]; ok {
		t.Errorf("webhook-signature sent without a secret: %q", h.Values("Webhook-Signature"))
	}
	if _, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64); err != nil {
		t.Errorf("webhook-timestamp = %q, want integer seconds", h.Get("webhook-timestamp"))
	}
}

// TestRetriesDeliverEachEventOnceInOrder: a receiver that fails three
// times gets every event, in order, each id once after de-duplication,
// and every attempt was signed.
func TestRetriesDeliverEachEventOnceInOrder(t *testing.T) {
	e := mustEnv(t)
	r := newReceiver(t, secret, 3)
	a := e.hook(t, r.URL, secret, index.EventsAll)
	for i := range 5 {
		e.edit(t, fmt.Sprint("Hallo ", i))
	}
	e.run(t, webhook.Options{AllowPrivate: true})
	got := e.settled(t, a.ID)
	var want []string
	for _, d := range got {
		if d.State != index.DeliveryDelivered {
			t.Errorf("delivery %d: %s after %d attempts (%s)", d.ID, d.State, d.Attempts, d.LastError)
		}
		want = append(want, index.WebhookID(&d.Event.Change))
	}
	if got[0].Attempts != 4 {
		t.Errorf("first delivery: %d attempts, want 4", got[0].Attempts)
	}
	if ids := r.accepted(); strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("accepted %v, want %v in order", ids, want)
	}
	if len(r.errs) > 0 {
		t.Errorf("signature errors: %v", r.errs)
	}
	if r.requests != len(want)+3 {
		t.Errorf("%d requests, want %d", r.requests, len(want)+3)
	}
}

// TestRetryPeriodEnds: a receiver that never succeeds fails the delivery
// once the period is over, and the answer kept is cut short.
func TestRetryPeriodEnds(t *testing.T) {
	e := mustEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte(strings.Repeat("x", 1<<20)))
	}))
	t.Cleanup(srv.Close)
	a := e.hook(t, srv.URL, "", index.EventsAll)
	e.run(t, webhook.Options{AllowPrivate: true, RetryPeriod: 300 * time.Millisecond})
	e.notify(t)
	got := e.settled(t, a.ID)
	if len(got) != 1 || got[0].State != index.DeliveryFailed || got[0].Attempts < 2 || got[0].LastCode != 502 {
		t.Fatalf("deliveries = %+v", got)
	}
	if n := len(got[0].LastError); n > 1024 {
		t.Errorf("last error keeps %d bytes of the answer", n)
	}
}

// TestPrivateTargetRefused: without AllowPrivate the sender does not
// connect to loopback, whether named by address or by a name that
// resolves to it, and gives up at once.
func TestPrivateTargetRefused(t *testing.T) {
	e := mustEnv(t)
	r := newReceiver(t, "", 0)
	byName := strings.Replace(r.URL, "127.0.0.1", "localhost", 1)
	a := e.hook(t, r.URL, "", index.EventsAll)
	b := e.hook(t, byName, "", index.EventsAll)
	e.notify(t)
	e.run(t, webhook.Options{})
	for _, id := range []int64{a.ID, b.ID} {
		got := e.settled(t, id)
		if len(got) != 1 || got[0].State != index.DeliveryFailed || got[0].Attempts != 1 ||
			!strings.Contains(got[0].LastError, "private, loopback or link-local") {
			t.Errorf("add-on %d deliveries = %+v", id, got)
		}
	}
	if r.requests != 0 {
		t.Errorf("the private receiver got %d requests", r.requests)
	}
}

// TestRedirectsBounded: an attempt follows at most three redirects.
// (Where they lead is checked when each connection is dialled, as
// TestPrivateTargetRefused shows for the first.)
func TestRedirectsBounded(t *testing.T) {
	e := mustEnv(t)
	var hits int
	var mu sync.Mutex
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		http.Redirect(w, req, srv.URL+"/again", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	a := e.hook(t, srv.URL, "", index.EventsAll)
	e.notify(t)
	e.run(t, webhook.Options{AllowPrivate: true, RetryPeriod: time.Millisecond})
	got := e.settled(t, a.ID)
	if len(got) != 1 || got[0].State != index.DeliveryFailed || !strings.Contains(got[0].LastError, "redirects") {
		t.Fatalf("deliveries = %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 3 {
		t.Errorf("%d requests for one attempt, want 3", hits)
	}
}
