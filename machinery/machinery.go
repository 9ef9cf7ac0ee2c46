package machinery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
)

// Engine is one configured machine translation service. Its methods are
// safe for concurrent use; each takes the context whose deadline bounds
// the whole call.
type Engine interface {
	// Translate returns, for each text of req, in order, the engine's
	// candidates (none when it has nothing). A pair the engine does not
	// translate is an error wrapping ErrUnsupported.
	Translate(ctx context.Context, req Request) ([][]Translation, error)
}

// Pair is a source and target language an engine translates between,
// in the engine's codes ("eng", "spa").
type Pair struct{ Source, Target string }

// Request is a batch of texts to translate from one language into
// another, with where they come from for the internal services.
type Request struct {
	// SourceLanguage and TargetLanguage are Tolk's language codes
	// ("en", "pt_BR"); each engine maps them to its own.
	SourceLanguage, TargetLanguage string
	// Texts are the source texts, one string each.
	Texts []string
	// ProjectID and ComponentID say where the texts come from: the
	// "weblate" service looks in the project's other components.
	ProjectID, ComponentID int64
	// UnitID and Context name the string asking, when one does: the
	// memory leaves the string itself out and prefers entries of the
	// same context.
	UnitID  int64
	Context string
	// UserID is who asks (0: nobody in particular), and Hidden the
	// projects they may not read: the memory adds their personal scope,
	// their own translations in other projects (index.MemoryQuery).
	UserID int64
	Hidden []int64
}

// Translation is one candidate translation, with the reference's keys
// (reference workspace §6.1: text, quality, service, source, origin,
// show_quality).
type Translation struct {
	Text string
	// Quality is 0-100: the service's max score for machine
	// translation, the match's similarity for the internal services.
	Quality int
	// Service is the service's name ("Apertium APy").
	Service string
	// Source is the source text the candidate translates.
	Source string
	// Origin says where an internal match comes from (a component's
	// name); "" for machine translation.
	Origin string
	// ShowQuality says whether the quality means something to a
	// translator: a match's similarity does, a fixed max score does not.
	ShowQuality bool
	// UnitID is, for a memory match of a string's current translation
	// (not an imported entry), that string's unit: automatic
	// translation credits whoever made the translation, as the
	// reference credits its memory entry's user. 0 otherwise.
	UnitID int64
	// rank orders candidates of equal quality: the service's rank boost.
	rank int
}

// Config is a service's configuration as the API and the setup file
// give it: the reference's keys ("url", "key", "formality").
type Config map[string]any

// LogValue redacts every secret key, so a Config can be logged.
func (c Config) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, len(c))
	for _, k := range slices.Sorted(maps.Keys(c)) {
		v := c[k]
		if secretKey(k) {
			v = "[redacted]"
		}
		attrs = append(attrs, slog.Any(k, v))
	}
	return slog.GroupValue(attrs...)
}

// secretKey reports whether a configuration key holds a credential.
func secretKey(k string) bool { return k == "key" || k == "secret" || strings.HasSuffix(k, "_key") }

// String returns the configuration value of key, or "" when it is
// absent or not a string.
func (c Config) String(key string) string {
	s, _ := c[key].(string)
	return s
}

// Errors of the engines. Every error a Broker returns is an *Error
// naming the service; these are what it may wrap.
var (
	// ErrUnsupported is a language pair the engine does not translate.
	ErrUnsupported = errors.New("machinery: language pair not supported")
	// ErrUnavailable is a service this server cannot run (the memory
	// before it is wired in).
	ErrUnavailable = errors.New("machinery: service not available on this server")
)

// Error is an engine's failure, carrying the service's name so that
// whoever shows it says which engine failed. Its text never holds the
// service's credentials.
type Error struct {
	Service string // the service's name, "DeepL"
	Err     error
}

func (e *Error) Error() string { return e.Service + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Key is one configuration key of a service.
type Key struct {
	Name     string
	Required bool
	// Secret keys are credentials: never logged nor put in errors.
	Secret bool
	// URL keys name an engine's address, checked against private
	// addresses unless allowed.
	URL bool
	// Choices, when set, are the values the key may take.
	Choices []string
}

// Service describes one machine translation service of the registry.
type Service struct {
	// ID is the reference's identifier: its name lower-cased with
	// spaces as "-" (reference workspace §6.1).
	ID        string
	Name      string
	MaxScore  int
	RankBoost int
	Keys      []Key
	// Internal services read Tolk's own data and make no HTTP calls.
	Internal bool
	// LLM services (large language models) answer slowly: their calls
	// have Options.LLMTimeout, not Options.Timeout.
	LLM bool
	// check, when set, returns the problems of a configuration the
	// keys' own rules accept that only the keys together show.
	check func(cfg Config) []FieldError
	// newEngine builds an engine from a configuration Check accepted.
	newEngine func(cfg Config, env *env) (Engine, error)
}

// env is what engines are built with: the HTTP clients their settings'
// origin allows (llm for the LLM services' longer calls), the Broker's
// stores and its logger.
type env struct {
	http, llm *httpClient
	same      SameSourceFinder
	memory    Memory
	glossary  *glossaryReader
	log       *slog.Logger
}

// registry is every service Tolk has, in the reference's list order.
var registry = []*Service{apertiumService, libreTranslateService, deeplService, openAIService, azureOpenAIService,
	weblateService, memoryService}

// Services returns the services Tolk has, in a stable order.
func Services() []*Service { return slices.Clone(registry) }

// Lookup returns the service with the identifier id.
func Lookup(id string) (*Service, bool) {
	for _, s := range registry {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// FieldError is a configuration a service does not accept: the key and
// why, in words a client can act on.
type FieldError struct {
	Key, Message string
}

func (e *FieldError) Error() string { return fmt.Sprintf("machinery: %s: %s", e.Key, e.Message) }

// Check returns the problems of cfg as the service's configuration: an
// unknown key, a missing required one, a value of the wrong type or not
// among the choices, a URL that is not http(s) or, unless allowPrivate,
// names a private or loopback host. It returns nil when cfg is usable.
func (s *Service) Check(cfg Config, allowPrivate bool) []FieldError {
	var out []FieldError
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		if !slices.ContainsFunc(s.Keys, func(key Key) bool { return key.Name == k }) {
			out = append(out, FieldError{k, "Unknown setting for " + s.Name + "."})
		}
	}
	for _, k := range s.Keys {
		v, given := cfg[k.Name]
		str, isString := v.(string)
		switch {
		case !given || v == nil || (isString && str == ""):
			if k.Required {
				out = append(out, FieldError{k.Name, "This field is required."})
			}
		case !isString:
			out = append(out, FieldError{k.Name, "Not a valid string."})
		case len(str) > 2000:
			out = append(out, FieldError{k.Name, "Ensure this field has no more than 2000 characters."})
		case k.Choices != nil && !slices.Contains(k.Choices, str):
			out = append(out, FieldError{k.Name, fmt.Sprintf("%q is not a valid choice.", str)})
		case k.URL:
			if msg := checkURL(str, allowPrivate); msg != "" {
				out = append(out, FieldError{k.Name, msg})
			}
		}
	}
	if len(out) == 0 && s.check != nil {
		out = s.check(cfg)
	}
	return out
}
