// Command tolk runs the Tolk translation service.
//
//	tolk serve [--data DIR] [--listen ADDR] [--config FILE] [--demo]
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
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlite"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
	"golang.org/x/net/netutil"
)

// The one place that sees both the engine and its consumers checks that
// the engine provides what each consumer declared.
var (
	_ api.Store                = (*sqlite.DB)(nil)
	_ tolksync.Store           = (*sqlite.DB)(nil)
	_ api.Repositories         = (*tolksync.Service)(nil)
	_ api.RepositoryOperations = (*tolksync.Service)(nil)
	_ api.TranslationFiles     = (*tolksync.Service)(nil)
	_ api.Components           = (*tolksync.Service)(nil)
	_ api.HookUpdater          = (*tolksync.Service)(nil)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "tolk:", err)
		}
		os.Exit(1)
	}
}

// Config is what `tolk serve` is told on its command line.
type Config struct {
	DataDir    string
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
	// PageCacheBytes bounds each cache of list pages (units, changes).
	PageCacheBytes int
	// HTTP bounds what one client can hold of the server.
	HTTP HTTPLimits
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
		MaxUploadBytes: api.DefaultMaxUploadBytes,
		RateLimitAnon:  api.DefaultAnonymousRateLimit, RateLimitUser: api.DefaultUserRateLimit,
		PageCacheBytes: sqlite.DefaultPageCacheBytes, HTTP: DefaultHTTPLimits}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "user":
			return runUser(ctx, args[1:], stdout, stderr)
		case "token":
			return runToken(ctx, args[1:], stdout, stderr)
		}
	}
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(stderr, "usage: tolk serve [--data DIR] [--listen ADDR] [--config FILE] [--demo]\n"+
			"       tolk user add|grant|revoke|list ...\n"+
			"       tolk token create|list|revoke ...")
		return errUsage
	}
	cfg, err := serveConfig(args[1:], stderr)
	if err != nil {
		return err
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel})
	if cfg.LogFormat == "json" {
		handler = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel})
	}
	m := &Main{Config: cfg, Logger: slog.New(handler), Stdout: stdout}
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

// serveConfig reads the flags of tolk serve over DefaultConfig.
func serveConfig(args []string, stderr io.Writer) (Config, error) {
	cfg := DefaultConfig()
	fs := flag.NewFlagSet("tolk serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DataDir, "data", cfg.DataDir, "directory for the SQLite index and repository checkouts")
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
	if err := fs.Parse(args); err != nil {
		return cfg, errUsage
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"pull-interval", cfg.PullInterval}, {"read-header-timeout", cfg.HTTP.ReadHeaderTimeout},
		{"read-timeout", cfg.HTTP.ReadTimeout}, {"write-timeout", cfg.HTTP.WriteTimeout},
		{"idle-timeout", cfg.HTTP.IdleTimeout}} {
		if d.v < 0 {
			fmt.Fprintf(stderr, "tolk serve: --%s must not be negative\n", d.name)
			return cfg, errUsage
		}
	}
	if cfg.HTTP.MaxConnections < 1 {
		fmt.Fprintln(stderr, "tolk serve: --max-connections must be at least 1")
		return cfg, errUsage
	}
	if cfg.HookSecret == "" {
		// The environment keeps the secret out of the process list.
		cfg.HookSecret = os.Getenv("TOLK_HOOK_SECRET")
	}
	return cfg, nil
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

	db       *sqlite.DB
	sync     *tolksync.Service
	server   *http.Server
	listener net.Listener
	served   chan error
}

// Open wires the parts, reconciles the configured projects, imports them
// and starts serving. Close must be called even when Open fails.
func (m *Main) Open(ctx context.Context) error {
	log := m.Logger
	// Settings are checked before anything is opened or imported.
	apiOpts := api.Options{BaseURL: m.Config.BaseURL, TrustedProxies: m.Config.TrustedProxies,
		AllowedHosts:    m.Config.AllowedHosts,
		MaxUploadBytes:  m.Config.MaxUploadBytes,
		RateLimits:      api.RateLimits{Anonymous: m.Config.RateLimitAnon, User: m.Config.RateLimitUser},
		AllowLocalRepos: m.Config.AllowLocalRepos, HookSecret: m.Config.HookSecret,
		WriteTimeout: m.Config.HTTP.WriteTimeout}
	if err := apiOpts.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(m.Config.DataDir, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	langs := langdata.Default()
	var err error
	if m.db, err = sqlite.Open(ctx, filepath.Join(m.Config.DataDir, "tolk.db")); err != nil {
		return err
	}
	m.db.PageCacheBytes = m.Config.PageCacheBytes
	if err := m.db.SeedLanguages(ctx, langs.All()); err != nil {
		return fmt.Errorf("seed languages: %w", err)
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
		Committer: vcs.Signature{Name: m.Config.CommitterName, Email: m.Config.CommitterEmail},
		SiteURL:   siteURL}); err != nil {
		return err
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
		configured, secret, err := loadConfig(m.Config.ConfigFile, langs.Resolve, m.existing(ctx))
		if err != nil {
			return err
		}
		if apiOpts.HookSecret == "" {
			apiOpts.HookSecret = secret
		}
		specs = append(specs, configured...)
	}
	start := time.Now()
	if err := m.sync.Reconcile(ctx, specs); err != nil {
		// A component that cannot be imported is reported; the service
		// still starts and serves what it has.
		log.Error("reconcile finished with errors", "err", err)
	}
	log.Info("reconciled", "projects", len(specs), "duration", time.Since(start))
	// The scheduled jobs start once the index reflects the repositories;
	// their first pass commits what a crash or restart left due.
	if err := m.sync.StartScheduler(tolksync.SchedulerOptions{PullInterval: m.Config.PullInterval}); err != nil {
		return err
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
	apiOpts.Operations = m.sync
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
	log.Info("serving", "addr", m.listener.Addr().String(), "data", m.Config.DataDir)
	return nil
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

// Close lets in-flight requests finish (for up to 10 seconds), stops the
// background tasks, then closes the index.
func (m *Main) Close() error {
	var errs []error
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
	if m.sync != nil {
		errs = append(errs, m.sync.Close())
	}
	if m.db != nil {
		errs = append(errs, m.db.Close())
	}
	return errors.Join(errs...)
}
