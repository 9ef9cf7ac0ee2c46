package edge

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// Store is what the edge reads: the principal a token or a session
// stands for, the private projects, the objects a path names and the
// upload it applies. Every method returns an error wrapping
// index.ErrNotFound when the object does not exist; other errors are
// internal. *sqlstore.DB satisfies it.
type Store interface {
	// Authenticate returns the principal a token stands for, or an error
	// wrapping index.ErrUnauthenticated for an unknown, expired or
	// revoked token.
	Authenticate(ctx context.Context, token string) (index.Principal, index.Token, error)
	// SessionPrincipal returns who a session cookie stands for, or an
	// error wrapping ErrUnauthenticated.
	SessionPrincipal(ctx context.Context, cookie string) (index.Principal, error)
	// FindPrivateProjects returns the private projects; the slice must
	// not be modified.
	FindPrivateProjects(ctx context.Context) ([]index.Project, error)
	FindProject(ctx context.Context, slug string) (index.Project, error)
	FindComponent(ctx context.Context, projectSlug, slug string) (index.Component, error)
	FindTranslation(ctx context.Context, projectSlug, componentSlug, languageCode string) (index.Translation, error)
	FindLanguage(ctx context.Context, code string) (index.Language, error)
	// LanguageStats returns statistics summed over every translation
	// into a language, leaving out the hidden projects.
	LanguageStats(ctx context.Context, code string, hidden ...int64) (index.Stats, error)
	// ApplyUpload applies a parsed file to a translation in one
	// transaction; see index.Upload for the rules.
	ApplyUpload(ctx context.Context, translationID int64, up index.Upload) (index.UploadResult, error)
	// CategoryPaths returns the paths of a project's categories
	// ("main", "main/docs"), none for an unknown project; the slice
	// must not be modified.
	CategoryPaths(ctx context.Context, projectSlug string) ([]string, error)
}

// Options configure the edge. The zero value is usable.
type Options struct {
	// Logger receives one line per request and every 5xx; nil discards.
	Logger *slog.Logger
	// BaseURL, when set, is the external address used in every URL of a
	// response (e.g. "https://tolk.example.com" or with a path prefix),
	// overriding the request's scheme, host and forwarded headers.
	BaseURL string
	// TrustedProxies are the addresses or CIDR ranges of reverse proxies
	// whose X-Forwarded-Proto and X-Forwarded-Host headers are believed.
	// Requests from anywhere else have those headers ignored.
	TrustedProxies []string
	// AllowedHosts are the host names (without port) a request may be
	// sent to when BaseURL is unset, besides the address it arrived on
	// and localhost: "tolk.example.com", ".example.com" (the domain and
	// its subdomains), "*" (any; only behind a proxy that checks). Other
	// hosts are refused with a 400, as the reference's ALLOWED_HOSTS.
	AllowedHosts []string
	// RateLimits limit the requests per client; the zero value limits
	// nothing (cmd/tolk sets the reference's defaults).
	RateLimits RateLimits
	// WriteTimeout is how long one write of a response may wait for the
	// client to take bytes. Every write moves the connection's deadline
	// on, so a large download on a slow link runs as long as bytes flow,
	// while a client that stops reading frees its response after this
	// long. 0 leaves write deadlines to the http.Server; negative is an
	// error.
	WriteTimeout time.Duration
	// MaxResponseBytes bounds one JSON answer; 0 means
	// DefaultMaxResponseBytes. A list page over it is refused with a 400
	// on page_size instead of being held and sent.
	MaxResponseBytes int
	// ResponseBudget bounds the bytes of JSON answers and pages being
	// built and sent at once, process-wide (budget.go); 0 means
	// DefaultResponseBudget. An answer that finds no room waits up to
	// ResponseBudgetWait (0: DefaultResponseBudgetWait), then is a 503.
	ResponseBudget     int64
	ResponseBudgetWait time.Duration
	// Version, when set, is sent in every response's Server header as
	// "Tolk/<Version>", so a client or an operator can tell which build
	// answered.
	Version string
	// Requests, when set, hears every request once it is answered, for
	// metrics.
	Requests RequestObserver
	// Startup reports the start-up import for /readyz
	// (*sync.Service); when nil, /readyz answers ready.
	Startup Startup

	base         string // BaseURL without its trailing slash
	proxies      []netip.Prefix
	allowedHosts []string // AllowedHosts, normalized
}

// Validate fills defaults and rejects a BaseURL that is not an absolute
// http(s) URL, proxies that are neither addresses nor CIDR ranges, a
// negative response limit or write timeout, malformed allowed hosts, and
// negative or period-less rate limits.
func (o *Options) Validate() error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case o.MaxResponseBytes == 0:
		o.MaxResponseBytes = DefaultMaxResponseBytes
	case o.MaxResponseBytes < 0:
		return fmt.Errorf("edge: max response size %d: want a positive number of bytes", o.MaxResponseBytes)
	}
	switch {
	case o.ResponseBudget < 0 || o.ResponseBudgetWait < 0:
		return fmt.Errorf("edge: response budget %d, wait %s: want positive values or 0", o.ResponseBudget, o.ResponseBudgetWait)
	case o.ResponseBudget == 0:
		o.ResponseBudget = DefaultResponseBudget
	}
	if o.ResponseBudgetWait == 0 {
		o.ResponseBudgetWait = DefaultResponseBudgetWait
	}
	if o.WriteTimeout < 0 {
		return fmt.Errorf("edge: write timeout %s: want a positive duration or 0", o.WriteTimeout)
	}
	o.base = ""
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("edge: base URL %q: want an absolute http or https URL without query", o.BaseURL)
		}
		o.base = strings.TrimRight(o.BaseURL, "/")
	}
	o.allowedHosts = nil
	for _, h := range o.AllowedHosts {
		p := normalizeHostPattern(h)
		if p == "" {
			return fmt.Errorf("edge: allowed host %q: want a host name, .domain, an IP address or *", h)
		}
		o.allowedHosts = append(o.allowedHosts, p)
	}
	var err error
	if o.proxies, err = ParseProxies(o.TrustedProxies); err != nil {
		return err
	}
	return o.RateLimits.validate()
}

// ParseProxies reads trusted proxies as Options.TrustedProxies gives
// them, each an IP address or a CIDR range, into ranges; it names the
// first that is neither.
func ParseProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, p := range list {
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			addr, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return nil, fmt.Errorf("edge: trusted proxy %q: want an IP address or CIDR range", p)
			}
			prefix = netip.PrefixFrom(addr, addr.BitLen())
		}
		out = append(out, prefix.Masked())
	}
	return out, nil
}

// Server is the edge every request passes: it owns the gin engine and
// its middleware chain, and hands the packages that serve an audience
// (api, web) a Router to register their routes on. It is safe for
// concurrent use once Handler has been called.
type Server struct {
	store  Store
	opts   Options
	log    *slog.Logger
	engine *gin.Engine
	// anonLimit, anonPageLimit and userLimit count requests per client;
	// nil when off.
	anonLimit, anonPageLimit, userLimit *Limiter
	// namedHosts are the Host headers allowed by name (hosts.go).
	namedHosts hostMemo
	// router is the resource table the audiences filled (router.go).
	router Router
	// budget is the response budget (budget.go).
	budget *byteBudget
}

var ginMode sync.Once

// New returns the edge over store. It panics if opts.Validate fails;
// call Validate first to get the error instead.
func New(store Store, opts Options) *Server {
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	// gin's mode is a process global; set it once so concurrent New calls
	// (tests) do not race, and never print gin's debug banner.
	ginMode.Do(func() { gin.SetMode(gin.ReleaseMode) })
	s := &Server{store: store, opts: opts, log: opts.Logger, budget: newByteBudget(opts.ResponseBudget),
		anonLimit:     NewLimiter(opts.RateLimits.Anonymous, &opts.RateLimits),
		anonPageLimit: NewLimiter(opts.RateLimits.AnonymousPages, &opts.RateLimits),
		userLimit:     NewLimiter(opts.RateLimits.User, &opts.RateLimits)}
	s.engine = s.newEngine()
	s.router = Router{s: s}
	return s
}

// Logger is the logger of the edge's options, for the audiences' own
// lines.
func (s *Server) Logger() *slog.Logger { return s.log }

// Router returns the router the audiences register their routes on,
// before the first request.
func (s *Server) Router() *Router { return &s.router }

// MaxResponseBytes is the bound on one JSON answer (Options).
func (s *Server) MaxResponseBytes() int { return s.opts.MaxResponseBytes }

// Handler returns the http.Handler serving every registered route.
// Its Routes lists the routes registered, as gin's engine does (tests
// walk them).
func (s *Server) Handler() http.Handler { return handler{s} }

// handler serves through Server.serveHTTP (paths.go).
type handler struct{ s *Server }

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.s.serveHTTP(w, r) }

// Routes are the engine's routes.
func (h handler) Routes() gin.RoutesInfo { return h.s.engine.Routes() }

// NewRateLimiter returns a limiter of its own with the edge's bound on
// clients, for a limit an audience keeps (the sign-in form's).
func (s *Server) NewRateLimiter(l RateLimit) *Limiter { return NewLimiter(l, &s.opts.RateLimits) }

func (s *Server) newEngine() *gin.Engine {
	e := gin.New()
	// Answer unknown paths with a JSON 404 instead of gin's redirects,
	// whose bodies are HTML.
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	// Route on the canonical raw path (paths.go), so that a component's
	// full slug, cat%2Fslug, is one parameter.
	e.UseRawPath = true
	e.UnescapePathValues = true
	// gin's ClientIP follows the same trust as the URL builder.
	if err := e.SetTrustedProxies(s.opts.TrustedProxies); err != nil {
		panic(fmt.Errorf("edge: trusted proxies: %w", err)) // Validate accepted them
	}
	// Probes come every few seconds and carry no token: they are
	// neither logged nor authenticated (nor rate limited).
	s.healthRoutes(e)
	e.Use(s.requestScope, s.recovery, s.checkHost, s.authenticate)
	e.NoRoute(s.noRoute)
	e.NoMethod(s.noMethod)
	return e
}
