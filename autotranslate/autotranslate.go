// Package autotranslate runs automatic translations (reference
// workspace §6.3): the strings of a translation matching a search are
// filled from the current translations of the project's other
// components ("others") or from machine translation services ("mt"), as
// suggestions or as translations.
//
// Unlike the reference, whose API call runs in the request until it is
// done or the HTTP timeout ends it, a run here is a job stored in the
// index: a batch of units at a time is read, translated and written in
// one write with the job's cursor, so the writer is held for one batch,
// never for the whole translation, and a process killed midway resumes
// the job after its last batch when it starts again (Runner.Resume),
// doing no string twice and losing none.
package autotranslate

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/machinery"
)

// Store is what a Runner reads and writes (*sqlstore.DB).
type Store interface {
	CreateAutoTranslateJob(ctx context.Context, j index.AutoTranslateJob) (index.AutoTranslateJob, error)
	FindAutoTranslateJob(ctx context.Context, id string) (index.AutoTranslateJob, error)
	AutoTranslateJobs(ctx context.Context, open bool) ([]index.AutoTranslateJob, error)
	NextAutoTranslateUnits(ctx context.Context, j index.AutoTranslateJob, limit int) ([]index.Unit, error)
	ApplyAutoTranslateBatch(ctx context.Context, jobID string, b index.AutoBatch) (int, error)
	FinishAutoTranslateJob(ctx context.Context, id, errText string) error
	PruneAutoTranslateJobs(ctx context.Context, age time.Duration) (int, error)
	FindTranslationByID(ctx context.Context, id int64) (index.Translation, error)
	FindMachinerySettings(ctx context.Context, projectID int64) (index.MachinerySettings, error)
	FindSameSource(ctx context.Context, f index.SameSourceFilter) ([]index.SameSourceMatch, error)
	ComponentStore
}

// Defaults of Options.
const (
	DefaultBatchSize = 200
	DefaultRetention = 24 * time.Hour
)

// Options configure a Runner.
type Options struct {
	// Machinery queries the services of "mt" runs; nil refuses them.
	Machinery *machinery.Broker
	// BatchSize is how many units one write takes; 0 is
	// DefaultBatchSize.
	BatchSize int
	// Retention is how long completed jobs are kept for their clients
	// to read; 0 is DefaultRetention.
	Retention time.Duration
	Logger    *slog.Logger
}

// Runner runs automatic translation jobs in the background. It is safe
// for concurrent use; Close stops its jobs between two batches, leaving
// them to Resume.
type Runner struct {
	store Store
	opts  Options
	life  context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup

	mu sync.Mutex // guards running and pruned
	// running are the jobs this process runs, each with the function
	// that cancels it for good (CancelJob).
	running map[string]*run
	// pruned is when Start last dropped expired jobs (guarded by mu).
	pruned time.Time
}

// run is one running job.
type run struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// errCancelled is a job cancelled through CancelJob.
var errCancelled = errors.New("the task was cancelled")

// New returns a Runner over store.
func New(store Store, opts Options) *Runner {
	opts.BatchSize = cmp.Or(opts.BatchSize, DefaultBatchSize)
	opts.Retention = cmp.Or(opts.Retention, DefaultRetention)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	life, stop := context.WithCancel(context.Background())
	return &Runner{store: store, opts: opts, life: life, stop: stop, running: map[string]*run{}}
}

// Close stops the running jobs after the batch each is writing and
// waits for them; they stay open in the index for Resume.
func (r *Runner) Close() {
	r.stop()
	r.wg.Wait()
}

// Start stores a new job for translation t with the given parameters,
// asked by userID (0: an add-on), and runs it in the background. It
// returns the job as stored and a channel closed when the job ends.
func (r *Runner) Start(ctx context.Context, t index.Translation, userID int64, p index.AutoTranslateParams) (index.AutoTranslateJob, <-chan struct{}, error) {
	if p.Source == index.AutoSourceMT && r.opts.Machinery == nil {
		return index.AutoTranslateJob{}, nil, index.Errorf(index.ErrInvalid, "Machine translation is not available on this server.")
	}
	// Completed jobs past their retention go as new ones come, so a
	// server that runs for months keeps a day of them, not all: at most
	// once a tenth of the retention, not a write per job (an add-on
	// starts one per translation).
	r.mu.Lock()
	prune := time.Since(r.pruned) >= r.opts.Retention/10
	if prune {
		r.pruned = time.Now()
	}
	r.mu.Unlock()
	if prune {
		if _, err := r.store.PruneAutoTranslateJobs(ctx, r.opts.Retention); err != nil {
			return index.AutoTranslateJob{}, nil, err
		}
	}
	j, err := r.store.CreateAutoTranslateJob(ctx, index.AutoTranslateJob{ID: newID(), ProjectID: t.Component.ProjectID,
		ComponentID: t.ComponentID, TranslationID: t.ID, UserID: userID, Params: p})
	if err != nil {
		return j, nil, err
	}
	return j, r.launch(j), nil
}

// Resume runs the jobs a previous process left open and drops completed
// jobs past their retention; it returns how many it resumed.
func (r *Runner) Resume(ctx context.Context) (int, error) {
	if _, err := r.store.PruneAutoTranslateJobs(ctx, r.opts.Retention); err != nil {
		return 0, err
	}
	open, err := r.store.AutoTranslateJobs(ctx, true)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, j := range open {
		r.mu.Lock()
		_, running := r.running[j.ID]
		r.mu.Unlock()
		if !running {
			r.opts.Logger.Info("resuming automatic translation", "task", j.ID, "translation", j.TranslationID,
				"done", j.Done, "total", j.Total)
			r.launch(j)
			n++
		}
	}
	return n, nil
}

// CancelJob stops a running job for good: it completes with an error
// after the batch it is writing. A job not running here is marked
// completed at once.
func (r *Runner) CancelJob(ctx context.Context, id string) error {
	r.mu.Lock()
	ru, ok := r.running[id]
	r.mu.Unlock()
	if ok {
		ru.cancel(errCancelled)
		<-ru.done
		return nil
	}
	return r.store.FinishAutoTranslateJob(ctx, id, errCancelled.Error())
}

// launch runs j in the background.
func (r *Runner) launch(j index.AutoTranslateJob) <-chan struct{} {
	ctx, cancel := context.WithCancelCause(r.life)
	ru := &run{cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	r.running[j.ID] = ru
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(ru.done)
		defer cancel(nil)
		err := r.run(ctx, j)
		r.mu.Lock()
		delete(r.running, j.ID)
		r.mu.Unlock()
		switch {
		case errors.Is(context.Cause(ctx), errCancelled):
			err = errCancelled
		case r.life.Err() != nil:
			return // the process stops: the job stays open for Resume
		}
		msg := ""
		if err != nil {
			msg = err.Error()
			r.opts.Logger.Error("automatic translation failed", "task", j.ID, "err", err)
		}
		// Its own deadline: the end must be stored even if the job's
		// context ended.
		fctx, fcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer fcancel()
		if ferr := r.store.FinishAutoTranslateJob(fctx, j.ID, msg); ferr != nil {
			r.opts.Logger.Error("automatic translation: storing the end failed", "task", j.ID, "err", ferr)
		}
	}()
	return ru.done
}

// run works through j's units a batch at a time from its cursor.
func (r *Runner) run(ctx context.Context, j index.AutoTranslateJob) error {
	t, err := r.store.FindTranslationByID(ctx, j.TranslationID)
	if err != nil {
		return err
	}
	src, err := r.source(ctx, &t, j.Params)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		units, err := r.store.NextAutoTranslateUnits(ctx, j, r.opts.BatchSize)
		if err != nil || len(units) == 0 {
			return err
		}
		results, err := src.translate(ctx, units)
		if err != nil {
			return err
		}
		b := index.AutoBatch{Results: results, Cursor: units[len(units)-1].ID, Seen: len(units)}
		// The write runs to its end once queued: a stop between batches
		// leaves nothing half written.
		if _, err := r.store.ApplyAutoTranslateBatch(context.WithoutCancel(ctx), j.ID, b); err != nil {
			return err
		}
		j.Cursor = b.Cursor
	}
}

// source finds the translations of a batch of units.
type source interface {
	translate(ctx context.Context, units []index.Unit) ([]index.AutoResult, error)
}

// source returns the job's source of translations for t.
func (r *Runner) source(ctx context.Context, t *index.Translation, p index.AutoTranslateParams) (source, error) {
	if p.Source != index.AutoSourceMT {
		return &others{store: r.store, filter: index.SameSourceFilter{ProjectID: t.Component.ProjectID,
			ExcludeComponentID: t.ComponentID, ComponentID: p.ComponentID,
			SourceLanguage: t.Component.SourceLanguage, Language: t.LanguageCode, Limit: 1}}, nil
	}
	if r.opts.Machinery == nil {
		return nil, errors.New("machine translation is not available on this server")
	}
	settings, err := r.store.FindMachinerySettings(ctx, t.Component.ProjectID)
	if err != nil {
		return nil, err
	}
	m := &machine{broker: r.opts.Machinery, threshold: p.Threshold, req: machinery.Request{
		SourceLanguage: t.Component.SourceLanguage, TargetLanguage: t.LanguageCode,
		ProjectID: t.Component.ProjectID, ComponentID: t.ComponentID}}
	// Effective is best rank first: the engines are asked in that order.
	for _, c := range r.opts.Machinery.Effective(settings) {
		if slices.Contains(p.Engines, c.Service.ID) {
			m.engines = append(m.engines, c)
		}
	}
	if len(m.engines) == 0 {
		return nil, errors.New("none of the chosen services is configured for the project")
	}
	return m, nil
}

// others copies the current translation of the same source text in the
// project's other components: the first match, best state first.
type others struct {
	store  Store
	filter index.SameSourceFilter
}

func (o *others) translate(ctx context.Context, units []index.Unit) ([]index.AutoResult, error) {
	f := o.filter
	f.Sources = make([]string, len(units))
	for i := range units {
		f.Sources[i] = index.JoinPlural(units[i].Source)
	}
	matches, err := o.store.FindSameSource(ctx, f)
	if err != nil {
		return nil, err
	}
	bySource := make(map[string][]string, len(matches))
	for _, m := range matches {
		if _, ok := bySource[m.Source]; !ok {
			bySource[m.Source] = m.Target
		}
	}
	var out []index.AutoResult
	for i := range units {
		if target, ok := bySource[f.Sources[i]]; ok && !slices.Equal(target, units[i].Target) {
			out = append(out, index.AutoResult{UnitID: units[i].ID, Target: target})
		}
	}
	return out, nil
}

// machine asks the chosen engines, best rank first, for the units none
// before it answered at the threshold; the best candidate an engine
// gives at or above the threshold wins (the reference's
// AutoTranslate.process_mt). Strings with plural forms are left out: an
// engine translates one text.
type machine struct {
	broker    *machinery.Broker
	engines   []machinery.Configured
	threshold int
	req       machinery.Request
}

func (m *machine) translate(ctx context.Context, units []index.Unit) ([]index.AutoResult, error) {
	var todo []*index.Unit
	for i := range units {
		if len(units[i].Source) == 1 && units[i].Source[0] != "" {
			todo = append(todo, &units[i])
		}
	}
	var out []index.AutoResult
	for _, c := range m.engines {
		var rest []*index.Unit
		before := len(out)
		size := mtChunk
		if c.Service.Internal {
			// The memory and "weblate" read the index: one request
			// for the whole batch is one lookup (a few queries) where
			// chunks of mtChunk were four, each with its round trips.
			size = max(len(todo), 1)
		}
		for chunk := range slices.Chunk(todo, size) {
			found, missed, err := m.ask(ctx, c, chunk)
			if errors.Is(err, machinery.ErrUnsupported) {
				// This engine does not translate the pair.
				rest, out = todo, out[:before]
				break
			}
			if err != nil {
				return nil, err // names the service
			}
			out, rest = append(out, found...), append(rest, missed...)
		}
		if todo = rest; len(todo) == 0 {
			break
		}
	}
	return out, nil
}

// mtChunk is how many texts one request to an outside engine carries:
// each request has the engine's deadline (machinery.Options.Timeout),
// which a whole batch of APy's one-text calls could overrun. Internal
// services (the index's memory and strings) take the whole batch.
const mtChunk = 50

// ask asks one engine for units' translations; it returns those at the
// threshold and the units left.
func (m *machine) ask(ctx context.Context, c machinery.Configured, units []*index.Unit) (found []index.AutoResult, missed []*index.Unit, err error) {
	req := m.req
	req.Texts = make([]string, len(units))
	for i, u := range units {
		req.Texts[i] = u.Source[0]
	}
	answers, err := m.broker.Translate(ctx, c, req)
	if err != nil {
		return nil, nil, err
	}
	for i, u := range units {
		if len(answers[i]) > 0 && answers[i][0].Quality >= m.threshold && answers[i][0].Text != "" {
			found = append(found, index.AutoResult{UnitID: u.ID, Target: []string{answers[i][0].Text}})
		} else {
			missed = append(missed, u)
		}
	}
	return found, missed, nil
}

// newID returns a random (version 4) UUID, the form of the reference's
// task ids.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
