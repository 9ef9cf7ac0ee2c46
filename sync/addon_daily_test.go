package sync_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	tolksync "github.com/tolk-project/tolk/sync"
)

// TestDailyAddons: with a day of 24 minutes, two pseudolocale add-ons
// on a component, one misconfigured (its target translation is none of
// the component's), run once each per day, in the turn their id
// modulo 24 names, not at the scheduler's start: the good one rewrites
// every string up to translated (the reference's daily run, which the
// imports' runs do not: they fill only untranslated strings), the other
// records one alert change (47) a day, which is also its job's result.
func TestDailyAddons(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustSchedEnv(t, 24)
	en, fr := mustTranslation(t, e.env, "app", "en"), mustTranslation(t, e.env, "app", "fr")
	good, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonPseudolocale, ProjectID: e.c.ProjectID,
		ComponentID: e.c.ID, Pseudo: index.Pseudolocale{Source: en.ID, Target: fr.ID, Prefix: "[", Suffix: "]"}})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonPseudolocale, ProjectID: e.c.ProjectID,
		ComponentID: e.c.ID, Pseudo: index.Pseudolocale{Source: en.ID, Target: 1 << 40}})
	if err != nil {
		t.Fatal(err)
	}
	alerts := func() []index.Change {
		t.Helper()
		cs, _, err := e.db.FindChanges(ctx, index.ChangeFilter{ComponentID: e.c.ID,
			Actions: []index.Action{index.ActionAlertTriggered}, Page: index.Page{Number: 1, Size: 10}})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	const day = 24 * time.Minute
	e.start(t, tolksync.SchedulerOptions{CommitInterval: time.Minute, AddonInterval: day})
	if u := e.unit(t, "fr", "hello"); u.Target[0] != "Bonjour" {
		t.Fatalf("the daily add-ons ran at the start: fr hello = %q", u.Target[0])
	}
	for d := 1; d <= 2; d++ {
		runs := map[int64]index.Job{} // by add-on
		for range 24 {
			e.clock.Advance(time.Minute)
			e.clock.awaitPass(t)
			turn := e.clock.Now().UnixNano() / int64(time.Minute) % 24
			for _, a := range []index.Addon{good, bad} {
				if a.ID%24 != turn {
					continue
				}
				// Its job runs before the test moves the clock on.
				j := receive(t, e.done, "daily add-on job")
				if j.Name != fmt.Sprintf("addon:%d", a.ID) {
					t.Fatalf("day %d, turn %d: job %+v, want add-on %d's", d, turn, j, a.ID)
				}
				runs[a.ID] = j
			}
		}
		select {
		case j := <-e.done:
			t.Fatalf("day %d: one more job ran: %+v", d, j)
		default:
		}
		if ok, failed := runs[good.ID], runs[bad.ID]; ok.LastResult != "ok" ||
			!strings.Contains(failed.LastResult, "weblate.generate.pseudolocale") {
			t.Fatalf("day %d: runs %+v, want one ok and one failed", d, runs)
		}
		if got := alerts(); len(got) != d || !strings.Contains(got[0].Target, "is not one of the component's") {
			t.Errorf("day %d: alerts %+v, want %d", d, got, d)
		}
		for key, want := range map[string]string{"hello": "[Hello]", "bye": "[Bye]"} {
			if u := e.unit(t, "fr", key); u.Target[0] != want || u.State != index.StateTranslated {
				t.Errorf("day %d: fr %s = %q (%d), want %q", d, key, u.Target[0], u.State, want)
			}
		}
	}
	indextest.CheckCounts(t, e.db)
}
