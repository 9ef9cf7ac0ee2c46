package machinery

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tolk-project/tolk/index"
)

// Defaults of Options.
const (
	DefaultTimeout          = 10 * time.Second
	DefaultLLMTimeout       = 60 * time.Second
	DefaultMaxResponseBytes = 4 << 20
)

// maxEngines bounds the configured engines a Broker keeps (each with
// its language pairs); past it they are all built afresh.
const maxEngines = 1000

// Options configure a Broker.
type Options struct {
	// Site are the site-wide services (the setup file's machinery key),
	// which every project has unless it configures the same service
	// itself. They may name loopback and private addresses.
	Site map[string]Config
	// AllowPrivate lets projects' settings name loopback, link-local and
	// private addresses, refused otherwise (in the URL and at every
	// connection).
	AllowPrivate bool
	// Timeout bounds one engine's answer to one request; 0 is
	// DefaultTimeout.
	Timeout time.Duration
	// LLMTimeout is Timeout for the LLM services (Service.LLM), whose
	// answers take longer (the reference gives them 60 s); 0 is
	// DefaultLLMTimeout.
	LLMTimeout time.Duration
	// MaxResponseBytes bounds one answer of a service; 0 is
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// SameSource serves the "weblate" service; nil leaves it
	// unavailable.
	SameSource SameSourceFinder
	// Memory serves the "weblate-translation-memory" service; nil
	// leaves it unavailable.
	Memory Memory
	// Glossary gives the services that take one (DeepL, the LLMs) the
	// project's glossary; nil: they translate without.
	Glossary Glossary
	// Logger records what the engines do not answer with an error (a
	// DeepL glossary not used); nil discards it. Keys never reach it.
	Logger *slog.Logger
}

// Validate fills defaults and rejects negative limits and site settings
// that name unknown services or configure them wrongly.
func (o *Options) Validate() error {
	if o.Timeout < 0 || o.LLMTimeout < 0 || o.MaxResponseBytes < 0 {
		return errors.New("machinery: timeout and response size must not be negative")
	}
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.LLMTimeout = cmp.Or(o.LLMTimeout, DefaultLLMTimeout)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.MaxResponseBytes = cmp.Or(o.MaxResponseBytes, DefaultMaxResponseBytes)
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(o.Site)) {
		s, ok := Lookup(id)
		if !ok {
			errs = append(errs, fmt.Errorf("machinery: %s: no such service", id))
			continue
		}
		for _, fe := range s.Check(o.Site[id], true) {
			errs = append(errs, fmt.Errorf("machinery: %s: %s: %s", id, fe.Key, fe.Message))
		}
	}
	return errors.Join(errs...)
}

// Broker builds the engines of a project's services and queries them.
// It keeps engines it built, keyed by their configuration, so a
// service's language pairs are downloaded once an hour rather than per
// string. It is safe for concurrent use.
type Broker struct {
	opts Options
	// site is the client of site-wide services (private addresses
	// allowed), project the client of projects' (guarded unless
	// AllowPrivate).
	site, project *env

	mu      sync.Mutex // guards engines
	engines map[string]Engine
}

// New returns a Broker, or the error of opts.Validate.
func New(opts Options) (*Broker, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	b := &Broker{opts: opts, engines: map[string]Engine{}}
	glossary := &glossaryReader{g: opts.Glossary, lists: map[glossaryKey]cachedTerms{}}
	b.site = &env{http: newHTTPClient(true, opts.Timeout, opts.MaxResponseBytes),
		llm: newHTTPClient(true, opts.LLMTimeout, opts.MaxResponseBytes), same: opts.SameSource,
		memory: opts.Memory, glossary: glossary, log: opts.Logger}
	b.project = &env{http: newHTTPClient(opts.AllowPrivate, opts.Timeout, opts.MaxResponseBytes),
		llm:  newHTTPClient(opts.AllowPrivate, opts.LLMTimeout, opts.MaxResponseBytes),
		same: opts.SameSource, memory: opts.Memory, glossary: glossary, log: opts.Logger}
	return b, nil
}

// Check returns the problems of cfg as a project's configuration of the
// service id: an unknown service, one this server cannot run, or the
// service's own Check.
func (b *Broker) Check(id string, cfg Config) []FieldError {
	s, ok := Lookup(id)
	switch {
	case !ok:
		return []FieldError{{"service", fmt.Sprintf("%q is not a valid choice.", id)}}
	case s.ID == weblateService.ID && b.opts.SameSource == nil,
		s.ID == memoryService.ID && b.opts.Memory == nil:
		return []FieldError{{"service", s.Name + " is not available on this server."}}
	}
	return s.Check(cfg, b.opts.AllowPrivate)
}

// Configured is a service as a project has it: its own configuration or
// the site's.
type Configured struct {
	Service *Service
	Config  Config
	// Site says the configuration is the site's.
	Site bool
}

// Effective returns the services a project with the given settings
// has: its own, laid over the site's, best rank first (then by
// identifier), as the reference's get_machinery_settings.
func (b *Broker) Effective(project index.MachinerySettings) []Configured {
	var out []Configured
	for id, cfg := range b.opts.Site {
		if _, own := project[id]; !own {
			s, _ := Lookup(id)
			out = append(out, Configured{Service: s, Config: cfg, Site: true})
		}
	}
	for id, cfg := range project {
		if s, ok := Lookup(id); ok {
			out = append(out, Configured{Service: s, Config: cfg})
		}
	}
	slices.SortFunc(out, func(a, b Configured) int {
		return cmp.Or(cmp.Compare(b.Service.RankBoost, a.Service.RankBoost), cmp.Compare(a.Service.ID, b.Service.ID))
	})
	return out
}

// ErrNotConfigured is a service the project does not have.
var ErrNotConfigured = index.Errorf(index.ErrNotFound, "This machine translation service is not configured for the project.")

// Find returns the service id as the project has it, or an error
// wrapping ErrNotConfigured.
func (b *Broker) Find(project index.MachinerySettings, id string) (Configured, error) {
	for _, c := range b.Effective(project) {
		if c.Service.ID == id {
			return c, nil
		}
	}
	return Configured{}, ErrNotConfigured
}

// engine returns the engine of a configured service, built once per
// configuration.
func (b *Broker) engine(c Configured) (Engine, error) {
	cfg, err := json.Marshal(c.Config)
	if err != nil {
		return nil, err
	}
	e := b.project
	key := "project\x00" + c.Service.ID + "\x00" + string(cfg)
	if c.Site {
		e, key = b.site, "site\x00"+c.Service.ID+"\x00"+string(cfg)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if eng, ok := b.engines[key]; ok {
		return eng, nil
	}
	eng, err := c.Service.newEngine(c.Config, e)
	if err != nil {
		return nil, err
	}
	if len(b.engines) >= maxEngines {
		clear(b.engines)
	}
	b.engines[key] = eng
	return eng, nil
}

// Translate asks one configured service for req's texts, under its own
// deadline (Options.Timeout, LLMTimeout for an LLM, within ctx's), and
// returns its candidates for each text, sorted best first. Any failure
// is an *Error naming the service: unreachable, too slow, an HTTP
// error, an answer too big or not the JSON expected, an unsupported
// pair (wrapping ErrUnsupported), even a panic of the engine.
func (b *Broker) Translate(ctx context.Context, c Configured, req Request) (out [][]Translation, err error) {
	timeout := b.opts.Timeout
	if c.Service.LLM {
		timeout = b.opts.LLMTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("the engine failed: %v", p)
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = &timeoutError{timeout}
			}
			err = &Error{Service: c.Service.Name, Err: err}
		}
	}()
	eng, err := b.engine(c)
	if err != nil {
		return nil, err
	}
	out, err = eng.Translate(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(out) != len(req.Texts) {
		return nil, errUnexpected
	}
	for _, list := range out {
		for i := range list {
			list[i].rank = c.Service.RankBoost
			list[i].Quality = min(max(list[i].Quality, 0), 100)
		}
		Sort(list)
	}
	return out, nil
}

// errUnexpected is an answer that parses but does not say what the
// engine's protocol says it must.
var errUnexpected = errors.New("the service answered something that is not the JSON expected")

// Sort orders candidates best first: by quality, then by the rank
// boost of their service, as the reference does.
func Sort(list []Translation) {
	slices.SortStableFunc(list, func(a, b Translation) int {
		return cmp.Or(cmp.Compare(b.Quality, a.Quality), cmp.Compare(b.rank, a.rank))
	})
}

// timeoutError is an engine that did not answer within its deadline; it
// matches context.DeadlineExceeded.
type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string { return fmt.Sprintf("no answer within %v", e.after) }
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }
