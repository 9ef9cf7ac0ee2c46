package sync

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	gosync "sync"
	"time"

	"github.com/tolk-project/tolk/index"
)

// The scheduled jobs, by the names the repository status shows.
const (
	jobCommit = "commit"
	jobPull   = "pull"
	jobAddons = "addon" // "addon:<id>", a daily add-on's (addon_daily.go)
)

// ScheduleStore is what the scheduler needs from the index (part of
// Store).
type ScheduleStore interface {
	// DueCommits returns the components whose oldest pending work is
	// older than their commit_pending_age at now.
	DueCommits(ctx context.Context, now time.Time) ([]index.Component, error)
	// FindComponents returns a project's components; every component
	// for projectID 0.
	FindComponents(ctx context.Context, projectID int64) ([]index.Component, error)
	// CleanupSuggestions removes the suggestions a unit's translation or
	// another suggestion repeats, and returns how many.
	CleanupSuggestions(ctx context.Context) (int, error)
	// SettleBatchChecks settles the daily source checks
	// (multiple_failures, long_untranslated) of every component and
	// returns how many strings' checks it changed.
	SettleBatchChecks(ctx context.Context) (int, error)
}

// Clock tells the scheduler the time and wakes it up; tests drive a
// fake one instead of sleeping. It must be safe for concurrent use.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives the time once d has passed
	// (at once for d <= 0).
	After(d time.Duration) <-chan time.Time
}

// systemClock is the real time.
type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Jobs runs the scheduled jobs of a component, on nobody's behalf. The
// scheduler calls it from its own goroutines, never running one job of a
// component twice at once; ctx ends when the Service closes or the run
// times out, and a run it cuts short must leave nothing half-applied.
type Jobs interface {
	// Commit commits the component's pending edits.
	Commit(ctx context.Context, c index.Component) error
	// Pull brings the component up to date with its remote.
	Pull(ctx context.Context, c index.Component) error
}

// serviceJobs runs the jobs on the Service itself, which takes the
// component's lock for each.
type serviceJobs struct{ s *Service }

func (j serviceJobs) Commit(ctx context.Context, c index.Component) error {
	_, err := j.s.Commit(ctx, c, nil)
	return err
}

func (j serviceJobs) Pull(ctx context.Context, c index.Component) error {
	return j.s.Pull(ctx, c, nil)
}

// SchedulerOptions configure the scheduled jobs.
type SchedulerOptions struct {
	// Clock is the scheduler's time; nil means the system clock.
	Clock Clock
	// CommitInterval is how often the scheduler looks for components
	// whose commit is due (ScheduleStore.DueCommits); 0 means a minute.
	CommitInterval time.Duration
	// PullInterval is how often every component with a remote is
	// pulled; 0 (the default) turns scheduled pulls off.
	PullInterval time.Duration
	// Workers bounds the jobs running at once over all components; 0
	// means 2.
	Workers int
	// JobTimeout bounds one run of a job; 0 means an hour.
	JobTimeout time.Duration
	// Jobs runs the jobs; nil means the Service's own Commit and pull.
	Jobs Jobs
	// OnJobDone, when set, hears each run once its result is recorded,
	// from the run's goroutine.
	OnJobDone func(c index.Component, j index.Job)
	// CleanupInterval is how often suggestions equal to their unit's
	// translation, and repeated ones, are removed (the reference's daily
	// cleanup_suggestions), and the daily quality checks settled
	// (multiple_failures, long_untranslated); 0 means a day, the first
	// a day after the start.
	CleanupInterval time.Duration
	// AddonInterval is how often each add-on the reference runs daily
	// (index.DailyAddon) runs; 0 means a day. The scheduler looks every
	// 24th of it (an hour) and runs, in each look, the add-ons whose id
	// modulo 24 is the look's number in the day (addon_daily.go).
	AddonInterval time.Duration
}

// Validate fills defaults (but Jobs, the Service's to fill) and rejects
// negative values.
func (o *SchedulerOptions) Validate() error {
	if o.CommitInterval < 0 || o.PullInterval < 0 || o.Workers < 0 || o.JobTimeout < 0 || o.CleanupInterval < 0 ||
		o.AddonInterval < 0 {
		return errors.New("sync: negative scheduler interval, workers or timeout")
	}
	if o.Clock == nil {
		o.Clock = systemClock{}
	}
	if o.CommitInterval == 0 {
		o.CommitInterval = time.Minute
	}
	if o.Workers == 0 {
		o.Workers = 2
	}
	if o.JobTimeout == 0 {
		o.JobTimeout = time.Hour
	}
	if o.CleanupInterval == 0 {
		o.CleanupInterval = 24 * time.Hour
	}
	if o.AddonInterval == 0 {
		o.AddonInterval = 24 * time.Hour
	}
	if o.AddonInterval < addonTurns {
		return errors.New("sync: add-on interval under 24ns")
	}
	return nil
}

// scheduler runs a Service's scheduled jobs. mu guards jobs, nextCommit
// and nextPull; svc, opts and slots never change.
type scheduler struct {
	svc   *Service
	opts  SchedulerOptions
	slots chan struct{} // one token per running job, up to Workers

	mu                   gosync.Mutex
	jobs                 map[jobKey]*index.Job
	nextCommit, nextPull time.Time
	nextCleanup          time.Time
	// nextAddons is the start of the next turn of the daily add-ons,
	// lastTurn the number of the last turn run (addon_daily.go).
	nextAddons time.Time
	lastTurn   int64
	// skips counts the turns a job that failed lately still skips.
	skips map[jobKey]int
}

type jobKey struct {
	component int64
	name      string
}

// StartScheduler runs the scheduled jobs in the background until Close:
// every CommitInterval (and once at once, so that work left due by a
// crash or a restart is done promptly) it commits each component whose
// oldest pending work is older than its commit_pending_age, and every
// PullInterval, when set, it pulls each component with a remote. A job
// still running when its next turn comes is skipped, not queued; a run
// Close cuts short leaves its work pending for the next start. Each run
// is logged, and RepositoryStatus shows the jobs and their last results.
// It returns an error for invalid options or when a scheduler already
// runs.
func (s *Service) StartScheduler(opts SchedulerOptions) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if opts.Jobs == nil {
		opts.Jobs = serviceJobs{s}
	}
	sc := &scheduler{svc: s, opts: opts, slots: make(chan struct{}, opts.Workers), jobs: map[jobKey]*index.Job{},
		skips: map[jobKey]int{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sched != nil {
		return errors.New("sync: the scheduler already runs")
	}
	s.sched = sc
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		sc.run(s.life)
	}()
	return nil
}

// scheduled returns the running scheduler, or nil.
func (s *Service) scheduled() *scheduler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sched
}

// run starts each pass when it is due until ctx ends. Passes only start
// jobs, so a long pull never delays the next look for due commits.
func (sc *scheduler) run(ctx context.Context) {
	clock, pull := sc.opts.Clock, sc.opts.PullInterval
	now := clock.Now()
	sc.mu.Lock()
	sc.nextCommit = now
	if pull > 0 {
		sc.nextPull = now.Add(pull)
	}
	sc.nextCleanup = now.Add(sc.opts.CleanupInterval)
	sc.lastTurn = sc.turnOf(now)
	sc.nextAddons = sc.turnStart(sc.lastTurn + 1)
	sc.mu.Unlock()
	for {
		now = clock.Now()
		sc.mu.Lock()
		commitDue := !now.Before(sc.nextCommit)
		if commitDue {
			sc.nextCommit = now.Add(sc.opts.CommitInterval)
		}
		pullDue := pull > 0 && !now.Before(sc.nextPull)
		if pullDue {
			sc.nextPull = now.Add(pull)
		}
		cleanupDue := !now.Before(sc.nextCleanup)
		if cleanupDue {
			sc.nextCleanup = now.Add(sc.opts.CleanupInterval)
		}
		wake := sc.nextCommit
		if pull > 0 && sc.nextPull.Before(wake) {
			wake = sc.nextPull
		}
		if sc.nextCleanup.Before(wake) {
			wake = sc.nextCleanup
		}
		var turns []int64
		if !now.Before(sc.nextAddons) {
			turns = sc.dueTurns(now)
		}
		if sc.nextAddons.Before(wake) {
			wake = sc.nextAddons
		}
		sc.mu.Unlock()
		if commitDue {
			sc.commitPass(ctx, now)
		}
		if cleanupDue {
			sc.cleanupPass(ctx)
			sc.batchChecksPass(ctx)
		}
		if pullDue {
			sc.pullPass(ctx)
		}
		if len(turns) > 0 {
			sc.addonPass(ctx, now, turns)
		}
		select {
		case <-ctx.Done():
			return
		case <-clock.After(wake.Sub(now)):
		}
	}
}

// commitPass starts the commit of each component due at now.
func (sc *scheduler) commitPass(ctx context.Context, now time.Time) {
	comps, err := sc.svc.store.DueCommits(ctx, now)
	if err != nil {
		if ctx.Err() == nil {
			sc.svc.opts.Logger.Error("scheduled commits: finding what is due", "err", err)
		}
		return
	}
	for _, c := range comps {
		sc.start(ctx, jobCommit, c, sc.opts.Jobs.Commit)
	}
}

// cleanupPass removes the suggestions that repeat their unit's
// translation or each other, logging what it did. It runs in the
// scheduler's loop: its writes are batched (the index's), and none
// waits on a repository.
func (sc *scheduler) cleanupPass(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, sc.opts.JobTimeout)
	defer cancel()
	start := sc.opts.Clock.Now()
	n, err := sc.svc.store.CleanupSuggestions(ctx)
	log := sc.svc.opts.Logger.With("job", "suggestion_cleanup")
	switch {
	case err != nil && ctx.Err() == nil:
		log.Error("scheduled job failed", "removed", n, "err", err)
	case err == nil:
		log.Info("scheduled job done", "removed", n, "duration", sc.opts.Clock.Now().Sub(start))
	}
}

// batchChecksPass settles the quality checks the reference computes in
// daily batches (multiple_failures, long_untranslated: they read other
// translations and the clock), in the same daily turn as the cleanup,
// one component per write, logging what it did.
func (sc *scheduler) batchChecksPass(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, sc.opts.JobTimeout)
	defer cancel()
	start := sc.opts.Clock.Now()
	n, err := sc.svc.store.SettleBatchChecks(ctx)
	log := sc.svc.opts.Logger.With("job", "batch_checks")
	switch {
	case err != nil && ctx.Err() == nil:
		log.Error("scheduled job failed", "settled", n, "err", err)
	case err == nil:
		log.Info("scheduled job done", "settled", n, "duration", sc.opts.Clock.Now().Sub(start))
	}
}

// pullPass starts the pull of each component with a remote.
func (sc *scheduler) pullPass(ctx context.Context) {
	comps, err := sc.svc.store.FindComponents(ctx, 0)
	if err != nil {
		if ctx.Err() == nil {
			sc.svc.opts.Logger.Error("scheduled pulls: listing components", "err", err)
		}
		return
	}
	for _, c := range comps {
		if hasRemote(c) {
			sc.start(ctx, jobPull, c, sc.opts.Jobs.Pull)
		}
	}
}

// hasRemote reports whether a component's repository is another's to
// pull from: not a local one, nor a link to another component's.
func hasRemote(c index.Component) bool {
	return c.VCS != "local" && c.Repo != "" && !strings.HasPrefix(c.Repo, "local:") &&
		!strings.HasPrefix(c.Repo, "weblate://")
}

// start runs the job of c in the background unless a run of it is still
// under way (or waiting for a worker), in which case this turn is
// skipped.
func (sc *scheduler) start(ctx context.Context, name string, c index.Component,
	fn func(context.Context, index.Component) error) {
	log := sc.svc.opts.Logger.With("job", name, "project", c.Project.Slug, "component", c.Slug)
	sc.mu.Lock()
	key := jobKey{c.ID, name}
	j, ok := sc.jobs[key]
	if !ok {
		j = &index.Job{Name: name}
		sc.jobs[key] = j
	}
	if j.Running {
		sc.mu.Unlock()
		log.Debug("job still running; this turn is skipped")
		return
	}
	if sc.skips[key] > 0 {
		sc.skips[key]--
		sc.mu.Unlock()
		log.Debug("job failed lately; this turn is skipped", "failures", j.Failures)
		return
	}
	j.Running = true
	sc.mu.Unlock()
	// The scheduler's own goroutine is counted, so this Add never races
	// Close's Wait from zero.
	sc.svc.wg.Add(1)
	go func() {
		defer sc.svc.wg.Done()
		sc.runJob(ctx, log, c, key, fn)
	}()
}

// runJob waits for a worker, runs one job and records and logs how it
// went.
func (sc *scheduler) runJob(ctx context.Context, log *slog.Logger, c index.Component, key jobKey,
	fn func(context.Context, index.Component) error) {
	var err error
	select {
	case sc.slots <- struct{}{}:
		defer func() { <-sc.slots }()
	case <-ctx.Done():
		err = ctx.Err()
	}
	start := sc.opts.Clock.Now()
	if err == nil {
		sc.update(key, func(j *index.Job) { j.LastStart, j.LastEnd = start, time.Time{} })
		jctx, cancel := context.WithTimeout(ctx, sc.opts.JobTimeout)
		err = fn(jctx, c)
		cancel()
	}
	end := sc.opts.Clock.Now()
	result := "ok"
	if err != nil {
		result = err.Error()
	}
	var done index.Job
	sc.update(key, func(j *index.Job) {
		j.Running, j.LastEnd, j.LastResult = false, end, result
		switch {
		case err == nil:
			j.Failures = 0
		case ctx.Err() == nil:
			j.Failures++
			sc.skips[key] = sc.backoff(key.name, j.Failures)
		}
		done = *j
	})
	switch {
	case err != nil && ctx.Err() != nil:
		// Close cut it short; its work stays pending for the next start.
		log.Info("job cancelled", "err", err, "duration", end.Sub(start))
	case err != nil:
		log.Error("job failed", "err", err, "duration", end.Sub(start))
	default:
		log.Info("job done", "duration", end.Sub(start))
	}
	if sc.opts.OnJobDone != nil {
		sc.opts.OnJobDone(c, sc.withNext(c.ID, done))
	}
}

// maxBackoff bounds the wait after failures: a repaired remote or file
// is picked up within the hour.
const maxBackoff = time.Hour

// backoff is how many turns a job skips after its failures-th failure in
// a row: none after the first, then 1, 3, 7… (the wait doubling), as
// long as the wait stays within maxBackoff (at least one turn).
func (sc *scheduler) backoff(name string, failures int) int {
	interval := sc.interval(name)
	skips := 0
	for range failures - 1 {
		next := 2*skips + 1
		if interval <= 0 || time.Duration(next)*interval > maxBackoff {
			break
		}
		skips = next
	}
	return skips
}

// interval is how often the scheduler looks at a job.
func (sc *scheduler) interval(name string) time.Duration {
	switch {
	case name == jobPull:
		return sc.opts.PullInterval
	case strings.HasPrefix(name, jobAddons+":"):
		return sc.opts.AddonInterval
	}
	return sc.opts.CommitInterval
}

// update changes the recorded state of a job.
func (sc *scheduler) update(key jobKey, fn func(*index.Job)) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	fn(sc.jobs[key])
}

// withNext fills in when the scheduler next looks at the job.
func (sc *scheduler) withNext(componentID int64, j index.Job) index.Job {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	switch j.Name {
	case jobCommit:
		j.NextRun = sc.nextCommit
	case jobPull:
		j.NextRun = sc.nextPull
	}
	// A job that failed lately sits out some turns.
	j.NextRun = j.NextRun.Add(time.Duration(sc.skips[jobKey{componentID, j.Name}]) * sc.interval(j.Name))
	return j
}

// jobsOf returns the jobs of a component, commit first: the commit, and
// the pull when scheduled pulls are on and the component has a remote.
func (sc *scheduler) jobsOf(c index.Component) []index.Job {
	names := []string{jobCommit}
	if sc.opts.PullInterval > 0 && hasRemote(c) {
		names = append(names, jobPull)
	}
	out := make([]index.Job, 0, len(names))
	for _, name := range names {
		sc.mu.Lock()
		j := index.Job{Name: name}
		if rec, ok := sc.jobs[jobKey{c.ID, name}]; ok {
			j = *rec
		}
		sc.mu.Unlock()
		out = append(out, sc.withNext(c.ID, j))
	}
	return out
}

// Jobs returns the scheduled jobs of a component and their last results
// (see index.Job); nil when no scheduler runs.
func (s *Service) Jobs(c index.Component) []index.Job {
	sc := s.scheduled()
	if sc == nil {
		return nil
	}
	return sc.jobsOf(c)
}
