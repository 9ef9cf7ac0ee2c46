package sync_test

import (
	gosync "sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// TestReconcileImportsCheckoutOnce: a setup of app and two components
// linked to it imports each once, whichever comes first, at the first
// start (the links saved while app's import ran are imported after it)
// and at a restart (app's one import covers both links), where each
// link's step used to import app and both links again.
func TestReconcileImportsCheckoutOnce(t *testing.T) {
	var mu gosync.Mutex
	counts := map[string]int{}
	e := mustEnvWith(t, tolksync.Options{OnImportDone: func(c index.Component, _ tolksync.ImportSummary, _ time.Duration,
		err error) {
		mu.Lock()
		defer mu.Unlock()
		counts[c.Slug]++
		if err != nil {
			t.Errorf("import of %s: %v", c.Slug, err)
		}
	}})
	url, _ := mustRepo(t, map[string]string{
		"locales/en.json": `{"hello": "Hello"}`, "locales/de.json": `{"hello": "Hallo"}`,
		"docs/en.json": `{"title": "Manual"}`, "docs/de.json": `{"title": "Handbuch"}`,
		"web/en.json": `{"home": "Home"}`, "web/de.json": `{"home": "Start"}`,
	})
	for _, order := range []string{"first start", "restart", "links first"} {
		clear(counts)
		comps := []index.Component{jsonComponent("app", url, "locales/*.json", "locales/en.json", "en"),
			linkedComponent("docs", "app", "docs/*.json", "docs/en.json"),
			linkedComponent("web", "app", "web/*.json", "web/en.json")}
		if order == "links first" {
			comps[0], comps[2] = comps[2], comps[0]
		}
		got := e.reconcile(t, comps...)
		mu.Lock()
		for _, slug := range []string{"app", "docs", "web"} {
			if counts[slug] != 1 {
				t.Errorf("%s: %s imported %d times, want once (%v)", order, slug, counts[slug], counts)
			}
		}
		mu.Unlock()
		if len(got) != 3 {
			t.Fatalf("%s: components %v", order, got)
		}
		if st := e.svc.Startup(); !st.Done || len(st.Failed) != 0 || len(st.Importing) != 0 {
			t.Errorf("%s: startup %+v", order, st)
		}
	}
}
