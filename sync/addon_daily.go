package sync

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tolk-project/tolk/index"
)

// The daily add-ons (index.DailyAddon). The reference runs its
// daily_addons task every hour and, in each, the add-ons whose id
// modulo 24 is the hour, so that each runs once a day and the day's
// load is spread over its hours; Tolk's scheduler does the same with
// SchedulerOptions.AddonInterval's 24 turns (an hour each by default),
// and, as the reference's auto_scope, runs an add-on installed on a
// project on each of the project's components. Each component's add-ons
// Each add-on's run on a component is a scheduled job ("addon:<id>"),
// bounded by the scheduler's workers and JobTimeout, and never run twice
// at once (a run still going when the next day's turn comes makes that
// turn skip); a turn missed while the scheduler slept (a suspended
// machine) is run late, at most a day's turns at once. What
// each add-on does daily:
//   - weblate.consistency.languages: its project's languages made the
//     same, once per add-on (not once per component: the run is the
//     project's);
//   - weblate.generate.pseudolocale: every string up to translated, and
//     read-only ones with include_readonly (the reference's daily, as
//     when triggered);
//   - weblate.autotranslate.autotranslate: the component's translations,
//     on one day of 30 per component (the component's id modulo 30), as
//     the reference's default BACKGROUND_TASKS "monthly" spreads it:
//     its updates trigger it anyway, and machine translation costs.
//
// A failing add-on is an alert change (47) on the component and the
// job's result; the others of the turn still run.

// addonTurns is how many turns a day of the daily add-ons has.
const addonTurns = 24

// autoTranslateCycle is how many days apart the daily runs of the
// automatic translation add-on on one component are.
const autoTranslateCycle = 30

// turnOf is the number of the turn now is in, counted from the Unix
// epoch (so turn%24 is the UTC hour with a day's interval).
func (sc *scheduler) turnOf(now time.Time) int64 {
	return now.UnixNano() / int64(sc.opts.AddonInterval/addonTurns)
}

// turnStart is when turn n begins.
func (sc *scheduler) turnStart(n int64) time.Time {
	return time.Unix(0, n*int64(sc.opts.AddonInterval/addonTurns))
}

// dueTurns returns the turns that began since the last one run, at most
// a day's, and moves nextAddons past now; the caller holds mu.
func (sc *scheduler) dueTurns(now time.Time) []int64 {
	cur := sc.turnOf(now)
	first := max(sc.lastTurn+1, cur-addonTurns+1)
	var out []int64
	for n := first; n <= cur; n++ {
		out = append(out, n)
	}
	sc.lastTurn = cur
	sc.nextAddons = sc.turnStart(cur + 1)
	return out
}

// addonPass starts a job for each daily add-on whose turn this is on
// each component it runs on.
func (sc *scheduler) addonPass(ctx context.Context, now time.Time, turns []int64) {
	s := sc.svc
	addons, err := s.store.FindAddons(ctx, index.AddonFilter{})
	if err == nil {
		addons = slices.DeleteFunc(addons, func(a index.Addon) bool {
			return !index.DailyAddon(a.Name) || !slices.ContainsFunc(turns, func(n int64) bool {
				return a.ID%addonTurns == n%addonTurns
			})
		})
	}
	if err != nil || len(addons) == 0 {
		if err != nil && ctx.Err() == nil {
			s.opts.Logger.Error("daily add-ons: listing add-ons", "err", err)
		}
		return
	}
	comps, err := s.store.FindComponents(ctx, 0)
	if err != nil {
		if ctx.Err() == nil {
			s.opts.Logger.Error("daily add-ons: listing components", "err", err)
		}
		return
	}
	day := now.UnixNano() / int64(sc.opts.AddonInterval)
	work := dailyWork(addons, comps, day)
	for _, c := range comps {
		for _, a := range work[c.ID] {
			sc.start(ctx, jobAddons+":"+strconv.FormatInt(a.ID, 10), c, func(ctx context.Context, c index.Component) error {
				return s.runDaily(ctx, c, a)
			})
		}
	}
}

// dailyWork says which add-ons run on which component (by id) on the
// given day: each on the components it covers, the languages add-on on
// one component of its project (its own, else the project's first), the
// automatic translation add-on on a component only on the component's
// day of the cycle.
func dailyWork(addons []index.Addon, comps []index.Component, day int64) map[int64][]index.Addon {
	work := map[int64][]index.Addon{}
	for _, a := range addons {
		if a.Name == index.AddonLanguages {
			id := a.ComponentID
			if id == 0 {
				if i := slices.IndexFunc(comps, func(c index.Component) bool { return c.ProjectID == a.ProjectID }); i >= 0 {
					id = comps[i].ID
				}
			}
			if id != 0 {
				work[id] = append(work[id], a)
			}
			continue
		}
		for _, c := range comps {
			if !a.Covers(c.ProjectID, c.ID) {
				continue
			}
			if a.Name == index.AddonAutoTranslate && c.ID%autoTranslateCycle != day%autoTranslateCycle {
				continue
			}
			work[c.ID] = append(work[c.ID], a)
		}
	}
	return work
}

// runDaily runs daily add-on a on c; a failure is an alert on c and the
// job's error.
func (s *Service) runDaily(ctx context.Context, c index.Component, a index.Addon) error {
	var err error
	switch a.Name {
	case index.AddonLanguages:
		// Failures on one component are alerts on it already.
		_, err = s.LanguageConsistency(ctx, a.ProjectID)
	case index.AddonPseudolocale:
		_, err = s.Pseudolocale(ctx, a, c, true)
	case index.AddonAutoTranslate:
		err = s.autoTranslate(ctx, a, c)
	}
	if err != nil {
		s.addonAlert(ctx, a.Name, c, err)
		return fmt.Errorf("%s: %w", a.Name, err)
	}
	return nil
}
