package sync_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	tolksync "github.com/tolk-project/tolk/sync"
)

// fakeClock is a Clock the test moves: After fires once Advance passes
// its deadline, and every After call is announced on waits, which tells
// the test that the scheduler finished a pass and sleeps.
type fakeClock struct {
	mu     gosync.Mutex // guards now and timers
	now    time.Time
	timers []fakeTimer
	waits  chan struct{}
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock(now time.Time) *fakeClock {
	return &fakeClock{now: now, waits: make(chan struct{}, 100)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
	} else {
		c.timers = append(c.timers, fakeTimer{c.now.Add(d), ch})
	}
	c.mu.Unlock()
	c.waits <- struct{}{}
	return ch
}

// Advance moves the time on by d and fires the timers it passes.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- c.now
	}
	c.timers = kept
}

// awaitPass waits until the scheduler sleeps on the clock again: the pass
// it woke for has started (or skipped) its jobs.
func (c *fakeClock) awaitPass(tb testing.TB) {
	tb.Helper()
	select {
	case <-c.waits:
	case <-time.After(10 * time.Second):
		tb.Fatal("the scheduler never waited on the clock")
	}
}

// funcJobs are scheduled jobs the test writes.
type funcJobs struct {
	commit, pull func(ctx context.Context, c index.Component) error
}

func (j funcJobs) Commit(ctx context.Context, c index.Component) error { return j.commit(ctx, c) }
func (j funcJobs) Pull(ctx context.Context, c index.Component) error   { return j.pull(ctx, c) }

// receive returns the next value of ch, failing after ten seconds.
func receive[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		tb.Fatalf("no %s", what)
	}
	var zero T
	return zero
}

// schedEnv is a commit environment whose index and scheduler share a
// fake clock, starting after the import's changes (the index never
// writes a time before its last change's) on a whole second (the index
// keeps microseconds).
type schedEnv struct {
	commitEnv
	clock *fakeClock
	done  chan index.Job // each job run, once recorded
}

// mustSchedEnv builds the environment with the component's
// commit_pending_age set to hours.
func mustSchedEnv(tb testing.TB, hours int) schedEnv {
	tb.Helper()
	e := schedEnv{commitEnv: mustCommitEnv(tb), clock: newFakeClock(time.Now().UTC().Add(time.Minute).Truncate(time.Second)),
		done: make(chan index.Job, 10)}
	e.dbClock.Set(e.clock.Now)
	e.c.CommitPendingAge = hours
	var err error
	if e.c, _, err = e.db.SaveComponent(context.Background(), e.c); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.svc.Close() })
	return e
}

func (e schedEnv) start(tb testing.TB, opts tolksync.SchedulerOptions) {
	tb.Helper()
	opts.Clock = e.clock
	opts.OnJobDone = func(_ index.Component, j index.Job) { e.done <- j }
	if err := e.svc.StartScheduler(opts); err != nil {
		tb.Fatal(err)
	}
	e.clock.awaitPass(tb) // the pass at start
}

// job returns the component's job by name as the repository status
// shows it.
func (e schedEnv) job(tb testing.TB, name string) index.Job {
	tb.Helper()
	st, err := e.svc.RepositoryStatus(context.Background(), e.c)
	if err != nil {
		tb.Fatal(err)
	}
	for _, j := range st.Jobs {
		if j.Name == name {
			return j
		}
	}
	tb.Fatalf("no job %q in %+v", name, st.Jobs)
	return index.Job{}
}

// TestSchedulerCommitsOldestPending: a translation edited at t0 and
// again every 30 minutes is committed once its t0 edit is older than
// commit_pending_age, not before; measured from the newest edit (the
// reference's way) it would never be.
func TestSchedulerCommitsOldestPending(t *testing.T) {
	t.Parallel()
	e := mustSchedEnv(t, 2)
	head := e.log(t)
	t0 := e.clock.Now()
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.start(t, tolksync.SchedulerOptions{CommitInterval: 30 * time.Minute})
	for step := 1; ; step++ {
		e.clock.Advance(30 * time.Minute)
		e.clock.awaitPass(t)
		now := e.clock.Now()
		if now.Sub(t0) > 2*time.Hour {
			break
		}
		if j := e.job(t, "commit"); j.Running || !j.LastStart.IsZero() {
			t.Fatalf("at t0+%s the commit ran (%+v); the oldest edit is not 2h old yet", now.Sub(t0), j)
		}
		e.edit(t, "de", "hello", "Hallo "+now.Format("15:04"), e.ann)
	}
	j := receive(t, e.done, "commit run")
	if j.Name != "commit" || j.LastResult != "ok" || !j.LastStart.Equal(t0.Add(150*time.Minute)) {
		t.Errorf("commit run = %+v, want ok, started at t0+2h30m", j)
	}
	if want := t0.Add(180 * time.Minute); !j.NextRun.Equal(want) {
		t.Errorf("next run = %s, want %s", j.NextRun, want)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after the scheduled commit = %+v", p)
	}
	st, err := e.svc.RepositoryStatus(context.Background(), e.c)
	if err != nil {
		t.Fatal(err)
	}
	if !st.NeedsPush || st.LocalCommit.AuthorName != "Ann Example" {
		t.Errorf("after the scheduled commit: needs_push %v, HEAD by %q", st.NeedsPush, st.LocalCommit.AuthorName)
	}
	if got := e.log(t); len(got) != len(head) {
		t.Errorf("the scheduled commit pushed: %v", got) // push_on_commit is off
	}
}

// TestSchedulerSkipsRunningJob: a job whose run still goes is skipped at
// its next turns, not started twice nor queued; once done it runs again.
func TestSchedulerSkipsRunningJob(t *testing.T) {
	t.Parallel()
	e := mustSchedEnv(t, 0)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.clock.Advance(time.Second) // the edit is older than now: due
	var calls atomic.Int32
	entered, release := make(chan struct{}, 10), make(chan struct{})
	jobs := funcJobs{commit: func(ctx context.Context, c index.Component) error {
		calls.Add(1)
		entered <- struct{}{}
		<-release
		return errors.New("still pending")
	}}
	e.start(t, tolksync.SchedulerOptions{CommitInterval: time.Minute, Jobs: jobs})
	receive(t, entered, "commit run")
	for range 3 {
		e.clock.Advance(time.Minute)
		e.clock.awaitPass(t)
	}
	if j := e.job(t, "commit"); !j.Running {
		t.Errorf("commit job = %+v, want running", j)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("commit started %d times while its first run went, want once", n)
	}
	close(release)
	j := receive(t, e.done, "commit result")
	if j.Running || j.LastResult != "still pending" {
		t.Errorf("commit job after its run = %+v", j)
	}
	e.clock.Advance(time.Minute)
	receive(t, entered, "second commit run")
	if n := calls.Load(); n != 2 {
		t.Errorf("commit started %d times, want 2", n)
	}
}

// TestSchedulerCloseCancelsJob: Close cancels a running job through its
// context and waits for it; the work stays pending, and the next start's
// first pass does it.
func TestSchedulerCloseCancelsJob(t *testing.T) {
	t.Parallel()
	e := mustSchedEnv(t, 0)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.clock.Advance(time.Second)
	entered := make(chan struct{}, 1)
	jobs := funcJobs{commit: func(ctx context.Context, c index.Component) error {
		entered <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}}
	e.start(t, tolksync.SchedulerOptions{Jobs: jobs})
	receive(t, entered, "commit run")
	closed := make(chan error, 1)
	go func() { closed <- e.svc.Close() }()
	if err := receive(t, closed, "return from Close"); err != nil {
		t.Fatal(err)
	}
	j := receive(t, e.done, "commit result")
	if j.LastResult != context.Canceled.Error() {
		t.Errorf("cancelled commit result = %q, want %q", j.LastResult, context.Canceled)
	}
	if p := e.pending(t); p.Units != 1 {
		t.Fatalf("pending after the cancelled commit = %+v, want the edit", p)
	}

	// A restart redoes it at once: the pass at start.
	svc, err := tolksync.New(e.db, langdata.Default(), tolksync.Options{DataDir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	if err := svc.StartScheduler(tolksync.SchedulerOptions{Clock: e.clock,
		OnJobDone: func(_ index.Component, j index.Job) { e.done <- j }}); err != nil {
		t.Fatal(err)
	}
	if j := receive(t, e.done, "commit after restart"); j.LastResult != "ok" {
		t.Errorf("commit after restart = %+v", j)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after the restart's commit = %+v", p)
	}
}

// TestSchedulerPull: with a pull interval, an upstream commit is fetched
// and imported at the next turn, not at start; the job shows its result.
func TestSchedulerPull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustSchedEnv(t, 24)
	e.start(t, tolksync.SchedulerOptions{CommitInterval: time.Hour, PullInterval: 30 * time.Minute})
	writeAndPush(t, e.work, map[string]string{
		"locales/en.json": "{\n  \"hello\": \"Hello\",\n  \"bye\": \"Bye\",\n  \"menu\": {\"file\": \"File\"},\n  \"new\": \"New\"\n}\n",
	}, "upstream adds a string")
	if j := e.job(t, "pull"); !j.LastStart.IsZero() || !j.NextRun.Equal(e.clock.Now().Add(30*time.Minute)) {
		t.Errorf("pull before its first turn = %+v", j)
	}
	e.clock.Advance(30 * time.Minute)
	j := receive(t, e.done, "pull result")
	if j.Name != "pull" || j.LastResult != "ok" {
		t.Fatalf("pull = %+v", j)
	}
	tr := mustTranslation(t, e.env, "app", "de")
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, u := range units {
		keys = append(keys, u.Context)
	}
	if !strings.Contains(strings.Join(keys, ","), "new") {
		t.Errorf("de after the scheduled pull has %v, want the upstream string new", keys)
	}
}

// TestSchedulerBacksOffAfterFailures: a commit that keeps failing (a
// file upstream broke) runs at the turns 0, 1, 3 and 7, not every
// minute; the status counts the failures and says when it next runs;
// one success resets the count.
func TestSchedulerBacksOffAfterFailures(t *testing.T) {
	t.Parallel()
	e := mustSchedEnv(t, 0)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.clock.Advance(time.Second) // the edit is older than now: due
	var fail atomic.Bool
	fail.Store(true)
	turns := make(chan int, 20)
	turn := 0
	jobs := funcJobs{commit: func(ctx context.Context, c index.Component) error {
		turns <- turn
		if fail.Load() {
			return errors.New("locales/de.json: line 2, column 3: invalid character")
		}
		return nil
	}}
	e.start(t, tolksync.SchedulerOptions{CommitInterval: time.Minute, Jobs: jobs})
	receive(t, e.done, "first run")
	for turn = 1; turn <= 8; turn++ {
		e.clock.Advance(time.Minute)
		e.clock.awaitPass(t)
		if turn == 1 || turn == 3 || turn == 7 {
			receive(t, e.done, "a run after failures")
		}
	}
	close(turns)
	var ran []int
	for n := range turns {
		ran = append(ran, n)
	}
	if fmt.Sprint(ran) != "[0 1 3 7]" {
		t.Fatalf("the failing commit ran at turns %v, want [0 1 3 7]", ran)
	}
	j := e.job(t, "commit")
	if j.Failures != 4 || !strings.HasPrefix(j.LastResult, "locales/de.json") {
		t.Errorf("job after four failures = %+v", j)
	}
	// Seven turns are skipped after the fourth failure (at turn 7): the
	// next run is at turn 15.
	if want := e.clock.Now().Add(7 * time.Minute); !j.NextRun.Equal(want) {
		t.Errorf("next run = %s, want %s", j.NextRun, want)
	}
}

// TestSchedulerCleansSuggestions: once a day the scheduler removes the
// suggestions whose text their unit now holds, recording "Suggestion
// removed during cleanup" (29) with no user, and leaves the others.
func TestSchedulerCleansSuggestions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustSchedEnv(t, 24)
	tr := mustTranslation(t, e.env, "app", "de")
	units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil || len(units) < 2 {
		t.Fatalf("units: %v %v", units, err)
	}
	allow := func(index.Unit, index.Translation) (index.SuggestionRights, error) {
		return index.SuggestionRights{}, nil
	}
	var ids []int64
	for i, text := range []string{"Eingeholt", "Bleibt"} {
		out, err := e.db.AddSuggestion(ctx, units[i].ID, index.NewSuggestion{Target: []string{text}, UserID: e.ann.ID}, allow)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, out.Suggestion.ID)
	}
	// The first unit's translation catches up with its suggestion.
	if _, err := e.db.UpdateUnit(ctx, units[0].ID, index.UserActor(&e.bob),
		func(u index.Unit, _ index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Eingeholt"}, State: index.StateTranslated}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	e.start(t, tolksync.SchedulerOptions{CommitInterval: time.Hour})
	if _, err := e.db.FindSuggestionByID(ctx, ids[0]); err != nil {
		t.Fatalf("cleaned up before its turn: %v", err)
	}
	e.clock.Advance(24 * time.Hour)
	e.clock.awaitPass(t)
	if _, err := e.db.FindSuggestionByID(ctx, ids[0]); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("the suggestion its unit holds: %v, want not found", err)
	}
	if _, err := e.db.FindSuggestionByID(ctx, ids[1]); err != nil {
		t.Errorf("the other suggestion: %v", err)
	}
	chs, _, err := e.db.FindChanges(ctx, index.ChangeFilter{UnitID: units[0].ID, Page: index.Page{Number: 1, Size: 50}})
	if err != nil {
		t.Fatal(err)
	}
	last := chs[len(chs)-1]
	if last.Action != index.ActionSuggestionCleanup || last.UserID != 0 || last.Target != "Eingeholt" {
		t.Errorf("last change: %+v", last)
	}
	u, err := e.db.FindUnitByID(ctx, units[0].ID)
	if err != nil || u.HasSuggestion {
		t.Errorf("unit after the cleanup: has_suggestion %v (%v)", u.HasSuggestion, err)
	}
	if tr = mustTranslation(t, e.env, "app", "de"); tr.Stats.Suggestions != 1 {
		t.Errorf("translation counts %d suggestions, want 1", tr.Stats.Suggestions)
	}
}

// TestSchedulerSettlesBatchChecks: the daily turn settles the checks the
// reference computes in batches: "hello" failing a check in de and in fr
// makes its source string fail multiple_failures then, not before.
func TestSchedulerSettlesBatchChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustSchedEnv(t, 24)
	e.edit(t, "de", "hello", "Hallo!", e.bob)
	e.edit(t, "fr", "hello", "Bonjour!", e.bob)
	src := mustTranslation(t, e.env, "app", "en")
	sourceChecks := func() []string {
		t.Helper()
		units, _, err := e.db.FindUnits(ctx, index.UnitFilter{TranslationID: src.ID, Query: "check:multiple_failures",
			Page: index.Page{Number: 1, Size: 50}})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, u := range units {
			keys = append(keys, u.Context)
		}
		return keys
	}
	e.start(t, tolksync.SchedulerOptions{CommitInterval: time.Hour})
	if got := sourceChecks(); len(got) != 0 {
		t.Fatalf("before the daily turn: %q", got)
	}
	e.clock.Advance(24 * time.Hour)
	e.clock.awaitPass(t)
	if got := sourceChecks(); !slices.Equal(got, []string{"hello"}) {
		t.Errorf("after the daily turn: %q, want [hello]", got)
	}
	if src = mustTranslation(t, e.env, "app", "en"); src.Stats.Failing != 1 {
		t.Errorf("source translation counts %d failing, want 1", src.Stats.Failing)
	}
}
