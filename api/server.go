package api

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/machinery"
)

// Store is what the API reads and writes. Each resource file declares
// the part it uses (translationStore in translations.go, and so on).
// Every method returns an error wrapping index.ErrNotFound when the
// object does not exist; other errors are internal. *sqlstore.DB
// satisfies it.
type Store interface {
	translationStore
	unitStore
	changeStore
	languageStore
	projectStore
	componentStore
	userStore
	repositoryStore
	uploadStore
	unitWriteStore
	lockStore
	projectWriteStore
	componentWriteStore
	translationWriteStore
	languageWriteStore
	hookStore
	addonStore
	checkStore
	suggestionStore
	commentStore
	labelStore
	machineryStore
	memoryStore
	categoryStore
	peopleStore
	autoTranslateStore
	roleStore
	groupStore
	componentListStore
}

// Options configure the API. The zero value is usable: the repository,
// file, component-write, task and hook endpoints then answer that Tolk
// does not run them here.
type Options struct {
	// Repositories serves the repository status, file download and Git
	// export endpoints (*sync.Service); when nil, they answer 404.
	Repositories Repositories
	// Files parses uploads and renders downloads with the edits not yet
	// committed (*sync.Service); when nil, uploads answer 404 and
	// downloads serve the committed files.
	Files TranslationFiles
	// MaxUploadBytes bounds an uploaded file; 0 means
	// edge.DefaultMaxUploadBytes.
	MaxUploadBytes int64
	// Components checks repositories and imports components for the
	// component writes (*sync.Service); when nil, those writes and the
	// tasks endpoints are unavailable.
	Components Components
	// Operations runs the commit, push, cleanup, file-sync and file-scan
	// operations of POST .../repository/ (*sync.Service); when nil,
	// every operation answers result false with a detail saying Tolk
	// does not run it.
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
	// FileFormats are the file formats components may use (cmd/tolk
	// lists formats.All()); nil means json and tbx.
	FileFormats []FileFormat
	// WebhookAllowPrivate lets webhook add-ons name targets on loopback,
	// link-local and private addresses (index.PrivateAddress), which are
	// refused otherwise. The sender checks every address it dials too.
	WebhookAllowPrivate bool
	// AnonymousSuggestions lets anonymous callers suggest on public
	// projects (the reference's Guests team may), each client address at
	// most this often; the zero value (off) refuses them with 401.
	AnonymousSuggestions edge.RateLimit
	// Machinery checks the machine translation services projects
	// configure (and queries them, for the pages); nil is a Broker with
	// machinery's defaults: no site-wide services, private addresses
	// refused.
	Machinery *machinery.Broker
	// MemoryFiles reads and writes the translation memory's TMX files
	// (sync.MemoryFiles); when nil, memory imports and exports take JSON
	// only.
	MemoryFiles MemoryFiles
	// AutoTranslate runs automatic translations (*autotranslate.Runner);
	// when nil, POST .../autotranslate/ answers 501.
	AutoTranslate AutoTranslator
	// AutoTranslateWait is how long an automatic translation request
	// waits for its job before answering 202 with the task; 0 is
	// DefaultAutoTranslateWait.
	AutoTranslateWait time.Duration
	// Addons runs the add-ons that act when installed, when a
	// translation is added, or when triggered (*sync.Service); when nil
	// they run only on their other events.
	Addons AddonRunner
}

// Validate fills defaults and rejects a negative upload limit.
func (o *Options) Validate() error {
	if o.Machinery == nil {
		b, err := machinery.New(machinery.Options{})
		if err != nil {
			return err
		}
		o.Machinery = b
	}
	if o.AutoTranslateWait <= 0 {
		o.AutoTranslateWait = DefaultAutoTranslateWait
	}
	if o.FileFormats == nil {
		o.FileFormats = defaultFileFormats
	}
	switch {
	case o.MaxUploadBytes == 0:
		o.MaxUploadBytes = edge.DefaultMaxUploadBytes
	case o.MaxUploadBytes < 0:
		return fmt.Errorf("api: max upload size %d: want a positive number of bytes", o.MaxUploadBytes)
	}
	return nil
}

// Server is the Weblate-compatible REST API: the JSON resources under
// /api/, the Git export under /git/ and the Git hosts' hooks under
// /hooks/, on the routes of an edge.Server. It is safe for concurrent
// use.
type Server struct {
	store Store
	opts  Options
	edge  *edge.Server
	log   *slog.Logger
	// pageBodies keeps rendered list pages (pagebodies.go).
	pageBodies pageBodies
	// anonSuggestions counts anonymous suggestions per address; nil when
	// they are off.
	anonSuggestions *edge.Limiter
}

// New registers the API's routes on e, reading from store, and returns
// it. It panics if opts.Validate fails; call Validate first to get the
// error instead.
func New(e *edge.Server, store Store, opts Options) *Server {
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	s := &Server{store: store, opts: opts, edge: e, log: e.Logger()}
	if !opts.AnonymousSuggestions.Off() {
		s.anonSuggestions = e.NewRateLimiter(opts.AnonymousSuggestions)
	}
	s.routes(e.Router())
	return s
}

// routes registers every route of the API, one call per resource file;
// each of those says, on one screen, which method of which path calls
// which handler.
func (s *Server) routes(r *edge.Router) {
	s.rootRoutes(r)
	s.projectRoutes(r)
	s.componentRoutes(r)
	s.translationRoutes(r)
	s.unitRoutes(r)
	s.checkRoutes(r)
	s.commentRoutes(r)
	s.labelRoutes(r)
	s.changeRoutes(r)
	s.languageRoutes(r)
	s.userRoutes(r)
	s.peopleRoutes(r)
	s.repositoryRoutes(r)
	s.taskRoutes(r)
	s.addonRoutes(r)
	s.hookRoutes(r)
	s.suggestionRoutes(r)
	s.machineryRoutes(r)
	s.memoryRoutes(r)
	s.categoryRoutes(r)
	s.autoTranslateRoutes(r)
	s.roleRoutes(r)
	s.groupRoutes(r)
	s.componentListRoutes(r)
}
