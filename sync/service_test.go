package sync_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// TestReconcileCheckoutsAhead checks Reconcile, which checks each
// component out while the previous one imports: a component whose
// repository cannot be cloned is reported and skipped, the ones before and
// after it import, and a cancelled reconciliation leaves no component
// locked.
func TestReconcileCheckoutsAhead(t *testing.T) {
	ctx := context.Background()
	url, _ := mustRepo(t, map[string]string{
		"locales/en.json": `{"hello": "Hello"}`,
		"locales/de.json": `{"hello": "Hallo"}`,
	})
	missing := "file://" + filepath.Join(t.TempDir(), "missing.git")
	comps := []index.Component{
		jsonComponent("first", url, "locales/*.json", "locales/en.json", "en"),
		jsonComponent("broken", missing, "locales/*.json", "locales/en.json", "en"),
		jsonComponent("last", url, "locales/*.json", "locales/en.json", "en"),
	}
	e := mustEnv(t)
	spec := []tolksync.ProjectSpec{{Project: index.Project{Name: "Test", Slug: "test"}, Components: comps}}
	err := e.svc.Reconcile(ctx, spec)
	if err == nil || !strings.Contains(err.Error(), "test/broken") || strings.Contains(err.Error(), "test/first") ||
		strings.Contains(err.Error(), "test/last") {
		t.Fatalf("Reconcile = %v, want only test/broken failing", err)
	}
	for _, slug := range []string{"first", "last"} {
		revs := mustRevisions(t, e, slug)
		if revs["de"] == "" || revs["en"] == "" {
			t.Errorf("%s: revisions %v, want de and en imported", slug, revs)
		}
	}

	// Cancelled as soon as the first component is imported, while the
	// next ones are being checked out: every component can be imported
	// afterwards (no lock is left held by a checkout never imported).
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e = mustEnvWith(t, tolksync.Options{Logger: slog.New(cancelOn{"component imported", cancel})})
	if err := e.svc.Reconcile(cctx, spec); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Reconcile = %v, want context.Canceled", err)
	}
	p, err := e.db.FindProject(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := e.db.FindComponents(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, c := range saved {
			e.svc.ImportComponent(ctx, c) // the broken one fails; only the locks matter here
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("ImportComponent after a cancelled Reconcile is blocked: a component lock was left held")
	}
}

// cancelOn is a log handler that calls cancel on a record with message
// msg: a hook into the middle of a reconciliation.
type cancelOn struct {
	msg    string
	cancel context.CancelFunc
}

func (h cancelOn) Enabled(context.Context, slog.Level) bool { return true }
func (h cancelOn) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h cancelOn) WithGroup(string) slog.Handler            { return h }
func (h cancelOn) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.cancel()
	}
	return nil
}

func mustRevisions(tb testing.TB, e env, slug string) map[string]string {
	tb.Helper()
	ctx := context.Background()
	c, err := e.db.FindComponent(ctx, "test", slug)
	if err != nil {
		tb.Fatal(err)
	}
	revs, err := e.db.TranslationRevisions(ctx, c.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return revs
}
