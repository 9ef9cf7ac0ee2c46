package sync_test

import (
	"context"
	"slices"
	gosync "sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/autotranslate"
	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// heldRunner is the real automatic translation runner, whose first run
// waits for release after saying so on started, and which notes the
// add-on of every run.
type heldRunner struct {
	*autotranslate.Runner
	started, release chan struct{}
	mu               gosync.Mutex
	ran              []int64 // add-on ids, in order (guarded by mu)
}

func (h *heldRunner) RunAddon(ctx context.Context, a index.Addon, c index.Component) (int, error) {
	h.mu.Lock()
	first := len(h.ran) == 0
	h.ran = append(h.ran, a.ID)
	h.mu.Unlock()
	if first {
		close(h.started)
		select {
		case <-h.release:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return h.Runner.RunAddon(ctx, a, c)
}

// TestQueuedAutoTranslateReadsAddons: an import that changes strings
// while the automatic translation its previous import triggered is
// still running queues one more run, which runs the add-ons installed
// when it starts — one installed during the first run included — not
// the first run's list.
func TestQueuedAutoTranslateReadsAddons(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := &heldRunner{started: make(chan struct{}), release: make(chan struct{})}
	e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"},
		AutoTranslate: h})
	h.Runner = autotranslate.New(e.db, autotranslate.Options{})
	t.Cleanup(h.Runner.Close)
	url, work := mustRepo(t, commitFiles)
	c := e.reconcile(t, jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"))[0]
	install := func() index.Addon {
		t.Helper()
		cfg, err := index.ParseAutoTranslateAddon(map[string]any{"mode": "translate", "filter_type": "nottranslated"})
		if err != nil {
			t.Fatal(err)
		}
		a, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonAutoTranslate, ProjectID: c.ProjectID,
			ComponentID: c.ID, AutoTranslate: cfg})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	first := install()
	upstream := func(hello string) {
		t.Helper()
		git(t, work, "pull", "--quiet", "--rebase", "origin", "main")
		writeAndPush(t, work, map[string]string{
			"locales/en.json": "{\n  \"hello\": \"" + hello + "\",\n  \"bye\": \"Bye\",\n  \"menu\": {\"file\": \"File\"}\n}\n",
		}, "reword hello")
		if _, err := e.svc.ImportComponent(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	upstream("Hello there")
	select {
	case <-h.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the import's automatic translation did not start")
	}
	second := install()
	upstream("Hello again")
	close(h.release)
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := e.svc.WaitAddons(wctx); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if want := []int64{first.ID, first.ID, second.ID}; !slices.Equal(h.ran, want) {
		t.Errorf("add-on runs %v, want %v: the queued run runs the add-ons installed when it starts", h.ran, want)
	}
}
