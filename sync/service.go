package sync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	gosync "sync"
	"sync/atomic"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// Store is what sync needs from the index.
type Store interface {
	SaveProject(ctx context.Context, p index.Project) (index.Project, bool, error)
	SaveComponent(ctx context.Context, c index.Component) (index.Component, bool, error)
	SeedLanguages(ctx context.Context, langs []index.Language) error
	// ImportTranslations imports the translations in order, in one
	// transaction: all are committed, each with its revision, or none.
	ImportTranslations(ctx context.Context, imps []index.TranslationImport) ([]index.ImportResult, error)
	TranslationRevisions(ctx context.Context, componentID int64) (map[string]string, error)
	// RemoveStaleTranslations removes the component's translations whose
	// language is not in keep, except the source translation and those
	// whose file a commit is yet to create, and returns their codes.
	RemoveStaleTranslations(ctx context.Context, componentID int64, keep []string) ([]string, error)
	// PendingUnits counts what the component's next commit owes its
	// repository.
	PendingUnits(ctx context.Context, componentID int64) (index.Pending, error)
	// RecordImport stores how the component's last import or update
	// went, replacing what was stored.
	RecordImport(ctx context.Context, componentID int64, st index.ImportStatus) error
	CommitStore // FindPendingFiles among its methods
	PullStore
	ScheduleStore
	OperationStore
	JobStore
	LinkStore
	AddonStore
	AddonRunStore
}

// Languages resolves the language codes found in file names.
type Languages interface {
	Resolve(code string) (index.Language, bool)
	// Generate makes a language for a code the table does not know,
	// from its base language, as the reference creates one.
	Generate(code string) (index.Language, bool)
	// StyleCode writes a canonical code in a component's
	// language_code_style; false for an unknown style.
	StyleCode(code, style string) (string, bool)
}

// Options configure a Service.
type Options struct {
	// DataDir holds one repository checkout per component.
	DataDir string
	Logger  *slog.Logger
	// CheckTimeout bounds the clone CheckComponent makes while a client
	// waits for its answer; 0 means two minutes.
	CheckTimeout time.Duration
	// ImportTimeout bounds a background import task; 0 means one hour.
	ImportTimeout time.Duration
	// Committer is the committer of every commit Tolk makes (the author
	// is the translator); a zero value means DefaultCommitter.
	Committer vcs.Signature
	// SiteURL is the address of the site without a trailing slash, for
	// the url of commit messages; "" leaves the url a path.
	SiteURL string
	// UpdateInterval is the least time between the starts of two
	// updates of one component that notices (webhooks) asked for
	// (StartUpdate); 0 means DefaultUpdateInterval.
	UpdateInterval time.Duration
	// ProgressInterval is how often a running component import logs its
	// progress (files done of total, units per second); 0 means every 5
	// seconds.
	ProgressInterval time.Duration
	// OnImportDone, when set, hears each component import once it ended:
	// its summary, the time taken (checkout included) and its error. It
	// runs on the importing goroutine, under the component's lock, so it
	// must be quick; cmd/tolk feeds the metrics with it.
	OnImportDone func(c index.Component, sum ImportSummary, took time.Duration, err error)
	// GitTimeouts bound every clone, fetch and push (vcs.Timeouts: the
	// zero value means its defaults).
	GitTimeouts vcs.Timeouts
	// AllowPrivateRepos lets every component's clones, fetches and
	// pushes reach loopback, link-local and private addresses. Without
	// it only the components a Reconcile was given (the setup file's)
	// may; the others, created or changed through the API, are refused
	// such addresses at every connection (guard.go).
	AllowPrivateRepos bool
	// AutoTranslate runs the automatic translation add-on's work
	// (autotranslate.Runner); nil leaves that add-on idle.
	AutoTranslate AutoTranslator
}

// DefaultUpdateInterval is Options.UpdateInterval's default: a Git host
// pushing twice a second gets its component fetched at most six times a
// minute.
const DefaultUpdateInterval = 10 * time.Second

// DefaultCommitter commits when Options.Committer is not set.
var DefaultCommitter = vcs.Signature{Name: "Tolk", Email: "noreply@tolk.invalid"}

// Validate fills defaults and rejects impossible values.
func (o *Options) Validate() error {
	if o.DataDir == "" {
		return errors.New("sync: missing data directory")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = 2 * time.Minute
	}
	if o.UpdateInterval <= 0 {
		o.UpdateInterval = DefaultUpdateInterval
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = 5 * time.Second
	}
	if o.ImportTimeout <= 0 {
		o.ImportTimeout = time.Hour
	}
	if o.Committer.Name == "" || o.Committer.Email == "" {
		o.Committer = DefaultCommitter
	}
	o.SiteURL = strings.TrimSuffix(o.SiteURL, "/")
	return nil
}

// Service imports components from their repositories into the index. It
// is safe for concurrent use; work on one component is serialized. Call
// Close to stop its background tasks.
type Service struct {
	store Store
	langs Languages
	opts  Options
	// authorDomain is the domain of the addresses given to authors
	// without an e-mail (privateEmail).
	authorDomain string

	mu    gosync.Mutex // guards locks, prepared, configured and sched
	locks map[int64]*gosync.Mutex
	// configured are the repositories of the setup file's components, by
	// project/component slug (guard.go).
	configured map[string]configuredRepo
	// prepared are the clones CheckComponent made, by the checkout
	// directory whose import may adopt them (check.go).
	prepared map[string]preparedClone
	// sched runs the scheduled jobs once StartScheduler was called.
	sched *scheduler

	// updateMu guards lastUpdate, and makes StartUpdate's look for a
	// waiting task and its start of a new one one step.
	updateMu gosync.Mutex
	// lastUpdate is when the last update a notice started for each
	// component was to start (StartUpdate).
	lastUpdate map[int64]time.Time

	// life ends when Close is called; background tasks run under it.
	life  context.Context
	stop  context.CancelFunc
	tasks taskList
	// startup is what the last Reconcile has done (Startup).
	startup startupState
	wg      gosync.WaitGroup // counts running tasks, the scheduler and its jobs

	// addonMu guards addonRuns: the keys of the background add-on runs
	// under way, true when one more run was asked for (addons.go).
	addonMu   gosync.Mutex
	addonRuns map[string]bool

	// addonReads, when set (by tests), counts the reads of a job's
	// add-ons (jobAddons).
	addonReads *atomic.Int64

	// afterGitCommit, when set (by tests), runs between a commit's git
	// commits and its index update; an error stands for a crash there.
	afterGitCommit func() error
	// onPullStep, when set (by tests), runs at the steps of a pull that
	// moved the branch onto upstream: "moved", right after the move, and
	// "imported", after the import and before the commit on top.
	onPullStep func(step string)
}

// New returns a Service over the given store and language table.
func New(store Store, langs Languages, opts Options) (*Service, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	life, stop := context.WithCancel(context.Background())
	return &Service{store: store, langs: langs, opts: opts, authorDomain: authorDomain(opts.SiteURL, opts.Committer), locks: map[int64]*gosync.Mutex{},
		prepared: map[string]preparedClone{}, configured: map[string]configuredRepo{}, lastUpdate: map[int64]time.Time{}, life: life, stop: stop, tasks: taskList{m: map[string]*task{}}}, nil
}

// Close cancels the background tasks and the scheduled jobs (see
// StartScheduler), waits for them to stop and removes the clones no
// import adopted. The Service must not be used afterwards.
func (s *Service) Close() error {
	s.stop()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for dir, p := range s.prepared {
		errs = append(errs, os.RemoveAll(p.dir))
		delete(s.prepared, dir)
	}
	return errors.Join(errs...)
}

// componentLock serializes work on one component in this process (an
// import and a later write-back must not interleave in its checkout);
// git jobs take it through lockComponent, which adds the lock of the
// processes sharing the index.
func (s *Service) componentLock(id int64) *gosync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.locks[id]
	if !ok {
		l = &gosync.Mutex{}
		s.locks[id] = l
	}
	return l
}

// ProjectSpec is a project and its components as configured.
type ProjectSpec struct {
	Project    index.Project
	Components []index.Component
}

// Reconcile creates or updates the given projects and components (never
// deleting anything) and imports every component. Their repositories are
// the operator's: no guard judges them (Options.AllowPrivateRepos). A component that fails
// to import is logged and skipped so the others still import; the
// returned error joins every failure. Startup reports its progress
// while it runs.
//
// Each component's checkout (a clone or a fetch: mostly waiting on the
// remote) runs while the previous component's files are being indexed.
func (s *Service) Reconcile(ctx context.Context, specs []ProjectSpec) (err error) {
	s.trust(specs)
	s.startup.begin(specs)
	defer func() { s.startup.end(err) }()
	ctx, cancel := context.WithCancel(ctx)
	ready := make(chan reconcileStep) // unbuffered: one checkout ahead
	go s.prepareComponents(ctx, specs, ready)
	defer func() {
		cancel()
		for st := range ready { // release what was checked out and not imported; ends the goroutine
			if st.unlock != nil {
				st.unlock()
			}
		}
	}()
	var errs []error
	// imported holds how the import of each component imported so far
	// went: a checkout's own and those of the components linked to it.
	imported := map[int64]error{}
	for {
		// Checked before each receive: once cancelled, nothing more
		// starts, and the deferred drain releases the checkout waiting.
		if err := ctx.Err(); err != nil {
			return err
		}
		st, ok := <-ready
		if !ok {
			return errors.Join(errs...)
		}
		if st.err != nil {
			return st.err
		}
		c := st.spec
		err, done := imported[c.ID]
		if !done && st.unlock == nil {
			// A link saved while its checkout's import ran: that checkout
			// is up to date, and only this component's files are read.
			var repo *vcs.Repo
			if repo, st.unlock, err = s.lockedCheckout(ctx, c); err == nil {
				st.co = checkedOut{c: c, repo: repo}
			} else {
				st.co, st.unlock = checkedOut{c: c, err: err}, func() {}
			}
		}
		if !done {
			st.co.linkSums = map[int64]ImportSummary{}
			_, err = s.finishLocal(ctx, st.co)
			st.unlock()
			imported[st.co.c.ID] = err
			for id := range st.co.linkSums {
				imported[id] = err
			}
		}
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		s.startup.finished(c.Project.Slug, c.Slug, err)
		if err != nil {
			s.opts.Logger.Error("import failed", "project", c.Project.Slug, "component", c.Slug, "err", err)
			errs = append(errs, fmt.Errorf("import %s/%s: %w", c.Project.Slug, c.Slug, err))
		}
	}
}

// reconcileStep is a saved component checked out under its lock, which
// the receiver must unlock, or an error that ends the reconciliation. A
// component whose checkout an earlier step checked out already comes
// without a lock or checkout (unlock nil): its import was that step's,
// unless it was saved after that import read the links.
type reconcileStep struct {
	co     checkedOut
	spec   index.Component // the component configured: co.c, or the component it links to
	unlock func()
	err    error
}

// prepareComponents saves each project and component of specs and checks
// the component out, sending each to out in order; it stops at the first
// saving error or once ctx ends, and closes out. The receiver must read
// out to the end: every lock sent is the receiver's to unlock.
func (s *Service) prepareComponents(ctx context.Context, specs []ProjectSpec, out chan<- reconcileStep) {
	defer close(out)
	sent := map[int64]bool{} // the checkouts sent, by component id
	for _, spec := range specs {
		if ctx.Err() != nil {
			return
		}
		p, _, err := s.store.SaveProject(ctx, spec.Project)
		if err != nil {
			out <- reconcileStep{err: fmt.Errorf("save project %s: %w", spec.Project.Slug, err)}
			return
		}
		for _, c := range spec.Components {
			if ctx.Err() != nil {
				return
			}
			c.ProjectID = p.ID
			saved, _, err := s.store.SaveComponent(ctx, c)
			if err != nil {
				out <- reconcileStep{err: fmt.Errorf("save component %s/%s: %w", p.Slug, c.Slug, err)}
				return
			}
			// A linked component is imported by its parent's import:
			// one per checkout, however many components share it.
			root, err := s.onLink(ctx, saved)
			if err != nil {
				out <- reconcileStep{err: err}
				return
			}
			if sent[root.ID] {
				out <- reconcileStep{spec: saved}
				continue
			}
			sent[root.ID] = true
			unlock, err := s.lockComponent(ctx, root.ID)
			if err != nil {
				out <- reconcileStep{err: fmt.Errorf("lock component %s/%s: %w", p.Slug, c.Slug, err)}
				return
			}
			out <- reconcileStep{co: s.checkoutTimed(ctx, root), unlock: unlock, spec: saved}
		}
	}
}

// repoDir is where a component's checkout lives.
func (s *Service) repoDir(c index.Component) string {
	return filepath.Join(s.opts.DataDir, "repos", c.Project.Slug, c.Slug)
}
