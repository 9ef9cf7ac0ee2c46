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

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
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
	// UserPrincipal and FindPrivateProjects tell which projects a
	// job's user may read, for the personal memory scope.
	UserPrincipal(ctx context.Context, userID int64) (index.Principal, error)
	FindPrivateProjects(ctx context.Context) ([]index.Project, error)
	// FindLanguage gives the source language's plural rule, to pair a
	// plural string's forms with the translation's.
	FindLanguage(ctx context.Context, code string) (index.Language, error)
	// TranslationAuthors names who made the memory matches an "mt" run
	// copies, whom the changes credit.
	TranslationAuthors(ctx context.Context, unitIDs []int64) (map[int64]int64, error)
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
	src, err := r.source(ctx, &t, j)
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

// source returns the source of translations of job j for t.
func (r *Runner) source(ctx context.Context, t *index.Translation, j index.AutoTranslateJob) (source, error) {
	p := j.Params
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
		ProjectID: t.Component.ProjectID, ComponentID: t.ComponentID}, targetForms: max(t.Language.Plural.Number, 1),
		failed: map[string]error{}, authors: r.store.TranslationAuthors}
	src, err := r.store.FindLanguage(ctx, t.Component.SourceLanguage)
	switch {
	case err == nil:
		m.plurals = pluralMap(src.Plural, t.Language.Plural)
	case !errors.Is(err, index.ErrNotFound): // a code the index lacks pairs forms by place
		return nil, err
	}
	if m.req.UserID, m.req.Hidden, err = r.personal(ctx, j); err != nil {
		return nil, err
	}
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

// personal returns the user whose personal memory scope answers job j's
// memory lookups and the projects hidden from them (see
// index.AutoTranslateParams.Personal), read when the job runs, so a job
// resumed after a restart reads what its user may read then; 0 when
// the scope does not apply or the user is gone or inactive.
func (r *Runner) personal(ctx context.Context, j index.AutoTranslateJob) (int64, []int64, error) {
	if !j.Params.Personal || j.UserID == 0 {
		return 0, nil, nil
	}
	who, err := r.store.UserPrincipal(ctx, j.UserID)
	if errors.Is(err, index.ErrNotFound) || errors.Is(err, index.ErrPermission) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	private, err := r.store.FindPrivateProjects(ctx)
	if err != nil {
		return 0, nil, err
	}
	return j.UserID, who.Hidden(private), nil
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
// AutoTranslate.process_mt). A string with plural forms has each source
// form translated and each of the translation's forms filled from the
// source form the reference's plural mapper pairs it with (plurals); it
// is translated when every form it needs is.
type machine struct {
	broker    *machinery.Broker
	engines   []machinery.Configured
	threshold int
	req       machinery.Request
	// targetForms is the translation's number of plural forms; plurals
	// pairs them with the source language's (nil: by place, the last
	// source form for the rest).
	targetForms int
	plurals     *checks.PluralMap
	// failed are the engines that failed in this job, by service id,
	// with their errors: they are not asked again.
	failed map[string]error
	// authors names who made the units' current translations
	// (Store.TranslationAuthors).
	authors func(ctx context.Context, unitIDs []int64) (map[int64]int64, error)
}

// pluralMap pairs the forms of the target plural rule with the source
// rule's, as the checks pair them (checks.NewPluralMap, the reference's
// PluralMapper); nil when a formula does not compile.
func pluralMap(src, tgt index.Plural) *checks.PluralMap {
	sf, err1 := langdata.CompilePlural(src.Formula)
	tf, err2 := langdata.CompilePlural(tgt.Formula)
	if err1 != nil || err2 != nil {
		return nil
	}
	return checks.NewPluralMap(src.Number, sf, tgt.Number, tf)
}

// sourceForm is the source form of unit u the translation's plural
// form i is made from.
func (m *machine) sourceForm(u *index.Unit, i int) int {
	n := len(u.Source)
	switch {
	case n == 1:
		return 0
	case m.plurals != nil && n == m.plurals.SourceForms:
		return m.plurals.Source[i]
	case m.plurals != nil:
		return n - 1 // another number of forms than the language's: the last, as the checks pair them
	}
	return min(i, n-1)
}

func (m *machine) translate(ctx context.Context, units []index.Unit) ([]index.AutoResult, error) {
	var todo []*index.Unit
	for i := range units {
		if len(units[i].Source) > 0 && !slices.Contains(units[i].Source, "") {
			todo = append(todo, &units[i])
		}
	}
	var out []index.AutoResult
	for _, c := range m.engines {
		if m.failed[c.Service.ID] != nil {
			continue
		}
		var rest []*index.Unit
		before := len(out)
		size := mtChunk
		if c.Service.Internal {
			// The memory and "weblate" read the index: one request
			// for the whole batch is one lookup (a few queries) where
			// chunks of mtChunk were four, each with its round trips.
			size = max(len(todo), 1)
		}
		for start := 0; start < len(todo); start += size {
			found, missed, err := m.ask(ctx, c, todo[start:min(start+size, len(todo))])
			if errors.Is(err, machinery.ErrUnsupported) {
				// This engine does not translate the pair.
				rest, out = todo, out[:before]
				break
			}
			if err != nil {
				// A failing engine (it names itself) leaves its strings
				// to the next ones, as the reference goes on past an
				// engine's error, and is asked no more in this job:
				// each batch would wait for its timeout again.
				if ctx.Err() != nil {
					return nil, err
				}
				m.failed[c.Service.ID] = err
				rest = append(rest, todo[start:]...)
				break
			}
			out, rest = append(out, found...), append(rest, missed...)
		}
		if todo = rest; len(todo) == 0 {
			break
		}
	}
	// Better than the reference, which logs its engines' errors and
	// reports success: when every chosen engine failed, the job fails
	// with the first one's error rather than updating nothing in
	// silence.
	if len(m.failed) == len(m.engines) {
		for _, c := range m.engines {
			return nil, m.failed[c.Service.ID]
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
	first := make([]int, len(units)) // where each unit's source forms start in req.Texts
	for i, u := range units {
		first[i] = len(req.Texts)
		req.Texts = append(req.Texts, u.Source...)
	}
	answers, err := m.broker.Translate(ctx, c, req)
	if err != nil {
		return nil, nil, err
	}
	var from []int64 // the memory's unit each found result copies, 0 for none
	for i, u := range units {
		forms := 1
		if len(u.Source) > 1 {
			forms = m.targetForms
		}
		target := make([]string, forms)
		var unit int64
		for f := range target {
			a := answers[first[i]+m.sourceForm(u, f)]
			if len(a) == 0 || a[0].Quality < m.threshold || a[0].Text == "" {
				target = nil
				break
			}
			target[f] = a[0].Text
			unit = cmp.Or(unit, a[0].UnitID)
		}
		if target != nil {
			found = append(found, index.AutoResult{UnitID: u.ID, Target: target})
			from = append(from, unit)
		} else {
			missed = append(missed, u)
		}
	}
	return found, missed, m.credit(ctx, found, from)
}

// credit sets the user of each result copied from a memory match of a
// string's translation (from[i], 0 for none) to whoever made that
// translation, as the reference records its memory entry's user on the
// change; the others stay the job's user's.
func (m *machine) credit(ctx context.Context, found []index.AutoResult, from []int64) error {
	var ids []int64
	for _, id := range from {
		if id != 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 || m.authors == nil {
		return nil
	}
	authors, err := m.authors(ctx, ids)
	if err != nil {
		return err
	}
	for i := range found {
		found[i].UserID = authors[from[i]]
	}
	return nil
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
