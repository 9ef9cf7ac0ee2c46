package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/webhook"
)

// eventLog is a webhook receiver that keeps each event once, by
// webhook-id, as a receiver de-duplicating retries would.
type eventLog struct {
	mu     sync.Mutex
	seen   map[string]bool
	events []eventSeen
}

type eventSeen struct {
	ChangeID int64  `json:"change_id"`
	Action   string `json:"action"`
	URL      string `json:"url"`
}

func newEventLog(t *testing.T) (*eventLog, string) {
	l := &eventLog{seen: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev eventSeen
		if err := json.Unmarshal(body, &ev); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if id := r.Header.Get("webhook-id"); !l.seen[id] {
			l.seen[id] = true
			l.events = append(l.events, ev)
		}
	}))
	t.Cleanup(srv.Close)
	return l, srv.URL
}

// waitFor waits until the log holds every change in ids and returns
// the log's events.
func (l *eventLog) waitFor(t *testing.T, ids []int64) []eventSeen {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l.mu.Lock()
		got := map[int64]bool{}
		for _, ev := range l.events {
			got[ev.ChangeID] = true
		}
		events := slices.Clone(l.events)
		l.mu.Unlock()
		missing := 0
		for _, id := range ids {
			if !got[id] {
				missing++
			}
		}
		if missing == 0 {
			return events
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d changes never delivered; got %+v", missing, len(ids), events)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitForAction waits until the log holds an event of each action and
// returns its events.
func (l *eventLog) waitForAction(t *testing.T, actions ...string) []eventSeen {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l.mu.Lock()
		events := slices.Clone(l.events)
		l.mu.Unlock()
		missing := false
		for _, a := range actions {
			missing = missing || !slices.Contains(actionsOf(events), a)
		}
		if !missing {
			return events
		}
		if time.Now().After(deadline) {
			t.Fatalf("no event of every action %v; got %v", actions, actionsOf(events))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func actionsOf(events []eventSeen) []string {
	var out []string
	for _, ev := range events {
		if !slices.Contains(out, ev.Action) {
			out = append(out, ev.Action)
		}
	}
	sort.Strings(out)
	return out
}

// TestEveryWriteSendsItsEvent makes every write of the permission matrix
// as a superuser, with a webhook wanting all events on project demo and
// one wanting content on component app, and a sender delivering to a
// real receiver. Every change recorded in demo reaches the first, once;
// the second gets content changes only.
func TestEveryWriteSendsItsEvent(t *testing.T) {
	e := mustMatrixEnv(t, false)
	ctx := context.Background()
	all, allURL := newEventLog(t)
	content, contentURL := newEventLog(t)
	demo, err := e.db.FindProject(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	app, err := e.db.FindComponent(ctx, "demo", "app")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []index.Addon{
		{ProjectID: demo.ID, Webhook: index.Webhook{URL: allURL, Filter: index.EventsAll}},
		{ProjectID: demo.ID, ComponentID: app.ID, Webhook: index.Webhook{URL: contentURL, Filter: index.EventsContent}},
	} {
		a.Name = index.AddonWebhook
		if _, err := e.db.CreateAddon(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	since := demoChanges(t, e, demo.ID, 0)
	first := int64(0)
	if len(since) > 0 {
		first = since[len(since)-1].ID
	}
	sender, err := webhook.New(e.db, webhook.Options{AllowPrivate: true, BaseURL: e.srv.URL,
		Wake: e.db.EventsQueued(), Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { defer close(stopped); sender.Run(sctx) }()
	t.Cleanup(func() { stop(); <-stopped })

	root := matrixPrincipals[6]
	if root.name != "superuser" {
		t.Fatalf("principal 6 is %s", root.name)
	}
	auth := e.auth[root.user]
	send := func(r *matrixRow) {
		t.Helper()
		if got := e.send(t, r, root); got.Status != r.status {
			t.Fatalf("%s = %d %s, want %d", r.name(), got.Status, got.Body, r.status)
		}
	}
	post := func(method, path string, body any) {
		t.Helper()
		if got := servertest.DoJSON(t, method, e.srv.URL+path, auth, body); got.Status != http.StatusOK {
			t.Fatalf("%s %s = %d %s", method, path, got.Status, got.Body)
		}
	}
	// Every write of the matrix that leaves demo's app in place; then
	// what the matrix's bodies leave as they found it: a lock taken and
	// released, a translation edited and approved, a repository rescan.
	for i := range matrixRows {
		if r := &matrixRows[i]; !r.destructive && r.status < 300 {
			send(r)
		}
	}
	post("POST", "/api/components/demo/app/lock/", map[string]any{"lock": true})
	post("POST", "/api/components/demo/app/lock/", map[string]any{"lock": false})
	post("PATCH", "/api/projects/demo/", map[string]any{"translation_review": true})
	save := "/api/units/" + e.vars.Replace("{save}") + "/"
	post("PATCH", save, map[string]any{"target": []string{"Speichern!"}, "state": 20})
	post("PATCH", save, map[string]any{"target": []string{"Speichern!"}, "state": 30})
	// The matrix's server runs no repository operations; this one does,
	// on the component the matrix created, once its import has made a
	// checkout.
	ops := servertest.Serve(t, e.db, servertest.Options{Operations: e.sync, Repositories: e.sync, Components: e.sync, Files: e.sync})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := servertest.DoJSON(t, "POST", ops.URL+"/api/components/demo/web-root/repository/", auth,
			map[string]any{"operation": "file-scan"})
		if r.Status == http.StatusOK && strings.Contains(string(r.Body), `"result":true`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("file-scan = %d %s", r.Status, r.Body)
		}
	}
	// A string's removal; then, once every change so far has been heard
	// of, a translation's and a component's, which take their changes
	// with them.
	for i := range matrixRows {
		if r := &matrixRows[i]; r.destructive && r.route == unitRoute {
			send(r)
		}
	}
	changes := demoChanges(t, e, demo.ID, first)
	var ids []int64
	for _, ch := range changes {
		ids = append(ids, ch.ID)
	}
	events := all.waitFor(t, ids)
	if len(events) != len(ids) {
		t.Errorf("the all-events hook got %d events for %d changes", len(events), len(ids))
	}
	checkContentHook(t, content, changes, app.ID)
	for _, route := range []string{translationRoute, componentRoute} {
		for i := range matrixRows {
			if r := &matrixRows[i]; r.destructive && r.route == route {
				send(r)
			}
		}
	}
	events = all.waitForAction(t, "Translation removed", "Component removed")
	// The kinds of write, each with its change.
	for _, want := range []string{
		"Translation changed", "Translation approved", // unit edits
		"New string added",                      // a string added to the template
		"String removed",                        // DELETE unit
		"File uploaded",                         // uploads
		"Language added", "Translation removed", // translations
		"Component created", "Component removed", // component writes
		"Component locked", "Component unlocked", // locks
		"Forced rescan of translations", // repository operations
	} {
		if !slices.Contains(actionsOf(events), want) {
			t.Errorf("no %q event; got %v", want, actionsOf(events))
		}
	}
	for _, ev := range events {
		if len(ev.URL) < len(e.srv.URL) || ev.URL[:len(e.srv.URL)] != e.srv.URL {
			t.Errorf("event %d url %q is not absolute on %s", ev.ChangeID, ev.URL, e.srv.URL)
		}
	}
}

// demoChanges returns the changes of project demo after change id.
func demoChanges(t *testing.T, e *matrixEnv, projectID, after int64) []index.Change {
	t.Helper()
	changes, _, err := e.db.FindChanges(context.Background(), index.ChangeFilter{ProjectID: projectID,
		Page: index.Page{Number: 1, Size: 100000}})
	if err != nil {
		t.Fatal(err)
	}
	var out []index.Change
	for _, ch := range changes {
		if ch.ID > after {
			out = append(out, ch)
		}
	}
	return out
}

// checkContentHook waits for the content hook on component app to hear
// of every content change of app, and of nothing else.
func checkContentHook(t *testing.T, content *eventLog, changes []index.Change, appID int64) {
	t.Helper()
	var want []int64
	for _, ch := range changes {
		if ch.ComponentID == appID && ch.Action.IsContent() {
			want = append(want, ch.ID)
		}
	}
	if len(want) == 0 {
		t.Fatal("no content change of app to check the filter with")
	}
	if got := content.waitFor(t, want); len(got) != len(want) {
		t.Errorf("the content hook got %d events (%v), want the %d content changes of app", len(got),
			actionsOf(got), len(want))
	}
}
