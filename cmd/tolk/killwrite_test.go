package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
)

// TestServeKilledMidWrite: two tolk serve binaries on one PostgreSQL
// database, both serving unit edits, and A killed (SIGKILL) while one of
// its write transactions has written and not committed (its backend
// holds a transaction id). PostgreSQL ends A's sessions and their locks
// with the process, so:
//   - B's edits go on throughout, each answered within its timeout (B
//     waits for nothing A held), the units A was editing included;
//   - every edit either process acknowledged is kept, or overwritten by
//     a later acknowledged one;
//   - A restarted on the same database reads B's edits, and every
//     counter (statistics at every level, the lists' counts) equals a
//     recount of the rows.
//
// sqlstore's TestWriterKilledMidWrite holds a child inside one write;
// this is the same with the real server, its HTTP edge, group commit and
// background work.
func TestServeKilledMidWrite(t *testing.T) {
	bin, dataA, dataB, db := twoServers(t)
	// A's connections carry a name, so that the test can see when one of
	// them is inside a write.
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", "tolk-killed")
	u.RawQuery = q.Encode()
	dbA := u.String()
	a := runTolk(t, bin, dataA, "--demo", "--db", dbA)
	token := a.token
	if token == "" {
		t.Fatal("no administrator token on A's first start")
	}
	b := runTolk(t, bin, dataB, "--db", db)
	units := crashUnits(t, a, token, "de")
	if len(units) < 4 {
		t.Fatalf("%d German units, want at least 4", len(units))
	}
	mineA, mineB := units[:len(units)/2], units[len(units)/2:]

	// last holds, per unit, the texts acknowledged in order; unanswered
	// the texts sent to A that got no answer (the kill came first).
	var mu sync.Mutex
	last := map[int64]string{}
	unanswered := map[string]bool{}
	client := &http.Client{Timeout: 15 * time.Second}
	patch := func(p *tolkProcess, id int64, text string) (int, error) {
		body, _ := json.Marshal(map[string]any{"target": []string{text}, "state": 20})
		req, _ := http.NewRequest(http.MethodPatch, p.base+"/api/units/"+strconv.FormatInt(id, 10)+"/", bytes.NewReader(body))
		req.Header.Set("Authorization", "Token "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}

	// A: four editors, each on its own units, until A dies.
	var editorsA sync.WaitGroup
	for w := range 4 {
		editorsA.Go(func() {
			for i := 0; ; i++ {
				un := mineA[(w+4*i)%len(mineA)]
				text := fmt.Sprintf("A%d edit %d", w, i)
				code, err := patch(a, un.ID, text)
				mu.Lock()
				switch {
				case err != nil:
					unanswered[text] = true
				case code == http.StatusOK:
					last[un.ID] = text
				}
				mu.Unlock()
				if err != nil {
					return // A is gone
				}
				if code != http.StatusOK {
					t.Errorf("A: PATCH %s: %d", un.Context, code)
					return
				}
			}
		})
	}
	// B: one editor on its own units throughout, then A's too.
	stopB := make(chan struct{})
	var slowest time.Duration
	editorB := sync.WaitGroup{}
	editorB.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stopB:
				return
			default:
			}
			un := mineB[i%len(mineB)]
			text := fmt.Sprintf("B edit %d", i)
			start := time.Now()
			code, err := patch(b, un.ID, text)
			if took := time.Since(start); took > slowest {
				slowest = took
			}
			if err != nil || code != http.StatusOK {
				t.Errorf("B: PATCH %s while A wrote and died: %d %v", un.Context, code, err)
				return
			}
			mu.Lock()
			last[un.ID] = text
			mu.Unlock()
		}
	})

	// Kill A the moment one of its transactions holds written rows.
	raw := indextest.OpenRaw(t, db)
	inside := 0
	for deadline := time.Now().Add(60 * time.Second); inside == 0; {
		if err := raw.QueryRow(`SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'tolk-killed' AND backend_xid IS NOT NULL`).Scan(&inside); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("A never seen inside a write in 60 s")
		}
	}
	a.kill()
	editorsA.Wait()
	mu.Lock()
	t.Logf("A killed inside a write; %d of its edits unanswered", len(unanswered))
	mu.Unlock()

	// B reads each of A's units as A last acknowledged it, or as the
	// edit in flight at the kill left it, whole.
	for _, un := range crashUnits(t, b, token, "de") {
		for _, mine := range mineA {
			if mine.ID != un.ID {
				continue
			}
			mu.Lock()
			want, sent := last[un.ID], len(un.Target) == 1 && unanswered[un.Target[0]]
			mu.Unlock()
			if want != "" && !sent && (len(un.Target) != 1 || un.Target[0] != want) {
				t.Errorf("B reads A's unit %s as %q, want A's last acknowledged %q", un.Context, un.Target, want)
			}
		}
	}

	// A's units are B's to edit now, at once.
	for i, un := range mineA {
		text := fmt.Sprintf("B after the kill %d", i)
		start := time.Now()
		if code, err := patch(b, un.ID, text); err != nil || code != http.StatusOK {
			t.Fatalf("B: PATCH %s after A's death: %d %v", un.Context, code, err)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("B's edit of A's unit %s took %v", un.Context, took)
		}
		mu.Lock()
		last[un.ID] = text
		mu.Unlock()
	}
	close(stopB)
	editorB.Wait()
	t.Logf("B's slowest edit while A wrote and died: %v", slowest)

	// A, restarted, reads what was acknowledged last, and nothing half
	// written: every counter matches a recount.
	a = runTolk(t, bin, dataA, "--demo", "--db", db)
	defer a.kill()
	for _, p := range []*tolkProcess{a, b} {
		for _, un := range crashUnits(t, p, token, "de") {
			want, ok := last[un.ID]
			if !ok {
				continue
			}
			if len(un.Target) != 1 || un.Target[0] != want {
				t.Errorf("%s: %s reads %q, want the last acknowledged %q", processName(p, a), un.Context, un.Target, want)
			}
		}
	}
	var stats struct {
		Translated int `json:"translated"`
		Total      int `json:"total"`
	}
	readJSON(t, a.base+"/api/translations/demo/app/de/statistics/", token, &stats)
	translated := 0
	for _, un := range crashUnits(t, a, token, "de") {
		if len(un.Target) == 1 && un.Target[0] != "" {
			translated++
		}
	}
	if stats.Translated < translated {
		t.Errorf("A's statistics count %d translated, its units page %d", stats.Translated, translated)
	}
	if got, want := changeCount(t, a, token), changeCount(t, b, token); got != want {
		t.Errorf("A counts %d changes, B %d", got, want)
	}
	store, err := indextest.Reopen(t, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	indextest.CheckCounts(t, store)
}
