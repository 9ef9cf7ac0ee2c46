package main

import (
	"cmp"
	"encoding"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/machinery"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
	"github.com/tolk-project/tolk/web"
)

// Config is the settled configuration of `tolk serve`: each setting
// comes from its flag, its environment variable or its key in the setup
// file, in that order of precedence, or from DefaultConfig (loadConfig).
// Main.Open wires the parts from it and reads nothing else.
type Config struct {
	DataDir string
	// DB names the index (openDB): "" is the SQLite file tolk.db in
	// DataDir, a postgres:// URL or libpq connection string a PostgreSQL
	// database, anything else a SQLite file.
	DB        string
	Listen    string
	Demo      bool
	LogFormat string // "text" or "json"
	LogLevel  slog.Level
	// BaseURL is the external address used in every URL of a response,
	// for a service behind a path prefix or a proxy that rewrites hosts.
	BaseURL string
	// TrustedProxies are the addresses or CIDR ranges whose
	// X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For headers are
	// believed.
	TrustedProxies []string
	// AllowedHosts are, without BaseURL, the host names requests may be
	// sent to besides the listen address and localhost (edge.Options).
	AllowedHosts []string
	// MaxUploadBytes bounds an uploaded translation file.
	MaxUploadBytes int64
	// RateLimitAnon and RateLimitUser limit the requests (API, pages,
	// Git export) of each anonymous client address and of each user.
	RateLimitAnon, RateLimitAnonPages, RateLimitUser edge.RateLimit
	// AnonymousSuggestions lets anonymous visitors suggest translations
	// on public projects, each client address at most this often; off
	// refuses them (api.Options).
	AnonymousSuggestions edge.RateLimit
	// AllowLocalRepos lets API clients create components from file://
	// repository URLs, which read this machine's disk.
	AllowLocalRepos bool
	// AllowPrivateRepos lets the components API clients create or
	// change clone, fetch and push on loopback, link-local and private
	// addresses (an internal Git host); the setup file's may always.
	AllowPrivateRepos bool
	// NoHooks turns the incoming webhooks off: /hooks/ answers 405.
	NoHooks bool
	// HookSecret is the site-wide secret incoming webhooks must be
	// signed with (projects may set their own).
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
	// MaxResponseBytes bounds one JSON answer (edge.Options).
	MaxResponseBytes int
	// ResponseBudget bounds the bytes of answers built and sent at once
	// (edge.Options).
	ResponseBudget int64
	// PageCacheBytes bounds each cache of list pages (units, changes).
	PageCacheBytes int
	// DBPoolSize bounds the read connections to PostgreSQL (0: the
	// index's default), DBLockTimeout a write's wait for another
	// process's lock (0: none); sqlstore.Options.ReadConns, LockTimeout.
	DBPoolSize    int
	DBLockTimeout time.Duration
	// DBWriters is how many writers (each a connection) this process
	// runs on PostgreSQL (0: the index's default); SQLite ignores it
	// and keeps one. sqlstore.Options.Writers.
	DBWriters int
	// DBNoSolo keeps a process alone on its PostgreSQL database
	// checking the others' writes before each cached answer, as before
	// the lease (sqlstore.Options.NoSolo).
	DBNoSolo bool
	// HTTP bounds what one client can hold of the server.
	HTTP HTTPLimits
	// WebhookAllowPrivate lets webhook add-ons reach loopback,
	// link-local and private addresses.
	WebhookAllowPrivate bool
	// WebhookRetryPeriod is how long a webhook delivery is retried
	// before it is marked failed; 0 is webhook.DefaultRetryPeriod.
	WebhookRetryPeriod time.Duration
	// MachineryAllowPrivate lets projects' machine translation services
	// name loopback, link-local and private addresses; the setup file's
	// site-wide services may always.
	MachineryAllowPrivate bool
	// MachineryTimeout bounds one engine's answer to one request.
	MachineryTimeout time.Duration
	// MachineryRateLimit bounds the engine calls each user makes from
	// the editor.
	MachineryRateLimit edge.RateLimit
	// Machinery are the site-wide machine translation services: the
	// setup file's machinery key, service identifier to configuration.
	Machinery map[string]machinery.Config
	// Setup holds the projects and components of the setup file, which
	// Open applies on top of what the index holds; nil without one.
	Setup *Setup
}

// HTTPLimits bound the time and connections clients can hold.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds reading a request's headers, ReadTimeout
	// the whole request with its body (an upload on a slow link).
	ReadHeaderTimeout, ReadTimeout time.Duration
	// WriteTimeout is how long one write of a response may wait for the
	// client; every write moves the deadline on, so a large download
	// lasts as long as bytes flow (edge.Options.WriteTimeout).
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection waits for its next
	// request before it is closed.
	IdleTimeout time.Duration
	// MaxConnections caps the connections open at once. At the cap the
	// connection idle longest is closed for a new one; with none idle,
	// new ones wait in the listen backlog until one closes or goes idle.
	MaxConnections int
	// MaxConnectionsPerClient caps the connections one client address
	// (IPv6: its /64) holds at once; past it, its idle connection waiting
	// longest is closed for the new one, or with none idle the new one is
	// closed at once. The trusted proxies are exempt. 0 turns it off.
	MaxConnectionsPerClient int
	// BusyIdleTimeout replaces IdleTimeout, when shorter, for a
	// connection that goes idle while 3/4 of MaxConnections or more are
	// open. 0 turns it off.
	BusyIdleTimeout time.Duration
}

// DefaultHTTPLimits are generous for a human or a script on a slow link
// and short enough that idle or stuck clients cannot exhaust the
// process's file descriptors.
var DefaultHTTPLimits = HTTPLimits{ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute,
	WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, MaxConnections: 1024,
	MaxConnectionsPerClient: 64, BusyIdleTimeout: 5 * time.Second}

// DefaultAnonymousSuggestions is Tolk's own: the reference lets its
// Guests suggest as often as its API limit allows; twenty an hour is a
// person proposing fixes, and caps what one address can make reviewers
// read.
var DefaultAnonymousSuggestions = edge.RateLimit{Requests: 20, Period: time.Hour}

// DefaultConfig returns the settings used when nothing gives them: the
// reference's rate limits among them.
func DefaultConfig() Config {
	return Config{DataDir: "./tolk-data", Listen: "127.0.0.1:8080", LogFormat: "text",
		MaxUploadBytes: edge.DefaultMaxUploadBytes, ResponseBudget: edge.DefaultResponseBudget,
		GitStallTimeout: vcs.DefaultStallTimeout, GitTimeout: vcs.DefaultTotalTimeout,
		RateLimitAnon: edge.DefaultAnonymousRateLimit, RateLimitUser: edge.DefaultUserRateLimit,
		RateLimitAnonPages: edge.DefaultAnonymousPageRateLimit, AnonymousSuggestions: DefaultAnonymousSuggestions,
		CommitterName: tolksync.DefaultCommitter.Name, CommitterEmail: tolksync.DefaultCommitter.Email,
		PageCacheBytes: sqlstore.DefaultPageCacheBytes, HTTP: DefaultHTTPLimits, DBLockTimeout: sqlstore.DefaultLockTimeout,
		MachineryTimeout: machinery.DefaultTimeout, MachineryRateLimit: web.DefaultMachineryRateLimit,
		Machinery: DefaultMachinery()}
}

// DefaultMachinery are the site-wide services of a server whose setup
// file names none: the translation memory, on by default as in the
// reference (WEBLATE_MACHINERY), so a translator sees what the project
// already says from the first page. A setup file's machinery key
// replaces the list; an empty one turns every site-wide service off.
func DefaultMachinery() map[string]machinery.Config {
	return map[string]machinery.Config{"weblate-translation-memory": {}}
}

// Validate rejects settings that cannot be used: the first it finds, as
// a *settingError naming the setting and, for a choice, the values
// allowed, or as the API's own error for what the API checks.
func (c Config) Validate() error {
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return &settingError{name: "log-format", got: c.LogFormat, want: "text or json"}
	}
	if c.HTTP.MaxConnections < 1 {
		return &settingError{name: "max-connections", msg: "must be at least 1"}
	}
	if c.HTTP.MaxConnectionsPerClient < 0 {
		return &settingError{name: "max-connections-per-client", msg: "must not be negative"}
	}
	if c.DBPoolSize < 0 {
		return &settingError{name: "db-pool-size", msg: "must not be negative"}
	}
	if c.DBWriters < 0 {
		return &settingError{name: "db-writers", msg: "must not be negative"}
	}
	for _, s := range serveSettings {
		if d, ok := s.field(&c).(*time.Duration); ok && *d < 0 {
			return &settingError{name: s.name, msg: "must not be negative"}
		}
	}
	opts := c.serverOptions()
	return opts.Validate()
}

// serverOptions is the HTTP server's share of the configuration: the one
// place that turns Config into the options of the edge, the API and the
// pages. Open adds what only the running parts provide (logger, sync
// service, metrics).
func (c Config) serverOptions() serverOptions {
	return serverOptions{
		Edge: edge.Options{BaseURL: c.BaseURL, TrustedProxies: c.TrustedProxies,
			AllowedHosts: c.AllowedHosts, MaxResponseBytes: c.MaxResponseBytes, ResponseBudget: c.ResponseBudget,
			RateLimits: edge.RateLimits{Anonymous: c.RateLimitAnon, AnonymousPages: c.RateLimitAnonPages,
				User: c.RateLimitUser},
			Version: readBuildVersion().Short(), WriteTimeout: c.HTTP.WriteTimeout},
		API: api.Options{MaxUploadBytes: c.MaxUploadBytes,
			AllowLocalRepos: c.AllowLocalRepos, HookSecret: c.HookSecret,
			FileFormats: apiFileFormats(), WebhookAllowPrivate: c.WebhookAllowPrivate,
			AnonymousSuggestions: c.AnonymousSuggestions},
		Web: web.Options{MaxUploadBytes: c.MaxUploadBytes, MachineryRateLimit: c.MachineryRateLimit,
			AnonymousSuggestions: c.AnonymousSuggestions},
		Machinery: machinery.Options{Site: c.Machinery, AllowPrivate: c.MachineryAllowPrivate,
			Timeout: c.MachineryTimeout},
	}
}

// A setting is one setting of tolk serve, given by the flag --name, the
// environment variable TOLK_KEY and the key of the setup file (key is
// name with _ for -, unless the table says otherwise).
type setting struct {
	name  string
	key   string // the file's key when it is not name with _ for -
	usage string
	// want says what a value must be, in messages about the environment
	// and the file; "" derives it from the field's type.
	want string
	// size marks a count of bytes, read by parseSize.
	size bool
	// field points at the setting's field of a Config.
	field func(*Config) any
}

const (
	sizeWant     = "a size in bytes, or with KiB, MiB or GiB (such as 10MiB)"
	rateWant     = "N/second, N/minute, N/hour or N/day, or off"
	durationWant = "a duration such as 90s, 30m or 24h"
)

// serveSettings are the settings of tolk serve besides --config, which
// names the setup file.
var serveSettings = []setting{
	{name: "data", usage: "directory for the repository checkouts, and the SQLite index without --db",
		field: func(c *Config) any { return &c.DataDir }},
	{name: "db", usage: dbUsage + "; overrides the setup file's db",
		field: func(c *Config) any { return &c.DB }},
	{name: "listen", usage: "address to serve HTTP on",
		field: func(c *Config) any { return &c.Listen }},
	{name: "demo", usage: "create and import a demo project from the built-in files",
		field: func(c *Config) any { return &c.Demo }},
	{name: "log-format", usage: "log format: text or json", want: "text or json",
		field: func(c *Config) any { return &c.LogFormat }},
	{name: "log-level", usage: "log level: debug, info, warn or error", want: "debug, info, warn or error",
		field: func(c *Config) any { return &c.LogLevel }},
	{name: "base-url", usage: "external base URL of the service, used in every URL it returns",
		field: func(c *Config) any { return &c.BaseURL }},
	{name: "committer-name", usage: "committer name of the commits Tolk makes",
		field: func(c *Config) any { return &c.CommitterName }},
	{name: "committer-email", usage: "committer e-mail of the commits Tolk makes",
		field: func(c *Config) any { return &c.CommitterEmail }},
	{name: "allow-local-repos", usage: "let API clients create components from file:// repository URLs (this machine's disk)",
		field: func(c *Config) any { return &c.AllowLocalRepos }},
	{name: "allow-private-repos",
		usage: "let components created or changed through the API use repositories on loopback, link-local and private addresses (refused otherwise, at every connection)",
		field: func(c *Config) any { return &c.AllowPrivateRepos }},
	{name: "trusted-proxy", key: "trusted_proxies",
		usage: "address or CIDR range of a proxy whose X-Forwarded-Proto/-Host/-For are believed (repeatable, or comma-separated)",
		field: func(c *Config) any { return &c.TrustedProxies }},
	{name: "allowed-host", key: "allowed_hosts",
		usage: "without --base-url, a host name requests may be sent to besides the listen address and localhost: " +
			"name, .domain (and subdomains) or * (repeatable, or comma-separated)",
		field: func(c *Config) any { return &c.AllowedHosts }},
	{name: "max-upload-size", size: true,
		usage: "largest translation file an upload may carry, in bytes or with KiB, MiB or GiB (default 10MiB)",
		field: func(c *Config) any { return &c.MaxUploadBytes }},
	{name: "max-response-size", size: true,
		usage: "largest JSON answer, in bytes or with KiB, MiB or GiB; a list page over it is a 400 asking for a smaller page_size (default 64MiB)",
		field: func(c *Config) any { return &c.MaxResponseBytes }},
	{name: "response-budget", size: true,
		usage: "bytes of answers being built and sent at once, process-wide; an answer finding no room waits 5s, then is a 503 (default 256MiB)",
		field: func(c *Config) any { return &c.ResponseBudget }},
	{name: "page-cache-size", size: true,
		usage: "memory each cache of list pages (units, changes) may hold, in bytes or with KiB, MiB or GiB (default 32MiB)",
		field: func(c *Config) any { return &c.PageCacheBytes }},
	{name: "rate-limit-anon", want: rateWant,
		usage: "requests to the API and the Git export each anonymous client address may make: N/second|minute|hour|day, or off",
		field: func(c *Config) any { return &c.RateLimitAnon }},
	{name: "rate-limit-anon-pages", want: rateWant,
		usage: "pages and forms each anonymous client address may request, in a window of their own: N/second|minute|hour|day, or off (default 1000/hour)",
		field: func(c *Config) any { return &c.RateLimitAnonPages }},
	{name: "rate-limit-user", want: rateWant,
		usage: "requests (API, pages, Git export) each user may make: N/second|minute|hour|day, or off",
		field: func(c *Config) any { return &c.RateLimitUser }},
	{name: "anonymous-suggestions", want: rateWant,
		usage: "suggestions each anonymous client address may add on public projects, as the reference's Guests may: N/second|minute|hour|day, or off to refuse them (default 20/hour)",
		field: func(c *Config) any { return &c.AnonymousSuggestions }},
	{name: "no-hooks", usage: "turn the incoming webhooks (/hooks/<service>/) off",
		field: func(c *Config) any { return &c.NoHooks }},
	{name: "hook-secret",
		usage: "site-wide secret incoming webhooks must be signed with (or TOLK_HOOK_SECRET; projects may set their own)",
		field: func(c *Config) any { return &c.HookSecret }},
	{name: "pull-interval",
		usage: "pull every component with a remote this often, e.g. 30m (0: never; webhooks and the API still pull)",
		field: func(c *Config) any { return &c.PullInterval }},
	{name: "metrics-listen",
		usage: "address to serve Prometheus metrics on at /metrics, e.g. 127.0.0.1:9090; whoever reaches it reads them (default: off)",
		field: func(c *Config) any { return &c.MetricsListen }},
	{name: "git-stall-timeout", usage: "end a clone or fetch that received nothing for this long (0: never)",
		field: func(c *Config) any { return &c.GitStallTimeout }},
	{name: "git-timeout", usage: "end a clone, fetch or push that takes longer than this, however it progresses (0: never)",
		field: func(c *Config) any { return &c.GitTimeout }},
	{name: "read-header-timeout", usage: "how long a client may take to send a request's headers",
		field: func(c *Config) any { return &c.HTTP.ReadHeaderTimeout }},
	{name: "read-timeout", usage: "how long a client may take to send a whole request, body included",
		field: func(c *Config) any { return &c.HTTP.ReadTimeout }},
	{name: "write-timeout",
		usage: "how long one write of a response may wait for a client that does not read (moves on with every write)",
		field: func(c *Config) any { return &c.HTTP.WriteTimeout }},
	{name: "idle-timeout", usage: "how long a keep-alive connection may wait for its next request",
		field: func(c *Config) any { return &c.HTTP.IdleTimeout }},
	{name: "max-connections",
		usage: "connections served at once; at the cap the connection idle longest is closed, and with none idle new ones wait",
		field: func(c *Config) any { return &c.HTTP.MaxConnections }},
	{name: "max-connections-per-client",
		usage: "connections one client address (IPv6: its /64) may hold; trusted proxies are exempt (0: no cap)",
		field: func(c *Config) any { return &c.HTTP.MaxConnectionsPerClient }},
	{name: "busy-idle-timeout",
		usage: "idle timeout of keep-alive connections while 3/4 of --max-connections or more are open (0: --idle-timeout always)",
		field: func(c *Config) any { return &c.HTTP.BusyIdleTimeout }},
	{name: "webhook-allow-private",
		usage: "let webhook add-ons send to loopback, link-local and private addresses (refused otherwise, at every connection)",
		field: func(c *Config) any { return &c.WebhookAllowPrivate }},
	{name: "machinery-allow-private",
		usage: "let projects' machine translation services use loopback, link-local and private addresses (refused otherwise, at every connection; the setup file's machinery may always)",
		field: func(c *Config) any { return &c.MachineryAllowPrivate }},
	{name: "machinery-timeout",
		usage: "how long one machine translation service may take to answer one request (default 10s)",
		field: func(c *Config) any { return &c.MachineryTimeout }},
	{name: "machinery-rate-limit", want: rateWant,
		usage: "machine translation requests each user may make from the editor: N/second|minute|hour|day (default 600/minute)",
		field: func(c *Config) any { return &c.MachineryRateLimit }},
	{name: "webhook-retry-period",
		usage: "how long a webhook delivery is retried, with growing waits, before it is marked failed (default 24h)",
		field: func(c *Config) any { return &c.WebhookRetryPeriod }},
	{name: "db-pool-size",
		usage: "connections the reads of this process keep open to PostgreSQL, besides the writers' (--db-writers), one for the background index steps' writes and one per git job running (0: twice the CPUs, at least 4); see docs/processes.md",
		field: func(c *Config) any { return &c.DBPoolSize }},
	{name: "db-lock-timeout",
		usage: "how long a write waits for a lock another process sharing the PostgreSQL database holds before it fails (0: for ever; default 30s)",
		field: func(c *Config) any { return &c.DBLockTimeout }},
	{name: "db-writers",
		usage: "writers this process runs on PostgreSQL, each with its own connection, whose batches of edits to different translations run at once (0: 2); 1 where the CPUs are busy with other work, more where the database has a machine of its own; SQLite ignores it and keeps one writer",
		field: func(c *Config) any { return &c.DBWriters }},
	{name: "db-no-solo",
		usage: "on PostgreSQL, ask the database for other processes' writes before every cached answer even when this process is alone on it (by default a process alone answers from its caches until another opens the database); see docs/postgresql.md",
		field: func(c *Config) any { return &c.DBNoSolo }},
}

// configEnv is the environment variable that names the setup file, as
// --config does.
const configEnv = "TOLK_CONFIG"

// fileKey is the setting's key in the setup file.
func (s setting) fileKey() string {
	return cmp.Or(s.key, strings.ReplaceAll(s.name, "-", "_"))
}

// envName is the setting's environment variable.
func (s setting) envName() string { return "TOLK_" + strings.ToUpper(s.fileKey()) }

// isList reports whether the setting is a list of strings.
func (s setting) isList() bool {
	_, ok := s.field(&Config{}).(*[]string)
	return ok
}

// isEmpty reports whether cfg holds the empty string or list for the
// setting: an empty value counts as not given, so that `--db ""` or an
// empty TOLK_DB leaves the setup file's db in force.
func (s setting) isEmpty(cfg *Config) bool {
	switch p := s.field(cfg).(type) {
	case *string:
		return *p == ""
	case *[]string:
		return len(*p) == 0
	}
	return false
}

// wanted says what a value of the setting must be.
func (s setting) wanted() string {
	if s.want != "" {
		return s.want
	}
	if s.size {
		return sizeWant
	}
	if _, ok := s.field(&Config{}).(*time.Duration); ok {
		return durationWant
	}
	return wantType(reflect.TypeOf(s.field(&Config{})).Elem())
}

// define declares the setting's flag on fs, writing into cfg, with the
// value cfg holds as its default.
func (s setting) define(fs *flag.FlagSet, cfg *Config) {
	switch p := s.field(cfg).(type) {
	case *string:
		fs.StringVar(p, s.name, *p, s.usage)
	case *bool:
		fs.BoolVar(p, s.name, *p, s.usage)
	case *time.Duration:
		fs.DurationVar(p, s.name, *p, s.usage)
	case *[]string:
		fs.Func(s.name, s.usage, appendList(p))
	case *int64: // a size
		fs.Func(s.name, s.usage, func(v string) (err error) {
			*p, err = parseSize(v)
			return err
		})
	case *int:
		if !s.size {
			fs.IntVar(p, s.name, *p, s.usage)
			return
		}
		fs.Func(s.name, s.usage, func(v string) error {
			n, err := parseSize(v)
			*p = int(n)
			return err
		})
	case encoding.TextUnmarshaler:
		fs.TextVar(p, s.name, reflect.ValueOf(p).Elem().Interface().(encoding.TextMarshaler), s.usage)
	default:
		panic(fmt.Sprintf("setting %s: no flag for %T", s.name, p))
	}
}

// settingNamed is the setting whose flag is name; ok is false when
// there is none.
func settingNamed(name string) (setting, bool) {
	for _, s := range serveSettings {
		if s.name == name {
			return s, true
		}
	}
	return setting{}, false
}

// settingByKey is the setting whose setup file key is key.
func settingByKey(key string) (setting, bool) {
	for _, s := range serveSettings {
		if s.fileKey() == key {
			return s, true
		}
	}
	return setting{}, false
}

// settingKeys are the setup file's keys of the settings.
func settingKeys() []string {
	var keys []string
	for _, s := range serveSettings {
		keys = append(keys, s.fileKey())
	}
	return keys
}

// serveFlags declares the flags of tolk serve, each writing into cfg,
// and --config, writing into configFile. Usage is left to the callers:
// help goes to stdout, mistakes to stderr.
func serveFlags(cfg *Config, configFile *string) *flag.FlagSet {
	fs := flag.NewFlagSet("tolk serve", flag.ContinueOnError)
	fs.Usage = func() {}
	for _, s := range serveSettings {
		s.define(fs, cfg)
	}
	fs.StringVar(configFile, "config", "", "YAML file listing projects and components to reconcile on start, "+
		"and settings (a flag's name with _ for -)")
	return fs
}

// printServeFlags writes every flag of tolk serve with its default, and
// the other ways of giving them.
func printServeFlags(w io.Writer) {
	cfg := DefaultConfig()
	fs := serveFlags(&cfg, new(string))
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, serveEnvUsage)
}

const serveEnvUsage = `
Every flag but -config may also be given by the environment variable
TOLK_<NAME> (TOLK_PULL_INTERVAL for -pull-interval) or by the key <name>
of the -config file (pull_interval); the lists are TOLK_ALLOWED_HOSTS and
TOLK_TRUSTED_PROXIES (comma-separated), allowed_hosts and trusted_proxies.
TOLK_CONFIG names the file. A flag wins over the environment, the
environment over the file; an empty value counts as not given.
`

// A layer is what one source of settings gives: the values, read into a
// Config of its own (over DefaultConfig), and, for each setting given,
// by its flag's name, where it was given, for messages: "--listen",
// "TOLK_LISTEN" or "tolk.yaml:3: listen".
type layer struct {
	cfg   Config
	given map[string]string
}

func newLayer() layer { return layer{cfg: DefaultConfig(), given: map[string]string{}} }

// settle lays the layers over base, in order: each setting is the last
// layer's that gives it. It returns where each setting given came from.
func settle(base Config, layers ...layer) (Config, map[string]string) {
	cfg, from := base, map[string]string{}
	for _, l := range layers {
		for name, where := range l.given {
			s, _ := settingNamed(name)
			reflect.ValueOf(s.field(&cfg)).Elem().Set(reflect.ValueOf(s.field(&l.cfg)).Elem())
			from[name] = where
		}
	}
	return cfg, from
}

// serveConfig is loadConfig with the process's environment.
func serveConfig(args []string, stderr io.Writer) (Config, error) {
	return loadConfig(args, os.Getenv, stderr)
}

// loadConfig is the one configuration pass of tolk serve. It reads the
// command line (args) and the environment (getenv), then the setup file
// they name (--config, or TOLK_CONFIG), once, and settles each setting
// to the first of its flag, its environment variable, its key in the
// file and DefaultConfig; the file's projects go into Config.Setup. An
// empty value counts as not given. The result is validated.
//
// It returns flag.ErrHelp for --help, and errUsage, with the reason
// written to stderr, for a wrong command line. A wrong environment
// variable or setup file is an error naming it (the file's line and key
// too).
func loadConfig(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	flags, flagFile, err := flagLayer(args, stderr)
	if err != nil {
		return DefaultConfig(), err
	}
	env, err := envLayer(getenv)
	if err != nil {
		return DefaultConfig(), err
	}
	var file layer
	var setup *Setup
	if path := cmp.Or(flagFile, getenv(configEnv)); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return DefaultConfig(), fmt.Errorf("read config: %w", err)
		}
		if file, setup, err = decodeSetupFile(path, data); err != nil {
			return DefaultConfig(), err
		}
	}
	cfg, from := settle(DefaultConfig(), file, env, flags)
	cfg.Setup = setup
	if setup != nil && setup.Machinery != nil {
		cfg.Machinery = setup.Machinery
	}
	if err := cfg.Validate(); err != nil {
		var bad *settingError
		if !errors.As(err, &bad) {
			return cfg, err
		}
		bad.where = from[bad.name]
		if bad.where == "" || strings.HasPrefix(bad.where, "--") {
			return cfg, usagef(stderr, "tolk serve", "%v", bad)
		}
		return cfg, bad
	}
	return cfg, nil
}

// flagLayer reads the command line: the settings it gives, and the
// setup file it names. It returns flag.ErrHelp for --help, and errUsage,
// with the reason written to stderr, for flags or values it does not
// know and stray arguments.
func flagLayer(args []string, stderr io.Writer) (layer, string, error) {
	l := newLayer()
	var configFile string
	fs := serveFlags(&l.cfg, &configFile)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return l, "", err
		}
		fmt.Fprintln(stderr, "Run 'tolk serve --help' for usage.")
		return l, "", errUsage
	}
	if fs.NArg() > 0 {
		return l, "", usagef(stderr, "tolk serve", "unexpected argument %q (every setting is a flag)", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		if s, ok := settingNamed(f.Name); ok && !s.isEmpty(&l.cfg) {
			l.given[s.name] = "--" + s.name
		}
	})
	return l, configFile, nil
}

// envLayer reads the settings the environment gives, each through its
// flag so that a value reads as on the command line; it names every
// variable whose value does not.
func envLayer(getenv func(string) string) (layer, error) {
	l := newLayer()
	fs := serveFlags(&l.cfg, new(string))
	var errs []error
	for _, s := range serveSettings {
		v := getenv(s.envName())
		if v == "" {
			continue
		}
		if err := fs.Set(s.name, v); err != nil {
			errs = append(errs, &settingError{name: s.name, where: s.envName(), got: v, want: s.wanted()})
			continue
		}
		if !s.isEmpty(&l.cfg) {
			l.given[s.name] = s.envName()
		}
	}
	return l, errors.Join(errs...)
}

// settingError is a setting whose value cannot be used.
type settingError struct {
	name string // the setting's flag
	// where says who gave the value (layer); "" is the flag.
	where string
	// got is the value and want what it must be; msg, when set, says
	// what is wrong instead.
	got, want, msg string
}

func (e *settingError) Error() string {
	if e.where == "" || strings.HasPrefix(e.where, "--") {
		// The command line's messages, as the flag package words them.
		if e.msg != "" {
			return "--" + e.name + " " + e.msg
		}
		return fmt.Sprintf("--%s %q: want %s", e.name, e.got, e.want)
	}
	if e.msg != "" {
		return e.where + ": " + e.msg
	}
	return fmt.Sprintf("%s: want %s, got %q", e.where, e.want, e.got)
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
