package sync

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	gosync "sync"
	"time"

	"github.com/tolk-project/tolk/index"
)

// Completed tasks are kept this long for their clients to read, and at
// most this many; a task nobody polls must not be kept forever.
const (
	taskRetention = time.Hour
	maxTasks      = 1000
)

// errTaskCancelled is the failure of a task cancelled through CancelTask.
var errTaskCancelled = errors.New("the task was cancelled")

// task is one background job. mu guards state, finished, log, waiting
// and cancelled; id, component, cancel and started never change. cancel
// stops the job, which then fails with errTaskCancelled.
type task struct {
	id        string
	component index.Component
	cancel    context.CancelFunc

	started time.Time

	mu       gosync.Mutex
	state    index.Task
	finished time.Time
	log      strings.Builder
	// waiting is true until the job holds its component's lock, before
	// it fetches; cancelled once cancel was called.
	waiting, cancelled bool
}

// hold records that the job holds its component and is about to fetch.
func (t *task) hold() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.waiting = false
}

// pending reports whether the job has yet to fetch and will: it waits
// for its component and was not cancelled.
func (t *task) pending() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waiting && !t.cancelled
}

// snapshot returns the task as the API shows it.
func (t *task) snapshot() index.Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.state
	out.Log = t.log.String()
	return out
}

// logf adds a line to the task's log.
func (t *task) logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(&t.log, format+"\n", args...)
}

// progress records how far the task got, 0–100; it never goes back.
func (t *task) progress(p int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state.Progress = max(t.state.Progress, min(p, 100))
}

// finish marks the task completed with its result or error.
func (t *task) finish(result map[string]int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state.Completed, t.state.Progress, t.finished = true, 100, time.Now()
	if err != nil {
		t.state.Err = err.Error()
		fmt.Fprintf(&t.log, "Failed: %s\n", t.state.Err)
		return
	}
	t.state.Result = result
}

// taskList holds the service's tasks. mu guards m.
type taskList struct {
	mu gosync.Mutex
	m  map[string]*task
}

// add registers t, first dropping completed tasks past their retention
// and, over maxTasks, the oldest completed ones.
func (l *taskList) add(t *task) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	var done []*task
	for id, old := range l.m {
		old.mu.Lock()
		completed, finished := old.state.Completed, old.finished
		old.mu.Unlock()
		switch {
		case completed && now.Sub(finished) > taskRetention:
			delete(l.m, id)
		case completed:
			done = append(done, old)
		}
	}
	if excess := len(l.m) + 1 - maxTasks; excess > 0 {
		slices.SortFunc(done, func(a, b *task) int { return a.finished.Compare(b.finished) })
		for _, old := range done[:min(excess, len(done))] {
			delete(l.m, old.id)
		}
	}
	l.m[t.id] = t
}

func (l *taskList) get(id string) (*task, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.m[id]
	return t, ok
}

// ofComponent returns the tasks working on a component.
func (l *taskList) ofComponent(componentID int64) []*task {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*task
	for _, t := range l.m {
		if t.component.ID == componentID {
			out = append(out, t)
		}
	}
	return out
}

// newTaskID returns a random (version 4) UUID, the form of the
// reference's task ids.
func newTaskID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// StartImport imports the component in the background, as ImportComponent
// does, and returns the task reporting it. The task runs under the
// service's lifetime (Close cancels it), bounded by Options.ImportTimeout.
// After the import, translations whose file is gone are removed.
func (s *Service) StartImport(c index.Component) index.Task {
	return s.startImport(c, time.Time{})
}

// startImport is StartImport for a task that waits until notBefore
// before it takes its component, still pending (task.pending) meanwhile.
func (s *Service) startImport(c index.Component, notBefore time.Time) index.Task {
	return s.runTask(c, c.ProjectID, s.opts.ImportTimeout, true, "import task failed",
		func(ctx context.Context, t *task) (map[string]int, error) {
			if wait := time.Until(notBefore); wait > 0 {
				timer := time.NewTimer(wait)
				select {
				case <-timer.C:
				case <-ctx.Done(): // runImport answers it
				}
				timer.Stop()
			}
			return s.runImport(ctx, c, t)
		})
}

// runTask starts work as a task of component c (or of project
// projectID, c zero) under the service's lifetime, bounded by timeout;
// CancelTask cancels it. waiting says the task is pending until work
// calls hold. failed is the log message of a failure.
func (s *Service) runTask(c index.Component, projectID int64, timeout time.Duration, waiting bool, failed string,
	work func(ctx context.Context, t *task) (map[string]int, error)) index.Task {
	cctx, cancelCause := context.WithCancelCause(s.life)
	ctx, cancel := context.WithTimeout(cctx, timeout)
	t := &task{id: newTaskID(), component: c, started: time.Now(), waiting: waiting}
	t.cancel = func() {
		t.mu.Lock()
		t.cancelled = true
		t.mu.Unlock()
		cancelCause(errTaskCancelled)
	}
	t.state = index.Task{ID: t.id, ProjectID: projectID, ComponentID: c.ID, Started: t.started}
	s.tasks.add(t)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancelCause(nil) // after the timeout's cancel: releases cctx from s.life
		defer cancel()
		result, err := work(ctx, t)
		if err != nil {
			if errors.Is(context.Cause(ctx), errTaskCancelled) {
				err = errTaskCancelled
			}
			log := s.opts.Logger.With("project", c.Project.Slug, "component", c.Slug)
			if c.ID == 0 {
				log = s.opts.Logger.With("project_id", projectID)
			}
			log.Error(failed, "task", t.id, "err", err)
		}
		t.finish(result, err)
	}()
	return t.snapshot()
}

// StartUpdate is StartImport for a notice that the component's remote
// moved, such as a webhook. Notices are coalesced and rate-limited per
// component: a task of the component that has yet to fetch will import
// what was pushed, so StartUpdate returns it rather than queue another;
// otherwise (none, or one already fetching) it queues one follow-up,
// which starts no sooner than Options.UpdateInterval after the previous
// update that a notice started. However often a host calls, a component
// has at most one update running and one waiting, and is fetched at most
// once an interval. The check and the start are one step under
// updateMu, so concurrent notices cannot each queue their own.
func (s *Service) StartUpdate(c index.Component) index.Task {
	s.updateMu.Lock()
	defer s.updateMu.Unlock()
	for _, t := range s.tasks.ofComponent(c.ID) {
		if t.pending() {
			return t.snapshot()
		}
	}
	start := time.Now()
	if last, ok := s.lastUpdate[c.ID]; ok && start.Before(last.Add(s.opts.UpdateInterval)) {
		start = last.Add(s.opts.UpdateInterval)
	}
	s.lastUpdate[c.ID] = start
	return s.startImport(c, start)
}

// runImport is the work of an import task.
func (s *Service) runImport(ctx context.Context, c index.Component, t *task) (map[string]int, error) {
	asked := c
	c, err := s.onLink(ctx, c) // a linked component's jobs run on its parent
	if err != nil {
		return nil, err
	}
	unlock, err := s.lockComponent(ctx, c.ID)
	if err != nil {
		return nil, err // cancelled while another task held the component
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return nil, err // cancelled while another task held the component
	}
	t.hold()
	t.logf("Updating the repository.")
	// A first clone that fails is the task's failure alone; an update of
	// a checkout that exists is a repository failure the status shows.
	existed := s.cloned(c)
	co := s.checkoutTimed(ctx, c)
	if co.err != nil && existed {
		_, _ = s.finishLocal(ctx, co) // the failure is reported below
		return nil, s.updateFailed(ctx, c, nil, co.err)
	}
	if co.err != nil {
		return nil, co.err
	}
	t.progress(10)
	co.report = func(done, total int) {
		if total > 0 {
			t.progress(10 + 85*done/total)
		}
	}
	co.linkSums = map[int64]ImportSummary{}
	sum, err := s.importCheckout(ctx, co)
	if err != nil {
		return nil, err
	}
	if asked.ID != c.ID {
		sum = co.linkSums[asked.ID] // the task reports the component it was asked for
	}
	t.logf("%d files match the file mask: %d parsed, %d unchanged, %d failed to parse.",
		sum.Files, sum.Parsed, sum.Skipped, sum.Failed)
	t.logf("Strings: %d added, %d updated, %d removed.", sum.Added, sum.Updated, sum.Removed)
	if len(sum.StaleRemoved) > 0 {
		t.logf("Translations removed, their files gone: %s.", strings.Join(sum.StaleRemoved, ", "))
	}
	return map[string]int{"files": sum.Files, "parsed": sum.Parsed, "skipped": sum.Skipped,
		"failed": sum.Failed, "added": sum.Added, "updated": sum.Updated, "removed": sum.Removed,
		"translations_removed": len(sum.StaleRemoved)}, nil
}

// Task returns the task with the given id; false when there is none (it
// never existed, or completed over an hour ago).
func (s *Service) Task(id string) (index.Task, bool) {
	t, ok := s.tasks.get(id)
	if !ok {
		return index.Task{}, false
	}
	return t.snapshot(), true
}

// Tasks returns the tasks kept (running, and completed within the last
// hour), newest first.
func (s *Service) Tasks() []index.Task {
	s.tasks.mu.Lock()
	all := make([]*task, 0, len(s.tasks.m))
	for _, t := range s.tasks.m {
		all = append(all, t)
	}
	s.tasks.mu.Unlock()
	slices.SortFunc(all, func(a, b *task) int { return cmp.Or(b.started.Compare(a.started), strings.Compare(a.id, b.id)) })
	out := make([]index.Task, len(all))
	for i, t := range all {
		out[i] = t.snapshot()
	}
	return out
}

// CancelTask cancels the task with the given id; a completed task stays
// as it completed. It reports false when there is no such task.
func (s *Service) CancelTask(id string) bool {
	t, ok := s.tasks.get(id)
	if ok {
		t.cancel()
	}
	return ok
}
