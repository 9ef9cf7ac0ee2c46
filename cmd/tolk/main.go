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
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
	"github.com/tolk-project/tolk/webhook"
	"golang.org/x/net/netutil"
)

// The one place that sees both the engine and its consumers checks that
// the engine provides what each consumer declared.
var (
	_ api.Store                = (*sqlstore.DB)(nil)
	_ tolksync.Store           = (*sqlstore.DB)(nil)
	_ api.Repositories         = (*tolksync.Service)(nil)
	_ api.RepositoryOperations = (*tolksync.Service)(nil)
	_ api.TranslationFiles     = (*tolksync.Service)(nil)
	_ api.Components           = (*tolksync.Service)(nil)
	_ api.HookUpdater          = (*tolksync.Service)(nil)
	_ webhook.Store            = (*sqlstore.DB)(nil)
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

// Config is what `tolk serve` is told on its command line.
type Config struct {
	DataDir string
	// DB names the index (openDB): "" is the SQLite file tolk.db in
	// DataDir, a postgres:// URL or libpq connection string a PostgreSQL
	// database, anything else a SQLite file. Without it the setup file's
	// db key is taken.
	DB         string
	Listen     string
	ConfigFile string
	Demo       bool
	LogFormat  string // "text" or "json"
	LogLevel   slog.Level
	// BaseURL is the external address used in every URL of a response,
	// for a service behind a path prefix or a proxy that rewrites hosts.
	BaseURL string
	// TrustedProxies are the addresses or CIDR ranges whose
	// X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For headers are
	// believed.
	TrustedProxies []string
	// AllowedHosts are, without BaseURL, the host names requests may be
	// sent to besides the listen address and localhost (api.Options).
	AllowedHosts []string
	// MaxUploadBytes bounds an uploaded translation file.
	MaxUploadBytes int64
	// RateLimitAnon and RateLimitUser limit the API requests of each
	// anonymous client address and of each user.
	RateLimitAnon, RateLimitUser api.RateLimit
	// AllowLocalRepos lets API clients create components from file://
	// repository URLs, which read this machine's disk.
	AllowLocalRepos bool
	// NoHooks turns the incoming webhooks off: /hooks/ answers 405.
	NoHooks bool
	// HookSecret is the site-wide secret incoming webhooks must be
	// signed with (projects may set their own); it overrides the setup
	// file's hook_secret.
	HookSecret string
	// CommitterName and CommitterEmail are the committer of every commit
	// Tolk makes; the translators are the authors.
	CommitterName, CommitterEmail string
	// PullInterval is how often every component with a remote is pulled;
	// 0 turns scheduled pulls off.
	PullInterval time.Duration
	// MetricsListen is the address /metrics is served on, apart from the
	// API; "" serves no metrics.
	MetricsListen string
	// GitStallTimeout ends a clone or fetch that received nothing for
	// this long, GitTimeout any clone, fetch or push that takes longer;
	// 0 turns either off.
	GitStallTimeout, GitTimeout time.Duration
	// MaxResponseBytes bounds one JSON answer (api.Options).
	MaxResponseBytes int
	// PageCacheBytes bounds each cache of list pages (units, changes).
	PageCacheBytes int
	// HTTP bounds what one client can hold of the server.
	HTTP HTTPLimits
	// WebhookAllowPrivate lets webhook add-ons reach loopback,
	// link-local and private addresses.
	WebhookAllowPrivate bool
	// WebhookRetryPeriod is how long a webhook delivery is retried
	// before it is marked failed; 0 takes the setup file's
	// webhook_retry_period, or webhook.DefaultRetryPeriod.
	WebhookRetryPeriod time.Duration
}

// HTTPLimits bound the time and connections clients can hold.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds reading a request's headers, ReadTimeout
	// the whole request with its body (an upload on a slow link).
	ReadHeaderTimeout, ReadTimeout time.Duration
	// WriteTimeout is how long one write of a response may wait for the
	// client; every write moves the deadline on, so a large download
	// lasts as long as bytes flow (api.Options.WriteTimeout).
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection waits for its next
	// request before it is closed.
	IdleTimeout time.Duration
	// MaxConnections caps the connections open at once; more wait in the
	// listen backlog until one closes.
	MaxConnections int
}

// DefaultHTTPLimits are generous for a human or a script on a slow link
// and short enough that idle or stuck clients cannot exhaust the
// process's file descriptors.
var DefaultHTTPLimits = HTTPLimits{ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute,
	WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, MaxConnections: 1024}

// DefaultConfig returns the settings used when no flag is given: the
// reference's rate limits among them.
func DefaultConfig() Config {
	return Config{DataDir: "./tolk-data", Listen: "127.0.0.1:8080", LogFormat: "text",
		MaxUploadBytes:  api.DefaultMaxUploadBytes,
		GitStallTimeout: vcs.DefaultStallTimeout, GitTimeout: vcs.DefaultTotalTimeout,
		RateLimitAnon: api.DefaultAnonymousRateLimit, RateLimitUser: api.DefaultUserRateLimit,
		PageCacheBytes: sqlstore.DefaultPageCacheBytes, HTTP: DefaultHTTPLimits}
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

// serveConfig reads the flags of tolk serve over DefaultConfig. It
// returns flag.ErrHelp for --help, and errUsage, with the reason written
// to stderr, for flags or values it does not know and stray arguments.
func serveConfig(args []string, stderr io.Writer) (Config, error) {
	cfg := DefaultConfig()
	fs := serveFlags(&cfg)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		fmt.Fprintln(stderr, "Run 'tolk serve --help' for usage.")
		return cfg, errUsage
	}
	switch {
	case fs.NArg() > 0:
		return cfg, usagef(stderr, "tolk serve", "unexpected argument %q (every setting is a flag)", fs.Arg(0))
	case cfg.LogFormat != "text" && cfg.LogFormat != "json":
		return cfg, usagef(stderr, "tolk serve", "--log-format %q: want text or json", cfg.LogFormat)
	case cfg.HTTP.MaxConnections < 1:
		return cfg, usagef(stderr, "tolk serve", "--max-connections must be at least 1")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"pull-interval", cfg.PullInterval}, {"git-stall-timeout", cfg.GitStallTimeout},
		{"git-timeout", cfg.GitTimeout}, {"read-header-timeout", cfg.HTTP.ReadHeaderTimeout},
		{"read-timeout", cfg.HTTP.ReadTimeout}, {"write-timeout", cfg.HTTP.WriteTimeout},
		{"idle-timeout", cfg.HTTP.IdleTimeout}, {"webhook-retry-period", cfg.WebhookRetryPeriod}} {
		if d.v < 0 {
			return cfg, usagef(stderr, "tolk serve", "--%s must not be negative", d.name)
		}
	}
	if cfg.HookSecret == "" {
		// The environment keeps the secret out of the process list.
		cfg.HookSecret = os.Getenv("TOLK_HOOK_SECRET")
	}
	return cfg, nil
}

// printServeFlags writes every flag of tolk serve with its default.
func printServeFlags(w io.Writer) {
	cfg := DefaultConfig()
	fs := serveFlags(&cfg)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// serveFlags declares the flags of tolk serve, each writing into cfg.
// Usage is left to the callers: help goes to stdout, mistakes to stderr.
func serveFlags(cfg *Config) *flag.FlagSet {
	fs := flag.NewFlagSet("tolk serve", flag.ContinueOnError)
	fs.Usage = func() {}
	fs.StringVar(&cfg.DataDir, "data", cfg.DataDir, "directory for the repository checkouts, and the SQLite index without --db")
	fs.StringVar(&cfg.DB, "db", "", dbUsage+"; overrides the setup file's db")
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "address to serve HTTP on")
	fs.StringVar(&cfg.ConfigFile, "config", "", "YAML file listing projects and components to reconcile on start")
	fs.BoolVar(&cfg.Demo, "demo", false, "create and import a demo project from the built-in files")
	fs.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "log format: text or json")
	fs.TextVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "log level: debug, info, warn or error")
	fs.StringVar(&cfg.BaseURL, "base-url", "", "external base URL of the service, used in every URL it returns")
	fs.StringVar(&cfg.CommitterName, "committer-name", tolksync.DefaultCommitter.Name, "committer name of the commits Tolk makes")
	fs.StringVar(&cfg.CommitterEmail, "committer-email", tolksync.DefaultCommitter.Email, "committer e-mail of the commits Tolk makes")
	fs.BoolVar(&cfg.AllowLocalRepos, "allow-local-repos", false,
		"let API clients create components from file:// repository URLs (this machine's disk)")
	fs.Func("trusted-proxy", "address or CIDR range of a proxy whose X-Forwarded-Proto/-Host/-For are believed (repeatable, or comma-separated)",
		appendList(&cfg.TrustedProxies))
	fs.Func("allowed-host", "without --base-url, a host name requests may be sent to besides the listen address and localhost: "+
		"name, .domain (and subdomains) or * (repeatable, or comma-separated)", appendList(&cfg.AllowedHosts))
	fs.Func("max-upload-size", "largest translation file an upload may carry, in bytes or with KiB, MiB or GiB (default 10MiB)",
		func(v string) (err error) {
			cfg.MaxUploadBytes, err = parseSize(v)
			return err
		})
	fs.Func("max-response-size", "largest JSON answer, in bytes or with KiB, MiB or GiB; a list page over it is a 400 asking for a smaller page_size (default 64MiB)",
		func(v string) error {
			n, err := parseSize(v)
			cfg.MaxResponseBytes = int(n)
			return err
		})
	fs.Func("page-cache-size", "memory each cache of list pages (units, changes) may hold, in bytes or with KiB, MiB or GiB (default 32MiB)",
		func(v string) error {
			n, err := parseSize(v)
			cfg.PageCacheBytes = int(n)
			return err
		})
	fs.TextVar(&cfg.RateLimitAnon, "rate-limit-anon", cfg.RateLimitAnon,
		"API requests each anonymous client address may make: N/second|minute|hour|day, or off")
	fs.TextVar(&cfg.RateLimitUser, "rate-limit-user", cfg.RateLimitUser,
		"API requests each user may make: N/second|minute|hour|day, or off")
	fs.BoolVar(&cfg.NoHooks, "no-hooks", false, "turn the incoming webhooks (/hooks/<service>/) off")
	fs.StringVar(&cfg.HookSecret, "hook-secret", "",
		"site-wide secret incoming webhooks must be signed with (or TOLK_HOOK_SECRET; projects may set their own)")
	fs.DurationVar(&cfg.PullInterval, "pull-interval", 0,
		"pull every component with a remote this often, e.g. 30m (0: never; webhooks and the API still pull)")
	fs.StringVar(&cfg.MetricsListen, "metrics-listen", "",
		"address to serve Prometheus metrics on at /metrics, e.g. 127.0.0.1:9090; whoever reaches it reads them (default: off)")
	fs.DurationVar(&cfg.GitStallTimeout, "git-stall-timeout", cfg.GitStallTimeout,
		"end a clone or fetch that received nothing for this long (0: never)")
	fs.DurationVar(&cfg.GitTimeout, "git-timeout", cfg.GitTimeout,
		"end a clone, fetch or push that takes longer than this, however it progresses (0: never)")
	fs.DurationVar(&cfg.HTTP.ReadHeaderTimeout, "read-header-timeout", cfg.HTTP.ReadHeaderTimeout,
		"how long a client may take to send a request's headers")
	fs.DurationVar(&cfg.HTTP.ReadTimeout, "read-timeout", cfg.HTTP.ReadTimeout,
		"how long a client may take to send a whole request, body included")
	fs.DurationVar(&cfg.HTTP.WriteTimeout, "write-timeout", cfg.HTTP.WriteTimeout,
		"how long one write of a response may wait for a client that does not read (moves on with every write)")
	fs.DurationVar(&cfg.HTTP.IdleTimeout, "idle-timeout", cfg.HTTP.IdleTimeout,
		"how long a keep-alive connection may wait for its next request")
	fs.IntVar(&cfg.HTTP.MaxConnections, "max-connections", cfg.HTTP.MaxConnections,
		"connections served at once; more wait until one closes")
	fs.BoolVar(&cfg.WebhookAllowPrivate, "webhook-allow-private", false,
		"let webhook add-ons send to loopback, link-local and private addresses (refused otherwise, at every connection)")
	fs.DurationVar(&cfg.WebhookRetryPeriod, "webhook-retry-period", 0,
		"how long a webhook delivery is retried, with growing waits, before it is marked failed (default 24h, or the setup file's webhook_retry_period)")
	return fs
}

// appendList is a flag that appends its comma-separated values to dst.
func appendList(dst *[]string) func(string) error {
	return func(v string) error {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				*dst = append(*dst, p)
			}
		}
		return nil
	}
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
}

// Open wires the parts, starts serving, and reconciles and imports the
// configured projects in the background (see Imported). Close must be
// called even when Open fails.
func (m *Main) Open(ctx context.Context) error {
	log := m.Logger
	// Settings are checked before anything is opened or imported.
	apiOpts := api.Options{BaseURL: m.Config.BaseURL, TrustedProxies: m.Config.TrustedProxies,
		AllowedHosts:   m.Config.AllowedHosts,
		MaxUploadBytes: m.Config.MaxUploadBytes, MaxResponseBytes: m.Config.MaxResponseBytes,
		RateLimits:      api.RateLimits{Anonymous: m.Config.RateLimitAnon, User: m.Config.RateLimitUser},
		AllowLocalRepos: m.Config.AllowLocalRepos, HookSecret: m.Config.HookSecret,
		Version:      readBuildVersion().Short(),
		WriteTimeout: m.Config.HTTP.WriteTimeout, FileFormats: apiFileFormats(),
		WebhookAllowPrivate: m.Config.WebhookAllowPrivate}
	if err := apiOpts.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(m.Config.DataDir, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	var err error
	if m.lock, err = lockDataDir(m.Config.DataDir); err != nil {
		return err
	}
	langs := langdata.Default()
	if m.Config.DB == "" && m.Config.ConfigFile != "" {
		if m.Config.DB, err = configDB(m.Config.ConfigFile); err != nil {
			return err
		}
	}
	dbOpts := sqlstore.Options{PageCacheBytes: m.Config.PageCacheBytes, Logger: log}
	if dbOpts.PageCacheBytes == 0 { // --page-cache-size 0
		dbOpts.PageCacheBytes = sqlstore.NoPageCache
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
	if m.sync, err = tolksync.New(m.db, langs, tolksync.Options{DataDir: m.Config.DataDir, Logger: log,
		Committer:    vcs.Signature{Name: m.Config.CommitterName, Email: m.Config.CommitterEmail},
		SiteURL:      siteURL,
		OnImportDone: m.metrics.importDone,
		GitTimeouts:  gitTimeouts(m.Config.GitStallTimeout, m.Config.GitTimeout)}); err != nil {
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
		demo, err := demoProject(ctx, m.Config.DataDir)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		specs = append(specs, demo)
	}
	if m.Config.ConfigFile != "" {
		configured, site, err := loadConfig(m.Config.ConfigFile, langs.Resolve, m.existing(ctx))
		if err != nil {
			return err
		}
		if apiOpts.HookSecret == "" {
			apiOpts.HookSecret = site.HookSecret
		}
		if m.Config.WebhookRetryPeriod == 0 {
			m.Config.WebhookRetryPeriod = site.WebhookRetryPeriod
		}
		specs = append(specs, configured...)
	}
	// The API reads the index directly and asks sync for what only the
	// checkouts and the formats know: repository status, committed files,
	// the Git export, parsing uploads and rendering pending edits, and the
	// git work of component writes.
	apiOpts.Logger, apiOpts.Repositories, apiOpts.Files, apiOpts.Components = log, m.sync, m.sync, m.sync
	if !m.Config.NoHooks {
		// A webhook's update is a pull and re-import of the component.
		apiOpts.Hooks = m.sync
	}
	apiOpts.Operations, apiOpts.Startup = m.sync, m.sync
	if m.metricsListener != nil {
		// Counting every request costs a little on each: only where
		// somebody can read the counts.
		apiOpts.Requests = m.metrics
	}
	if err := m.startWebhooks(siteURL); err != nil {
		return err
	}
	srv := api.New(m.db, apiOpts)
	lim := m.Config.HTTP
	// The server's WriteTimeout sets a deadline once a request is read,
	// which the API then moves on with every write of the response.
	m.server = &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout: lim.ReadTimeout, WriteTimeout: lim.WriteTimeout, IdleTimeout: lim.IdleTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	m.served = make(chan error, 1)
	// Past the cap, connections wait in the kernel's backlog instead of
	// each taking a descriptor.
	ln := netutil.LimitListener(m.listener, lim.MaxConnections)
	go func() { m.served <- m.server.Serve(ln) }()

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
		OnAttempt: m.metrics.webhookAttempt})
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
		OnJobDone: m.metrics.jobDone}); err != nil {
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

// parseSize reads a size in bytes, optionally with a binary unit: K, KB
// or KiB (1024 bytes), M, MB or MiB, G, GB or GiB.
func parseSize(v string) (int64, error) {
	v = strings.TrimSpace(v)
	num := strings.TrimRightFunc(v, unicode.IsLetter)
	unit := strings.ToLower(strings.TrimSpace(v[len(num):]))
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	shift := map[string]uint{"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
		"g": 30, "gb": 30, "gib": 30}
	s, ok := shift[unit]
	if err != nil || !ok || n <= 0 || n > math.MaxInt64>>s {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, optionally with KiB, MiB or GiB", v)
	}
	return n << s, nil
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
		out = append(out, api.FileFormat{Name: f.Name, Monolingual: f.Monolingual,
			ContentType: f.ContentType, Extension: f.Extension})
	}
	return out
}
