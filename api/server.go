package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// Store is what the API reads. Each resource file declares the part it
// uses (translationStore in translations.go, and so on). Every method
// returns an error wrapping index.ErrNotFound when the object does not
// exist; other errors are internal. *sqlite.DB satisfies it.
type Store interface {
	translationStore
	unitStore
	changeStore
	languageStore
	projectStore
	componentStore
	userStore
	repositoryStore
	authStore
	uploadStore
	unitWriteStore
	lockStore
	visibilityStore
	projectWriteStore
	componentWriteStore
	translationWriteStore
	languageWriteStore
	hookStore
	sessionStore
	addonStore
}

// RequestObserver hears each request once it is answered: the route
// pattern that matched ("" when none did, so that arbitrary paths do not
// multiply series), the method as the client sent it, the status and the
// time taken. It must be safe for concurrent use and fast: it runs in
// every request.
type RequestObserver interface {
	ObserveRequest(route, method string, status int, took time.Duration)
}

// Options configure a Server. The zero value is usable.
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
	// Repositories serves the repository status, file download and Git
	// export endpoints (*sync.Service); when nil, they answer 404.
	Repositories Repositories
	// Files parses uploads and renders downloads with the edits not yet
	// committed (*sync.Service); when nil, uploads answer 404 and
	// downloads serve the committed files.
	Files TranslationFiles
	// MaxUploadBytes bounds an uploaded file; 0 means
	// DefaultMaxUploadBytes.
	MaxUploadBytes int64
	// MaxResponseBytes bounds one JSON answer; 0 means
	// DefaultMaxResponseBytes. A list page over it is refused with a 400
	// on page_size instead of being held and sent.
	MaxResponseBytes int
	// RateLimits limit the requests to /api/ per client; the zero value
	// limits nothing (cmd/tolk sets the reference's defaults).
	RateLimits RateLimits
	// Components checks repositories and imports components for the
	// component writes (*sync.Service); when nil, those writes and the
	// tasks endpoints are unavailable.
	Components Components
	// Operations runs the commit, push, cleanup, file-sync and file-scan
	// operations of POST .../repository/ (*sync.Service); when nil, every operation answers
	// result false with a detail saying Tolk does not run it.
	Operations RepositoryOperations
	// AllowLocalRepos lets clients give file:// repository URLs, which
	// read the server's own disk: for single-user deployments and tests.
	AllowLocalRepos bool
	// Hooks updates the components an incoming webhook names
	// (*sync.Service); when nil, /hooks/ answers 405, as the reference
	// does with ENABLE_HOOKS off.
	Hooks HookUpdater
	// HookSecret, when set, is the site-wide secret incoming webhooks
	// must be signed with, for the components of projects that have no
	// secret of their own.
	HookSecret string
	// Version, when set, is sent in every response's Server header as
	// "Tolk/<Version>", so a client or an operator can tell which build
	// answered.
	Version string
	// Requests, when set, hears every request once it is answered, for
	// metrics.
	Requests RequestObserver
	// FileFormats are the file formats components may use (cmd/tolk
	// lists formats.All()); nil means json and tbx.
	FileFormats []FileFormat
	// Startup reports the start-up import for /readyz
	// (*sync.Service); when nil, /readyz answers ready.
	Startup Startup
	// AllowedHosts are the host names (without port) a request may be
	// sent to when BaseURL is unset, besides the address it arrived on
	// and localhost: "tolk.example.com", ".example.com" (the domain and
	// its subdomains), "*" (any; only behind a proxy that checks). Other
	// hosts are refused with a 400, as the reference's ALLOWED_HOSTS.
	AllowedHosts []string
	// WriteTimeout is how long one write of a response may wait for the
	// client to take bytes. Every write moves the connection's deadline
	// on, so a large download on a slow link runs as long as bytes flow,
	// while a client that stops reading frees its response after this
	// long. 0 leaves write deadlines to the http.Server; negative is an
	// error.
	WriteTimeout time.Duration
	// WebhookAllowPrivate lets webhook add-ons name targets on loopback,
	// link-local and private addresses (index.PrivateAddress), which are
	// refused otherwise. The sender checks every address it dials too.
	WebhookAllowPrivate bool

	base         string // BaseURL without its trailing slash
	proxies      []netip.Prefix
	allowedHosts []string // AllowedHosts, normalized
}

// Validate fills defaults and rejects a BaseURL that is not an absolute
// http(s) URL, proxies that are neither addresses nor CIDR ranges, a
// negative upload limit or write timeout, malformed allowed hosts, and
// negative or period-less rate limits.
func (o *Options) Validate() error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.FileFormats == nil {
		o.FileFormats = defaultFileFormats
	}
	switch {
	case o.MaxUploadBytes == 0:
		o.MaxUploadBytes = DefaultMaxUploadBytes
	case o.MaxUploadBytes < 0:
		return fmt.Errorf("api: max upload size %d: want a positive number of bytes", o.MaxUploadBytes)
	}
	switch {
	case o.MaxResponseBytes == 0:
		o.MaxResponseBytes = DefaultMaxResponseBytes
	case o.MaxResponseBytes < 0:
		return fmt.Errorf("api: max response size %d: want a positive number of bytes", o.MaxResponseBytes)
	}
	if o.WriteTimeout < 0 {
		return fmt.Errorf("api: write timeout %s: want a positive duration or 0", o.WriteTimeout)
	}
	o.base = ""
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("api: base URL %q: want an absolute http or https URL without query", o.BaseURL)
		}
		o.base = strings.TrimRight(o.BaseURL, "/")
	}
	o.allowedHosts = nil
	for _, h := range o.AllowedHosts {
		p := normalizeHostPattern(h)
		if p == "" {
			return fmt.Errorf("api: allowed host %q: want a host name, .domain, an IP address or *", h)
		}
		o.allowedHosts = append(o.allowedHosts, p)
	}
	o.proxies = nil
	for _, p := range o.TrustedProxies {
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			addr, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return fmt.Errorf("api: trusted proxy %q: want an IP address or CIDR range", p)
			}
			prefix = netip.PrefixFrom(addr, addr.BitLen())
		}
		o.proxies = append(o.proxies, prefix.Masked())
	}
	return o.RateLimits.validate()
}

// Server is the HTTP API. It is safe for concurrent use.
type Server struct {
	store  Store
	opts   Options
	log    *slog.Logger
	engine *gin.Engine
	// anonLimit and userLimit count requests per client; nil when off.
	anonLimit, userLimit *limiter
	// loginLimit counts failed sign-ins per address and username.
	loginLimit *limiter
	// pageBodies keeps rendered list pages (pagebodies.go).
	pageBodies pageBodies
	// namedHosts are the Host headers allowed by name (hosts.go).
	namedHosts hostMemo
}

var ginMode sync.Once

// New returns a Server reading from store. It panics if opts.Validate
// fails; call Validate first to get the error instead.
func New(store Store, opts Options) *Server {
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	// gin's mode is a process global; set it once so concurrent New calls
	// (tests) do not race, and never print gin's debug banner.
	ginMode.Do(func() { gin.SetMode(gin.ReleaseMode) })
	s := &Server{store: store, opts: opts, log: opts.Logger,
		anonLimit:  newLimiter(opts.RateLimits.Anonymous, &opts.RateLimits),
		userLimit:  newLimiter(opts.RateLimits.User, &opts.RateLimits),
		loginLimit: newLimiter(RateLimit{Requests: LoginLimit, Period: LoginLimitPeriod}, &opts.RateLimits)}
	s.engine = s.newEngine()
	return s
}

// Handler returns the http.Handler serving the API.
func (s *Server) Handler() http.Handler { return s.engine }

// resource is one endpoint: its gin path, the name OPTIONS reports, the
// methods Allow advertises (in the reference's order) and its GET handler.
type resource struct {
	path  string
	name  string
	allow []string
	get   gin.HandlerFunc
}

// resources lists every JSON endpoint. Each resource file contributes its
// own, so the table has one owner per resource.
func (s *Server) resources() []resource {
	var all []resource
	for _, group := range [][]resource{
		s.rootResources(), s.projectResources(), s.componentResources(), s.translationResources(),
		s.unitResources(), s.changeResources(), s.languageResources(), s.userResources(),
		s.repositoryResources(), s.webResources(), s.taskResources(), s.addonResources(),
	} {
		all = append(all, group...)
	}
	return all
}

func (s *Server) newEngine() *gin.Engine {
	e := gin.New()
	// Answer unknown paths with a JSON 404 instead of gin's redirects,
	// whose bodies are HTML.
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	// gin's ClientIP follows the same trust as the URL builder.
	if err := e.SetTrustedProxies(s.opts.TrustedProxies); err != nil {
		panic(fmt.Errorf("api: trusted proxies: %w", err)) // Validate accepted them
	}
	// Probes come every few seconds and carry no token: they are
	// neither logged nor authenticated (nor rate limited).
	s.healthRoutes(e)
	e.Use(s.requestScope, s.recovery, s.checkHost, s.authenticate)

	resources := s.resources()
	writes := s.writeHandlers()
	for _, r := range resources {
		allow := strings.Join(r.allow, ", ")
		withAllow := func(c *gin.Context) { c.Header("Allow", allow) }
		for _, m := range r.allow {
			switch m {
			case http.MethodGet, http.MethodHead:
				e.Handle(m, r.path, withAllow, r.get)
			case http.MethodOptions:
				e.Handle(m, r.path, withAllow, s.options(r.name))
			default:
				h, ok := writes[writeKey{r.path, m}]
				if !ok {
					h = s.notImplemented
				}
				e.Handle(m, r.path, withAllow, s.requireSignedIn, h)
			}
		}
	}
	for k := range writes {
		if !advertised(resources, k) {
			panic(fmt.Sprintf("api: %s %s has a handler but no resource advertises it", k.method, k.path))
		}
	}
	s.gitRoutes(e)
	s.hookRoutes(e)
	s.webRoutes(e)
	e.NoRoute(func(c *gin.Context) {
		if to, ok := slashRedirect(c.Request.URL, resources); ok {
			// The reference's framework appends the slash with a permanent
			// redirect and an empty body, for every method.
			c.Header("Location", to)
			c.Status(http.StatusMovedPermanently)
			c.Writer.WriteHeaderNow()
			return
		}
		s.fail(c, errNoRoute)
	})
	e.NoMethod(func(c *gin.Context) {
		for _, r := range resources {
			if matchPath(r.path, c.Request.URL.Path) {
				c.Header("Allow", strings.Join(r.allow, ", "))
				break
			}
		}
		s.fail(c, &methodError{method: c.Request.Method})
	})
	return e
}

// slashRedirect returns where a path that lacks only its trailing slash
// should go: the same path with the slash, query kept.
func slashRedirect(u *url.URL, resources []resource) (string, bool) {
	if strings.HasSuffix(u.Path, "/") {
		return "", false
	}
	path := u.Path + "/"
	for _, r := range resources {
		if matchPath(r.path, path) {
			to := u.EscapedPath() + "/"
			if u.RawQuery != "" {
				to += "?" + u.RawQuery
			}
			return to, true
		}
	}
	return "", false
}

// matchPath reports whether path matches a gin pattern whose ":name"
// segments match any one non-empty segment. gin knows which methods a path
// has but not which resource it is; 405 needs the resource's Allow.
func matchPath(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, ":") {
			if xs[i] == "" {
				return false
			}
		} else if p != xs[i] {
			return false
		}
	}
	return true
}

// metadata is the body of an OPTIONS response, as the reference's
// framework describes a view.
type metadata struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Renders     []string `json:"renders"`
	Parses      []string `json:"parses"`
}

func (s *Server) options(name string) gin.HandlerFunc {
	body := metadata{
		Name:        name,
		Description: "",
		Renders:     []string{"application/json", "text/html"},
		Parses:      []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"},
	}
	return func(c *gin.Context) { s.writeJSON(c, http.StatusOK, body) }
}

// writeKey names one write route: a resource's path and a method.
type writeKey struct{ path, method string }

// write is one handler of a write route.
type write struct {
	path, method string
	handle       gin.HandlerFunc
}

// writeHandlers collects the write routes each resource file
// contributes. Every one runs after requireSignedIn.
func (s *Server) writeHandlers() map[writeKey]gin.HandlerFunc {
	out := map[writeKey]gin.HandlerFunc{}
	for _, group := range [][]write{
		s.unitWrites(), s.uploadWrites(), s.projectWrites(), s.componentWrites(),
		s.translationWrites(), s.languageWrites(), s.lockWrites(), s.userWrites(),
		s.repositoryWrites(), s.taskWrites(), s.addonWrites(),
	} {
		for _, w := range group {
			out[writeKey{w.path, w.method}] = w.handle
		}
	}
	return out
}

func advertised(resources []resource, k writeKey) bool {
	for _, r := range resources {
		if r.path == k.path && slices.Contains(r.allow, k.method) {
			return true
		}
	}
	return false
}

// errNotImplemented answers the methods an endpoint advertises (as the
// reference does) but Tolk cannot perform yet.
var errNotImplemented = index.Errorf(index.ErrPermission, "This operation is not supported by Tolk yet.")

// notImplemented answers every advertised write method until it exists.
func (s *Server) notImplemented(c *gin.Context) { s.fail(c, errNotImplemented) }

// errNoRoute is the answer for paths that name no endpoint.
var errNoRoute = index.Errorf(index.ErrNotFound, "Not found.")
