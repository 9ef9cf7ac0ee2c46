// Command tolk runs the Tolk translation service.
//
//	tolk serve [flags]
//	tolk user add|grant|revoke|list ...
//	tolk token create|list|revoke ...
//	tolk version
//
// It exits 0 on success and for --help, 2 when the command line is
// wrong, and 1 for any other failure.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/autotranslate"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
	"github.com/tolk-project/tolk/webhook"
)

// The one place that sees both the engine and its consumers checks that
// the engine provides what each consumer declared.
var (
	_ tolksync.Store = (*sqlstore.DB)(nil)
	_ webhook.Store  = (*sqlstore.DB)(nil)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

// exitCode is the process's exit status for what run returned: 0 for
// success or help, 2 for a wrong command line (already explained on
// stderr), 1 for anything else, which it prints.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintln(stderr, "tolk:", err)
	return 1
}

// errUsage is a wrong command line, already explained on stderr.
var errUsage = errors.New("usage")

// usagef explains a mistake on cmd's command line and returns errUsage.
func usagef(stderr io.Writer, cmd, format string, args ...any) error {
	fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", cmd, fmt.Sprintf(format, args...), cmd)
	return errUsage
}

const commandsUsage = `Usage:
  tolk serve [flags]                     serve the API and the Git exports
  tolk user add|passwd|grant|revoke|list manage accounts (tolk user --help)
  tolk token create|list|revoke ...      manage API tokens (tolk token --help)
  tolk version                           print the version (also tolk --version)
`

// printUsage writes the commands and every flag of tolk serve.
func printUsage(w io.Writer) {
	fmt.Fprint(w, commandsUsage+"\nFlags of tolk serve:\n")
	printServeFlags(w)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, commandsUsage)
		return errUsage
	}
	switch args[0] {
	case "user":
		return runUser(ctx, args[1:], stdout, stderr)
	case "token":
		return runToken(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		if len(args) > 1 {
			return usagef(stderr, "tolk", "version takes no arguments, got %q", args[1])
		}
		fmt.Fprintln(stdout, readBuildVersion())
		return nil
	case "help", "--help", "-help", "-h":
		printUsage(stdout)
		return nil
	case "serve":
	default:
		return usagef(stderr, "tolk", "unknown command %q", args[0])
	}
	cfg, err := serveConfig(args[1:], stderr)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, "Usage: tolk serve [flags]\n\nFlags:\n")
		printServeFlags(stdout)
		return nil
	}
	if err != nil {
		return err
	}
	m := &Main{Config: cfg, Logger: newLogger(cfg, stderr), Stdout: stdout}
	version := readBuildVersion()
	m.Logger.Info("starting", "version", version.Short(), "revision", version.Revision, "go", version.Go)
	if err := m.Open(ctx); err != nil {
		m.Close()
		return err
	}
	fmt.Fprintf(stdout, "tolk serving on http://%s/api/\n", m.Addr())
	<-ctx.Done()
	m.Logger.Info("shutting down")
	err = m.Close()
	m.Logger.Info("stopped", "err", err)
	return err
}

// newLogger is the one logger: text, or JSON whose durations are
// seconds (a float) rather than slog's nanoseconds, so that a reader of
// the log, or a query over it, sees "duration":1.5 for a second and a
// half, the unit of the metrics.
func newLogger(cfg Config, w io.Writer) *slog.Logger {
	if cfg.LogFormat != "json" {
		return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: cfg.LogLevel}))
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: cfg.LogLevel,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Value.Kind() == slog.KindDuration {
				a.Value = slog.Float64Value(a.Value.Duration().Seconds())
			}
			return a
		}}))
}

// Main is the running program: index, sync service and HTTP server. Tests
// start it on 127.0.0.1:0 with the data directory in t.TempDir().
type Main struct {
	Config Config
	Logger *slog.Logger
	// Stdout receives what the operator must see once, such as the demo
	// administrator's token; nil discards it.
	Stdout io.Writer

	db       *sqlstore.DB
	sync     *tolksync.Service
	server   *http.Server
	listener net.Listener
	served   chan error
	metrics  *serviceMetrics
	// metricsServer serves /metrics on metricsListener; nil without
	// Config.MetricsListen.
	metricsServer   *http.Server
	metricsListener net.Listener
	// stopImport cancels the start-up import; imported is closed when it
	// has ended.
	stopImport context.CancelFunc
	imported   chan struct{}
	// lock holds the data directory (lockDataDir) until Close.
	lock *os.File
	// stopWebhooks cancels the webhook sender; webhooksDone is closed
	// once it has stopped. Both nil until it starts.
	stopWebhooks context.CancelFunc
	webhooksDone chan struct{}
	// auto runs automatic translations; Open resumes those a previous
	// process left midway.
	auto *autotranslate.Runner
}

// Open wires the parts, starts serving, and reconciles and imports the
// configured projects in the background (see Imported). Close must be
// called even when Open fails.
func (m *Main) Open(ctx context.Context) error {
	log := m.Logger
	// Settings are checked before anything is opened or imported;
	// loadConfig has done so, a Config built in code has not.
	if err := m.Config.Validate(); err != nil {
		return err
	}
	httpOpts := m.Config.serverOptions()
	if err := os.MkdirAll(m.Config.DataDir, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	var err error
	if m.lock, err = lockDataDir(m.Config.DataDir); err != nil {
		return err
	}
	langs := langdata.Default()
	dbOpts := sqlstore.Options{PageCacheBytes: m.Config.PageCacheBytes, Logger: log, FormatFlags: formats.FlagsOf,
		FormatPlural: tolksync.FormatPlural}
	if dbOpts.PageCacheBytes == 0 { // --page-cache-size 0
		dbOpts.PageCacheBytes = sqlstore.NoPageCache
	}
	dbOpts.ReadConns, dbOpts.LockTimeout, dbOpts.Writers = m.Config.DBPoolSize, m.Config.DBLockTimeout, m.Config.DBWriters
	dbOpts.NoSolo = m.Config.DBNoSolo
	if dbOpts.LockTimeout == 0 { // --db-lock-timeout 0
		dbOpts.LockTimeout = -1
	}
	if m.db, err = openDB(ctx, m.Config.DataDir, m.Config.DB, dbOpts); err != nil {
		return err
	}
	if err := m.db.SeedLanguages(ctx, langs.All()); err != nil {
		return fmt.Errorf("seed languages: %w", err)
	}
	m.metrics = newServiceMetrics(m.db, readBuildVersion())
	if m.Config.MetricsListen != "" {
		if m.metricsListener, err = net.Listen("tcp", m.Config.MetricsListen); err != nil {
			return fmt.Errorf("metrics listen: %w", err)
		}
		m.metricsServer = serveMetrics(m.metricsListener, m.metrics)
	}
	// Commit messages link to the site: its external address, or the
	// address it listens on when none is configured. The listener is
	// opened first so that this is the address bound (--listen :0 picks
	// a port); connections wait in its backlog until the API serves.
	if m.listener, err = net.Listen("tcp", m.Config.Listen); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	siteURL := m.Config.BaseURL
	if siteURL == "" {
		siteURL = listenURL(m.listener.Addr())
	}
	// Automatic translations run over the same machine translation
	// services as the API's; sync runs the add-on's through the runner.
	httpOpts.Edge.Logger = log // before the broker, which logs through it
	httpOpts.API.Machinery = httpOpts.broker(m.db)
	m.auto = autotranslate.New(m.db, autotranslate.Options{Machinery: httpOpts.API.Machinery, Logger: log})
	if m.sync, err = tolksync.New(m.db, langs, tolksync.Options{DataDir: m.Config.DataDir, Logger: log,
		AutoTranslate:     m.auto,
		Committer:         vcs.Signature{Name: m.Config.CommitterName, Email: m.Config.CommitterEmail},
		SiteURL:           siteURL,
		OnImportDone:      m.metrics.importDone,
		GitTimeouts:       gitTimeouts(m.Config.GitStallTimeout, m.Config.GitTimeout),
		AllowPrivateRepos: m.Config.AllowPrivateRepos}); err != nil {
		return err
	}
	// What a crash left midway (a clone's temporary directory) is
	// nobody's now that this process holds the data directory.
	removed, err := m.sync.RemoveStale()
	if err != nil {
		return fmt.Errorf("remove stale clones: %w", err)
	}
	for _, p := range removed {
		log.Info("removed a stale temporary clone", "path", p)
	}

	var specs []tolksync.ProjectSpec
	if m.Config.Demo {
		if err := demoAdmin(ctx, m.db, m.Stdout); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if err := demoSignInLink(ctx, m.db, siteURL, m.Stdout); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		demo, err := demoProject(ctx, m.Config.DataDir)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		specs = append(specs, demo)
	}
	if m.Config.Setup != nil {
		configured, err := m.Config.Setup.specs(langs.Resolve, m.existing(ctx))
		if err != nil {
			return err
		}
		specs = append(specs, configured...)
	}
	// The API reads the index directly and asks sync for what only the
	// checkouts and the formats know: repository status, committed files,
	// the Git export, parsing uploads and rendering pending edits, and the
	// git work of component writes.
	httpOpts.Edge.Startup = m.sync
	httpOpts.API.Repositories, httpOpts.API.Files, httpOpts.API.Components = m.sync, m.sync, m.sync
	httpOpts.API.Addons = m.sync
	httpOpts.Web.Files = m.sync
	httpOpts.API.MemoryFiles = tolksync.MemoryFiles{}
	if !m.Config.NoHooks {
		// A webhook's update is a pull and re-import of the component.
		httpOpts.API.Hooks = m.sync
	}
	httpOpts.API.Operations = m.sync
	if m.metricsListener != nil {
		// Counting every request costs a little on each: only where
		// somebody can read the counts.
		httpOpts.Edge.Requests = m.metrics
	}
	if err := m.startWebhooks(siteURL); err != nil {
		return err
	}
	lim := m.Config.HTTP
	// The server's WriteTimeout sets a deadline once a request is read,
	// which the API then moves on with every write of the response.
	// The guard caps connections in all and per client, closing idle ones
	// first; past the cap, connections wait in the kernel's backlog
	// instead of each taking a descriptor. The trusted proxies carry
	// every client's requests and are not capped per client.
	proxies, err := edge.ParseProxies(m.Config.TrustedProxies)
	if err != nil {
		return err // Validate accepted them
	}
	// The automatic translations a killed process left open resume.
	httpOpts.API.AutoTranslate = m.auto
	if n, err := m.auto.Resume(ctx); err != nil {
		return fmt.Errorf("resume automatic translations: %w", err)
	} else if n > 0 {
		log.Info("resumed automatic translations", "jobs", n)
	}
	guard := newConnGuard(m.listener, lim, proxies, log)
	m.server = &http.Server{Handler: httpOpts.handler(m.db), ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout: lim.ReadTimeout, WriteTimeout: lim.WriteTimeout, IdleTimeout: lim.IdleTimeout,
		ConnState: guard.ConnState, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	m.served = make(chan error, 1)
	go func() { m.served <- m.server.Serve(guard) }()

	// The server answers while the configured components import: one
	// slow or unreachable repository must not keep every project
	// offline. Reads answer what the index holds; /readyz says what is
	// still importing. Close cancels the import.
	ictx, cancel := context.WithCancel(ctx)
	m.stopImport, m.imported = cancel, make(chan struct{})
	go m.importConfigured(ictx, specs)
	log.Info("serving", "addr", m.listener.Addr().String(), "data", m.Config.DataDir,
		"db", describeDB(m.Config.DataDir, m.Config.DB))
	if m.metricsListener != nil {
		log.Info("serving metrics", "addr", "http://"+m.metricsListener.Addr().String()+"/metrics")
	}
	return nil
}

// startWebhooks starts the sender of webhook deliveries in the
// background: what the outbox holds from before a crash or restart goes
// out first. Close stops it.
func (m *Main) startWebhooks(siteURL string) error {
	sender, err := webhook.New(m.db, webhook.Options{BaseURL: siteURL, AllowPrivate: m.Config.WebhookAllowPrivate,
		RetryPeriod: m.Config.WebhookRetryPeriod, Wake: m.db.EventsQueued(), Logger: m.Logger,
		OnAttempt: m.metrics.WebhookAttempt})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.stopWebhooks, m.webhooksDone = cancel, make(chan struct{})
	go func() {
		defer close(m.webhooksDone)
		sender.Run(ctx)
	}()
	return nil
}

// importConfigured imports the configured components, then starts the
// scheduled jobs; it closes m.imported when done.
func (m *Main) importConfigured(ctx context.Context, specs []tolksync.ProjectSpec) {
	defer close(m.imported)
	log, start := m.Logger, time.Now()
	if err := m.sync.Reconcile(ctx, specs); err != nil {
		// A component that cannot be imported is reported; the others
		// serve, and /readyz lists the failure.
		log.Error("reconcile finished with errors", "err", err)
	}
	if ctx.Err() != nil {
		return // shutting down
	}
	log.Info("reconciled", "projects", len(specs), "duration", time.Since(start))
	// The scheduled jobs start once the index reflects the repositories;
	// their first pass commits what a crash or restart left due.
	if err := m.sync.StartScheduler(tolksync.SchedulerOptions{PullInterval: m.Config.PullInterval,
		OnJobDone: m.metrics.JobDone}); err != nil {
		log.Error("start scheduler", "err", err)
	}
}

// Imported returns a channel closed once the start-up import (Open
// starts it in the background) has ended and the scheduled jobs started.
func (m *Main) Imported() <-chan struct{} { return m.imported }

// gitTimeouts turns the flags' durations, where 0 means never, into
// vcs.Timeouts, where 0 means the default and a negative value never.
func gitTimeouts(stall, total time.Duration) vcs.Timeouts {
	never := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1
		}
		return d
	}
	return vcs.Timeouts{Stall: never(stall), Total: never(total)}
}

// listenURL is the http:// address of a bound listener; a wildcard
// host (0.0.0.0, ::) becomes localhost, where the address does lead.
func listenURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// existing lets a setup file apply on top of what the index holds. A
// lookup that fails for another reason than absence reads as absent: the
// reconciliation that follows reports the database's trouble itself.
func (m *Main) existing(ctx context.Context) existingIndex {
	return existingIndex{
		project: func(slug string) (index.Project, bool) {
			p, err := m.db.FindProject(ctx, slug)
			return p, err == nil
		},
		component: func(projectSlug, slug string) (index.Component, bool) {
			c, err := m.db.FindComponent(ctx, projectSlug, slug)
			return c, err == nil
		},
	}
}

// Addr is the address the server listens on.
func (m *Main) Addr() net.Addr { return m.listener.Addr() }

// MetricsAddr is the address /metrics is served on; nil without
// Config.MetricsListen.
func (m *Main) MetricsAddr() net.Addr {
	if m.metricsListener == nil {
		return nil
	}
	return m.metricsListener.Addr()
}

// importStopGrace is how long Close waits for the cancelled start-up
// import to stop.
const importStopGrace = 5 * time.Second

// Close cancels the start-up import, lets in-flight requests finish (for
// up to 10 seconds), stops the background tasks, then closes the index.
func (m *Main) Close() error {
	var errs []error
	if m.stopImport != nil {
		m.stopImport()
		// Every step of the import honours cancellation, but one that
		// does not must not keep a stopping process alive: after a
		// grace period shutdown goes on without it.
		select {
		case <-m.imported:
		case <-time.After(importStopGrace):
			m.Logger.Warn("the start-up import did not stop; shutting down without it", "grace", importStopGrace)
		}
	}
	if m.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		errs = append(errs, m.server.Shutdown(ctx))
		if err := <-m.served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	} else if m.listener != nil {
		errs = append(errs, m.listener.Close())
	}
	if m.metricsServer != nil {
		// A scrape is short; it is not waited for.
		errs = append(errs, m.metricsServer.Close())
	}
	if m.auto != nil {
		// Running jobs stop after their batch and resume at the next
		// start.
		m.auto.Close()
	}
	if m.stopWebhooks != nil {
		// An attempt in flight is cancelled and stays pending.
		m.stopWebhooks()
		<-m.webhooksDone
	}
	if m.sync != nil {
		errs = append(errs, m.sync.Close())
	}
	if m.db != nil {
		errs = append(errs, m.db.Close())
	}
	if m.lock != nil {
		errs = append(errs, m.lock.Close())
	}
	return errors.Join(errs...)
}

// apiFileFormats lists the formats registry (formats.All) the way api
// takes it, since api does not import formats.
func apiFileFormats() []api.FileFormat {
	var out []api.FileFormat
	for _, f := range formats.All() {
		out = append(out, api.FileFormat{Name: f.Name, Monolingual: f.Monolingual, TemplateOptional: f.TemplateOptional,
			OneFile: f.OneFile, ContentType: f.ContentType, Extension: f.Extension})
	}
	return out
}
